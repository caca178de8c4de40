# sim/device.mk: the device (firmware + engine) as a backend, and devctl, the
# host-side bring-up and command path shared by tests and the driver shim.
# Link order for a program: hcadev hcafw <engine libs> hcasim.
LIBS += hcadev
LIB_SRCS_hcadev += sim/device.c sim/devctl.c

# Acceptance: firmware + the model engine through the backend, real commands.
$(eval $(call hca_test,sim_device,sim/tests/test_device.c firmware/tests/fw_test.c,hcadev hcafw hcamodel hcaroce hcasim))
