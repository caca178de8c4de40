# tests/: cross-cutting checks that belong to no single part.
TESTS += flake
TEST_CMD_flake := tests/flake/check.sh

# make bench's line-rate summary finds every figure in the bench programs' real output.
TESTS += bench_summary
TEST_DEPS_bench_summary := $(BENCH_RTL) $(COSIM) $(SHIM_RUNTIME) $(BUILD)/bench/sockfloor tools/bench_summary.py
TEST_CMD_bench_summary := tests/bench/summary.sh $(BENCH_RTL) $(COSIM) $(HCASIM_BIN) $(BUILD)/bench/sockfloor

# make lint: the spec generator's input must load and shell scripts must parse.
.PHONY: lint-spec lint-sh
lint-spec:
	@$(PYTHON) $(GENSPEC) --spec $(SPEC) && echo "lint-spec: $(SPEC) OK"
lint-sh:
	@for f in tools/*.sh tests/*/*.sh .ci/run; do [ -f "$$f" ] && bash -n "$$f" || exit 1; done; echo "lint-sh: OK"
LINT_TARGETS += lint-spec lint-sh
