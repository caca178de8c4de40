#!/usr/bin/env bash
# make bench-systemc: the example virtual platform's simulated time against
# wall-clock time, per engine (docs/systemc.md "Speed").
#   bench.sh VP [ROUNDS [RTL_ROUNDS]]
# ROUNDS rounds of SEND and WRITE in both directions, then one READ, on the
# model; RTL_ROUNDS on the rtl engine (64 and 512 bits) and on lockstep.
set -euo pipefail
vp=$1
rounds=${2:-${BENCH_SC_ROUNDS:-200}}
rtl_rounds=${3:-${BENCH_SC_RTL_ROUNDS:-20}}
export SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1

printf '%-10s %6s %7s %12s %12s %9s %12s %12s\n' engine width rounds sim-us cycles wall-s sim/wall cycles/s
run() {
	local engine=$1 width=$2 n=$3 out line
	if ! out=$("$vp" --engine "$engine" --width "$width" --rounds "$n" 2>&1); then
		echo "$out" | tail -20
		echo "bench-systemc: $engine width $width failed" >&2
		return 1
	fi
	line=$(echo "$out" | grep '^simulated ')
	# simulated S s (C device cycles) in W s wall: simulated/wall R
	echo "$line" | awk -v e="$engine" -v w="$width" -v n="$n" '{
		s = $2; c = substr($4, 2); wall = $8;
		printf "%-10s %6s %7s %12.1f %12s %9.3f %12.3g %12.0f\n", e, w, n, s * 1e6, c, wall,
			(wall > 0 ? s / wall : 0), (wall > 0 ? c / wall : 0) }'
}
run model 64 "$rounds"
run rtl 64 "$rtl_rounds"
run rtl 512 "$rtl_rounds"
run lockstep 64 "$rtl_rounds"
