# spec/: the programming interface source and its consistency test.
#
# tests/spec/check_spec.py regenerates every output of tools/genspec.py into a
# scratch directory and compares it with the checked-in files (stale outputs
# fail), then compares every constant as C sees it (a compiled C program) with
# the same constant as Verilog sees it (a Verilator-built program).

SPEC_BUILD  := $(BUILD)/spec
SPEC_DUMP_C := $(SPEC_BUILD)/dump_c
SPEC_DUMP_V := $(SPEC_BUILD)/vdump/Vspec_dump

$(SPEC_BUILD)/dump.c $(SPEC_BUILD)/spec_dump.sv &: $(SPEC) $(GENSPEC)
	@mkdir -p $(SPEC_BUILD)
	$(PYTHON) $(GENSPEC) --spec $(SPEC) --dump-c $(SPEC_BUILD)/dump.c --dump-sv $(SPEC_BUILD)/spec_dump.sv

$(SPEC_DUMP_C): $(SPEC_BUILD)/dump.c $(SPEC_H)
	$(CC) $(HCA_CFLAGS) $< -o $@

$(SPEC_DUMP_V): $(SPEC_BUILD)/spec_dump.sv $(SPEC_VH)
	$(VERILATOR) --binary -Wall -Irtl/include --Mdir $(SPEC_BUILD)/vdump -o Vspec_dump $< >$(SPEC_BUILD)/verilator.log 2>&1 \
	  || { cat $(SPEC_BUILD)/verilator.log; exit 1; }

TESTS += spec
TEST_DEPS_spec := $(SPEC_DUMP_C) $(SPEC_DUMP_V)
TEST_CMD_spec := $(PYTHON) tests/spec/check_spec.py --spec $(SPEC) --c $(SPEC_DUMP_C) --v $(SPEC_DUMP_V)
