#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: two simulated RoCEv2 HCAs, each in its own process under
# `hcasim run`, joined by `hcasim switch` with pcap capture, running Debian's
# unmodified ibv_rc_pingpong and ib_write_bw.  Leaves the captures in
# build/demo/ and prints what ran and what came out.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
HCASIM=$BUILD/bin/hcasim
OUT=$BUILD/demo
mkdir -p "$OUT"
rm -f "$OUT"/*.pcap "$OUT"/*.log "$OUT"/*.sock
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT

port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run NAME PROGRAM ARGS... : server and client through a fresh switch
run() {
  local name=$1; shift
  local sock=$OUT/$name.sock p
  p=$(port)
  "$HCASIM" switch --pcap "$OUT/$name.pcap" "$sock" 2>"$OUT/$name-switch.log" &
  local sw=$!; pids+=("$sw")
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
  timeout 120 "$HCASIM" run --ip 10.0.0.1 --switch "$sock" -- "$@" -p "$p" >"$OUT/$name-server.log" 2>&1 &
  local srv=$!; pids+=("$srv")
  for _ in $(seq 200); do ss -ltn | grep -q ":$p " && break; sleep 0.05; done
  timeout 120 "$HCASIM" run --ip 10.0.0.2 --switch "$sock" -- "$@" -p "$p" 127.0.0.1 >"$OUT/$name-client.log" 2>&1
  local crc=$?
  wait "$srv"; local src=$?
  kill -TERM "$sw"; wait "$sw" 2>/dev/null
  if [ $crc -ne 0 ] || [ $src -ne 0 ]; then
    echo "  FAILED: server exit $src, client exit $crc; logs in $OUT/$name-*.log"
    tail -n 5 "$OUT/$name-server.log" "$OUT/$name-client.log"
    return 1
  fi
}

frames() { sed -nE 's/.*: ([0-9]+) frames in,.*/\1/p' "$OUT/$1-switch.log"; }
opcodes() {
  tshark -r "$OUT/$1.pcap" -T fields -e infiniband.bth.opcode 2>/dev/null | sort -n | uniq -c |
    awk 'BEGIN { split("0 RC-SEND-FIRST 1 RC-SEND-MIDDLE 2 RC-SEND-LAST 4 RC-SEND-ONLY 6 RC-WRITE-FIRST 7 RC-WRITE-MIDDLE 8 RC-WRITE-LAST 10 RC-WRITE-ONLY 17 RC-ACK", a, " ");
                 for (i = 1; i < 18; i += 2) n[a[i]] = a[i + 1] }
         { printf "%s%s %s", sep, $1, ($2 in n) ? n[$2] : "opcode-" $2; sep = ", " }'
}

status=0
echo "hcasim demo: two simulated RoCEv2 HCAs (firmware + C model engine), one process each,"
echo "             joined by hcasim switch; Debian's own verbs binaries, unmodified, run on them."
echo "  HCA A   hcasim0  10.0.0.1  02:00:0a:00:00:01  server, $HCASIM run --ip 10.0.0.1"
echo "  HCA B   hcasim0  10.0.0.2  02:00:0a:00:00:02  client, $HCASIM run --ip 10.0.0.2"
echo

echo "1. ibv_rc_pingpong -g 1 -s 4096 -n 1000 -c   (RC SEND/RECV, every byte checked)"
if run pingpong ibv_rc_pingpong -g 1 -s 4096 -n 1000 -c; then
  sed -nE 's/^([0-9]+) bytes in ([0-9.]+) seconds = ([0-9.]+) Mbit\/sec/     \1 bytes in \2 s = \3 Mbit\/s (client, as reported)/p' "$OUT/pingpong-client.log"
  sed -nE 's/^([0-9]+) iters in ([0-9.]+) seconds = ([0-9.]+) usec\/iter/     \1 iterations, \3 us per round trip/p' "$OUT/pingpong-client.log"
  echo "     captured $(frames pingpong) frames: $(opcodes pingpong)"
  echo "     pcap: $OUT/pingpong.pcap"
else
  status=1
fi
echo

echo "2. ib_write_bw -x 1 -s 65536 -n 1000   (perftest, RDMA WRITE bandwidth)"
if run write_bw ib_write_bw -F -x 1 -s 65536 -n 1000; then
  awk '/^ +65536 +1000 / { printf "     %s bytes x %s: %s MB/s average, %s MB/s peak, %s Mpps (as reported)\n", $1, $2, $4, $3, $5 }' \
    "$OUT/write_bw-client.log"
  echo "     captured $(frames write_bw) frames: $(opcodes write_bw)"
  echo "     pcap: $OUT/write_bw.pcap"
else
  status=1
fi
echo
if [ $status -eq 0 ]; then
  echo "Look at the traffic:  tshark -r $OUT/pingpong.pcap | head     (or open it in Wireshark)"
  echo "Run your own program: $HCASIM run --ip 10.0.0.1 -- ibv_devinfo -v   (docs/shim.md)"
fi
exit $status
