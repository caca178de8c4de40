#!/usr/bin/env bash
# Every frame the model emits during its directed engine-level tests passes
# the independent oracles: the tests are re-run with HCASIM_TB_CAPTURE_DIR,
# which makes sim/tb capture each engine's frames before any test filter
# alters them, and tests/oracle/check_pcap.py --wire-rules (scapy ICRC, zlib,
# an independent parse, tshark, docs/wire.md rules) checks all of them.
# (The soaks are left out: their frames are covered by the same code paths
# and would only add minutes; model_frames covers every opcode explicitly.)
#   usage: model_suite_frames.sh BUILD PYTHON
set -u
build=$1 py=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
p=0 f=0
run() {	# name args...
	local t=$1; shift
	if HCASIM_TB_CAPTURE_DIR=$dir "$build/tests/$t" "$@" >"$dir/$t.log" 2>&1; then
		p=$((p + 1))
	else
		f=$((f + 1)); echo "FAIL $t failed while capturing (see below)"; tail -5 "$dir/$t.log"
	fi
}
run model_rc
run model_nak
run model_retry
run model_protect
run model_queues
run model_ud_uc
run model_wqe
run sim_tb
run model_scapy "$py" tests/oracle/gen_frames.py "$dir"
caps=("$dir"/*-*.pcap)
if [ ${#caps[@]} -ge 50 ]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL only ${#caps[@]} captures written"; fi
if mergecap -a -F nsecpcap -w "$dir/all.pcap" "${caps[@]}"; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL mergecap"; fi
frames=$(tshark -r "$dir/all.pcap" 2>/dev/null | wc -l)
echo "checking $frames frames from ${#caps[@]} testbenches"
if [ "$frames" -ge 5000 ]; then p=$((p + 1)); else f=$((f + 1)); echo "FAIL only $frames frames captured"; fi
last=$("$py" tests/oracle/check_pcap.py --wire-rules "$dir/all.pcap" | tee "$dir/check.log" | tail -n 1)
grep FAIL "$dir/check.log" | head -20
if [[ $last =~ ^([0-9]+)\ passed,\ ([0-9]+)\ failed$ ]]; then
	p=$((p + BASH_REMATCH[1])); f=$((f + BASH_REMATCH[2]))
else
	f=$((f + 1)); echo "FAIL check_pcap.py gave no result"
fi
echo "$p passed, $f failed"
[ "$f" -eq 0 ]
