# sim/tb.mk: the engine registry and the engine-level testbench (sim/tb.c).
# Owner: transport-model engineer (see docs/model.md).
LIB_SRCS_hcasim += sim/registry.c sim/engine_opts.c

$(eval $(call hca_test,sim_tb_registry,sim/tests/test_tb_registry.c,hcasim))
LIB_SRCS_hcasim += sim/tb.c sim/tb_par.c
$(eval $(call hca_test,sim_tb,sim/tests/test_tb.c,hcamodel hcaroce hcasim))
$(eval $(call hca_test,sim_engine_opts,sim/tests/test_engine_opts.c,hcasim))
