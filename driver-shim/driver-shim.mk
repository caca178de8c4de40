# driver-shim/: the userspace verbs driver (libibverbs API over a VFIO-style bus).
# Owner: driver-shim engineer.  See docs/shim.md.
#
#   build/lib/libhcashim.a(-san)     the shim, for programs that link it directly (tests)
#   build/lib/libhcasim-verbs.so     the same, preloadable over Debian's libibverbs
#   build/bin/hcasim                 `hcasim run` / `hcasim switch` / `hcasim replay` (sim/replay.mk)
# The hcasim command's own files (one per subcommand, hcasim_cmd.h); not in the library.
HCASIM_CMD_SRCS := driver-shim/hcasim.c driver-shim/switch.c driver-shim/switch_hcasim.c driver-shim/sw_qemu.c
SHIM_SRCS := $(filter-out $(HCASIM_CMD_SRCS),$(wildcard driver-shim/*.c))
LIBS += hcashim
LIB_SRCS_hcashim += $(SHIM_SRCS)
CFLAGS_driver-shim := -Isim -Imodel -Idriver-shim -Itests

# Unit tests that need no live device.
$(eval $(call hca_test,shim_bus,driver-shim/tests/test_bus.c,hcashim hcasim))
LDLIBS_shim_bus := -lpthread
$(eval $(call hca_test,shim_link,driver-shim/tests/test_link.c,hcashim hcasim))
LDLIBS_shim_link := -lpthread

# Link order of a program holding a live simulated HCA.
SHIM_LINK := hcashim hcadev hcafw hcalockstep hcamodel hcasim hcaroce
SHIM_TEST_SRCS := driver-shim/tests/shim_test.c
$(eval $(call hca_test,shim_strings,driver-shim/tests/test_strings.c,$(SHIM_LINK)))
LDLIBS_shim_strings := -ldl -lpthread
$(eval $(call hca_test,shim_verbs_data,driver-shim/tests/test_verbs_data.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_verbs_data := -lpthread
$(eval $(call hca_test,shim_events,driver-shim/tests/test_events.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_events := -lpthread
$(eval $(call hca_test,shim_verbs_errors,driver-shim/tests/test_verbs_errors.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_verbs_errors := -lpthread
$(eval $(call hca_test,shim_determinism,driver-shim/tests/test_determinism.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_determinism := -lpthread
$(eval $(call hca_test,shim_threaded,driver-shim/tests/test_threaded.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_threaded := -lpthread
$(eval $(call hca_test,shim_verbs_ex,driver-shim/tests/test_verbs_ex.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_verbs_ex := -lpthread
$(eval $(call hca_test,shim_cm_api,driver-shim/tests/test_cm.c driver-shim/tests/test_cm_wire.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_cm_api := -lpthread
$(eval $(call hca_test,shim_lockstep_teardown,driver-shim/tests/test_lockstep_teardown.c $(SHIM_TEST_SRCS),$(SHIM_LINK)))
LDLIBS_shim_lockstep_teardown := -lpthread
# The same against the RTL (lockstep(model, rtl)): links libhcartl (rtl_linked.c pulls it in).
$(eval $(call hca_test,shim_lockstep_teardown_rtl,driver-shim/tests/test_lockstep_teardown.c driver-shim/tests/rtl_linked.c $(SHIM_TEST_SRCS),hcashim hcadev hcafw hcalockstep hcartl hcamodel hcasim hcaroce))
LDLIBS_shim_lockstep_teardown_rtl = -lpthread $(RTL_LDLIBS)
TEST_ARGS_shim_lockstep_teardown_rtl := --dut rtl

# ---- the preloadable shared library --------------------------------------------------
# Every object of the shim and of the device it simulates, compiled again with
# -fPIC.  The source lists of the other parts' libraries are complete only
# after every fragment was read, hence the secondary expansion of these
# prerequisite lists (no other rule uses `$$` in its prerequisites).
SHIM_SO := $(BUILD)/lib/libhcasim-verbs.so
SHIM_SO_DEPLIBS := hcadev hcafw hcalockstep hcamodel hcasim hcaroce
SHIM_SO_DEP_SRCS = $(foreach l,$(SHIM_SO_DEPLIBS),$(LIB_SRCS_$(l)))
SHIM_MAP := driver-shim/libibverbs.map driver-shim/librdmacm.map

$(BUILD)/pic/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	$(CC) $(HCA_CFLAGS) -fPIC -fvisibility=default $(CFLAGS_$(firstword $(subst /, ,$*))) -MMD -MP -c $< -o $@
-include $(shell find $(BUILD)/pic -name '*.d' 2>/dev/null)


.SECONDEXPANSION:
$(BUILD)/pic/libhcasim-deps.a: $$(patsubst %.c,$(BUILD)/pic/%.o,$$(SHIM_SO_DEP_SRCS))
	@mkdir -p $(@D); rm -f $@; ar rcs $@ $^

# The "rtl" engine (Verilated hca_top, both widths) comes from rtl/rtl.mk's
# position-independent archive; -u pulls its registration in (backends.c
# references it weakly, so the static libhcashim does not need the RTL).
$(SHIM_SO): $(patsubst %.c,$(BUILD)/pic/%.o,$(SHIM_SRCS)) $(BUILD)/pic/libhcasim-deps.a $$(RTL_PIC_LIB) $(SHIM_MAP)
	@mkdir -p $(@D)
	$(CC) -shared -o $@ $(foreach m,$(SHIM_MAP),-Wl,--version-script=$(m)) -Wl,-z,defs -Wl,-soname,libhcasim-verbs.so \
		$(filter %.o,$^) -Wl,-u,hca_rtl_engine_register $(RTL_PIC_LIB) $(BUILD)/pic/libhcasim-deps.a \
		$(RTL_LDLIBS) $(ISAL_LDLIBS) -lpthread -lm
ALL_TARGETS += $(SHIM_SO)

# ---- the hcasim command ---------------------------------------------------------------
HCASIM_BIN := $(BUILD)/bin/hcasim
# Other parts add subcommands: HCASIM_CMD_OBJS, _LIBS (in link order), _LDLIBS (sim/replay.mk).
$(HCASIM_BIN): $(patsubst %.c,$(BUILD)/obj/%.o,$(HCASIM_CMD_SRCS)) $$(HCASIM_CMD_OBJS) $(BUILD)/lib/libhcashim.a \
		$$(HCASIM_CMD_LIBS) $(BUILD)/lib/libhcasim.a $(BUILD)/lib/libhcaroce.a
	@mkdir -p $(@D)
	$(CC) -o $@ $^ $(HCASIM_CMD_LDLIBS) -lpthread -lm
ALL_TARGETS += $(HCASIM_BIN)
# What `hcasim run` needs at run time.
SHIM_RUNTIME := $(HCASIM_BIN) $(SHIM_SO)

# ---- tests with real verbs binaries (ibverbs-utils, perftest) --------------------------
# Each runs server and client in separate processes under `hcasim run`,
# through `hcasim switch`; see the scripts' headers for what they check.
define shim_script_test
TESTS += $(1)
TEST_DEPS_$(1) := $$(SHIM_RUNTIME) driver-shim/tests/lib.sh driver-shim/tests/$(2)
TEST_CMD_$(1) := HCASIM=$$(HCASIM_BIN) bash driver-shim/tests/$(2) $(3)
endef
$(eval $(call shim_script_test,shim_symbols,symbols.sh))
TEST_CMD_shim_symbols := SHIM_SO=$(SHIM_SO) bash driver-shim/tests/symbols.sh
$(eval $(call shim_script_test,shim_devinfo,devinfo.sh))
$(eval $(call shim_script_test,shim_pingpong,pingpong.sh))
$(eval $(call shim_script_test,shim_pingpong_more,pingpong_more.sh))
$(eval $(call shim_script_test,shim_perftest,perftest.sh))
$(eval $(call shim_script_test,shim_faults,faults.sh))
$(eval $(call shim_script_test,shim_switch,switch.sh))
$(eval $(call shim_script_test,shim_options,options.sh))
$(eval $(call shim_script_test,shim_gid,gid.sh))
$(eval $(call shim_script_test,shim_lockstep,lockstep.sh))
$(eval $(call shim_script_test,shim_rtl,rtl.sh))
$(eval $(call shim_script_test,shim_rtl_perftest,rtl_perftest.sh))
$(eval $(call shim_script_test,shim_rtl_pingpong,pingpong_more.sh))
TEST_CMD_shim_rtl_pingpong := PP_BACKENDS="rtl lockstep" HCASIM=$(HCASIM_BIN) bash driver-shim/tests/pingpong_more.sh
$(eval $(call shim_script_test,shim_cm,cm.sh))
$(eval $(call shim_script_test,shim_cm_rtl,cm.sh))
TEST_CMD_shim_cm_rtl := CM_RTL=1 HCASIM=$(HCASIM_BIN) bash driver-shim/tests/cm.sh
# The shared-memory wire: real programs over it, fault decisions and captures as
# on the socket, bad rings and segments (a raw peer, driver-shim/tests/shm_peer.c).
$(BUILD)/tests/shm_peer: $(BUILD)/san/driver-shim/tests/shm_peer.o
	@mkdir -p $(@D); $(CC) $(SAN_FLAGS) -o $@ $^
$(eval $(call shim_script_test,shim_shm,shm.sh))
TEST_DEPS_shim_shm += $(BUILD)/tests/shm_peer
TEST_CMD_shim_shm := SHM_PEER=$(BUILD)/tests/shm_peer HCASIM=$(HCASIM_BIN) bash driver-shim/tests/shm.sh

# ---- make demo / bench / regress ------------------------------------------------------------
.PHONY: demo bench-shim regress-shim
demo: deps-check $(SHIM_RUNTIME)
	@BUILD=$(BUILD) bash driver-shim/demo.sh
# The socket floor (driver-shim/tests/sockfloor.c), printed first by bench-shim.
$(BUILD)/bench/sockfloor: $(BUILD)/obj/driver-shim/tests/sockfloor.o
	@mkdir -p $(@D); $(CC) -o $@ $^
bench-shim: $(SHIM_RUNTIME) $(BUILD)/bench/sockfloor
	@set -o pipefail; mkdir -p $(BUILD)/bench; \
	SOCKFLOOR=$(BUILD)/bench/sockfloor HCASIM=$(HCASIM_BIN) bash driver-shim/tests/bench.sh | \
	tee $(BUILD)/bench/shim.log
regress-shim: $(SHIM_RUNTIME)
	@HCASIM=$(HCASIM_BIN) bash driver-shim/tests/regress.sh
BENCH_TARGETS += bench-shim
REGRESS_TARGETS += regress-shim
HELP += "demo|two simulated HCAs (lockstep: RTL checked against the model) run ibv_rc_pingpong, ib_write_bw, ib_read_bw and ib_atomic_bw (pcaps, waveform in build/demo/; DEMO_BACKEND=model|rtl|lockstep)" \
        "bench-shim|ib_write_bw through the driver shim (64 B, 64 KiB; shared-memory rings, batched socket messages, one frame per message; CPU per message)"

.PHONY: lint-shim
lint-shim:
	@for f in driver-shim/tests/*.sh driver-shim/demo.sh driver-shim/hcasim; do bash -n "$$f" || exit 1; done
	@if command -v shellcheck >/dev/null; then shellcheck -S error driver-shim/tests/*.sh driver-shim/demo.sh driver-shim/hcasim; fi
	@echo "lint-shim: OK"
LINT_TARGETS += lint-shim
