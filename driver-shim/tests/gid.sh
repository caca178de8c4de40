#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# GID index 0 is the IPv6 link-local GID (docs/shim.md, "Addresses and
# GIDs"); the engine sends RoCEv2 over IPv4 only, so an address vector with
# an IPv6 source or destination GID is refused (EINVAL) with a message that
# says why and names the IPv4-mapped GID index to use -- never turned into
# frames to made-up IPv4 addresses (the GIDs' last four bytes).  Checked with
# Debian's pingpongs run with -g 0 through `hcasim switch`:
#   * ibv_rc_pingpong (ibv_modify_qp to RTR) and ibv_ud_pingpong
#     (ibv_create_ah): both ends exit non-zero, neither hangs (timeouts);
#   * the refusing side says "RoCEv2 over IPv6 is not supported" and names
#     GID index 1 (::ffff:<its address>);
#   * the switch saw no frame at all (tshark counts its capture).
cd "$(dirname "$0")/../.." || exit 1
. driver-shim/tests/lib.sh

T_TIMEOUT=20
for prog in ibv_rc_pingpong ibv_ud_pingpong; do
  what="$prog -g 0"
  start_switch --quiet || { ok 1 "$what: switch"; continue; }
  port=$(free_port)
  run_pair "$port" "$prog" -g 0 -p "$port" -n 5 -- "$prog" -g 0 -p "$port" -n 5 127.0.0.1
  stop_switch
  [ "$SRV_RC" -ne 0 ] && [ "$SRV_RC" -ne 124 ]; ok $? "$what: server fails, no hang (exit $SRV_RC)"
  [ "$CLI_RC" -ne 0 ] && [ "$CLI_RC" -ne 124 ]; ok $? "$what: client fails, no hang (exit $CLI_RC)"
  grep -h "GID index 0" "$SRV_LOG" "$CLI_LOG" | grep -q "RoCEv2 over IPv6 is not supported.*GID index 1 (::ffff:10\.0\.0\.[12], IPv4-mapped)"
  ok $? "$what: the refusal says why and names GID index 1"
  frames=$(tshark -r "$SW_PCAP" 2>/dev/null | wc -l)
  [ "$frames" -eq 0 ]; ok $? "$what: no frame on the wire ($frames)"
  [ "$T_FAIL" -eq 0 ] || show_logs
done
finish
