#!/usr/bin/env bash
# Run the firmware command fuzzer over the checked-in corpus (read-only: new
# units go to WORKDIR/new).  A crash, leak, sanitizer report or broken
# invariant fails; the last line is "N passed, M failed".
#   firmware/fuzz/run.sh [--fresh] FUZZER WORKDIR [libFuzzer options...]
# --fresh empties WORKDIR first: with -runs=N and the fixed -seed the run is
# then the same every time (make test); without it the corpus grows (make fuzz).
set -uo pipefail
fresh=0
if [ "${1:-}" = --fresh ]; then fresh=1; shift; fi
fuzzer=$1 work=$2
shift 2
here=$(dirname "$0")
[ "$fresh" -eq 1 ] && rm -rf "$work"
mkdir -p "$work/new" "$work/artifacts"
"$fuzzer" -seed=1 -max_len=4096 -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$work/artifacts/" "$@" "$work/new" "$here/corpus" 2>&1 | tail -n 12
rc=${PIPESTATUS[0]}
units=$(ls "$here/corpus" | wc -l)
echo "fuzz: $units seed units, exit $rc, artifacts: $(ls "$work/artifacts" | wc -l)"
if [ "$rc" -eq 0 ] && [ "$units" -gt 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"
exit 1
