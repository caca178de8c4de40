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
# (this fragment is read before sim/lockstep.mk: cosim's objects named here)
COV_COSIM := $(BUILD)/sim/cosim
COV_COSIM_OBJS := $(patsubst %.c,$(BUILD)/obj/%.o,sim/regress/cosim.c sim/regress/traffic.c sim/regress/directed.c \
	sim/regress/faultshape.c)
COV_BINS := sim/coverage/bins.txt
COVREPORT := $(PYTHON) tools/covreport.py

# Coverage variants of engine- and device-level tests: the same objects as
# the test, plus the collector, so that HCASIM_COV=DIR makes sim/tb and
# sim/device wrap their engines (sim/cov.h).  name | sources | libraries | ldlibs
COV_SAN_OBJS := $(patsubst %.c,$(BUILD)/san/%.o,$(LIB_SRCS_hcacov))
COV_TEST_BINS :=
define cov_variant
COV_TEST_BINS += $(BUILD)/cov/$(1)
$(BUILD)/cov/$(1): $(patsubst %.c,$(BUILD)/san/%.o,$(2)) $(COV_SAN_OBJS) $(foreach l,$(3),$(BUILD)/lib/lib$(l)-san.a)
	@mkdir -p $$(@D); $$(CC) $$(SAN_FLAGS) -o $$@ $$^ $(4) -lm
endef
# The model's engine tests also link the RTL and lockstep engines
# (sim/coverage/engines.c): run.sh runs them on the model and, with
# HCASIM_TB_ENGINE=lockstep, on lockstep(model, rtl).
COV_MODEL_LIBS := hcalockstep hcartl hcamodel hcaroce hcasim
COV_ENGINES := sim/coverage/engines.c
$(eval $(call cov_variant,model_rc,model/tests/test_model_rc.c $(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS)))
$(eval $(call cov_variant,model_nak,model/tests/test_model_nak.c $(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS)))
$(eval $(call cov_variant,model_retry,model/tests/test_model_retry.c $(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS)))
$(eval $(call cov_variant,model_protect,model/tests/test_model_protect.c $(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS)))
$(eval $(call cov_variant,model_queues,model/tests/test_model_queues.c $(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS)))
$(eval $(call cov_variant,model_ud_uc,model/tests/test_model_ud_uc.c $(COV_ENGINES),$(COV_MODEL_LIBS),$(RTL_LDLIBS)))
$(eval $(call cov_variant,sim_device,sim/tests/test_device.c firmware/tests/fw_test.c $(COV_ENGINES),hcadev hcafw $(COV_MODEL_LIBS),$(RTL_LDLIBS)))
# Firmware tests on the fake engine: HCASIM_COV_ENGINE=0 counts the firmware
# commands at the device without wrapping the engine the test reaches into.
FW_COV_TESTS := fw_boot fw_cmd fw_objects fw_qp
$(foreach t,$(FW_COV_TESTS),$(eval $(call cov_variant,$(t),firmware/tests/test_$(t).c $(FW_TEST_COMMON),hcadev hcafw hcaroce hcasim)))
$(eval $(call cov_variant,rtl_errors,sim/rtl/tests/test_rtl_errors.c,hcalockstep hcartl hcamodel hcaroce hcasim,$(RTL_LDLIBS)))
$(eval $(call cov_variant,rtl_doorbell,sim/rtl/tests/test_rtl_doorbell.c,hcalockstep hcartl hcamodel hcaroce hcasim,$(RTL_LDLIBS)))
$(eval $(call cov_variant,rtl_states,sim/rtl/tests/test_rtl_states.c,hcalockstep hcartl hcamodel hcaroce hcasim,$(RTL_LDLIBS)))
$(eval $(call cov_variant,rtl_read,sim/rtl/tests/test_rtl_read.c,hcalockstep hcartl hcamodel hcaroce hcasim,$(RTL_LDLIBS)))

