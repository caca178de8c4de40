#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# make demo: two simulated RoCEv2 HCAs, each in its own process under
# `hcasim run` on the lockstep backend (the RTL engine checked transaction by
# transaction against the C model), joined by `hcasim switch` with pcap
# capture, running Debian's unmodified ibv_rc_pingpong, ib_write_bw, ib_read_bw and
# ib_atomic_bw.
# Leaves the captures and HCA A's waveform in build/demo/ and prints what
# ran and what came out.  DEMO_BACKEND=model runs the same on the C model.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
HCASIM=$BUILD/bin/hcasim
OUT=$BUILD/demo
mkdir -p "$OUT"
rm -f "$OUT"/*.pcap "$OUT"/*.log "$OUT"/*.sock "$OUT"/*.fst
BACKEND=${DEMO_BACKEND:-lockstep}
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done' EXIT

port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# run NAME "SERVER OPTIONS" PROGRAM ARGS... : server and client through a fresh switch
run() {
  local name=$1 sopts=$2; shift 2
  local sock=$OUT/$name.sock p
  p=$(port)
  "$HCASIM" switch --pcap "$OUT/$name.pcap" "$sock" 2>"$OUT/$name-switch.log" &
  local sw=$!; pids+=("$sw")
  for _ in $(seq 100); do [ -S "$sock" ] && break; sleep 0.05; done
  # shellcheck disable=SC2086
  timeout 300 "$HCASIM" run --backend "$BACKEND" --ip 10.0.0.1 $sopts --switch "$sock" -- "$@" -p "$p" \
    >"$OUT/$name-server.log" 2>&1 &
  local srv=$!; pids+=("$srv")
  for _ in $(seq 200); do ss -ltn | grep -q ":$p " && break; sleep 0.05; done
  timeout 300 "$HCASIM" run --backend "$BACKEND" --ip 10.0.0.2 --switch "$sock" -- "$@" -p "$p" 127.0.0.1 \
    >"$OUT/$name-client.log" 2>&1
  local crc=$?
  wait "$srv"; local src=$?
  kill -TERM "$sw"; wait "$sw" 2>/dev/null
  if [ $crc -ne 0 ] || [ $src -ne 0 ] || grep -q "DIVERGENCE" "$OUT/$name-server.log" "$OUT/$name-client.log"; then
    echo "  FAILED: server exit $src, client exit $crc; logs in $OUT/$name-*.log"
    tail -n 5 "$OUT/$name-server.log" "$OUT/$name-client.log"
    grep -A12 "FIRST DIVERGENCE" "$OUT/$name-server.log" "$OUT/$name-client.log" | head -30
    return 1
  fi
}

frames() { sed -nE 's/.*: ([0-9]+) frames in,.*/\1/p' "$OUT/$1-switch.log"; }
opcodes() {
  tshark -r "$OUT/$1.pcap" -T fields -e infiniband.bth.opcode 2>/dev/null | sort -n | uniq -c |
    awk 'BEGIN { split("0 RC-SEND-FIRST 1 RC-SEND-MIDDLE 2 RC-SEND-LAST 4 RC-SEND-ONLY 6 RC-WRITE-FIRST 7 RC-WRITE-MIDDLE 8 RC-WRITE-LAST 10 RC-WRITE-ONLY 12 RC-READ-REQUEST 13 RC-READ-RESPONSE-FIRST 14 RC-READ-RESPONSE-MIDDLE 15 RC-READ-RESPONSE-LAST 16 RC-READ-RESPONSE-ONLY 17 RC-ACK 18 RC-ATOMIC-ACK 19 RC-CMP-SWAP 20 RC-FETCH-ADD", a, " ");
                 for (i = 1; i < 38; i += 2) n[a[i]] = a[i + 1] }
         { printf "%s%s %s", sep, $1, ($2 in n) ? n[$2] : "opcode-" $2; sep = ", " }'
}

status=0
case $BACKEND in
lockstep) what="RTL engine (Verilog, Verilator) in lockstep with the C model: every frame, DMA write,
             CQE, EQE and interrupt of the RTL compared with the model's as it happens" ;;
