# model/codec.mk: the RoCEv2 packet codec of the reference model (opcode
# table, header build/parse, ICRC), library libhcaroce.  docs/packet.md.
LIBS += hcaroce
LIB_SRCS_hcaroce += model/opcode.c model/hdr.c model/icrc.c model/roce_crc32_table.c

$(eval $(call hca_test,model_codec,model/tests/test_codec.c model/tests/test_codec_kat.c,hcaroce))
