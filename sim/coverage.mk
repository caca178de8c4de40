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
