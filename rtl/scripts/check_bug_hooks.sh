#!/usr/bin/env bash
# The planted-bug hooks are test-only (docs/rtl.md "Planted bugs"): the
# product sources, preprocessed as lint and synthesis see them (no
# HCA_PLANTED_BUGS), must hold no reference to the harness top's bug bits,
# and the harness build (with the define) must hold one per hook.
#   check_bug_hooks.sh <sources...>
# Last line: "P passed, F failed".
set -uo pipefail
VERILATOR=${VERILATOR:-verilator}
p=0 f=0
check() { if eval "$2"; then echo "ok: $1"; p=$((p + 1)); else echo "FAIL: $1"; f=$((f + 1)); fi; }
real=$($VERILATOR -E -P -Irtl -Irtl/include "$@" 2>&1)
sim=$($VERILATOR -E -P -Irtl -Irtl/include -DHCA_PLANTED_BUGS "$@" 2>&1)
hooks=$(cat "$@" | grep -o '`HCA_BUG([a-z_0-9]*' | sort -u | wc -l)
check "real build: no planted-bug logic (the word bug appears nowhere)" '! grep -qi "bug" <<< "$real"'
check "harness build: the $hooks hooks select their bug" \
	'[ "$hooks" -gt 0 ] && [ "$(grep -o "hca_sim\.bug_[a-z_0-9]*" <<< "$sim" | sort -u | wc -l)" -eq "$hooks" ]'
check "every hook has a bug bit in rtl/tb/hca_sim.sv" \
	'for b in $(grep -o "hca_sim\.bug_[a-z_0-9]*" <<< "$sim" | sort -u | sed "s/hca_sim\.//"); do
	   grep -q "assign $b " rtl/tb/hca_sim.sv || exit 1; done'
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
