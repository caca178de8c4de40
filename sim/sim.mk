# sim/: simulation harness pieces shared by tests, the driver shim and the
# regressions.  C parts go into libhcasim (other sim/*.mk fragments add their
# sources with LIB_SRCS_hcasim += ...); the Verilator harness has its own rules.
LIBS += hcasim
LIB_SRCS_hcasim += sim/hostmem.c

CFLAGS_sim := -Isim -Itests
$(eval $(call hca_test,sim_hostmem,sim/tests/test_hostmem.c,hcasim))

# Progress lines of long loops on a terminal (cosim's plan, bench_rtl).
LIB_SRCS_hcasim += sim/progress.c
$(eval $(call hca_test,sim_progress,sim/tests/test_progress.c,hcasim))
