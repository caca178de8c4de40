#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The shim's long regression (make regress): the make-test scripts with full
# sweeps, and RC under fault injection with more seeds.
cd "$(dirname "$0")/../.." || exit 1
set -o pipefail	# a failing script fails the regression (not only its last pipe stage)
rc=0
all_pow2="1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192 16384 32768 65536"
PINGPONG_SIZES="$all_pow2 3 1000 1023 1025 4095 4097 65535" PINGPONG_ITERS=100 \
  bash driver-shim/tests/pingpong.sh | tail -n 1 | sed 's/^/pingpong sweep: /' || rc=1
PERFTEST_SIZES="${all_pow2#1 }" PERFTEST_ITERS=200 \
  bash driver-shim/tests/perftest.sh | tail -n 1 | sed 's/^/perftest sweep: /' || rc=1
PINGPONG_ITERS=100 bash driver-shim/tests/pingpong_more.sh | tail -n 1 | sed 's/^/uc\/ud\/srq: /' || rc=1
FAULT_SEEDS="1 2 3 4 5 6 7 8" PINGPONG_ITERS=100 \
  bash driver-shim/tests/faults.sh | tail -n 1 | sed 's/^/faults: /' || rc=1
RTL_PERF_WIDTH=512 bash driver-shim/tests/rtl_perftest.sh | tail -n 1 | sed 's/^/rtl read\/atomic 512: /' || rc=1
exit $rc
