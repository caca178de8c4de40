# sim/systemc.mk: hcasim::Hca, the HCA as a SystemC TLM-2.0 component, the
# example virtual platform and their tests (sim/systemc/, docs/systemc.md).
#
#   build/systemc/vp       the example VP, optimised (make bench-systemc)
#   build/tests/sc_vp      the same with ASan/UBSan (tests systemc_vp_*)
#   build/tests/sc_hca     the module's error paths and the protocol checker
SC_LIB_CXX := sim/systemc/hca.cpp sim/systemc/tlm_check.cpp sim/systemc/vp_bus.cpp \
	sim/systemc/vp_switch.cpp sim/systemc/vp_cpu.cpp
SC_LIB_C := sim/systemc/vp_host.c sim/systemc/vp_traffic.c
# hca_spec.h is C11 (_Static_assert); C++17 spells it static_assert.
SC_CXXFLAGS := -std=c++17 -Wall -Wextra -Werror -O2 -g -D_Static_assert=static_assert \
	-Iinclude -Isim -Isim/systemc -Imodel -Ifirmware/tests -Itests
SC_CFLAGS := -Isim -Isim/systemc -Ifirmware/tests -Itests
# Engines: the device (firmware + engine), lockstep, the RTL (pulled in by
# -u, see docs/rtl.md "The harness"), the model.
SC_LIBS := hcadev hcafw hcalockstep hcartl hcamodel hcaroce hcasim
SC_LDLIBS = -Wl,-u,hca_rtl_engine_register -lsystemc $(RTL_LDLIBS) -lm

$(BUILD)/systemc/obj/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(SC_CXXFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/systemc/san/%.o: %.cpp
	@mkdir -p $(@D)
	$(CXX) $(SC_CXXFLAGS) $(SAN_FLAGS) -MMD -MP -c $< -o $@
$(BUILD)/systemc/obj/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	$(CC) $(HCA_CFLAGS) $(SC_CFLAGS) -MMD -MP -c $< -o $@
$(BUILD)/systemc/san/%.o: %.c $(SPEC_H)
	@mkdir -p $(@D)
	$(CC) $(HCA_CFLAGS) $(SAN_FLAGS) $(SC_CFLAGS) -MMD -MP -c $< -o $@
-include $(shell find $(BUILD)/systemc -name '*.d' 2>/dev/null)

# $(call sc_objs,obj|san,sources)
sc_objs = $(patsubst %.cpp,$(BUILD)/systemc/$(1)/%.o,$(patsubst %.c,$(BUILD)/systemc/$(1)/%.o,$(2)))
SC_OBJS = $(call sc_objs,obj,$(SC_LIB_CXX) $(SC_LIB_C)) $(BUILD)/obj/firmware/tests/fw_test.o
SC_SAN_OBJS = $(call sc_objs,san,$(SC_LIB_CXX) $(SC_LIB_C)) $(BUILD)/san/firmware/tests/fw_test.o

SC_VP := $(BUILD)/systemc/vp
$(SC_VP): $(call sc_objs,obj,sim/systemc/vp_main.cpp) $(SC_OBJS) $(foreach l,$(SC_LIBS),$(BUILD)/lib/lib$(l).a)
	@mkdir -p $(@D)
	$(CXX) -o $@ $(filter %.o,$^) $(filter %.a,$^) $(SC_LDLIBS)
ALL_TARGETS += $(SC_VP)

# Sanitizer builds for the tests: $(call sc_test_bin,NAME,main source)
define sc_test_bin
$(BUILD)/tests/$(1): $(call sc_objs,san,$(2)) $$(SC_SAN_OBJS) $(foreach l,$(SC_LIBS),$(BUILD)/lib/lib$(l)-san.a)
	@mkdir -p $$(@D)
	$$(CXX) $$(SAN_FLAGS) -o $$@ $$(filter %.o,$$^) $$(filter %.a,$$^) $$(SC_LDLIBS)
endef
$(eval $(call sc_test_bin,sc_vp,sim/systemc/vp_main.cpp))
$(eval $(call sc_test_bin,sc_hca,sim/systemc/tests/test_hca_tlm.cpp))

SC_ENV := SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
# The VP on each engine: RC SEND, WRITE and READ with data and completion checks.
TESTS += systemc_vp_model systemc_vp_memwait systemc_vp_rtl systemc_vp_lockstep systemc_hca systemc_hca_rtl
TEST_DEPS_systemc_vp_model := $(BUILD)/tests/sc_vp
TEST_CMD_systemc_vp_model = $(SC_ENV) $(BUILD)/tests/sc_vp --engine model --read yes
# The same with a memory that waits inside b_transport (the device's DMA suspends it).
TEST_DEPS_systemc_vp_memwait := $(BUILD)/tests/sc_vp
TEST_CMD_systemc_vp_memwait = $(SC_ENV) $(BUILD)/tests/sc_vp --engine model --read yes --memory-wait --rounds 2
TEST_DEPS_systemc_vp_rtl := $(BUILD)/tests/sc_vp
TEST_CMD_systemc_vp_rtl = $(SC_ENV) $(BUILD)/tests/sc_vp --engine rtl --width 64
TEST_DEPS_systemc_vp_lockstep := $(BUILD)/tests/sc_vp
TEST_CMD_systemc_vp_lockstep = $(SC_ENV) $(BUILD)/tests/sc_vp --engine lockstep --width 64
# The module's error paths: outside BAR0, unsupported length, byte enables,
# DMA fault answered by the memory, MSI-X writes, the checker itself.
TEST_DEPS_systemc_hca := $(BUILD)/tests/sc_hca
TEST_CMD_systemc_hca = $(SC_ENV) $(BUILD)/tests/sc_hca --engine model
TEST_DEPS_systemc_hca_rtl := $(BUILD)/tests/sc_hca
TEST_CMD_systemc_hca_rtl = $(SC_ENV) $(BUILD)/tests/sc_hca --engine rtl --width 64

# make bench: simulated time / wall time of the VP per engine.
.PHONY: bench-systemc
bench-systemc: $(SC_VP)
	@sim/systemc/bench.sh $(SC_VP)
BENCH_TARGETS += bench-systemc
HELP += "bench-systemc|simulated/wall time of the SystemC example platform, model and rtl engines"

.PHONY: lint-systemc
lint-systemc:
	@bash -n sim/systemc/bench.sh
	@if command -v shellcheck >/dev/null; then shellcheck -S error sim/systemc/bench.sh; fi
	@echo "lint-systemc: OK"
LINT_TARGETS += lint-systemc
