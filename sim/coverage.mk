# sim/coverage.mk: verification power (issue 13, docs/sim.md "Coverage and mutation").
#
#   make coverage   functional coverage of the transport (bins: sim/coverage/bins.txt)
#                   + RTL code coverage (Verilator --coverage), reports in build/coverage/
#   make mutate     mutation analysis of the RTL (Yosys mutate -ctrl, one Verilated model)
#                   and of the C model (tools/mutate_c.py), reports in build/mutate/
#
# The functional-coverage collector (libhcacov): sim/cov.h.
LIBS += hcacov
LIB_SRCS_hcacov += sim/cov.c sim/cov_decode.c sim/cov_fw.c sim/cov_engine.c

COV_DIR := $(BUILD)/coverage
COV_BINS := sim/coverage/bins.txt
COVREPORT := $(PYTHON) tools/covreport.py

# Coverage variants of engine- and device-level tests: the same objects as
# the test, plus the collector, so that HCASIM_COV=DIR makes sim/tb and
# sim/device wrap their engines (sim/cov.h).  name | sources | libraries | ldlibs
COV_SAN_OBJS := $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRCS_hcacov))
define cov_variant
$(BUILD)/cov/$(1): $(patsubst %.c,$(BUILD)/san/%.o,$(2)) $(COV_SAN_OBJS) $(foreach l,$(3),$(BUILD)/lib/lib$(l)-san.a)
	@mkdir -p $$(@D); $$(CC) $$(SAN_FLAGS) -o $$@ $$^ $(4) -lm
COV_TEST_BINS += $(BUILD)/cov/$(1)
endef
COV_TEST_BINS :=
# The model's engine tests also link the RTL and lockstep engines
# (sim/coverage/engines.c): run.sh runs them on the model and, with
# HCASIM_TB_ENGINE=lockstep, on lockstep(model, rtl).
COV_MODEL_LIBS := hcalockstep hcartl hcamodel hcaroce hcasim
COV_ENGINES := sim/coverage/engines.c
$(foreach t,rc nak retry protect queues ud_uc,$(eval $(call cov_variant,model_$(t),model/tests/test_model_$(t).c \
	$(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS))))
$(eval $(call cov_variant,sim_device,sim/tests/test_device.c firmware/tests/fw_test.c,hcadev hcafw hcamodel hcaroce hcasim))
$(eval $(call cov_variant,fw_cmd,firmware/tests/test_fw_cmd.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
$(eval $(call cov_variant,fw_objects,firmware/tests/test_fw_objects.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
$(eval $(call cov_variant,fw_qp,firmware/tests/test_fw_qp.c $(FW_TEST_COMMON),hcadev hcafw hcasim))
$(eval $(call cov_variant,rtl_errors,sim/rtl/tests/test_rtl_errors.c,hcalockstep hcartl hcamodel hcaroce hcasim,$(RTL_LDLIBS)))
$(eval $(call cov_variant,rtl_rc,sim/rtl/tests/test_rtl_rc.c,hcartl hcaroce hcasim,$(RTL_LDLIBS)))
$(eval $(call cov_variant,rtl_doorbell,sim/rtl/tests/test_rtl_doorbell.c,hcalockstep hcartl hcamodel hcaroce hcasim,$(RTL_LDLIBS)))

# make coverage: the make sim plan (RTL DUT, both widths, model as reference),
# model-only traffic (sim/coverage/model.plan), the coverage variants above,
# all through GNU parallel (-j cores); then the report.
.PHONY: coverage coverage-func
coverage: coverage-func coverage-rtl
coverage-func: $(COSIM) $(COV_TEST_BINS)
	@sim/coverage/run.sh "$(COSIM)" "$(COV_DIR)" "$(NPROC)" "$(BUILD)/cov" "$(SIM_PLAN)"
	@$(COVREPORT) --bins $(COV_BINS) --out $(COV_DIR) $(COV_DIR)/func > /dev/null && cat $(COV_DIR)/summary.txt | sed -n '1,40p'
	@echo "coverage: $(COV_DIR)/summary.txt, $(COV_DIR)/index.html"
HELP += "coverage|functional coverage (bins: sim/coverage/bins.txt) and RTL code coverage, reports in build/coverage/"
REGRESS_TARGETS += coverage

# Doorbell validation on the model, the RTL and lockstep (both widths).
$(eval $(call rtl_ls_test,rtl_doorbell,sim/rtl/tests/test_rtl_doorbell.c,--width 64))
$(eval $(call rtl_ls_test,rtl_doorbell512,sim/rtl/tests/test_rtl_doorbell.c,--width 512))

# ---------------------------------------------------------------------------
# Differential fuzzing of the receive path (sim/fuzz/rxfuzz.c): built like
# cosim (optimised, the RTL engine linked in).
RXFUZZ := $(BUILD)/sim/rxfuzz
RXFUZZ_OBJS := $(BUILD)/obj/sim/fuzz/rxfuzz.o
$(RXFUZZ): $(RXFUZZ_OBJS) $(BUILD)/lib/libhcalockstep.a $(BUILD)/lib/libhcacov.a $(BUILD)/lib/libhcamodel.a \
		$(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a $$(RTL_ENGINE_LIBS)
	@mkdir -p $(@D)
	$(if $(RTL_ENGINE_LIBS),$(CXX),$(CC)) -o $@ $(RXFUZZ_OBJS) $(BUILD)/lib/libhcalockstep.a $(BUILD)/lib/libhcacov.a \
		$(if $(RTL_ENGINE_LIBS),-Wl$(comma)-u$(comma)hca_rtl_engine_register $(RTL_ENGINE_LIBS)) \
		$(BUILD)/lib/libhcamodel.a $(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a $(RTL_ENGINE_LDLIBS) -lm
ALL_TARGETS += $(RXFUZZ)
# make test: 10^4 frames at each width against the RTL, and the planted
# RX-path bugs (rkey check skipped, ICRC check skipped) must be caught.
RXFUZZ_TEST_FRAMES ?= 10000
TESTS += sim_rxfuzz
TEST_DEPS_sim_rxfuzz := $(RXFUZZ)
TEST_CMD_sim_rxfuzz = sim/fuzz/rxfuzz_test.sh $(RXFUZZ) $(RXFUZZ_TEST_FRAMES) $(BUILD)/fuzz
# make regress: 10^6 frames, sharded over the cores with GNU parallel.
RXFUZZ_REGRESS_FRAMES ?= 1000000
.PHONY: regress-rxfuzz
regress-rxfuzz: $(RXFUZZ)
	@sim/fuzz/rxfuzz_parallel.sh $(RXFUZZ) $(RXFUZZ_REGRESS_FRAMES) $(NPROC) $(BUILD)/fuzz/regress
REGRESS_TARGETS += regress-rxfuzz
HELP += "regress-rxfuzz|differential receive-path fuzzing, 10^6 frames (RXFUZZ_REGRESS_FRAMES), GNU parallel"
