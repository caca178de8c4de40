#!/bin/bash
# SPDX-License-Identifier: MIT
# make cosim-pgo: cosim with the Verilated models compiled profile-guided
# (gcc -fprofile-generate / -fprofile-use), for the bench only (docs/sim.md
# 9.4; make bench-sim-pgo).  Results are the same as the plain build's: only
# the compiler's code layout and branch choices change.
#   1. the whole cosim built under OUT with the Verilated code instrumented;
#   2. training: the bench's traffic (sim/regress/bench.sh's runs, fewer
#      messages), rtl alone and in lockstep, at both widths;
#   3. the same build again with -fprofile-use: the Verilated models are
#      rebuilt when their flags change, and the profiles (.gcda) stay next
#      to their objects, where gcc looks for them.
# Usage: sim/regress/pgo_build.sh MAKE OUT 'RTL_VFLAGS' 'RTL_LDLIBS'
set -euo pipefail
mk=$1 out=$2 vflags=$3 ldlibs=$4
"$mk" --no-print-directory BUILD="$out" RTL_VFLAGS="$vflags -CFLAGS -fprofile-generate -CFLAGS -fprofile-update=single" \
	RTL_LDLIBS="$ldlibs -lgcov" "$out/sim/cosim"
find "$out/rtl" -name '*.gcda' -delete
for w in 64 512; do
	for mode in "--engine rtl" "--dut rtl"; do
		# shellcheck disable=SC2086
		"$out/sim/cosim" --test random --seed 1 --messages 60 --pairs 8 --outstanding 8 --width "$w" \
			--threads 1 --out "$out/train" $mode > /dev/null
	done
done
"$mk" --no-print-directory BUILD="$out" \
	RTL_VFLAGS="$vflags -CFLAGS -fprofile-use -CFLAGS -fprofile-partial-training -CFLAGS -Wno-missing-profile" \
	RTL_LDLIBS="$ldlibs" "$out/sim/cosim"
echo "profile-guided cosim: $out/sim/cosim"
