#!/usr/bin/env bash
# verilator --lint-only -Wall on the RTL, once per datapath width and top.
#   lint.sh "<widths>" "<tops>" <sources...>
# A top written TOP=FILE is a harness top in FILE (rtl/tb/): it is linted
# with FILE added and the planted-bug hooks on (-DHCA_PLANTED_BUGS, docs/rtl.md
# "Planted bugs"); a plain TOP is linted from the sources alone.
# Last line: "P passed, F failed" (one check per width x top).
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
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
