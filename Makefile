# hcasim top-level Makefile (non-recursive).
#
# Each part of the tree contributes a fragment, <dir>/<dir>.mk, included
# below.  A fragment adds:
#   ALL_TARGETS += files `make` builds
#   TESTS       += test names; for each name N:
#                  TEST_DEPS_N = files the test needs built first
#                  TEST_CMD_N  = shell command run from the top directory; its
#                                last output line must be "P passed, F failed"
#                  TEST_AFTER_N = tests N must not start before (it reads
#                                 what they write; make test runs programs
#                                 in parallel, tools/run-tests.sh)
#   LINT_TARGETS, BENCH_TARGETS, phony helpers as needed.
# `make test` builds every test's dependencies, runs every test, and prints
# the total as "N passed, N failed".

.DEFAULT_GOAL := all
SHELL := /bin/bash

BUILD   ?= build
# Debian's interpreter: python3-scapy is installed for it, not for any other
# python3 that may come first on PATH.
PYTHON  ?= /usr/bin/python3
ifeq ($(origin CC),default)
CC      := gcc
endif
CLANG   ?= clang
VERILATOR ?= verilator
YOSYS   ?= yosys
NPROC   := $(shell nproc 2>/dev/null || echo 2)

WARN    := -Wall -Wextra -Werror
CSTD    := -std=c11 -D_DEFAULT_SOURCE -D_GNU_SOURCE
CFLAGS  ?= -O2 -g
INCLUDES := -Iinclude
# Sanitizer build (tests link against the *-san variants of every library).
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
HCA_CFLAGS := $(CSTD) $(WARN) $(CFLAGS) $(INCLUDES)

ALL_TARGETS :=
TESTS :=
LINT_TARGETS :=
BENCH_TARGETS :=
REGRESS_TARGETS :=
CLEAN_EXTRA :=

# ---------------------------------------------------------------------------
# Generated programming interface (spec/hca.toml -> C, Verilog, reference doc)
# ---------------------------------------------------------------------------
SPEC      := spec/hca.toml
GENSPEC   := tools/genspec.py
SPEC_H    := include/hcasim/hca_spec.h
SPEC_VH   := rtl/include/hca_spec.vh
SPEC_MD   := docs/reference.md

$(SPEC_H) $(SPEC_VH) $(SPEC_MD) &: $(SPEC) $(GENSPEC)
	$(PYTHON) $(GENSPEC) --spec $(SPEC) --c $(SPEC_H) --v $(SPEC_VH) --md $(SPEC_MD)
	@touch $(SPEC_H) $(SPEC_VH) $(SPEC_MD)	# genspec leaves unchanged files alone: mark them made

gen: $(SPEC_H) $(SPEC_VH) $(SPEC_MD)
ALL_TARGETS += $(SPEC_H) $(SPEC_VH) $(SPEC_MD)

# Generic compile rules: normal and sanitizer objects of C sources.
$(BUILD)/obj/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	$(CC) $(HCA_CFLAGS) $(CFLAGS_$(firstword $(subst /, ,$*))) -MMD -MP -c $< -o $@

$(BUILD)/san/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	$(CC) $(HCA_CFLAGS) $(SAN_FLAGS) $(CFLAGS_$(firstword $(subst /, ,$*))) -MMD -MP -c $< -o $@

-include $(shell find $(BUILD)/obj $(BUILD)/san -name '*.d' 2>/dev/null)

# Helpers for fragments -------------------------------------------------------
# Libraries: a fragment says `LIBS += NAME` and `LIB_SRCS_NAME += files.c`
# (several fragments may add to one library); after all fragments are read,
# each becomes build/lib/libNAME.a and build/lib/libNAME-san.a (sanitizers).
define hca_lib
$(BUILD)/lib/lib$(1).a: $(patsubst %.c,$(BUILD)/obj/%.o,$(2))
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^
$(BUILD)/lib/lib$(1)-san.a: $(patsubst %.c,$(BUILD)/san/%.o,$(2))
	@mkdir -p $$(@D); rm -f $$@; ar rcs $$@ $$^
ALL_TARGETS += $(BUILD)/lib/lib$(1).a
endef
# $(eval $(call hca_test,NAME,SOURCES,LIBS)): a C test program built with
# ASan/UBSan against the -san variants of LIBS (in link order), registered in
# TESTS and run as build/tests/NAME $(TEST_ARGS_NAME).
define hca_test
$(BUILD)/tests/$(1): $(patsubst %.c,$(BUILD)/san/%.o,$(2)) $(foreach l,$(3),$(BUILD)/lib/lib$(l)-san.a)
	@mkdir -p $$(@D); $$(CC) $$(SAN_FLAGS) -o $$@ $$^ $$(LDLIBS_$(1)) -lm
