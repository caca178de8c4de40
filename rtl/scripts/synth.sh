#!/usr/bin/env bash
# Yosys generic synthesis of the RTL, once per datapath width, failing on any
# error, on `check` problems and on any inferred latch.
#   synth.sh <top> "<widths>" "<extra chparam settings>" <logdir> proc|coarse|full <sources...>
# proc:   elaboration and process conversion (`hierarchy -check; proc`),
#         the step that infers latches, then `check -assert`;
# coarse: `synth -run :fine` (elaboration, processes, FSM and memory
#         inference, coarse optimisation) -- where latches are inferred --
#         then `check -assert` and the latch check; full: the whole `synth`.
# The widths run in parallel (SYNTH_JOBS, default 2).
# Last line: "P passed, F failed".
set -uo pipefail
top=$1 widths=$2 params=$3 logdir=$4 mode=$5; shift 5
case $mode in
  proc) flow="hierarchy -check -top $top; proc; opt_clean" ;;
  coarse) flow="synth -top $top -run :fine" ;;
  full) flow="synth -top $top" ;;
  *) echo "synth.sh: mode must be proc, coarse or full"; exit 2 ;;
esac
YOSYS=${YOSYS:-yosys}
mkdir -p "$logdir"
# one width: writes its verdict to $logdir/result_<w>.txt, first word ok|FAILED
one() {
  local w=$1 log=$logdir/synth_$1.log out=$logdir/result_$1.txt t0 rc dt cells
  local chp="chparam -set DATA_W $w $params $top"
  t0=$(date +%s)
  $YOSYS -l "$log" -q -p "read_verilog -sv -Irtl -Irtl/include $SRCS; $chp; $flow; check -assert; select -assert-none t:\$dlatch t:\$adlatch t:\$dlatchsr t:\$_DLATCH*; tee -o $logdir/stat_$w.txt stat" >/dev/null 2>&1
  rc=$?
  dt=$(( $(date +%s) - t0 ))
  if [ $rc -ne 0 ]; then
    { echo "FAILED synth $top DATA_W=$w: yosys exit $rc, ${dt}s; $log"; grep -E "ERROR|Error|error" "$log" | head -20; } > "$out"
  elif grep -q "Latch inferred" "$log"; then
    { echo "FAILED synth $top DATA_W=$w: latch inferred"; grep "Latch inferred" "$log" | head -20; } > "$out"
  else
    cells=$(grep -E "Number of cells" "$logdir/stat_$w.txt" | tail -1 | awk '{print $NF}')
    echo "ok synth ($mode) $top DATA_W=$w: no latches, ${cells:-?} cells, ${dt}s" > "$out"
  fi
}
SRCS="$*"
# the widths run in parallel (SYNTH_JOBS, default 2: one per core here)
jobs_max=${SYNTH_JOBS:-2}
for w in $widths; do
  rm -f "$logdir/result_$w.txt"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs_max" ]; do wait -n; done
  one "$w" &
done
wait
p=0 f=0
for w in $widths; do
  r=$logdir/result_$w.txt
  if [ -f "$r" ] && [ "$(head -c 2 "$r")" = ok ]; then
    sed 's/^ok //' "$r"; p=$((p + 1))
  else
    [ -f "$r" ] && sed 's/^FAILED /FAILED: /' "$r" || echo "FAILED: synth $top DATA_W=$w: no result"
    f=$((f + 1))
  fi
done
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
