#!/usr/bin/env bash
# verilator --lint-only -Wall on the RTL, once per datapath width and top.
#   lint.sh "<widths>" "<tops>" <sources...>
# A top written TOP=FILE is a harness top in FILE (rtl/tb/): it is linted
# with FILE added and the planted-bug hooks on (-DHCA_PLANTED_BUGS, docs/rtl.md
# "Planted bugs"); a plain TOP is linted from the sources alone.
# Also refuses a parameter value written '1 (read as 1 by Yosys 0.23).
# Last line: "P passed, F failed" (one check per width x top, and that one).
set -uo pipefail
widths=$1 tops=$2; shift 2
VERILATOR=${VERILATOR:-verilator}
p=0 f=0
for spec in $tops; do
  top=${spec%%=*} extra=()
  [ "$spec" != "$top" ] && extra=(-DHCA_PLANTED_BUGS "${spec#*=}")
  for w in $widths; do
    if out=$($VERILATOR --lint-only -Wall -Irtl -Irtl/include --top-module "$top" -GDATA_W="$w" "$@" \
             "${extra[@]}" 2>&1); then
      echo "lint $top DATA_W=$w: clean"; p=$((p + 1))
    else
      echo "lint $top DATA_W=$w: FAILED"; echo "$out" | head -60; f=$((f + 1))
    fi
  done
done
# The Yosys subset: a parameter whose value is written '1 is all ones to
# Verilator but 1 to Yosys 0.23 (found by the mutation builds, docs/sim.md
# 11.3), so a synthesized netlist would differ from the simulated RTL.
if ones=$(grep -nE "\b(localparam|parameter)\b[^;=]*=[[:space:]]*'1\b" "$@"); then
  echo "lint parameter value '1 (Yosys 0.23 reads it as 1; write the value out): FAILED"
  echo "$ones"; f=$((f + 1))
else
  echo "lint no parameter value '1: clean"; p=$((p + 1))
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