TESTS += $(1)
TEST_DEPS_$(1) += $(BUILD)/tests/$(1)
TEST_CMD_$(1) = UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 $(BUILD)/tests/$(1) $$(TEST_ARGS_$(1))
endef

# ---------------------------------------------------------------------------
# Parts
# ---------------------------------------------------------------------------
LIBS :=
include $(sort $(wildcard */*.mk))
$(foreach l,$(sort $(LIBS)),$(eval $(call hca_lib,$(l),$(LIB_SRCS_$(l)))))

# ---------------------------------------------------------------------------
# Conventional targets
# ---------------------------------------------------------------------------
DEPS_STAMP := $(BUILD)/.deps-ok

.PHONY: all gen deps deps-check test lint clean regress bench
all: $(ALL_TARGETS)

# Install missing Debian packages (idempotent; as root or through sudo).
deps:
	tools/deps.sh install

# Cheap check every run; installs only when something is missing.
deps-check:
	@tools/deps.sh ensure

TEST_LIST := $(BUILD)/tests.list
test: deps-check
	@$(MAKE) --no-print-directory -j$(NPROC) test-build
	@mkdir -p $(BUILD)
	@rm -f $(TEST_LIST); $(foreach t,$(TESTS),printf '%s\t%s\n' '$(t)' '$(subst ','"'"',$(TEST_CMD_$(t)))' >> $(TEST_LIST);)
	@$(foreach t,$(TESTS),$(if $(TEST_AFTER_$(t)),printf '@after\t%s\t%s\n' '$(t)' '$(strip $(TEST_AFTER_$(t)))' >> $(TEST_LIST);))
	@tools/run-tests.sh $(TEST_LIST) $(BUILD)/test-logs $(BUILD)/test-results/test.xml

.PHONY: test-build
test-build: all $(foreach t,$(TESTS),$(TEST_DEPS_$(t)))

# Parts add their benchmark / long-regression targets to these lists.
# After every bench: PNG plots of their CSV tables in build/bench/
# (tools/plot_bench.py), then the line-rate table (issue 12) from what they
# printed (tools/bench_summary.py, logs in build/bench/*.log).
bench: deps-check $(BENCH_TARGETS)
	@$(PYTHON) tools/plot_bench.py $(BUILD)/bench
	@$(PYTHON) tools/bench_summary.py $(BUILD)/bench
.PHONY: bench-summary
bench-summary:
	@$(PYTHON) tools/bench_summary.py $(BUILD)/bench
# make regress runs each target like make test runs a program: one line per
# target (its output in build/regress-logs/TARGET.log), progress on a
# terminal, JUnit XML in build/test-results/regress.xml; a target without a
# "P passed, F failed" line counts by its exit status.
REGRESS_LIST := $(BUILD)/regress.list
regress: deps-check
	@mkdir -p $(BUILD); rm -f $(REGRESS_LIST); $(foreach t,$(REGRESS_TARGETS),printf '%s\t%s\n' '$(t)' '$(MAKE) --no-print-directory $(t)' >> $(REGRESS_LIST);)
	@HCASIM_TEST_RESULT_LINE=optional HCASIM_TEST_TIMEOUT=$${HCASIM_TEST_TIMEOUT:-14400} HCASIM_TEST_JOBS=1 \
	  tools/run-tests.sh $(REGRESS_LIST) $(BUILD)/regress-logs $(BUILD)/test-results/regress.xml

lint: deps-check $(LINT_TARGETS)
	@echo "lint: OK"

clean:
	rm -rf $(BUILD) $(CLEAN_EXTRA)

print-%:
	@echo '$*=$($*)'

# Each fragment appends "target|description" entries to HELP.
HELP += "all|build everything that exists" "test|run the whole suite (installs packages first)" \
        "lint|static checks" "deps|install missing Debian packages" "gen|regenerate spec outputs" "clean|remove build/" \
        "bench-summary|the line-rate table (targets, PASS/MISS) from the last make bench's outputs in build/bench/"
.PHONY: help
help:
	@for h in $(HELP); do printf '  make %-10s %s\n' "$${h%%|*}" "$${h#*|}"; done
