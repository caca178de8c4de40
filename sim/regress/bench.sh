#!/bin/bash
# SPDX-License-Identifier: MIT
# make bench-sim: simulation speed of the engines alone and in lockstep, on
# the same seeded traffic (2000 random messages, 8 QP pairs, 8 in flight),
# at both widths: simulated cycles and messages per wall-clock second.
#   sim/regress/bench.sh COSIM [MESSAGES]
set -euo pipefail
cosim=$1 msgs=${2:-2000}
has_rtl=0
"$cosim" --help | grep -q "default DUT: rtl" && has_rtl=1
printf '%-28s %5s %7s %11s %8s %12s %10s\n' engine width msgs cycles wall-s cycles/s msgs/s
run() {	# label width args...
	local label=$1 w=$2; shift 2
	local line
	line=$("$cosim" --test random --seed 1 --messages "$msgs" --pairs 8 --outstanding 8 --width "$w" \
		--out build/bench/sim "$@" | awk '$1 == "random" { print $4, $5, $11, $10 }')
	read -r m c wall res <<< "$line"
	awk -v l="$label" -v w="$w" -v m="$m" -v c="$c" -v t="$wall" -v r="$res" 'BEGIN {
		cps = 0; mps = 0; note = ""
		if (t > 0) { cps = c / t; mps = m / t }
		if (r != "PASS") note = "  (" r ")"
		printf "%-28s %5s %7s %11s %8.2f %12.0f %10.0f%s\n", l, w, m, c, t, cps, mps, note
	}'
}
for w in 64 512; do
	run "model" "$w" --engine model
	run "lockstep(model,model-mutant)" "$w" --dut model-mutant
	if [ "$has_rtl" = 1 ]; then
		run "rtl" "$w" --engine rtl
		run "lockstep(model,rtl)" "$w" --dut rtl
	fi
done
[ "$has_rtl" = 1 ] || echo "(rtl engine not linked: rtl rows appear when it is)"
