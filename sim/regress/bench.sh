#!/bin/bash
# SPDX-License-Identifier: MIT
# make bench-sim: simulation speed of the engines alone and in lockstep, on
# the same seeded traffic (random messages, 8 QP pairs, 8 in flight), at
# both widths: simulated cycles and messages per wall-clock second.  The rtl
# rows appear when cosim links the rtl engine (RTL_ENGINE_LIBS); they run
# fewer messages of the same traffic (Verilator is ~1000x slower than the
# model), so that make bench stays within a few minutes on 2 cores.
#   sim/regress/bench.sh COSIM [MESSAGES [RTL_MESSAGES]]   (defaults 2000, 500;
#   or the environment's BENCH_SIM_MESSAGES / BENCH_SIM_RTL_MESSAGES;
#   BENCH_SIM_THREADS: cosim --threads, default cosim's: docs/sim.md 9.6;
#   make bench-sim runs the profile-guided cosim: docs/sim.md 9.7)
# Also writes the rows to build/bench/sim.csv (BENCH_SIM_CSV), plotted by
# tools/plot_bench.py; a progress line shows when stderr is a terminal
# (make bench-sim tees stdout to build/bench/sim.log).
set -euo pipefail
cosim=$1 msgs=${2:-${BENCH_SIM_MESSAGES:-2000}} rtl_msgs=${3:-${BENCH_SIM_RTL_MESSAGES:-500}}
threads=()
[ -n "${BENCH_SIM_THREADS:-}" ] && threads=(--threads "$BENCH_SIM_THREADS")
csv=${BENCH_SIM_CSV:-build/bench/sim.csv}
. "$(dirname "$0")/../../tools/progress.sh"
has_rtl=0 status=0 failed=0 step=0
"$cosim" --help | grep -q "default DUT: rtl" && has_rtl=1
mkdir -p "$(dirname "$csv")"
echo "engine,width,msgs,cycles,wall_s,cycles_per_s,msgs_per_s,result" > "$csv"
progress_init $((has_rtl ? 8 : 4)) >&2
# wall-clock rates move with the machine's load: say what it was
echo "sim bench on $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg) at the start${threads[*]:+, cosim ${threads[*]}}"
# the Verilated code's build: plain, or profile-guided (pgo_build.sh leaves a note next to cosim)
echo "cosim build: $(cat "$cosim.build" 2>/dev/null || echo plain)"
printf '%-28s %5s %7s %11s %8s %12s %10s\n' engine width msgs cycles wall-s cycles/s msgs/s
run() {	# label width messages args...
	local label=$1 w=$2 n=$3; shift 3
	local line m c wall res stats
	progress_show "$step" "$label DATA_W=$w" >&2
	step=$((step + 1))
	stats=$(mktemp)
	# a failing run (lockstep divergence: cosim exits 1) still gets its row;
	# HCASIM_RTL_STATS: each rtl engine's cycles clocked and skipped (stderr)
	# HCASIM_TB_STATS: the testbench's steps, how many advanced two nodes in parallel
	line=$(HCASIM_RTL_STATS=1 HCASIM_TB_STATS=1 "$cosim" --test random --seed 1 --messages "$n" --pairs 8 \
		--outstanding 8 --width "$w" --out build/bench/sim "${threads[@]}" "$@" 2>"$stats" |
		awk '$1 == "random" { print $4, $5, $11, $10 }') || true
	progress_clear >&2
	if [ -z "$line" ]; then
		printf '%-28s %5s  (no result: cosim %s failed)\n' "$label" "$w" "$*"
		status=1
		return
	fi
	read -r m c wall res <<< "$line"
	[ "$res" = PASS ] || failed=1
	awk -v l="$label" -v w="$w" -v m="$m" -v c="$c" -v t="$wall" -v r="$res" -v csv="$csv" 'BEGIN {
		cps = 0; mps = 0; note = ""
		if (t > 0) { cps = c / t; mps = m / t }
		if (r != "PASS") note = "  (" r ")"
		printf "%-28s %5s %7s %11s %8.2f %12.0f %10.0f%s\n", l, w, m, c, t, cps, mps, note
		printf "\"%s\",%s,%s,%s,%.2f,%.0f,%.0f,%s\n", l, w, m, c, t, cps, mps, r >> csv
	}'
	# where the rtl engines' cycles went (docs/sim.md 9.2): evaluated, or skipped
	awk -v t="$wall" '/^rtl engine/ { c += $4; i += $7; q += $10; n++ }
		END { if (n && c + i + q > 0 && t > 0)
			printf "  (%d rtl engines: %.1f %% of their cycles clocked, %.1f %% idle and %.1f %% quiet skipped; %.0f clocked cycles/s)\n",
			       n, 100 * c / (c + i + q), 100 * i / (c + i + q), 100 * q / (c + i + q), c / t }' "$stats"
	# the parallel step (docs/sim.md 9.6): steps with both nodes due, and those run in two threads
	awk '/^tb: [0-9]+ steps in parallel of/ { p += $2; s += $7; m += substr($8, 2); th = $15 }
		END { if (s > 0 && th == 2)
			printf "  (testbench: %.1f %% of its %d steps had both nodes due, %.1f %% ran in two threads)\n",
			       100 * m / s, s, 100 * p / s }' "$stats"
	rm -f "$stats"
}
for w in 64 512; do
	run "model" "$w" "$msgs" --engine model
	run "lockstep(model,model-mutant)" "$w" "$msgs" --dut model-mutant
	if [ "$has_rtl" = 1 ]; then
		run "rtl" "$w" "$rtl_msgs" --engine rtl
		run "lockstep(model,rtl)" "$w" "$rtl_msgs" --dut rtl
	fi
done
[ "$has_rtl" = 1 ] || echo "(rtl engine not linked: rtl rows appear when it is)"
# A run that does not PASS (a lockstep divergence) ran to its end: its speed
# is measured and its row marked.  A run without a result fails the bench.
[ "$failed" = 0 ] || echo "(a marked row did not PASS its checks: the cosim report is under build/bench/sim/)"
exit "$status"
