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

# ---------------------------------------------------------------------------
# RV32IMC image: the same core on the soft core's MMIO HAL (firmware/rv32).
# RV_PREFIX=riscv32-none-elf- for nix; RV_SPECS for another picolibc.
# The soft core's RAM holds smaller tables (reported to the host as such).
RV_PREFIX ?= riscv64-unknown-elf-
RV_SPECS ?= --specs=picolibc.specs
RV_CFG := -DFW_CFG_MAX_CTX=16 -DFW_CFG_MAX_HANDLES=256 -DFW_CFG_LOG_MAX_QP=6 -DFW_CFG_LOG_MAX_CQ=6 \
	  -DFW_CFG_LOG_MAX_SRQ=4 -DFW_CFG_LOG_MAX_EQ=4 -DFW_CFG_LOG_MAX_MR=8 -DFW_CFG_LOG_MAX_PD=8
RV_CFLAGS := -march=rv32imc -mabi=ilp32 -Os -g -std=c11 -ffreestanding -ffunction-sections \
	     -fdata-sections $(WARN) $(RV_SPECS) -Iinclude -Ifirmware -Ifirmware/rv32 $(RV_CFG)
RV_SRCS := firmware/rv32/crt0.S firmware/rv32/hal_mmio.c firmware/rv32/main.c $(FW_SRCS)
RV_ELF := $(BUILD)/rv32/hcafw.elf

$(RV_ELF): $(RV_SRCS) firmware/rv32/link.ld $(wildcard firmware/*.h firmware/rv32/*.h) $(SPEC_H)
	@mkdir -p $(@D)
	$(RV_PREFIX)gcc $(RV_CFLAGS) -nostartfiles -T firmware/rv32/link.ld -Wl,--gc-sections \
	  -Wl,-Map=$(BUILD)/rv32/hcafw.map -o $@ $(RV_SRCS)
	$(RV_PREFIX)objcopy -O binary $@ $(BUILD)/rv32/hcafw.bin

.PHONY: fw-rv32
fw-rv32: $(RV_ELF)
	$(RV_PREFIX)size $(RV_ELF)
HELP += "fw-rv32|build the RV32IMC firmware image and print its size"

TESTS += fw_rv32
TEST_DEPS_fw_rv32 := $(RV_ELF)
TEST_CMD_fw_rv32 = RV_PREFIX=$(RV_PREFIX) firmware/rv32/check.sh $(RV_ELF)

# ---------------------------------------------------------------------------
# libFuzzer target for the command parser/validator/handlers (firmware/fuzz).
# `make test` runs FW_FUZZ_TEST_RUNS inputs from a fresh start (deterministic,
# about 40 s); `make fuzz` runs FW_FUZZ_SECONDS and keeps its corpus in build/fuzz.
FW_FUZZ := $(BUILD)/fuzz/fw_cmd
FW_FUZZ_CFG := -DFW_CFG_MAX_CTX=8 -DFW_CFG_MAX_HANDLES=64 -DFW_CFG_LOG_MAX_QP=4 -DFW_CFG_LOG_MAX_CQ=4 \
	       -DFW_CFG_LOG_MAX_SRQ=3 -DFW_CFG_LOG_MAX_EQ=3 -DFW_CFG_LOG_MAX_MR=5 -DFW_CFG_LOG_MAX_PD=4
FW_FUZZ_TEST_RUNS ?= 150000
FW_FUZZ_SECONDS ?= 600
$(FW_FUZZ): firmware/fuzz/fuzz_cmd.c firmware/tests/fake_engine.c sim/registry.c $(FW_SRCS) \
	    $(wildcard firmware/*.h firmware/tests/*.h) $(SPEC_H)
	@mkdir -p $(@D)
	$(CLANG) -std=c11 -D_GNU_SOURCE -O1 -g $(WARN) -Iinclude -Ifirmware -Ifirmware/tests $(FW_FUZZ_CFG) \
	  -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	  firmware/fuzz/fuzz_cmd.c firmware/tests/fake_engine.c sim/registry.c $(FW_SRCS) -o $@

TESTS += fw_fuzz
TEST_DEPS_fw_fuzz := $(FW_FUZZ)
TEST_CMD_fw_fuzz = firmware/fuzz/run.sh --fresh $(FW_FUZZ) $(BUILD)/fuzz/fw_cmd-test -runs=$(FW_FUZZ_TEST_RUNS)

.PHONY: fuzz fuzz-corpus
fuzz: $(FW_FUZZ)
	firmware/fuzz/run.sh $(FW_FUZZ) $(BUILD)/fuzz/fw_cmd-corpus -max_total_time=$(FW_FUZZ_SECONDS)
# Regenerate the checked-in seeds from spec/hca.toml.
fuzz-corpus:
	$(PYTHON) firmware/fuzz/mkcorpus.py firmware/fuzz/corpus
HELP += "fuzz|libFuzzer on the firmware command parser (FW_FUZZ_SECONDS=600)" \
	"fuzz-corpus|regenerate firmware/fuzz/corpus from the spec"

# make bench-fw: command throughput on the model engine (optimised, no sanitizers).
$(BUILD)/bench/fw: $(BUILD)/obj/firmware/tests/bench_fw.o $(BUILD)/obj/firmware/tests/fw_test.o \
		   $(foreach l,hcadev hcafw hcamodel hcaroce hcasim,$(BUILD)/lib/lib$(l).a)
	@mkdir -p $(@D); $(CC) -o $@ $^ -lm
.PHONY: bench-fw
bench-fw: $(BUILD)/bench/fw
	$(BUILD)/bench/fw
BENCH_TARGETS += bench-fw
HELP += "bench-fw|firmware command throughput on the model engine"
