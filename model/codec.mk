# model/codec.mk: the RoCEv2 packet codec of the reference model (opcode
# table, header build/parse, ICRC), library libhcaroce.  docs/packet.md.
LIBS += hcaroce
LIB_SRCS_hcaroce += model/opcode.c model/hdr.c model/icrc.c model/roce_crc32_table.c

# The ICRC uses ISA-L's CRC-32 in programs linked with $(ISAL_LDLIBS), the
# slicing-by-8 table elsewhere (model/icrc.c: a weak reference; same values).
# --no-as-needed: the only reference to it is weak.
ISAL_LDLIBS := -Wl,--push-state,--no-as-needed -lisal -Wl,--pop-state

$(eval $(call hca_test,model_codec,model/tests/test_codec.c model/tests/test_codec_kat.c,hcaroce))
LDLIBS_model_codec := $(ISAL_LDLIBS)

# make bench: codec and wire throughput (optimised, no sanitizers).
$(BUILD)/bench/codec: $(BUILD)/obj/model/tests/test_codec_bench.o $(BUILD)/lib/libhcasim.a $(BUILD)/lib/libhcaroce.a
	@mkdir -p $(@D); $(CC) -o $@ $^ $(ISAL_LDLIBS) -lm
.PHONY: bench-codec fuzz-codec
bench-codec: $(BUILD)/bench/codec
	$(BUILD)/bench/codec
BENCH_TARGETS += bench-codec

# make regress: libFuzzer on roce_parse_ex (FUZZ_SECONDS, default 60), seeded
# with every opcode from build/oracle/codec_pcap.
FUZZ_SECONDS ?= 60
$(BUILD)/fuzz/codec: model/tests/test_codec_fuzz.c model/opcode.c model/hdr.c model/icrc.c model/roce_crc32_table.c
	@mkdir -p $(@D); $(CLANG) -std=c11 -D_GNU_SOURCE -O1 -g -Iinclude -fsanitize=fuzzer,address,undefined $^ -o $@
fuzz-codec: $(BUILD)/fuzz/codec $(BUILD)/oracle/codec_pcap
	@rm -rf $(BUILD)/fuzz/codec-seeds; mkdir -p $(BUILD)/fuzz/codec-seeds $(BUILD)/fuzz/codec-corpus
	$(BUILD)/oracle/codec_pcap $(BUILD)/fuzz/seeds.pcap $(BUILD)/fuzz/seeds.json 7
	$(PYTHON) -c 'import sys; sys.path.insert(0, "tests/oracle"); import pcapfile; \
	  [open("$(BUILD)/fuzz/codec-seeds/%03d" % i, "wb").write(f) for i, (t, f) in enumerate(pcapfile.read("$(BUILD)/fuzz/seeds.pcap"))]'
	$(BUILD)/fuzz/codec -max_total_time=$(FUZZ_SECONDS) -max_len=5000 -print_final_stats=1 \
	  $(BUILD)/fuzz/codec-corpus $(BUILD)/fuzz/codec-seeds
REGRESS_TARGETS += fuzz-codec
HELP += "bench-codec|codec and wire throughput" "fuzz-codec|libFuzzer on roce_parse (FUZZ_SECONDS=60)"