# make coverage: the make sim plan (RTL DUT, both widths, model as reference),
# model-only traffic (sim/coverage/model.plan), the coverage variants above,
# all through GNU parallel (-j cores); then the report.
.PHONY: coverage coverage-func
coverage: coverage-func coverage-rtl
coverage-func: $(COV_COSIM) $(BUILD)/sim/rxfuzz $(COV_TEST_BINS)
	@sim/coverage/run.sh "$(COV_COSIM)" "$(COV_DIR)" "$(NPROC)" "$(BUILD)/cov" "$(SIM_PLAN)"
	@$(COVREPORT) --bins $(COV_BINS) --out $(COV_DIR) $(COV_DIR)/func > /dev/null && cat $(COV_DIR)/summary.txt | sed -n '1,40p'
	@echo "coverage: $(COV_DIR)/summary.txt, $(COV_DIR)/index.html"
HELP += "coverage|functional coverage (bins: sim/coverage/bins.txt) and RTL code coverage, reports in build/coverage/"
REGRESS_TARGETS += coverage

# Doorbell validation on the model, the RTL and lockstep (both widths).
$(eval $(call rtl_ls_test,rtl_doorbell,sim/rtl/tests/test_rtl_doorbell.c,--width 64))
$(eval $(call rtl_ls_test,rtl_doorbell512,sim/rtl/tests/test_rtl_doorbell.c,--width 512))
# QP state machine, SQD drain, RTR responder errors, SRQ scatter lists and fetch fault (lockstep, both widths).
$(eval $(call rtl_ls_test,rtl_states,sim/rtl/tests/test_rtl_states.c,--width 64))
$(eval $(call rtl_ls_test,rtl_states512,sim/rtl/tests/test_rtl_states.c,--width 512))
# Scatter/gather list corners: receive entry 1, a READ into ten entries, a payload write fault's IOVA (lockstep, both widths).
$(eval $(call rtl_ls_test,rtl_sgl,sim/rtl/tests/test_rtl_sgl.c,--width 64))
$(eval $(call rtl_ls_test,rtl_sgl512,sim/rtl/tests/test_rtl_sgl.c,--width 512))
# Management-port and BAR0 register corners: the event FIFO around its ring, the CLOCK_HI latch (model, RTL, lockstep; both widths).
$(eval $(call rtl_ls_test,rtl_mgmt,sim/rtl/tests/test_rtl_mgmt.c,--width 64))
$(eval $(call rtl_ls_test,rtl_mgmt512,sim/rtl/tests/test_rtl_mgmt.c,--width 512))

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

# ---------------------------------------------------------------------------
# RTL code coverage: the engine Verilated with --coverage (line, toggle,
# user), both widths, in its own libhcartl-cov.a; cosim-cov and the RTL
# tests linked against it write Verilator coverage files when
# HCASIM_RTL_COVERAGE=DIR (sim/rtl/rtl_model.cpp); verilator_coverage merges
# them and annotates the sources (sim/coverage/rtl_cov.sh).  The source list
# is rtl.mk's RTL_SRCS, so the build follows whatever RTL is in the tree.
RTLCOV_BUILD := $(BUILD)/rtlcov
RTLCOV_VFLAGS := $(filter-out --trace-fst,$(RTL_VFLAGS)) --coverage-line --coverage-toggle --coverage-user
RTLCOV_CXXFLAGS := $(filter-out -DVM_TRACE=1 -DVM_TRACE_FST=1,$(RTL_CXXFLAGS)) -DVM_COVERAGE=1 -DVM_TRACE=0
define rtlcov_width
$(RTLCOV_BUILD)/v$(1)/Vhca_top$(1)__ALL.a: $(RTL_DEPS)
	@mkdir -p $$(@D)
	$(VERILATOR) $(RTLCOV_VFLAGS) -GDATA_W=$(1) --prefix Vhca_top$(1) --Mdir $$(@D) \
		-MAKEFLAGS "$(RTL_VMAKE)" $(RTL_SRCS) > $$(@D)/build.log 2>&1 || { tail -30 $$(@D)/build.log; false; }
	$(MAKE) --no-print-directory -C $$(@D) -f Vhca_top$(1).mk $(RTL_VMAKE) verilated.o verilated_cov.o verilated_threads.o \
		>> $$(@D)/build.log 2>&1
