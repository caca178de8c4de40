# tests/oracle.mk: independent packet oracles (tests/oracle/, docs/packet.md).
#   build/oracle/roce_dump     decode a pcap with the model's codec (JSON lines)
#   build/oracle/codec_pcap    every opcode built by the codec, as pcap + intent JSON
#   make oracle PCAP=f.pcap [ORACLE_ARGS=--wire-rules]   scapy + tshark check of any capture
#   make decode PCAP=f.pcap                               roce_dump of any capture
ORACLE_BIN := $(BUILD)/oracle

$(ORACLE_BIN)/roce_dump: $(BUILD)/san/tests/oracle/roce_dump.o $(BUILD)/lib/libhcaroce-san.a $(BUILD)/lib/libhcasim-san.a
	@mkdir -p $(@D); $(CC) $(SAN_FLAGS) -o $@ $^
$(ORACLE_BIN)/codec_pcap: $(BUILD)/san/tests/oracle/codec_pcap.o $(BUILD)/lib/libhcaroce-san.a $(BUILD)/lib/libhcasim-san.a
	@mkdir -p $(@D); $(CC) $(SAN_FLAGS) -o $@ $^

# Frames of every opcode built by the C codec must pass scapy's ICRC, the
# spec parse, tshark and the wire rules, with the fields they were built from;
# check_pcap.py itself must catch planted faults.
TESTS += oracle_codec_pcap
TEST_DEPS_oracle_codec_pcap := $(ORACLE_BIN)/codec_pcap
TEST_CMD_oracle_codec_pcap := $(PYTHON) tests/oracle/test_codec_pcap.py --bin $(ORACLE_BIN)

# Frames built by scapy must parse in the C codec to the fields they were
# built from; scapy-built bad frames must be refused for the right reason.
TESTS += oracle_scapy_codec
TEST_DEPS_oracle_scapy_codec := $(ORACLE_BIN)/roce_dump
TEST_CMD_oracle_scapy_codec := $(PYTHON) tests/oracle/test_scapy_codec.py --bin $(ORACLE_BIN)

.PHONY: oracle decode
oracle: deps-check
	@test -n "$(PCAP)" || { echo "usage: make oracle PCAP=file.pcap [ORACLE_ARGS=--wire-rules]"; exit 2; }
	$(PYTHON) tests/oracle/check_pcap.py $(PCAP) $(ORACLE_ARGS)
decode: $(ORACLE_BIN)/roce_dump
	@test -n "$(PCAP)" || { echo "usage: make decode PCAP=file.pcap"; exit 2; }
	$(ORACLE_BIN)/roce_dump $(PCAP)
HELP += "oracle|check a capture with scapy + tshark: make oracle PCAP=f.pcap [ORACLE_ARGS=--wire-rules]" \
        "decode|decode a capture with the model codec: make decode PCAP=f.pcap"

# Every frame the model emits in its directed tests, through the oracles.
TESTS += oracle_model_suite
TEST_DEPS_oracle_model_suite := $(foreach t,model_rc model_nak model_retry model_protect model_queues \
	model_ud_uc model_wqe sim_tb model_scapy,$(BUILD)/tests/$(t))
TEST_CMD_oracle_model_suite := tests/oracle/model_suite_frames.sh $(BUILD) $(PYTHON)
