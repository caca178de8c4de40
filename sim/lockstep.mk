# sim/lockstep.mk: the lockstep engine (reference vs DUT, per-stream
# scoreboards), its test-only mutant DUT, and the cosimulation regression
# (`make sim`, `make wave`).  docs/sim.md.
# Link order for a program: hcalockstep <engine libs: hcamodel hcaroce, rtl...> hcasim.
LIBS += hcalockstep
LIB_SRCS_hcalockstep += sim/scoreboard.c sim/scoreboard_fmt.c sim/lockstep.c sim/lockstep_regions.c \
	sim/lockstep_regs.c sim/lockstep_mutant.c

LOCKSTEP_TEST_LIBS := hcalockstep hcamodel hcaroce hcasim
$(eval $(call hca_test,lockstep_scoreboard,sim/tests/test_lockstep_scoreboard.c,$(LOCKSTEP_TEST_LIBS)))
$(eval $(call hca_test,lockstep,sim/tests/test_lockstep.c,$(LOCKSTEP_TEST_LIBS)))
$(eval $(call hca_test,lockstep_device,sim/tests/test_lockstep_device.c,hcadev hcafw $(LOCKSTEP_TEST_LIBS)))
