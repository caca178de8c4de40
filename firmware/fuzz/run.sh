#!/usr/bin/env bash
# Run the firmware command fuzzer for a bounded time over the checked-in
# corpus (read-only: new units go to WORKDIR).  A crash, leak, sanitizer
# report or broken invariant fails; the last line is "N passed, M failed".
#   firmware/fuzz/run.sh FUZZER SECONDS WORKDIR
set -uo pipefail
fuzzer=$1 secs=$2 work=$3
here=$(dirname "$0")
mkdir -p "$work/new" "$work/artifacts"
"$fuzzer" -max_total_time="$secs" -max_len=4096 -timeout=10 -rss_limit_mb=2048 -seed=1 \
  -print_final_stats=1 -artifact_prefix="$work/artifacts/" "$work/new" "$here/corpus" 2>&1 | tail -n 25
rc=${PIPESTATUS[0]}
units=$(ls "$here/corpus" | wc -l)
echo "fuzz: $units seed units, exit $rc, artifacts: $(ls "$work/artifacts" | wc -l)"
if [ "$rc" -eq 0 ] && [ "$units" -gt 0 ]; then echo "1 passed, 0 failed"; exit 0; fi
echo "0 passed, 1 failed"
exit 1
