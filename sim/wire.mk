# sim/wire.mk: the simulated wire (sim/wire.c) and pcap files (sim/pcap.c),
# part of libhcasim.  docs/packet.md.
LIB_SRCS_hcasim += sim/wire.c sim/pcap.c

$(eval $(call hca_test,sim_pcap,sim/tests/test_pcap.c,hcasim))
$(eval $(call hca_test,sim_wire,sim/tests/test_wire.c,hcasim hcaroce))
