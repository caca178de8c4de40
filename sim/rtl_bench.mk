# sim/rtl_bench.mk: make bench-rtl, cycle-level performance of the RTL
# engine (sim/rtl/bench_rtl.c, its stage breakdown sim/rtl/bench_stages.c;
# docs/rtl.md "Performance").  This fragment
# lives in sim/ because the top Makefile includes */*.mk only (sim/rtl/*.mk
# would not be read).  Optimised, no sanitizers; the Verilated models come
# from rtl/rtl.mk (libhcartl.a, RTL_LDLIBS).
BENCH_RTL := $(BUILD)/bench/bench_rtl
BENCH_RTL_LIBS := $(BUILD)/lib/libhcartl.a $(BUILD)/lib/libhcamodel.a $(BUILD)/lib/libhcaroce.a \
	$(BUILD)/lib/libhcasim.a
# Extra arguments, e.g. BENCH_RTL_ARGS="--width 512 --sizes 4096 --depth 8".
BENCH_RTL_ARGS ?=

$(BENCH_RTL): $(BUILD)/obj/sim/rtl/bench_rtl.o $(BUILD)/obj/sim/rtl/bench_stages.o $(BENCH_RTL_LIBS)
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(RTL_LDLIBS) -lm

.PHONY: bench-rtl
bench-rtl: $(BENCH_RTL)
	@mkdir -p $(BUILD)/bench; set -o pipefail; \
	  $(BENCH_RTL) --csv $(BUILD)/bench/rtl.csv $(BENCH_RTL_ARGS) | tee $(BUILD)/bench/rtl.log
BENCH_TARGETS += bench-rtl
HELP += "bench-rtl|RTL cycles: RDMA WRITE 64 B-64 KiB latency (doorbell->wire, ->CQE) and streaming, both widths"

# In `make test`: the bench's own checks on one tiny size at both widths (a few seconds).
TESTS += rtl_bench_quick
TEST_DEPS_rtl_bench_quick := $(BENCH_RTL)
TEST_CMD_rtl_bench_quick = $(BENCH_RTL) --quick

# make bench's CSV (bench_rtl --csv, the quick run) and tools/plot_bench.py's PNGs.
TESTS += bench_plots
TEST_DEPS_bench_plots := $(BENCH_RTL)
TEST_CMD_bench_plots = $(PYTHON) tests/runner/test_plots.py $(BENCH_RTL)
