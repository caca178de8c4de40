# firmware/: the device firmware (freestanding C behind firmware/hal.h).
#   libhcafw      the host-built firmware core, linked into sim/device.c
#   firmware/rv32 the same sources as an RV32IMC image (fw_rv32 test)
#   firmware/fuzz the libFuzzer target for the command parser (fw_fuzz test, make fuzz)
FW_SRCS := firmware/fw_boot.c firmware/fw_check.c firmware/fw_cmd.c firmware/fw_cmdq.c \
	   firmware/fw_context.c firmware/fw_cq_eq.c firmware/fw_device.c firmware/fw_engine.c \
	   firmware/fw_event.c firmware/fw_handle.c firmware/fw_mr.c firmware/fw_objects.c \
	   firmware/fw_qp.c firmware/fw_qp_modify.c firmware/fw_srq.c firmware/fw_uapi.c \
	   firmware/fw_uapi_core.c firmware/fw_uapi_driver.c

LIBS += hcafw
LIB_SRCS_hcafw += $(FW_SRCS)
CFLAGS_firmware := -Ifirmware -Isim -Itests -ffreestanding

# Unit and integration tests (fake engine: firmware/tests/fake_engine.c).
FW_TEST_COMMON := firmware/tests/fake_engine.c firmware/tests/fw_test.c
$(eval $(call hca_test,fw_handle,firmware/tests/test_fw_handle.c,hcafw))
$(eval $(call hca_test,fw_uapi,firmware/tests/test_fw_uapi.c,hcafw))
$(eval $(call hca_test,fw_boot,firmware/tests/test_fw_boot.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
$(eval $(call hca_test,fw_cmd,firmware/tests/test_fw_cmd.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
$(eval $(call hca_test,fw_objects,firmware/tests/test_fw_objects.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
$(eval $(call hca_test,fw_qp,firmware/tests/test_fw_qp.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
