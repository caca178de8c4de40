# SPDX-License-Identifier: MIT
# Shared by quiet_check.sh, same_check.sh and threads_check.sh (sourced, not
# run): the check counter, the plan table without its wall-clock column, the
# comparison of two runs' transaction logs and the count of steps the
# testbench ran in two threads.

pass=0 fail=0
# ok DESCRIPTION CONDITION: count and print one check
ok() { if eval "$2"; then pass=$((pass + 1)); echo "ok: $1"; else fail=$((fail + 1)); echo "FAIL: $1"; fi; }
# the table rows: name, width, seed, messages, cycles, frames, dma-KiB, irqs, mismatch, result (no wall-s)
table() { awk 'NF >= 11 && $2 ~ /^(64|512)$/ && $3 ~ /^[0-9]+$/ { NF = 10; print }' "$1"; }
# txlog_diffs DIR_A DIR_B: how many of DIR_A's transaction logs (tx.*) differ
# from DIR_B's of the same name, the first three differences shown
txlog_diffs() {
	local d=0 f
	for f in "$1"/tx.*; do
		cmp -s "$f" "$2/$(basename "$f")" || { d=$((d + 1)); [ $d -le 3 ] &&
			diff "$f" "$2/$(basename "$f")" | head -5 >&2; }
	done
	echo $d
}
# par_steps FILE: steps run in parallel, summed over the HCASIM_TB_STATS lines
par_steps() { awk '/^tb: .* steps in parallel/ { s += $2 } END { print s + 0 }' "$1"; }
# summary: the last line every test program prints, and the exit status
summary() { echo "$pass passed, $fail failed"; [ "$fail" = 0 ]; }
