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

# The package list stays honest: every external command the tree calls comes
# from a package tools/deps.sh installs (tools/check_deps.py, table
# tools/deps-commands.txt); the test also shows the check failing.
TESTS += deps_list
TEST_CMD_deps_list := $(PYTHON) tests/deps/test_deps.py

# tools/run-tests.sh and tools/junit.py on a synthetic list (JUnit XML read
# back with xml.etree, progress line), and cosim's per-run records.
TESTS += test_runner
TEST_DEPS_test_runner := $(COSIM)
TEST_CMD_test_runner = $(PYTHON) tests/runner/test_runner.py $(COSIM)
