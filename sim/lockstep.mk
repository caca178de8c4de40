# sim/lockstep.mk: the lockstep engine (reference vs DUT, per-stream
# scoreboards), its test-only mutant DUT, and the cosimulation regression
# (`make sim`, `make wave`).  docs/sim.md.
# Link order for a program: hcalockstep <engine libs: hcamodel hcaroce, rtl...> hcasim.
LIBS += hcalockstep
LIB_SRCS_hcalockstep += sim/scoreboard.c sim/scoreboard_fmt.c sim/lockstep.c sim/lockstep_regions.c \
	sim/lockstep_regs.c sim/lockstep_mutant.c sim/lockstep_mutant_rx.c sim/lockstep_retx.c

LOCKSTEP_TEST_LIBS := hcalockstep hcamodel hcaroce hcasim
$(eval $(call hca_test,lockstep_scoreboard,sim/tests/test_lockstep_scoreboard.c,$(LOCKSTEP_TEST_LIBS)))
$(eval $(call hca_test,lockstep,sim/tests/test_lockstep.c sim/regress/traffic.c,$(LOCKSTEP_TEST_LIBS)))
$(eval $(call hca_test,lockstep_device,sim/tests/test_lockstep_device.c,hcadev hcafw $(LOCKSTEP_TEST_LIBS)))

# ---------------------------------------------------------------------------
# make sim: the cosimulation regression (sim/regress/, docs/sim.md)
# ---------------------------------------------------------------------------
# cosim is built optimised, without sanitizers (it is the speed-relevant
# harness).  Its DUT is the "rtl" engine: rtl/rtl.mk sets RTL_ENGINE_LIBS
# (static libraries, in link order) and RTL_ENGINE_LDLIBS (-lstdc++, -lz for
# FST); without them cosim falls back to model-mutant with no bug.
COSIM_SRCS := sim/regress/cosim.c sim/regress/traffic.c sim/regress/directed.c sim/regress/faultshape.c
COSIM_OBJS := $(COSIM_SRCS:%.c=$(BUILD)/obj/%.o)
COSIM := $(BUILD)/sim/cosim
SIM_PLAN ?= sim/regress/sim.plan
SIM_ARGS ?=
RTL_ENGINE_LIBS ?=
RTL_ENGINE_LDLIBS ?=