rtl) what="RTL engine (Verilog, Verilator)" ;;
*) what="C model engine" ;;
esac
echo "hcasim demo: two simulated RoCEv2 HCAs (firmware + $what),"
echo "             one process each, joined by hcasim switch; Debian's own verbs binaries,"
echo "             unmodified, run on them."
echo "  HCA A   hcasim0  10.0.0.1  02:00:0a:00:00:01  server, $HCASIM run --backend $BACKEND --ip 10.0.0.1"
echo "  HCA B   hcasim0  10.0.0.2  02:00:0a:00:00:02  client, $HCASIM run --backend $BACKEND --ip 10.0.0.2"
echo

PP_N=1000 BW_N=1000 WAVE=""
if [ "$BACKEND" != model ]; then
  PP_N=200 BW_N=40 WAVE="--trace $OUT/hca-a.fst --trace-to 20000"
fi
echo "1. ibv_rc_pingpong -g 1 -s 4096 -n $PP_N -c -e   (RC SEND/RECV with completion events, every byte checked)"
if run pingpong "$WAVE" ibv_rc_pingpong -g 1 -s 4096 -n "$PP_N" -c -e; then
  sed -nE 's/^([0-9]+) bytes in ([0-9.]+) seconds = ([0-9.]+) Mbit\/sec/     \1 bytes in \2 s = \3 Mbit\/s (client, as reported)/p' "$OUT/pingpong-client.log"
  sed -nE 's/^([0-9]+) iters in ([0-9.]+) seconds = ([0-9.]+) usec\/iter/     \1 iterations, \3 us per round trip/p' "$OUT/pingpong-client.log"
  echo "     captured $(frames pingpong) frames: $(opcodes pingpong)"
  echo "     pcap: $OUT/pingpong.pcap"
  if [ -n "$WAVE" ] && [ -s "$OUT/hca-a.fst" ]; then
    echo "     waveform of HCA A's RTL, device cycles 0..20000: $OUT/hca-a.fst"
  fi
  [ "$BACKEND" = lockstep ] && echo "     lockstep: no divergence between the RTL and the model on either HCA"
else
  status=1
fi
echo

echo "2. ib_write_bw -x 1 -s 65536 -n $BW_N   (perftest RDMA WRITE; rates below are wall-clock, as perftest reports them)"
if run write_bw "" ib_write_bw -F -x 1 -s 65536 -n "$BW_N" -t 16; then
  awk -v n="$BW_N" '$1 == 65536 && $2 == n { printf "     %s bytes x %s: %s MB/s average, %s MB/s peak, %s Mpps (as reported)\n", $1, $2, $4, $3, $5 }' \
    "$OUT/write_bw-client.log"
  echo "     captured $(frames write_bw) frames: $(opcodes write_bw)"
  echo "     pcap: $OUT/write_bw.pcap"
  [ "$BACKEND" = lockstep ] && echo "     lockstep: no divergence between the RTL and the model on either HCA"
else
  status=1
fi
echo

echo "3. ib_read_bw -x 1 -s 65536 -n $BW_N, then ib_atomic_bw -A FETCH_AND_ADD -n $BW_N   (RDMA READ and atomics)"
if run read_bw "" ib_read_bw -F -x 1 -s 65536 -n "$BW_N" && run atomic_bw "" ib_atomic_bw -F -x 1 -A FETCH_AND_ADD -n "$BW_N"; then
  awk -v n="$BW_N" '$1 == 65536 && $2 == n { printf "     READ %s bytes x %s: %s MB/s average (as reported)\n", $1, $2, $4 }' "$OUT/read_bw-client.log"
  awk -v n="$BW_N" '$1 == 8 && $2 == n { printf "     FETCH_AND_ADD x %s: %s Mpps (as reported)\n", $2, $5 }' "$OUT/atomic_bw-client.log"
  echo "     captured $(frames read_bw) + $(frames atomic_bw) frames: $(opcodes read_bw); $(opcodes atomic_bw)"
  echo "     pcaps: $OUT/read_bw.pcap $OUT/atomic_bw.pcap"
  [ "$BACKEND" = lockstep ] && echo "     lockstep: no divergence between the RTL and the model on either HCA"
else
  status=1
fi
echo
if [ $status -eq 0 ]; then
  echo "Look at the traffic:  tshark -r $OUT/pingpong.pcap | head     (or open it in Wireshark)"
  [ -s "$OUT/hca-a.fst" ] && echo "Look at the RTL:       gtkwave $OUT/hca-a.fst   (docs/rtl.md, reading a waveform)"
  echo "Run your own program: $HCASIM run --ip 10.0.0.1 -- ibv_devinfo -v   (docs/shim.md)"
fi
exit $status
