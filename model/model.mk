# model/model.mk: the reference model engine ("model", libhcamodel) and its
# engine-level tests.  docs/model.md.  (The codec, libhcaroce, is model/codec.mk.)
LIBS += hcamodel
LIB_SRCS_hcamodel += model/engine.c model/bar0.c model/mgmt.c model/ctx.c model/dma.c \
	model/cq.c model/eq.c model/rq.c model/qp.c model/net.c model/recv.c \
	model/req.c model/resp.c model/comp.c

CFLAGS_model += -Imodel -Isim -Itests

MODEL_TEST_LIBS := hcamodel hcaroce hcasim
$(eval $(call hca_test,model_rc,model/tests/test_model_rc.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_mgmt,model/tests/test_model_mgmt.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_nak,model/tests/test_model_nak.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_retry,model/tests/test_model_retry.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_protect,model/tests/test_model_protect.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_queues,model/tests/test_model_queues.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_ud_uc,model/tests/test_model_ud_uc.c,$(MODEL_TEST_LIBS)))
$(eval $(call hca_test,model_soak,model/tests/test_model_soak.c,$(MODEL_TEST_LIBS)))
TEST_ARGS_model_soak := --messages 100000 --seed 1
$(eval $(call hca_test,model_soak_noretry,model/tests/test_model_soak.c,$(MODEL_TEST_LIBS)))
TEST_ARGS_model_soak_noretry := --messages 20000 --seed 2 --no-retry

# Long soaks: make regress (several seeds, 300k messages each, plus retry_cnt 0).
.PHONY: regress-model
regress-model: $(BUILD)/tests/model_soak
	@set -e; for s in 11 12 13 14; do \
	  echo "model soak seed $$s"; $(BUILD)/tests/model_soak --messages 300000 --seed $$s | tail -6; \
	  $(BUILD)/tests/model_soak --messages 50000 --seed $$s --no-retry | tail -1; done
REGRESS_TARGETS += regress-model

# make bench: model speed (optimised build, no sanitizers).
$(BUILD)/bench/bench_model: $(BUILD)/obj/model/tests/bench_model.o $(BUILD)/lib/libhcamodel.a \
		$(BUILD)/lib/libhcaroce.a $(BUILD)/lib/libhcasim.a
	@mkdir -p $(@D); $(CC) -o $@ $^ $(ISAL_LDLIBS) -lm
.PHONY: bench-model
bench-model: $(BUILD)/bench/bench_model
	@$(BUILD)/bench/bench_model --seconds 2
BENCH_TARGETS += bench-model

# Every opcode the model emits, captured and handed to the independent oracles
# (scapy ICRC, tshark decode, wire rules): tests/oracle/check_pcap.py.
$(eval $(call hca_test,model_frames,model/tests/test_model_frames.c,$(MODEL_TEST_LIBS)))
TEST_DEPS_model_frames += tests/oracle/check_pcap.py
# (both result lines are summed into one)
TEST_CMD_model_frames = set -o pipefail; mkdir -p $(BUILD)/test-tmp && \
	{ $(BUILD)/tests/model_frames $(BUILD)/test-tmp/model_frames.pcap && \
	  $(PYTHON) tests/oracle/check_pcap.py --wire-rules $(BUILD)/test-tmp/model_frames.pcap; } | \
	awk '/^[0-9]+ passed, [0-9]+ failed$$/ { p += $$1; f += $$3; next } { print } \
	     END { printf "%d passed, %d failed\n", p, f; exit f > 0 }'

# scapy-built frames (tests/oracle/gen_frames.py) accepted and executed by the model.
$(eval $(call hca_test,model_scapy,model/tests/test_model_scapy.c,$(MODEL_TEST_LIBS)))
TEST_DEPS_model_scapy += tests/oracle/gen_frames.py
TEST_CMD_model_scapy = mkdir -p $(BUILD)/test-tmp && \
	$(BUILD)/tests/model_scapy $(PYTHON) tests/oracle/gen_frames.py $(BUILD)/test-tmp

$(eval $(call hca_test,model_fuzz,model/tests/test_model_fuzz.c,$(MODEL_TEST_LIBS)))
TEST_ARGS_model_fuzz := --iterations 20000 --seed 1
$(eval $(call hca_test,model_wqe,model/tests/test_model_wqe.c,$(MODEL_TEST_LIBS)))
