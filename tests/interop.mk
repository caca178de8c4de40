# tests/interop.mk: hcasim against Linux soft-RoCE (rdma_rxe) in a QEMU guest
# (tests/interop/, docs/interop.md).
#
#   make interop-guest   build (or reuse) the guest image in build/interop/
#   make interop         everything: full set on model and rtl, lossy on model (also in make regress)
#   make interop-model | interop-rtl | interop-lossy   one of them
INTEROP_IMG := $(BUILD)/interop
INTEROP_RUN := HCASIM=$(HCASIM_BIN) GUEST_IMG=$(INTEROP_IMG) bash tests/interop/interop.sh

.PHONY: interop-guest interop interop-model interop-rtl interop-lossy
interop-guest:
	@bash tests/interop/mkguest.sh $(INTEROP_IMG)

# make test: the switch's QEMU port against scripted ends (no QEMU, ~5 s) ...
TESTS += switch_qemu
TEST_DEPS_switch_qemu := $(HCASIM_BIN)
TEST_CMD_switch_qemu := $(PYTHON) tests/interop/test_sw_qemu.py --hcasim $(HCASIM_BIN)

# ... and one ibv_rc_pingpong each way and one rping (the two CMs) between rxe and the model (~30 s).
TESTS += interop_short
TEST_DEPS_interop_short := $(SHIM_RUNTIME) interop-guest
TEST_CMD_interop_short := $(INTEROP_RUN) short

interop-model: deps-check $(SHIM_RUNTIME) interop-guest
	@$(INTEROP_RUN) full model
interop-rtl: deps-check $(SHIM_RUNTIME) interop-guest
	@$(INTEROP_RUN) full rtl
interop-lossy: deps-check $(SHIM_RUNTIME) interop-guest
	@$(INTEROP_RUN) lossy model
interop: deps-check $(SHIM_RUNTIME) interop-guest
	@rc=0; for run in "full model" "full rtl" "lossy model"; do \
		echo "== interop.sh $$run"; $(INTEROP_RUN) $$run || rc=1; done; exit $$rc
REGRESS_TARGETS += interop
HELP += "interop|hcasim against Linux rxe in a QEMU guest: pingpongs, perftest, rping, lossy (model, rtl)" \
        "interop-guest|build the rxe guest image (build/interop/) from installed Debian packages"