# RTL_ENGINE_LIBS may be set by a fragment read after this one.
.SECONDEXPANSION:
$(COSIM): $(COSIM_OBJS) $(BUILD)/lib/libhcalockstep.a $(BUILD)/lib/libhcacov.a $(BUILD)/lib/libhcamodel.a \
		$(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a $$(RTL_ENGINE_LIBS)
	@mkdir -p $(@D)
	$(if $(RTL_ENGINE_LIBS),$(CXX),$(CC)) -o $@ $(COSIM_OBJS) $(BUILD)/lib/libhcalockstep.a $(BUILD)/lib/libhcacov.a \
		$(if $(RTL_ENGINE_LIBS),-Wl$(comma)-u$(comma)hca_rtl_engine_register $(RTL_ENGINE_LIBS)) \
		$(BUILD)/lib/libhcamodel.a $(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a \
		$(RTL_ENGINE_LDLIBS) -lm
ALL_TARGETS += $(COSIM)
comma := ,

# COSIM_BUG: the DUT option that plants a bug for the plan's `bug` runs
# (default: "bug=hdr_bit" with the rtl DUT, "bug=hdr_se,at=3" with model-mutant);
# COSIM_BUG_STREAM: the stream those runs must then diverge in (default: the plan's).
COSIM_BUG ?=
COSIM_BUG_STREAM ?=
COSIM_ENV = $(if $(COSIM_BUG),COSIM_BUG='$(COSIM_BUG)' )$(if $(COSIM_BUG_STREAM),COSIM_BUG_STREAM='$(COSIM_BUG_STREAM)' )

.PHONY: sim wave
# Also writes JUnit XML, one case per run of the plan: build/test-results/sim.xml.
SIM_RESULTS := $(BUILD)/test-results/sim
sim: $(COSIM)
	@mkdir -p $(dir $(SIM_RESULTS)); rm -f $(SIM_RESULTS).results
	t0=$$(date +%s); HCASIM_RESULTS=$(SIM_RESULTS).results $(COSIM_ENV)$(COSIM) --plan $(SIM_PLAN) $(SIM_ARGS); rc=$$?; \
	  $(PYTHON) tools/junit.py --program sim --rc $$rc --results $(SIM_RESULTS).results \
	    --seconds $$(( $$(date +%s) - t0 )) --out $(SIM_RESULTS).xml; exit $$rc

# In `make test`: the same plan, RTL DUT at both widths (about a minute).
TESTS += sim_cosim
TEST_DEPS_sim_cosim := $(COSIM)
TEST_CMD_sim_cosim = $(COSIM_ENV)$(COSIM) --plan $(SIM_PLAN) --out $(BUILD)/sim/test

# make wave TEST=random SEED=3 [WIDTH=64] [WINDOW=2000] [CYCLE=...] [NODE=...]
WIDTH ?= 64
WINDOW ?= 2000
wave: $(COSIM)
	@sim/regress/wave.sh "$(COSIM)" "$(TEST)" "$(SEED)" "$(WIDTH)" "$(WINDOW)" "$(CYCLE)" "$(NODE)" "$(SIM_ARGS)"

HELP += "sim|cosimulation regression: lockstep model vs DUT, both widths (SIM_PLAN, SIM_ARGS)" \
	"wave|replay a failing cosim run with FST tracing around the divergence (TEST= SEED= WIDTH= WINDOW=)"

# Quiet-cycle skipping and the parallel step change nothing: the same plan
# with every busy cycle clocked in one thread, and with skipping in two
# threads, transaction logs compared (docs/sim.md "Skipping quiet cycles",
# 9.6; about twice sim_cosim's time).
TESTS += sim_quiet
TEST_DEPS_sim_quiet := $(COSIM)
TEST_CMD_sim_quiet = $(COSIM_ENV)sim/regress/quiet_check.sh $(COSIM) $(SIM_PLAN) $(BUILD)/sim/quiet

# Waveform replay plumbing (make wave) and the .gtkw generator.
TESTS += sim_wave
TEST_DEPS_sim_wave := $(COSIM) $(RTL_STATE_NAMES)
TEST_CMD_sim_wave = sim/regress/test_wave.sh $(COSIM)

# make bench: simulation speed of model, rtl and lockstep on the same traffic,
# run by the plain cosim, the build users run; BENCH_SIM_PGO=1: by the
# profile-guided cosim (below; docs/sim.md 9.4, 9.7, 9.8: the same results,
# about 0.9 of the CPU at 64 bits, but 1.1 times at 512 on the RTL of 26 Nov
# late; about 80 CPU seconds to build after cosim).
.PHONY: bench-sim
COSIM_PGO := $(BUILD)/pgo/sim/cosim
BENCH_SIM_PGO ?= 0
BENCH_SIM_COSIM := $(if $(filter 0,$(BENCH_SIM_PGO)),$(COSIM),$(COSIM_PGO))
bench-sim: $(BENCH_SIM_COSIM)
	@set -o pipefail; mkdir -p $(BUILD)/bench; sim/regress/bench.sh $(BENCH_SIM_COSIM) | tee $(BUILD)/bench/sim.log
BENCH_TARGETS += bench-sim
HELP += "bench-sim|simulation speed (cycles/s, messages/s) of model, rtl and lockstep on the same traffic"

# make regress: the long plan.
.PHONY: regress-sim
regress-sim: $(COSIM)
	$(COSIM_ENV)$(COSIM) --plan sim/regress/regress.plan --out $(BUILD)/sim/regress $(SIM_ARGS)
REGRESS_TARGETS += regress-sim
HELP += "regress-sim|long cosimulation plan (sim/regress/regress.plan), in make regress"

# The parallel step (cosim --threads 2) changes nothing: the same plan with
# one thread and two, transaction logs, frames and outputs compared
# (docs/sim.md 9.6; about twice sim_cosim's time, so in make regress; in
# make test, sim_quiet's skipping run steps in two threads against its
# every-cycle run in one).
.PHONY: regress-threads
regress-threads: $(COSIM)
	$(COSIM_ENV)sim/regress/threads_check.sh $(COSIM) $(SIM_PLAN) $(BUILD)/sim/threads
REGRESS_TARGETS += regress-threads
HELP += "regress-threads|the make sim plan with --threads 1 and 2, everything compared byte for byte"

# The profile-guided cosim of make bench-sim (sim/regress/pgo_build.sh: from
# cosim's objects and Verilated sources, the evaluation code compiled twice
# more, instrumented and then with the profile; docs/sim.md 9.4, 9.7).
# bench-sim-pgo: the same bench into sim-pgo.log / sim-pgo.csv.
.PHONY: cosim-pgo bench-sim-pgo
cosim-pgo: $(COSIM_PGO)
$(COSIM_PGO): $(COSIM) sim/regress/pgo_build.sh
	+sim/regress/pgo_build.sh "$(MAKE)" "$(BUILD)" "$(BUILD)/pgo" '$(RTL_VMAKE)' '$(RTL_LDLIBS)'
bench-sim-pgo: cosim-pgo
	@set -o pipefail; mkdir -p $(BUILD)/bench; \
	  BENCH_SIM_CSV=$(BUILD)/bench/sim-pgo.csv sim/regress/bench.sh $(COSIM_PGO) | tee $(BUILD)/bench/sim-pgo.log
HELP += "bench-sim-pgo|bench-sim (profile-guided cosim) into build/bench/sim-pgo.log, leaving sim.log alone"
