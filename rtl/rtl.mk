# rtl/: the RTL packet engine (docs/rtl.md).
#
# Tests in `make test`:
#   rtl_lint      verilator --lint-only -Wall, both widths
#   rtl_synth     Yosys generic synthesis, both widths, no latches
#   rtl_crc64/512 hca_crc32 + hca_icrc_beat vs bit-serial reference and scapy
#   rtl_hdr       hca_hdr_gen + hca_rx_parse vs scapy frames and defects
RTL_WIDTHS  := 64 512
RTL_SRCS    := $(sort $(wildcard rtl/*.sv))
RTL_DEPS    := $(RTL_SRCS) rtl/hca_defs.vh $(SPEC_VH)
RTL_BUILD   := $(BUILD)/rtl
# Lint/synthesis tops (hca_top once the engine top exists).
RTL_TOPS    ?= hca_icrc_beat
RTL_SYNTH_TOP ?= hca_icrc_beat
# Table depths for the synthesis check: small, so that memory mapping to
# flip-flops stays quick; the full-size build is in `make regress`.
RTL_SYNTH_PARAMS ?=
RTL_SYNTH_FULL_PARAMS ?=
# Verilator builds: modest C++ optimisation, one compile job (2 shared cores).
VERILATOR_CFLAGS := -O1
VERILATOR_BUILD := $(VERILATOR) --cc --exe --build -j 1 -O2 --x-assign fast --x-initial fast \
	-Irtl -Irtl/include -CFLAGS "$(VERILATOR_CFLAGS) -I$(CURDIR)/tests -I$(CURDIR)/include"

TESTS += rtl_lint rtl_synth rtl_crc64 rtl_crc512 rtl_hdr
TEST_DEPS_rtl_lint :=
TEST_CMD_rtl_lint = rtl/scripts/lint.sh "$(RTL_WIDTHS)" "$(RTL_TOPS)" $(RTL_SRCS)
TEST_DEPS_rtl_synth :=
TEST_CMD_rtl_synth = rtl/scripts/synth.sh $(RTL_SYNTH_TOP) "$(RTL_WIDTHS)" "$(RTL_SYNTH_PARAMS)" $(RTL_BUILD)/synth $(RTL_SRCS)

# Unit testbenches.
$(RTL_BUILD)/vectors.txt: rtl/tb/gen_vectors.py
	@mkdir -p $(@D)
	$(PYTHON) rtl/tb/gen_vectors.py 1 4 > $@.tmp && mv $@.tmp $@

RTL_TB_CRC_SRCS := rtl/tb/tb_crc_top.sv rtl/hca_crc32_blk.sv rtl/hca_crc32.sv rtl/hca_icrc_beat.sv
$(RTL_BUILD)/tb_crc%/tb_crc: $(RTL_TB_CRC_SRCS) rtl/tb/tb_crc.cpp rtl/tb/tb_util.h $(RTL_DEPS)
	@mkdir -p $(@D)
	$(VERILATOR_BUILD) --Mdir $(@D) --top-module tb_crc_top -GDATA_W=$* $(RTL_TB_CRC_SRCS) \
		$(CURDIR)/rtl/tb/tb_crc.cpp -o tb_crc > $(@D)/build.log 2>&1 || { tail -30 $(@D)/build.log; false; }

RTL_TB_HDR_SRCS := rtl/tb/tb_hdr_top.sv rtl/hca_opinfo.sv rtl/hca_hdr_gen.sv rtl/hca_rx_parse.sv
$(RTL_BUILD)/tb_hdr/tb_hdr: $(RTL_TB_HDR_SRCS) rtl/tb/tb_hdr.cpp rtl/tb/tb_util.h $(RTL_DEPS)
	@mkdir -p $(@D)
	$(VERILATOR_BUILD) --Mdir $(@D) --top-module tb_hdr_top $(RTL_TB_HDR_SRCS) \
		$(CURDIR)/rtl/tb/tb_hdr.cpp -o tb_hdr > $(@D)/build.log 2>&1 || { tail -30 $(@D)/build.log; false; }

TEST_DEPS_rtl_crc64 := $(RTL_BUILD)/tb_crc64/tb_crc $(RTL_BUILD)/vectors.txt
TEST_CMD_rtl_crc64 = $(RTL_BUILD)/tb_crc64/tb_crc $(RTL_BUILD)/vectors.txt
TEST_DEPS_rtl_crc512 := $(RTL_BUILD)/tb_crc512/tb_crc $(RTL_BUILD)/vectors.txt
TEST_CMD_rtl_crc512 = $(RTL_BUILD)/tb_crc512/tb_crc $(RTL_BUILD)/vectors.txt
TEST_DEPS_rtl_hdr := $(RTL_BUILD)/tb_hdr/tb_hdr $(RTL_BUILD)/vectors.txt
TEST_CMD_rtl_hdr = $(RTL_BUILD)/tb_hdr/tb_hdr $(RTL_BUILD)/vectors.txt

.PHONY: rtl-lint rtl-synth
rtl-lint:
	@rtl/scripts/lint.sh "$(RTL_WIDTHS)" "$(RTL_TOPS)" $(RTL_SRCS)
rtl-synth:
	@rtl/scripts/synth.sh $(RTL_SYNTH_TOP) "$(RTL_WIDTHS)" "$(RTL_SYNTH_PARAMS)" $(RTL_BUILD)/synth $(RTL_SRCS)
LINT_TARGETS += rtl-lint
HELP += "rtl-lint|verilator -Wall lint of the RTL at both widths" "rtl-synth|Yosys synthesis of the RTL (latch check)"
