# rtl/: the RTL packet engine (docs/rtl.md).
#
# Tests in `make test`:
#   rtl_lint      verilator --lint-only -Wall, both widths
#   rtl_synth     Yosys generic synthesis (synth -run :fine), both widths, no latches
#   rtl_crc64/512 hca_crc32 + hca_icrc_beat vs bit-serial reference and scapy
#   rtl_hdr       hca_hdr_gen + hca_rx_parse vs scapy frames and defects
#   rtl_arb       hca_call_arb (a shared callee's grant) under contention and alone
#   rtl_bug_hooks the planted-bug hooks compile to nothing without HCA_PLANTED_BUGS
RTL_WIDTHS  := 64 512
RTL_SRCS    := $(sort $(wildcard rtl/*.sv))
RTL_DEPS    := $(RTL_SRCS) rtl/hca_defs.vh rtl/hca_funcs.vh rtl/hca_crc32_tab.vh rtl/hca_crc32_fn.vh $(SPEC_VH)
# The harness build (the Verilated "rtl" engine): the test-only top around
# hca_top with the planted-bug hooks on (docs/rtl.md "Planted bugs").
RTL_SIM_TOP := hca_sim
RTL_SIM_SRC := rtl/tb/hca_sim.sv
RTL_BUILD   := $(BUILD)/rtl
# Lint tops (TOP=FILE: a harness top, linted with its planted-bug hooks on)
# and the synthesis top.
RTL_TOPS    ?= hca_top $(RTL_SIM_TOP)=$(RTL_SIM_SRC)
RTL_SYNTH_TOP ?= hca_top
# Synthesis checks (rtl/scripts/synth.sh; the two widths run in parallel).
# `make test` (rtl_synth): Yosys generic synthesis up to the coarse-grain
# netlist (`synth -run :fine`: elaboration, process conversion -- where
# latches are inferred --, FSM extraction, memory inference, word-level
# optimisation, ALU/MACC extraction, resource sharing), then `check -assert`
# and no latch cells; both widths, default sizes (about 2.5 minutes on 2
# cores).  `make regress` (rtl-synth-full): the whole generic `synth`
# (adds memory mapping to flip-flops, techmap and ABC) with small tables
# (about 17 minutes at DATA_W 64; the default tables take far longer).
RTL_SYNTH_PARAMS ?=
RTL_SYNTH_FULL_PARAMS ?= -set LOG_MAX_QP 4 -set LOG_MAX_CQ 4 -set LOG_MAX_SRQ 3 -set LOG_MAX_EQ 3 -set LOG_MAX_MR 4 \
	-set LOG_OUTS 3 -set LOG_BUF 10
# Verilator builds: modest C++ optimisation, one compile job (2 shared cores).
VERILATOR_CFLAGS := -O1
VERILATOR_BUILD := $(VERILATOR) --cc --exe --build -j 1 -O2 --x-assign fast --x-initial fast \
	-Irtl -Irtl/include -CFLAGS "$(VERILATOR_CFLAGS) -I$(CURDIR)/tests -I$(CURDIR)/include"

TESTS += rtl_lint rtl_synth rtl_crctab rtl_crc64 rtl_crc512 rtl_hdr rtl_arb rtl_bug_hooks
TEST_DEPS_rtl_bug_hooks :=
TEST_CMD_rtl_bug_hooks = rtl/scripts/check_bug_hooks.sh $(RTL_SRCS)
TEST_DEPS_rtl_crctab :=
TEST_CMD_rtl_crctab = rtl/scripts/check_crc_tab.sh
TEST_DEPS_rtl_lint :=
TEST_CMD_rtl_lint = rtl/scripts/lint.sh "$(RTL_WIDTHS)" "$(RTL_TOPS)" $(RTL_SRCS)
TEST_DEPS_rtl_synth :=
TEST_CMD_rtl_synth = rtl/scripts/synth.sh $(RTL_SYNTH_TOP) "$(RTL_WIDTHS)" "$(RTL_SYNTH_PARAMS)" $(RTL_BUILD)/synth coarse $(RTL_SRCS)

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

RTL_TB_ARB_SRCS := rtl/tb/tb_arb_top.sv rtl/hca_call_arb.sv
$(RTL_BUILD)/tb_arb/tb_arb: $(RTL_TB_ARB_SRCS) rtl/tb/tb_arb.cpp rtl/tb/tb_util.h
	@mkdir -p $(@D)
	$(VERILATOR_BUILD) --Mdir $(@D) --top-module tb_arb_top $(RTL_TB_ARB_SRCS) \
		$(CURDIR)/rtl/tb/tb_arb.cpp -o tb_arb > $(@D)/build.log 2>&1 || { tail -30 $(@D)/build.log; false; }

TEST_DEPS_rtl_crc64 := $(RTL_BUILD)/tb_crc64/tb_crc $(RTL_BUILD)/vectors.txt
TEST_CMD_rtl_crc64 = $(RTL_BUILD)/tb_crc64/tb_crc $(RTL_BUILD)/vectors.txt
TEST_DEPS_rtl_crc512 := $(RTL_BUILD)/tb_crc512/tb_crc $(RTL_BUILD)/vectors.txt
TEST_CMD_rtl_crc512 = $(RTL_BUILD)/tb_crc512/tb_crc $(RTL_BUILD)/vectors.txt
TEST_DEPS_rtl_hdr := $(RTL_BUILD)/tb_hdr/tb_hdr $(RTL_BUILD)/vectors.txt
TEST_CMD_rtl_hdr = $(RTL_BUILD)/tb_hdr/tb_hdr $(RTL_BUILD)/vectors.txt
TEST_DEPS_rtl_arb := $(RTL_BUILD)/tb_arb/tb_arb
TEST_CMD_rtl_arb = $(RTL_BUILD)/tb_arb/tb_arb

.PHONY: rtl-lint rtl-synth
rtl-lint:
	@rtl/scripts/lint.sh "$(RTL_WIDTHS)" "$(RTL_TOPS)" $(RTL_SRCS)
rtl-synth:
	@rtl/scripts/synth.sh $(RTL_SYNTH_TOP) "$(RTL_WIDTHS)" "$(RTL_SYNTH_PARAMS)" $(RTL_BUILD)/synth coarse $(RTL_SRCS)
rtl-synth-full:
	@rtl/scripts/synth.sh $(RTL_SYNTH_TOP) "$(RTL_WIDTHS)" "$(RTL_SYNTH_FULL_PARAMS)" $(RTL_BUILD)/synth-full full $(RTL_SRCS)
REGRESS_TARGETS += rtl-synth-full
LINT_TARGETS += rtl-lint
HELP += "rtl-lint|verilator -Wall lint of the RTL at both widths" "rtl-synth|Yosys generic synthesis to the coarse netlist, both widths (errors, latches)" \
	"rtl-synth-full|Yosys full generic synthesis (synth) with small tables, both widths (slow; part of regress)"

# ---------------------------------------------------------------------------
# The Verilated engine (both widths) and the "rtl" engine harness (sim/rtl/):
# build/lib/libhcartl.a (and -san: the harness C with sanitizers, the
# Verilated C++ as is).  Programs that link it also need $(RTL_LDLIBS).
RTL_VERILATOR_ROOT := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)
RTL_VINC := -I$(RTL_VERILATOR_ROOT)/include -I$(RTL_VERILATOR_ROOT)/include/vltstd
# Everything is compiled position-independent, so that the same objects also
# go into shared libraries (the driver shim's preloadable libhcasim-verbs.so).
# Speed (docs/sim.md "Where the time goes"): Verilator -O3 and the model's
# evaluation code (OPT_FAST) at -O3 -- 13 % faster at DATA_W 512 than -O2.
RTL_VFLAGS := --cc --build -j 1 -O3 --x-assign fast --x-initial fast --trace-fst -Wno-fatal \
	-Irtl -Irtl/include --top-module $(RTL_SIM_TOP) -DHCA_PLANTED_BUGS -CFLAGS -fPIC
RTL_VMAKE := OPT_FAST=-O3 OPT_SLOW=-O1 OPT_GLOBAL=-O2
RTL_LDLIBS := -lstdc++ -lz -lpthread
RTL_CXXFLAGS := -O2 -fPIC -std=c++17 -DVM_TRACE=1 -DVM_TRACE_FST=1 $(RTL_VINC) -Isim/rtl -Iinclude

# The Verilated models are rebuilt when these flags change (stamp rewritten
# at parse time only when its contents differ).
RTL_FLAGS_STAMP := $(RTL_BUILD)/vflags.stamp
RTL_FLAGS_TEXT := $(RTL_VFLAGS) | $(RTL_VMAKE) | $(RTL_CXXFLAGS)
$(shell mkdir -p $(RTL_BUILD) && { echo '$(RTL_FLAGS_TEXT)' | cmp -s - $(RTL_FLAGS_STAMP) || \
	echo '$(RTL_FLAGS_TEXT)' > $(RTL_FLAGS_STAMP); })

define rtl_width
$(RTL_BUILD)/v$(1)/Vhca_top$(1)__ALL.a: $(RTL_DEPS) $(RTL_SIM_SRC) $(RTL_FLAGS_STAMP)
	@mkdir -p $$(@D)
	$(VERILATOR) $(RTL_VFLAGS) -GDATA_W=$(1) --prefix Vhca_top$(1) --Mdir $$(@D) \
		-MAKEFLAGS "$(RTL_VMAKE)" $(RTL_SRCS) $(RTL_SIM_SRC) > $$(@D)/build.log 2>&1 || { tail -30 $$(@D)/build.log; false; }
$(RTL_BUILD)/sim/rtl_model_$(1).o: sim/rtl/rtl_model.cpp sim/rtl/rtl_model.h $(RTL_BUILD)/v$(1)/Vhca_top$(1)__ALL.a \
		$(RTL_FLAGS_STAMP)
	@mkdir -p $$(@D)
	$(CXX) $(RTL_CXXFLAGS) -I$(RTL_BUILD)/v$(1) -DRTL_W=$(1) -DRTL_PREFIX=Vhca_top$(1) -c $$< -o $$@
endef
$(foreach w,$(RTL_WIDTHS),$(eval $(call rtl_width,$(w))))

RTL_LIB_PARTS := $(foreach w,$(RTL_WIDTHS),$(RTL_BUILD)/sim/rtl_model_$(w).o $(RTL_BUILD)/v$(w)/Vhca_top$(w)__ALL.a)
RTL_RUNTIME := $(addprefix $(RTL_BUILD)/v64/,verilated.o verilated_fst_c.o verilated_threads.o)
# One archive per flavour; MRI scripts merge the Verilated archives in.
define rtl_lib_rule
$(BUILD)/lib/libhcartl$(1).a: $(2) $(RTL_LIB_PARTS) $(RTL_RUNTIME)
	@mkdir -p $$(@D); rm -f $$@
	{ echo "CREATE $$@"; for o in $(2) $(filter %.o,$(RTL_LIB_PARTS)) $(RTL_RUNTIME); do echo "ADDMOD $$$$o"; done; \
	  for a in $(filter %.a,$(RTL_LIB_PARTS)); do echo "ADDLIB $$$$a"; done; echo SAVE; echo END; } | ar -M
endef
$(eval $(call rtl_lib_rule,,$(BUILD)/obj/sim/rtl/rtl_engine.o))
$(eval $(call rtl_lib_rule,-san,$(BUILD)/san/sim/rtl/rtl_engine.o))
# libhcartl-pic.a: for shared objects (-fPIC throughout, no sanitizers).  A
# shared library that wants the "rtl" engine links $(RTL_PIC_LIB) with
# -Wl,-u,hca_rtl_engine_register and $(RTL_LDLIBS).
RTL_PIC_LIB := $(BUILD)/lib/libhcartl-pic.a
$(RTL_BUILD)/pic/rtl_engine.o: sim/rtl/rtl_engine.c $(SPEC_H)
	@mkdir -p $(@D)
	$(CC) $(HCA_CFLAGS) -fPIC $(CFLAGS_sim) -MMD -MP -c $< -o $@
-include $(RTL_BUILD)/pic/rtl_engine.d
$(eval $(call rtl_lib_rule,-pic,$(RTL_BUILD)/pic/rtl_engine.o))
# The Verilator runtime, compiled once with the 64-bit model's flags.
$(RTL_RUNTIME) &: $(RTL_BUILD)/v64/Vhca_top64__ALL.a
	$(MAKE) --no-print-directory -C $(RTL_BUILD)/v64 -f Vhca_top64.mk $(RTL_VMAKE) $(notdir $(RTL_RUNTIME)) \
		>> $(RTL_BUILD)/v64/build.log 2>&1 || { tail -30 $(RTL_BUILD)/v64/build.log; false; }
ALL_TARGETS += $(BUILD)/lib/libhcartl.a $(RTL_PIC_LIB)

# Engine-level tests of the RTL through the "rtl" engine (sim/tb).
RTL_TEST_LIBS := hcartl hcaroce hcasim
define rtl_engine_test
$$(eval $$(call hca_test,$(1),$(2),$(RTL_TEST_LIBS)))
LDLIBS_$(1) := $(RTL_LDLIBS)
endef
$(eval $(call rtl_engine_test,rtl_regs,sim/rtl/tests/test_rtl_regs.c))
TEST_ARGS_rtl_regs := --width 64
$(eval $(call rtl_engine_test,rtl_regs512,sim/rtl/tests/test_rtl_regs.c))
TEST_ARGS_rtl_regs512 := --width 512

# Error paths in lockstep against the model (needs the model and lockstep libraries).
RTL_LS_LIBS := hcalockstep hcartl hcamodel hcaroce hcasim
define rtl_ls_test
$$(eval $$(call hca_test,$(1),$(2),$(RTL_LS_LIBS)))
LDLIBS_$(1) := $(RTL_LDLIBS)
TEST_ARGS_$(1) := $(3)
endef
$(eval $(call rtl_ls_test,rtl_errors,sim/rtl/tests/test_rtl_errors.c,--width 64))
$(eval $(call rtl_ls_test,rtl_errors512,sim/rtl/tests/test_rtl_errors.c,--width 512))
# NAKs, go-back-N, the ACK timer and the RNR wait in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_retry,sim/rtl/tests/test_rtl_retry.c,--width 64))
$(eval $(call rtl_ls_test,rtl_retry512,sim/rtl/tests/test_rtl_retry.c,--width 512))
# RDMA READ and atomics in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_read,sim/rtl/tests/test_rtl_read.c,--width 64))
$(eval $(call rtl_ls_test,rtl_read512,sim/rtl/tests/test_rtl_read.c,--width 512))
# Values near the top of their fields and tables (message-size cap, a 2 MiB
# WRITE, a receive queue above 16 GiB, SRQ 45) in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_bounds,sim/rtl/tests/test_rtl_bounds.c,--width 64))
$(eval $(call rtl_ls_test,rtl_bounds512,sim/rtl/tests/test_rtl_bounds.c,--width 512))
# Scatter lists of 16 entries (READ and receive) and payload-read faults in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_scatter_long,sim/rtl/tests/test_rtl_scatter_long.c,--width 64))
$(eval $(call rtl_ls_test,rtl_scatter_long512,sim/rtl/tests/test_rtl_scatter_long.c,--width 512))

# The lockstep cosimulation (sim/lockstep.mk: make sim, sim_cosim, make wave,
# bench-sim) runs the rtl engine as its DUT.
RTL_ENGINE_LIBS := $(BUILD)/lib/libhcartl.a
RTL_ENGINE_LDLIBS := $(RTL_LDLIBS)
$(eval $(call rtl_engine_test,rtl_rc,sim/rtl/tests/test_rtl_rc.c))
TEST_ARGS_rtl_rc := --width 64
$(eval $(call rtl_engine_test,rtl_rc512,sim/rtl/tests/test_rtl_rc.c))
TEST_ARGS_rtl_rc512 := --width 512

# State names of the RTL's state machines for waveforms (docs/rtl.md "State
# names in a waveform"): GTKWave translate filter files, one per module,
# attached by `make wave` through the @names lines of sim/rtl/wave_signals.txt.
RTL_STATE_NAMES := $(RTL_BUILD)/state_names/states.txt
$(RTL_STATE_NAMES): rtl/scripts/gen_state_names.py $(RTL_SRCS)
	@$(PYTHON) rtl/scripts/gen_state_names.py --out $(@D) $(RTL_SRCS) > /dev/null
ALL_TARGETS += $(RTL_STATE_NAMES)
wave: $(RTL_STATE_NAMES)
# (sim/lockstep.mk, read after this fragment, makes the sim_wave test depend on it)
# The requester's WQE prefetch (hca_wqe_prefetch): its corner cases, lockstep and rtl.
$(eval $(call rtl_ls_test,rtl_prefetch,sim/rtl/tests/test_rtl_prefetch.c,--width 64))
$(eval $(call rtl_ls_test,rtl_prefetch512,sim/rtl/tests/test_rtl_prefetch.c,--width 512))
# A prefetched WQE's lkey checked ahead (hca_wqe_lkey_ahead): MRC writes
# between the check and the step, lockstep.
$(eval $(call rtl_ls_test,rtl_lkey_ahead,sim/rtl/tests/test_rtl_lkey_ahead.c,--width 64))
$(eval $(call rtl_ls_test,rtl_lkey_ahead512,sim/rtl/tests/test_rtl_lkey_ahead.c,--width 512))
# The ACK item's walk folded into the retire's done cycle (hca_comp nx_fold),
# lockstep: the next entry a WRITE, a READ, failed, none, covered; a lost CQE.
$(eval $(call rtl_ls_test,rtl_ackfold,sim/rtl/tests/test_rtl_ackfold.c,--width 64))
$(eval $(call rtl_ls_test,rtl_ackfold512,sim/rtl/tests/test_rtl_ackfold.c,--width 512))
# A send WQE's first read (its header and one segment) and the whole-slot
# read of a longer one (docs/rtl.md "WQE prefetch"), lockstep.
$(eval $(call rtl_ls_test,rtl_wqelen,sim/rtl/tests/test_rtl_wqelen.c,--width 64))
$(eval $(call rtl_ls_test,rtl_wqelen512,sim/rtl/tests/test_rtl_wqelen.c,--width 512))
# How a READ stream's WQEs are read (docs/rtl.md "The READ streams at 64 bits"):
# from the doorbell during the QP's own item, by their size for the response,
# lockstep.
$(eval $(call rtl_ls_test,rtl_readwqe,sim/rtl/tests/test_rtl_readwqe.c,--width 64))
$(eval $(call rtl_ls_test,rtl_readwqe512,sim/rtl/tests/test_rtl_readwqe.c,--width 512))
# The transmit slots' depth (docs/rtl.md "The transmit slot's wait"): payload
# reads in flight one per slot, a read-ahead fault in each slot, lockstep.
$(eval $(call rtl_ls_test,rtl_txahead,sim/rtl/tests/test_rtl_txahead.c,--width 64))
$(eval $(call rtl_ls_test,rtl_txahead512,sim/rtl/tests/test_rtl_txahead.c,--width 512))
# Posted payload writes at the responder (docs/rtl.md "Posted payload writes")
# in lockstep against the model: write faults behind posted packets, READ and
# atomics after a posted WRITE, ACKs after the write responses.
$(eval $(call rtl_ls_test,rtl_posted,sim/rtl/tests/test_rtl_posted.c,--width 64))
$(eval $(call rtl_ls_test,rtl_posted512,sim/rtl/tests/test_rtl_posted.c,--width 512))
# Several payload writes in flight at the responder (docs/rtl.md "Several
# payload writes in flight"): WRITEs over four QPs, a write fault among them,
# two back to back, with the write responses after 8 and 300 cycles.
$(eval $(call rtl_ls_test,rtl_wr_flight,sim/rtl/tests/test_rtl_wr_flight.c,--width 64))
$(eval $(call rtl_ls_test,rtl_wr_flight512,sim/rtl/tests/test_rtl_wr_flight.c,--width 512))
# The responder fed back to back (frames held at the wire, then sent together): its cycles a message.
$(eval $(call rtl_ls_test,rtl_resp_burst,sim/rtl/tests/test_rtl_resp_burst.c,--width 64))
$(eval $(call rtl_ls_test,rtl_resp_burst512,sim/rtl/tests/test_rtl_resp_burst.c,--width 512))
# Context tables and their status bits around rewrites, resets, doorbells and
# MSI-X masks (mutation survivors of b5a3724) in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_ctx_rewrite,sim/rtl/tests/test_rtl_ctx_rewrite.c,--width 64))
$(eval $(call rtl_ls_test,rtl_ctx_rewrite512,sim/rtl/tests/test_rtl_ctx_rewrite.c,--width 512))
# The responder's state words at values and moments no other test reaches
# (a receive queue at IOVA bit 43, responder resources 4 and 12, receive
# and atomic items under engine holds) in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_resp_state,sim/rtl/tests/test_rtl_resp_state.c,--width 64))
$(eval $(call rtl_ls_test,rtl_resp_state512,sim/rtl/tests/test_rtl_resp_state.c,--width 512))
# Requester and completer corners (a WQE fetch fault's IOVA, an implicit NAK
# with no retry left, READs with the engine held, a WQE resent from the fetch
# buffer) in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_req_comp,sim/rtl/tests/test_rtl_req_comp.c,--width 64))
$(eval $(call rtl_ls_test,rtl_req_comp512,sim/rtl/tests/test_rtl_req_comp.c,--width 512))
# Receive completion and transport timer corners (the make test mutation
# sample's survivors) in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_comp_corners,sim/rtl/tests/test_rtl_comp_corners.c,--width 64))
$(eval $(call rtl_ls_test,rtl_comp_corners512,sim/rtl/tests/test_rtl_comp_corners.c,--width 512))
# Posted CQE writes (docs/rtl.md "Posted CQE writes"): a CQE write that
# faults while the next completion is on its way, in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_cqpost,sim/rtl/tests/test_rtl_cqpost.c,--width 64))
$(eval $(call rtl_ls_test,rtl_cqpost512,sim/rtl/tests/test_rtl_cqpost.c,--width 512))
# CQE batches (docs/rtl.md "CQE batches"): a batch of CQEs of several QPs
# whose write faults at its first or a later CQE, in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_cqbatch,sim/rtl/tests/test_rtl_cqbatch.c,--width 64))
$(eval $(call rtl_ls_test,rtl_cqbatch512,sim/rtl/tests/test_rtl_cqbatch.c,--width 512))
# The dispatcher's look-ahead (docs/rtl.md "Look-ahead"): context writes and
# doorbells racing the words read ahead, in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_lookahead,sim/rtl/tests/test_rtl_lookahead.c,--width 64))
$(eval $(call rtl_ls_test,rtl_lookahead512,sim/rtl/tests/test_rtl_lookahead.c,--width 512))
# The ACK item's last-cycle writes (TXS_UNA, TXS_TMR, the retry budgets, the
# timer set) seen by what comes next (docs/rtl.md "Handovers"): the timer
# stopped and re-armed, budgets restored, UNA inside a WQE, 8 QPs with
# losses, in lockstep against the model and on plain rtl devices.
$(eval $(call rtl_ls_test,rtl_handover,sim/rtl/tests/test_rtl_handover.c,--width 64))
$(eval $(call rtl_ls_test,rtl_handover512,sim/rtl/tests/test_rtl_handover.c,--width 512))
# The frame checked ahead (docs/rtl.md "The frame checked ahead"): context
# writes racing a frame's QP words read ahead, in lockstep against the model.
$(eval $(call rtl_ls_test,rtl_frameahead,sim/rtl/tests/test_rtl_frameahead.c,--width 64))
$(eval $(call rtl_ls_test,rtl_frameahead512,sim/rtl/tests/test_rtl_frameahead.c,--width 512))
# The handover from a step to a frame checked ahead (docs/rtl.md "Handovers"):
# the step's last-cycle writes and strobes across it, in lockstep.
$(eval $(call rtl_ls_test,rtl_step_handover,sim/rtl/tests/test_rtl_step_handover.c,--width 64))
$(eval $(call rtl_ls_test,rtl_step_handover512,sim/rtl/tests/test_rtl_step_handover.c,--width 512))
