#!/bin/bash
# SPDX-License-Identifier: MIT
# make wave: replay a cosim run with FST tracing only in a window around its
# first divergence (ARCHITECTURE contract 6: waveforms come from replay).
#
#   sim/regress/wave.sh COSIM TEST SEED [WIDTH] [WINDOW] [CYCLE] [NODE] [EXTRA_ARGS]
#
# 1. finds the run's record (build/sim/<test>-w<W>-s<S>/run.txt, written by
#    `make sim`, `make test` or a cosim run; runs cosim once if there is none;
#    SIM_OUT overrides build/sim, WAVE_OUT build/wave);
# 2. takes the divergence cycle X and node from it (or CYCLE/NODE);
# 3. re-runs the same arguments with the DUT tracing cycles X-WINDOW..X+WINDOW
#    into build/wave/<run>/node<N>.fst, and checks that the replay diverges
#    identically (same stream, field and cycle: the simulation is deterministic);
# 4. writes build/wave/<run>/node<N>.gtkw from the DUT's signal list
#    (WAVE_SIGNALS, else sim/rtl/wave_signals.txt for the rtl DUT and
#    sim/regress/wave_signals.txt for the model-mutant stand-in) with a
#    marker at X, and node<N>.states.txt: the changes of the signals the list
#    names by value (@names: the RTL's job states) by device cycle.
set -euo pipefail

cosim=$1 test=${2:-} seed=${3:-} width=${4:-64} window=${5:-2000} cycle=${6:-} node=${7:-} extra=${8:-}
if [ -z "$test" ] || [ -z "$seed" ]; then
	echo "usage: make wave TEST=<test> SEED=<seed> [WIDTH=64|512] [WINDOW=cycles] [CYCLE=c NODE=n]" >&2
	exit 2
fi
name="$test-w$width-s$seed"
sim_out=${SIM_OUT:-build/sim}		# where cosim runs record themselves
wave_out=${WAVE_OUT:-build/wave}
rec=""
for d in "$sim_out" "$sim_out/test"; do
	if [ -f "$d/$name/run.txt" ]; then rec="$d/$name/run.txt"; break; fi
done
if [ -z "$rec" ]; then
	echo "wave: no record of $name; running it once"
	# shellcheck disable=SC2086
	"$cosim" --test "$test" --seed "$seed" --width "$width" $extra --out "$sim_out" >/dev/null || true
	rec="$sim_out/$name/run.txt"
	[ -f "$rec" ] || { echo "wave: cosim did not record $name" >&2; exit 1; }
fi
get() { sed -n "s/^$1=//p" "$rec" | head -1; }
args=$(get args)
orig_stream=$(get stream) orig_field=$(get field) orig_cycle=$(get cycle) orig_node=$(get node)
dut=$(get dut)
if [ -z "$cycle" ]; then
	if [ "$(get diverged)" != 1 ]; then
		echo "wave: $name did not diverge ($rec); give CYCLE=<cycle> [NODE=<node>] to trace it anyway" >&2
		exit 1
	fi
	cycle=$orig_cycle
	node=${node:-$orig_node}
	echo "wave: $name: first divergence on node $node, stream $orig_stream ($orig_field), DUT cycle $cycle"
fi
node=${node:-0}
from=$(( cycle > window ? cycle - window : 0 ))
to=$(( cycle + window ))
out="$wave_out/$name"
mkdir -p "$out"
fst="$out/node$node.fst"
rm -f "$fst"
echo "wave: replaying with tracing of node $node, cycles $from..$to"
# shellcheck disable=SC2086
"$cosim" $args --out "$wave_out" --trace "$fst" --trace-node "$node" --trace-from "$from" --trace-to "$to" \
	> "$out/replay.log" 2>&1 || true
new="$out/run.txt"
if [ -n "$orig_stream" ]; then
	n_stream=$(sed -n 's/^stream=//p' "$new") n_field=$(sed -n 's/^field=//p' "$new") n_cycle=$(sed -n 's/^cycle=//p' "$new")
	if [ "$n_stream/$n_field/$n_cycle" != "$orig_stream/$orig_field/$orig_cycle" ]; then
		echo "wave: the replay diverged differently ($n_stream/$n_field/$n_cycle, first run $orig_stream/$orig_field/$orig_cycle):" >&2
		echo "      the run is not deterministic -- that is a bug in the harness or the DUT's model of randomness" >&2
		exit 1
	fi
	echo "wave: replay reproduced the divergence exactly (stream $n_stream, field $n_field, cycle $n_cycle)"
	[ -f "$out/report.txt" ] && echo "wave: report: $out/report.txt"
fi
if [ ! -s "$fst" ]; then
	echo "wave: the DUT ($dut) wrote no waveform to $fst (does its engine implement hca_engine_config.trace?)" >&2
	exit 1
fi
if [ "$(head -c 1 "$fst" | tr -d '\000')" = '$' ]; then
	# a VCD (the model-mutant stand-in writes one); GTKWave save files here are for FST
	mv "$fst" "$out/node$node.vcd"
	vcd2fst "$out/node$node.vcd" "$fst" >/dev/null
fi
sig=${WAVE_SIGNALS:-}
if [ -z "$sig" ]; then
	case "$dut" in
	rtl) sig=sim/rtl/wave_signals.txt ;;
	*) sig=sim/regress/wave_signals.txt ;;
	esac
fi
/usr/bin/python3 tools/wave_gtkw.py --fst "$fst" --signals "$sig" --out "$out/node$node.gtkw" \
	--marker "$cycle" --from "$from" --title "$name node $node: ${orig_stream:-trace} at cycle $cycle" \
	--timeline "$out/node$node.states.txt"
[ -s "$out/node$node.states.txt" ] && echo "wave: state names by cycle: $out/node$node.states.txt"
echo "wave: gtkwave $out/node$node.gtkw"