$(RTLCOV_BUILD)/rtl_model_$(1).o: sim/rtl/rtl_model.cpp sim/rtl/rtl_model.h $(RTLCOV_BUILD)/v$(1)/Vhca_top$(1)__ALL.a
	$(CXX) $(RTLCOV_CXXFLAGS) -I$(RTLCOV_BUILD)/v$(1) -DRTL_W=$(1) -DRTL_PREFIX=Vhca_top$(1) -c $$< -o $$@
endef
$(foreach w,$(RTL_WIDTHS),$(eval $(call rtlcov_width,$(w))))
RTLCOV_LIB := $(BUILD)/lib/libhcartl-cov.a
$(RTLCOV_LIB): $(BUILD)/obj/sim/rtl/rtl_engine.o $(foreach w,$(RTL_WIDTHS),$(RTLCOV_BUILD)/rtl_model_$(w).o \
		$(RTLCOV_BUILD)/v$(w)/Vhca_top$(w)__ALL.a)
	@mkdir -p $(@D); rm -f $@
	{ echo "CREATE $@"; for o in $(filter %.o,$^) $(addprefix $(RTLCOV_BUILD)/v64/,verilated.o verilated_cov.o verilated_threads.o); do \
	  echo "ADDMOD $$o"; done; for a in $(filter %.a,$^); do echo "ADDLIB $$a"; done; echo SAVE; echo END; } | ar -M
