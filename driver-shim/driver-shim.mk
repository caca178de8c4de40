# driver-shim/: the userspace verbs driver (libibverbs API over a VFIO-style bus).
# Owner: driver-shim engineer.  See docs/shim.md.
#
#   build/lib/libhcashim.a(-san)     the shim, for programs that link it directly (tests)
#   build/lib/libhcasim-verbs.so     the same, preloadable over Debian's libibverbs
#   build/bin/hcasim                 `hcasim run` / `hcasim switch`
SHIM_SRCS := $(filter-out driver-shim/hcasim.c,$(wildcard driver-shim/*.c))
LIBS += hcashim
LIB_SRCS_hcashim += $(SHIM_SRCS)
CFLAGS_driver-shim := -Isim -Idriver-shim -Itests

# Unit tests that need no live device.
$(eval $(call hca_test,shim_bus,driver-shim/tests/test_bus.c,hcashim hcasim))
LDLIBS_shim_bus := -lpthread
