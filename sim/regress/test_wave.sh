#!/bin/bash
# SPDX-License-Identifier: MIT
# sim_wave: waveforms by replay (make wave).
#  - tools/wave_gtkw.py on a hand-written VCD (converted to FST): groups,
#    vector ranges, scope wildcards, missing names reported, marker/time scaling;
#  - sim/regress/wave.sh on a cosim run with a planted bug (model-mutant, which
#    writes a VCD stand-in of its host interface): the replay reproduces the
#    divergence exactly, the trace holds only the requested window, the .gtkw
#    points at it with a marker at the divergence;
#  - the replay check can fail (a record whose cycle was altered), and a run
#    that did not diverge needs CYCLE=;
#  - the RTL DUT with a planted header bug: the FST holds the RTL's signals,
#    the .gtkw groups them by pipeline stage (sim/rtl/wave_signals.txt) and
#    its marker sits where the device cycle counter reaches the divergence.
# Usage: sim/regress/test_wave.sh COSIM
set -uo pipefail
# the cosim runs below (planted bugs among them) are material of these
# checks, not checks of their own: keep them out of the JUnit report
unset HCASIM_RESULTS
cosim=$1
tmp=$(mktemp -d "${TMPDIR:-/tmp}/hcasim-wave.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { if eval "$2"; then pass=$((pass + 1)); else fail=$((fail + 1)); echo "FAIL: $1"; fi; }

# 1. the .gtkw generator
cat > "$tmp/t.vcd" <<'VCD'
$timescale
	1ns
$end
$scope module TOP $end
$var wire 1 ! clk $end
$scope module hca_top $end
$var wire 8 " data [7:0] $end
$var wire 1 # valid $end
$scope module u_tx $end
$var wire 3 $ state [2:0] $end
$upscope $end
$upscope $end
$upscope $end
$enddefinitions $end
#0
0!
b0 "
0#
b0 $
#4
1!
b101 "
VCD
vcd2fst "$tmp/t.vcd" "$tmp/t.fst" >/dev/null 2>&1
printf '@ticks_per_cycle 4\ngroup Clock\nTOP.clk\ngroup Top\nTOP.hca_top.*\ngroup TX stage\nTOP.hca_top.u_tx.**\nTOP.hca_top.u_gone\ngroup Empty\nTOP.nothing\ngroup Glob\nTOP.*hca_top.u_tx.*\n' > "$tmp/sig.txt"
/usr/bin/python3 tools/wave_gtkw.py --fst "$tmp/t.fst" --signals "$tmp/sig.txt" --out "$tmp/t.gtkw" \
	--marker 100 --from 90 > "$tmp/gtkw.out" 2> "$tmp/gtkw.err"
ok "wave_gtkw exit status" '[ $? -eq 0 ]'
g="$tmp/t.gtkw"
ok "dumpfile line" 'grep -q "^\[dumpfile\] \"$tmp/t.fst\"" "$g"'
ok "marker at cycle 100 x 4 ticks" 'grep -q "^\*-12.000000 400 400" "$g"'
ok "time start at cycle 90" 'grep -q "^\[timestart\] 360" "$g"'
ok "groups open and close" '[ $(grep -c "^@800200" "$g") -eq 4 ] && [ $(grep -c "^@1000200" "$g") -eq 4 ]'
ok "wildcard in the scope part" 'sed -n "/^-Glob/,/^-Glob/p" "$g" | grep -q "^TOP.hca_top.u_tx.state\[2:0\]$"'
ok "vector with its range, hex" 'grep -B1 "^TOP.hca_top.data\[7:0\]$" "$g" | grep -q "^@22"'
ok "scalar, binary" 'grep -B1 "^TOP.hca_top.valid$" "$g" | grep -q "^@28"'
ok "scope wildcard * is not recursive" '! sed -n "/^-Top/,/^-Top/p" "$g" | grep -q u_tx'
ok "scope wildcard ** is recursive" 'grep -q "^TOP.hca_top.u_tx.state\[2:0\]$" "$g"'
ok "missing entries reported" 'grep -q "not in the trace: TOP.hca_top.u_gone" "$tmp/gtkw.err" && grep -q "Empty.*dropped" "$tmp/gtkw.err"'
printf 'group G\nTOP.none\n' > "$tmp/none.txt"
/usr/bin/python3 tools/wave_gtkw.py --fst "$tmp/t.fst" --signals "$tmp/none.txt" --out "$tmp/n.gtkw" 2>/dev/null
ok "no signal placed -> exit 1" '[ $? -eq 1 ]'

# 2. replay of a failing run
export SIM_OUT="$tmp/sim" WAVE_OUT="$tmp/wave"
"$cosim" --test random --width 64 --seed 4242 --messages 40 --dut model-mutant --bug bug=payload_byte,at=4 \
	--out "$SIM_OUT" > "$tmp/run.out"
ok "the planted bug fails the run" '[ $? -eq 1 ]'
rec="$SIM_OUT/random-w64-s4242/run.txt"
ok "run record written" '[ -f "$rec" ] && grep -q "^diverged=1" "$rec" && grep -q "^stream=mr" "$rec"'
cyc=$(sed -n 's/^cycle=//p' "$rec")
sim/regress/wave.sh "$cosim" random 4242 64 300 "" "" "" > "$tmp/wave.out" 2>&1
ok "make wave succeeds" '[ $? -eq 0 ]'
ok "replay reproduced the divergence" 'grep -q "replay reproduced the divergence exactly" "$tmp/wave.out"'
w="$WAVE_OUT/random-w64-s4242"
ok "FST and .gtkw written" '[ -s "$w/node0.fst" ] && [ -s "$w/node0.gtkw" ]'
times=$(fst2vcd -f "$w/node0.fst" 2>/dev/null | sed -n 's/^#//p')
lo=$(( (cyc > 300 ? cyc - 300 : 0) * 4 )) hi=$(( (cyc + 300) * 4 ))
ok "trace holds only the window (cycle $cyc +- 300)" 'for t in $times; do [ "$t" -eq 0 ] || { [ "$t" -ge $lo ] && [ "$t" -le $hi ]; } || exit 1; done; [ -n "$times" ]'
ok "trace covers the divergence cycle" 'echo "$times" | grep -qx "$((cyc * 4))"'
ok "gtkw marker at the divergence" 'grep -q "^\*-12.000000 $((cyc * 4)) " "$w/node0.gtkw"'
ok "gtkw has the host-interface group" 'grep -q "^TOP.mutant.dma_wr_addr\[63:0\]$" "$w/node0.gtkw"'

# 3. the replay check can fail: a record that does not match the replay
sed -i "s/^cycle=.*/cycle=$((cyc + 1))/" "$rec"
sim/regress/wave.sh "$cosim" random 4242 64 300 "" "" "" > "$tmp/wave2.out" 2>&1
ok "a different divergence is reported as non-determinism" '[ $? -ne 0 ] && grep -q "not deterministic" "$tmp/wave2.out"'

# 4. a clean run needs CYCLE=
"$cosim" --test imm_se --width 512 --seed 4243 --dut model-mutant --out "$SIM_OUT" > /dev/null
sim/regress/wave.sh "$cosim" imm_se 4243 512 100 "" "" "" > "$tmp/wave3.out" 2>&1
ok "clean run without CYCLE is refused" '[ $? -ne 0 ] && grep -q "did not diverge" "$tmp/wave3.out"'
sim/regress/wave.sh "$cosim" imm_se 4243 512 100 300 1 "" > "$tmp/wave4.out" 2>&1
ok "clean run traced at CYCLE= on NODE=" '[ $? -eq 0 ] && [ -s "$WAVE_OUT/imm_se-w512-s4243/node1.fst" ]'

# 5. the RTL
"$cosim" --test random --width 64 --seed 4244 --messages 20 --dut rtl --bug bug=hdr_bit --out "$SIM_OUT" > "$tmp/rtl.out"
ok "rtl: the planted header bug fails the run" '[ $? -eq 1 ]'
rrec="$SIM_OUT/random-w64-s4244/run.txt"
ok "rtl: first divergence in tx" 'grep -q "^stream=tx" "$rrec"'
rcyc=$(sed -n 's/^cycle=//p' "$rrec")
# (800 cycles each side: the requester waits for a transmit slot in
# REQST_REFETCH_WQE for the 200 cycles before the divergence)
sim/regress/wave.sh "$cosim" random 4244 64 800 "" "" "" > "$tmp/wave5.out" 2>&1
ok "rtl: make wave succeeds and replays exactly" '[ $? -eq 0 ] && grep -q "replay reproduced the divergence exactly" "$tmp/wave5.out"'
rw="$WAVE_OUT/random-w64-s4244"
ok "rtl: FST of the RTL" '[ -s "$rw/node0.fst" ] && { fst2vcd -f "$rw/node0.fst" 2>/dev/null; true; } | grep -q "scope module u_req"'
ok "rtl: pipeline-stage groups" 'grep -q "^-Jobs: a QP step" "$rw/node0.gtkw" && grep -q "^-TX frame" "$rw/node0.gtkw" && grep -q "^hca.hca_sim.hca_top.u_tp.u_req.state" "$rw/node0.gtkw"'
# state names: the requester's state is shown through the translate filter
# generated from its enum (REQST_IDLE is value 0 in rtl/hca_req.sv)
ok "rtl: job states by name" 'grep -B1 "^hca.hca_sim.hca_top.u_tp.u_req.state" "$rw/node0.gtkw" | grep -q "^^[0-9]* .*/hca_req.txt$" &&
	grep -qx "0 REQST_IDLE" build/rtl/state_names/hca_req.txt && grep -qx "0 RESPST_IDLE" build/rtl/state_names/hca_resp.txt'
# every line of the timeline names its state; the requester's changes in the window
ok "rtl: state timeline by name" '! grep -Ev "^[0-9]+ [^ ]+ [0-9]+ [A-Z]+ST_[A-Z0-9_]+$" "$rw/node0.states.txt" &&
	[ "$(grep -Ec "^[0-9]+ hca.hca_sim.hca_top.u_tp.u_req.state [0-9]+ REQST_[A-Z_]+$" "$rw/node0.states.txt")" -ge 2 ] &&
	grep -q "^[0-9]* hca.hca_sim.hca_top.u_tp.u_req.state [0-9]* REQST_GATHER$" "$rw/node0.states.txt"'
# the marker's time: where hca_top.cycle first reaches the divergence cycle
mt=$(sed -n 's/^\*-12.000000 \([0-9]*\) .*/\1/p' "$rw/node0.gtkw")
ct=$(fst2vcd -f "$rw/node0.fst" 2>/dev/null | awk -v c="$rcyc" '
	/\$var/ && $5 == "cycle" && !id { id = $4 } /^#/ { t = substr($1, 2) }
	$2 == id && /^b/ { v = 0; s = substr($1, 2); for (i = 1; i <= length(s); i++) v = v * 2 + substr(s, i, 1); if (v >= c) { print t; exit } }')
ok "rtl: marker at the divergence's device cycle ($rcyc -> t=$ct)" '[ -n "$mt" ] && [ "$mt" = "$ct" ]'

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
