# sim/replay.mk: `hcasim replay` (sim/replay/, docs/replay.md): a capture fed
# into one simulated device (model, rtl or lockstep) set up from a text file,
# with a report of what the device did with each frame.
#
# The command lives in build/bin/hcasim (driver-shim/driver-shim.mk links
# HCASIM_CMD_OBJS, HCASIM_CMD_LIBS and HCASIM_CMD_LDLIBS into it).
REPLAY_SRCS := sim/replay/main.c sim/replay/setup.c sim/replay/build.c sim/replay/run.c sim/replay/report.c
HCASIM_CMD_OBJS += $(REPLAY_SRCS:%.c=$(BUILD)/obj/%.o)
HCASIM_CMD_LIBS += $(foreach l,hcadev hcafw hcalockstep hcartl hcamodel,$(BUILD)/lib/lib$(l).a)
HCASIM_CMD_LDLIBS += $(RTL_LDLIBS)

# Captures crafted with scapy (tests/oracle/roce_scapy.py), replayed on the
# model, the RTL at both widths and lockstep; every outcome against the IB
# rule it follows (see the script's header).
TESTS += sim_replay
TEST_DEPS_sim_replay := $(HCASIM_BIN) sim/replay/tests/test_replay.py
TEST_CMD_sim_replay = $(PYTHON) sim/replay/tests/test_replay.py --hcasim $(HCASIM_BIN) --out $(BUILD)/replay-test