# A program linked against a Verilated engine other than libhcartl.a: cosim
# and rxfuzz objects, the given RTL library.  $(1) program, $(2) objects, $(3) RTL library.
define rtl_variant_prog
$(1): $(2) $(BUILD)/lib/libhcalockstep.a $(BUILD)/lib/libhcacov.a $(BUILD)/lib/libhcamodel.a \
		$(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a $(3)
	@mkdir -p $$(@D)
	$(CXX) -o $$@ $(2) $(BUILD)/lib/libhcalockstep.a $(BUILD)/lib/libhcacov.a -Wl,-u,hca_rtl_engine_register $(3) \
		$(BUILD)/lib/libhcamodel.a $(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a $(RTL_LDLIBS) -lm
endef
$(eval $(call rtl_variant_prog,$(RTLCOV_BUILD)/cosim,$(COV_COSIM_OBJS),$(RTLCOV_LIB)))
# The RTL tests of the plan's judge, against the coverage build (same objects as the tests).
RTLCOV_TESTS := rtl_errors rtl_doorbell rtl_states rtl_read
$(foreach t,$(RTLCOV_TESTS),$(eval $(RTLCOV_BUILD)/$(t): $(BUILD)/san/sim/rtl/tests/test_$(t).o $(BUILD)/lib/libhcalockstep-san.a \
	$(RTLCOV_LIB) $(BUILD)/lib/libhcamodel-san.a $(BUILD)/lib/libhcaroce-san.a $(BUILD)/lib/libhcasim-san.a ; \
	$$(CC) $$(SAN_FLAGS) -o $$@ $$^ $(RTL_LDLIBS) -lm))

.PHONY: coverage-rtl
coverage-rtl: $(RTLCOV_BUILD)/cosim $(addprefix $(RTLCOV_BUILD)/,$(RTLCOV_TESTS))
	@sim/coverage/rtl_cov.sh $(RTLCOV_BUILD) "$(SIM_PLAN)" $(COV_DIR)/rtl "$(NPROC)"
HELP += "coverage-rtl|RTL code coverage (Verilator line/toggle/user) over the make sim plan, build/coverage/rtl/"

# ---------------------------------------------------------------------------
# A mutant build in directory $(1), tools/mutate_rtl.py netlist arguments $(2):
# $(1)/verilator.f (the sources: mutated modules as netlists, the rest as
# written), the Verilated model, libhcartl-mut-<dir>.a, and the judge's programs.
MUT_JUDGE_TESTS := rtl_doorbell rtl_errors rtl_states rtl_read rtl_retry rtl_regs rtl_rc rtl_sgl rtl_mgmt rtl_bounds rtl_ctx_rewrite rtl_scatter_long rtl_resp_state rtl_req_comp rtl_comp_corners
define mut_rtl_build
$(1)/args.stamp: FORCE
	@mkdir -p $(1); echo '$(2)' | cmp -s - $$@ || echo '$(2)' > $$@
$(1)/verilator.f: $(RTL_DEPS) tools/mutate_rtl.py $(1)/args.stamp
	$(PYTHON) tools/mutate_rtl.py netlist --out $(1) $(2) --width 64 $(RTL_SRCS)
$(1)/v64/Vhca_top64__ALL.a: $(1)/verilator.f
	@mkdir -p $$(@D)
	$(VERILATOR) $(filter-out --trace-fst,$(RTL_VFLAGS)) -Wno-lint -Wno-style -GDATA_W=64 --prefix Vhca_top64 \
		--Mdir $$(@D) -MAKEFLAGS "$(RTL_VMAKE)" -f $$< $(RTL_SIM_SRC) > $$(@D)/build.log 2>&1 || { tail -30 $$(@D)/build.log; false; }
	$(MAKE) --no-print-directory -C $$(@D) -f Vhca_top64.mk $(RTL_VMAKE) verilated.o verilated_threads.o \
		verilated_dpi.o >> $$(@D)/build.log 2>&1
$(1)/rtl_model_64.o: sim/rtl/rtl_model.cpp sim/rtl/rtl_model.h $(1)/v64/Vhca_top64__ALL.a
	$(CXX) $(filter-out -DVM_TRACE=1 -DVM_TRACE_FST=1,$(RTL_CXXFLAGS)) -DVM_TRACE=0 -DRTL_MUTANT -I$(1)/v64 \
		-DRTL_W=64 -DRTL_PREFIX=Vhca_top64 -c $$< -o $$@
$(1)/rtl_model_absent.o: sim/rtl/rtl_model_absent.c sim/rtl/rtl_model.h
	$(CC) $(HCA_CFLAGS) -DRTL_ABSENT_W=512 -c $$< -o $$@
$(1)/libhcartl-mut.a: $(BUILD)/obj/sim/rtl/rtl_engine.o $(1)/rtl_model_64.o $(1)/rtl_model_absent.o \
		$(1)/v64/Vhca_top64__ALL.a
	@rm -f $$@
	{ echo "CREATE $$@"; for o in $$(filter %.o,$$^) $(addprefix $(1)/v64/,verilated.o verilated_threads.o \
	  verilated_dpi.o); do echo "ADDMOD $$$$o"; done; echo "ADDLIB $(1)/v64/Vhca_top64__ALL.a"; echo SAVE; echo END; } | ar -M
$$(eval $$(call rtl_variant_prog,$(1)/cosim,$(COV_COSIM_OBJS),$(1)/libhcartl-mut.a))
$(foreach t,$(MUT_JUDGE_TESTS),
$(1)/$(t): $(BUILD)/obj/sim/rtl/tests/test_$(t).o $(BUILD)/lib/libhcalockstep.a $(1)/libhcartl-mut.a \
		$(BUILD)/lib/libhcamodel.a $(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a
	$(CXX) -o $$@ $$^ $(RTL_LDLIBS) -lm)
endef
.PHONY: FORCE
FORCE:

# make mutate: RTL mutation analysis (tools/mutate_rtl.py, sim/mutate/run_rtl.sh).
# Yosys keeps the hierarchy: only the mutated modules (MUT_MODULES, default
# every module of RTL_SRCS) become Yosys netlists holding every sampled
# mutant behind `mutsel`, the rest is the RTL as written; Verilated once;
# cosim and the RTL tests linked against it; the judge runs per mutant
# (HCASIM_RTL_MUTANT=id) through GNU parallel.
MUT_BUILD ?= $(BUILD)/mutate/rtl
MUT_COUNT ?= 200
MUT_SEED ?= 1
MUT_MODULES ?=
$(eval $(call mut_rtl_build,$(MUT_BUILD),--count $(MUT_COUNT) --seed $(MUT_SEED)$(if $(MUT_MODULES), --modules $(MUT_MODULES))))
MUT_BINS := $(addprefix $(MUT_BUILD)/,cosim $(MUT_JUDGE_TESTS))
.PHONY: mutate mutate-rtl mutate-model
mutate: mutate-rtl-groups mutate-model
mutate-rtl: $(MUT_BINS)
	@sim/mutate/run_rtl.sh $(MUT_BUILD) full "$(NPROC)"
.PHONY: mutate-rtl-bins mutate-rtl-groups mutate-rtl-rejudge
mutate-rtl-bins: $(MUT_BINS)
# After judge programs changed (MUT_REJUDGE: their names), the measured build
# MUT_BUILD re-judged without measuring again: survivors run only those
# programs (sim/mutate/rejudge_rtl.sh).
mutate-rtl-rejudge: $(MUT_BINS)
	@sim/mutate/rejudge_rtl.sh $(MUT_BUILD) "$(NPROC)" $(MUT_REJUDGE)
# The same analysis in module groups (sim/mutate/groups_rtl.txt): one mutant
# build per group, each near the RTL's speed (docs/sim.md 11.3).
mutate-rtl-groups:
	@sim/mutate/run_rtl_groups.sh $(BUILD)/mutate "$(NPROC)" sim/mutate/groups_rtl.txt
REGRESS_TARGETS += mutate
HELP += "mutate-rtl-sample|MUT_SAMPLE_N RTL mutants of a few modules under the short selective judge (the make test sample)" "mutate|mutation analysis: RTL in module groups (mutate-rtl-groups, sim/mutate/groups_rtl.txt) and C model (tools/mutate_c.py), build/mutate/" "mutate-rtl-rejudge|re-judge the measured MUT_BUILD's survivors with the changed judge programs MUT_REJUDGE" "mutate-rtl|RTL mutation analysis in one build (MUT_COUNT mutants of MUT_MODULES, default every module: slow)"
# The make test sample (mutate_rtl_sample): its own small mutant build --
# MUT_SAMPLE_COUNT mutants (seed 7) of a few small modules
# (MUT_SAMPLE_MODULES), the rest of the RTL as written so it simulates near
# the RTL's speed --, SAMPLE_N activated mutants under the short selective
# judge (sim/mutate/test_rtl_sample.sh).
MUT_SAMPLE_BUILD := $(BUILD)/mutate/rtl-sample
MUT_SAMPLE_COUNT ?= 36
MUT_SAMPLE_N ?= 20
MUT_SAMPLE_MODULES ?= hca_mr_check,hca_opinfo,hca_qp_err,hca_complete_recv,hca_comp_timer,hca_ack_send
$(eval $(call mut_rtl_build,$(MUT_SAMPLE_BUILD),--count $(MUT_SAMPLE_COUNT) --seed 7 --modules $(MUT_SAMPLE_MODULES)))
MUT_SAMPLE_BINS := $(addprefix $(MUT_SAMPLE_BUILD)/,cosim $(MUT_JUDGE_TESTS))
.PHONY: mutate-rtl-sample
mutate-rtl-sample: $(MUT_SAMPLE_BINS)
	@sim/mutate/test_rtl_sample.sh $(MUT_SAMPLE_BUILD) $(MUT_SAMPLE_N)
TESTS += mutate_rtl_sample
TEST_DEPS_mutate_rtl_sample := $(MUT_SAMPLE_BINS)
TEST_CMD_mutate_rtl_sample = sim/mutate/test_rtl_sample.sh $(MUT_SAMPLE_BUILD) $(MUT_SAMPLE_N)
# The formal equivalence filter (tools/mutate_equiv.py, docs/sim.md 11.3.1):
# its soundness checks on hand-made hca_crc32_blk mutations (a netlist-only
# build: Yosys, no Verilator) and on the sample's killed mutants; the same
# for the context mode (--context: a toy, hca_ctx's QPC RAM in hca_top).
MUT_EQ_BUILD := $(BUILD)/mutate/equiv-sample
$(eval $(call mut_rtl_build,$(MUT_EQ_BUILD),--count 4 --seed 1 --modules hca_crc32_blk))
TESTS += mutate_equiv_sample
TEST_DEPS_mutate_equiv_sample := $(MUT_EQ_BUILD)/verilator.f
TEST_CMD_mutate_equiv_sample = PYTHON=$(PYTHON) sim/mutate/test_equiv_sample.sh $(MUT_EQ_BUILD) $(MUT_SAMPLE_BUILD)
# (a) reads the sample mutant results mutate_rtl_sample writes (run in parallel: after it)
TEST_AFTER_mutate_equiv_sample := mutate_rtl_sample
# make mutate-equiv: the filter over the survivors of every group build
# (MUT_EQ_TIMEOUT CPU seconds of Yosys per mutant), the groups' equiv.txt.
MUT_EQ_TIMEOUT ?= 60
.PHONY: mutate-equiv
mutate-equiv:
	@for d in $(BUILD)/mutate/rtl-g*/; do [ -f $$d/report.txt ] || continue; \
	  $(PYTHON) tools/mutate_equiv.py --dir $$d --timeout $(MUT_EQ_TIMEOUT) || exit 1; done
HELP += "mutate-equiv|formal equivalence (Yosys equiv_*) of the RTL survivors of every group build, build/mutate/rtl-g*/equiv.txt"
# make mutate-equiv-ctx: the context mode (the design flattened up to
# hca_top) over the survivors of every group build, their equiv-ctx.txt.
.PHONY: mutate-equiv-ctx
mutate-equiv-ctx:
	@for d in $(BUILD)/mutate/rtl-g*/; do [ -f $$d/report.txt ] || continue; \
	  $(PYTHON) tools/mutate_equiv.py --dir $$d --context auto || exit 1; done
HELP += "mutate-equiv-ctx|equivalence of the RTL survivors of every group build in context (flattened hca_top, cone of influence), build/mutate/rtl-g*/equiv-ctx.txt"
# The survivor list over the groups' measurements (tools/mutate_rtl.py
# survivors, sim/mutate/measured_rtl.txt) on made-up measurements.
TESTS += mutate_rtl_survivors
TEST_CMD_mutate_rtl_survivors = $(PYTHON) sim/mutate/test_survivors.py

# Model mutation analysis (tools/mutate_c.py): the judge links the model
# libraries (non-sanitized) with the mutated object ahead of them.
MUTC_DIR := $(BUILD)/mutate/model
MUTC_COUNT ?= 200
MUTC_DEPS := $(BUILD)/lib/libhcamodel-san.a $(BUILD)/lib/libhcaroce-san.a $(BUILD)/lib/libhcasim-san.a
mutate-model: $(MUTC_DEPS)
	@BUILD=$(BUILD) sim/mutate/run_model.sh $(MUTC_DIR) $(MUTC_COUNT) 1 full "$(NPROC)"
TESTS += mutate_model_sample
TEST_DEPS_mutate_model_sample := $(MUTC_DEPS)
TEST_CMD_mutate_model_sample = BUILD=$(BUILD) sim/mutate/test_model_sample.sh $(BUILD)/mutate/model-sample
