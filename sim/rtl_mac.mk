# sim/rtl_mac.mk: the rtl harness's MAC pacing (sim/rtl/mac_pace.c, docs/sim.md
# "MAC pacing"; engine option mac=none|25g|100g).  Plain C with no Verilator
# dependency, so it lives in libhcasim, which every program linking the rtl
# engine (libhcartl*) links after it.
LIB_SRCS_hcasim += sim/rtl/mac_pace.c
$(eval $(call hca_test,rtl_mac_pace,sim/rtl/tests/test_mac_pace.c,hcasim))
