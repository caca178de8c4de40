#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Debian's ibv_rc_pingpong, server and client each under `hcasim run` (two
# processes, two simulated HCAs) through `hcasim switch`, for message sizes
# from 1 B to 64 KiB, busy-polling and with completion events (-e).  Checked:
#   * both ends exit 0 with buffer validation on (-c: the receiver checks
#     every byte of every message);
#   * each reports size * iterations * 2 bytes;
#   * the switch's capture: every frame is well-formed RoCEv2 with a correct
#     ICRC and obeys docs/wire.md (tests/oracle/check_pcap.py: scapy, zlib
#     and tshark), and tshark counts exactly the packets the IB spec and
#     wire.md imply: ceil(size/MTU) SEND packets per message and one ACK per
#     32 packets (rounded up) per message.
# PINGPONG_SIZES / PINGPONG_ITERS override the sweep (make regress uses more).
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

SIZES=${PINGPONG_SIZES:-"1 2 63 1024 4097 16384 65536"}
ITERS=${PINGPONG_ITERS:-20}
PROG=${PINGPONG_PROG:-ibv_rc_pingpong}
MTU=1024	# ibv_rc_pingpong's default path MTU

for size in $SIZES; do
  for ev in "" "-e"; do
    what="$PROG -s $size -n $ITERS $ev"
    start_switch --quiet || { ok 1 "$what: switch"; continue; }
    pcap=$SW_PCAP
    port=$(free_port)
    run_pair "$port" "$PROG" -g 1 -c -p "$port" -s "$size" -n "$ITERS" $ev -- \
      "$PROG" -g 1 -c -p "$port" -s "$size" -n "$ITERS" $ev 127.0.0.1
    stop_switch
    ok "$SRV_RC" "$what: server exit $SRV_RC"
    ok "$CLI_RC" "$what: client exit $CLI_RC"
    bytes=$((size * ITERS * 2))
    grep -q "^$bytes bytes in " "$SRV_LOG"; ok $? "$what: server moved $bytes bytes"
    grep -q "^$bytes bytes in " "$CLI_LOG"; ok $? "$what: client moved $bytes bytes"
    [ "$SRV_RC$CLI_RC" = 00 ] || show_logs

    check_pingpong_wire "$pcap" "$size" "$ITERS" "$what"
  done
done
finish
