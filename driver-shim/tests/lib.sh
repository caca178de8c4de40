# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Shared helpers of the shim's script tests (sourced, not run).
#
#   HCASIM   the hcasim command (default build/bin/hcasim)
#   T_DIR    a private scratch directory, removed at exit
#   ok COND_STATUS MESSAGE   count one check: pass if the status is 0 (and
#            record it, named MESSAGE, in $HCASIM_RESULTS when that is set)
#   start_switch [switch options]   -> SW_SOCK, SW_PID, SW_LOG, SW_PCAP (capture;
#            none when SW_NO_PCAP is set)
#   stop_switch
#   run_pair PORT SERVER_ARGS -- CLIENT_ARGS   both under `hcasim run` (10.0.0.1 and
#            10.0.0.2, plus $SRV_OPTS / $CLI_OPTS) through the switch; sets
#            SRV_RC CLI_RC SRV_LOG CLI_LOG
#   finish   print "N passed, M failed" and exit accordingly
# Every process started here is killed by PID at exit.

set -u
HCASIM=${HCASIM:-build/bin/hcasim}
PYTHON=${PYTHON:-/usr/bin/python3}
T_TIMEOUT=${T_TIMEOUT:-90}
T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/hcasim-shim.XXXXXX")
T_PASS=0
T_FAIL=0
T_PIDS=()
T_RUN=0

t_cleanup() {
  local p
  for p in "${T_PIDS[@]}"; do kill "$p" 2>/dev/null; done
  for p in "${T_PIDS[@]}"; do wait "$p" 2>/dev/null; done
  if [ "$T_FAIL" -eq 0 ] && [ -z "${T_KEEP:-}" ]; then rm -rf "$T_DIR"; fi
}
trap t_cleanup EXIT

ok() {
  local st=$1; shift
  if [ "$st" -eq 0 ]; then
    T_PASS=$((T_PASS + 1))
  else
    T_FAIL=$((T_FAIL + 1))
    echo "FAIL: $*"
  fi
  # named checks for the JUnit report (tools/run-tests.sh sets HCASIM_RESULTS)
  if [ -n "${HCASIM_RESULTS:-}" ] && [ -n "$*" ]; then
    printf '%s\t%s\t\t\n' "$([ "$st" -eq 0 ] && echo pass || echo fail)" "$(tr '\t\n' '  ' <<<"$*")" >>"$HCASIM_RESULTS"
  fi
}

# A TCP port nobody listens on now (pingpong/perftest exchange QP numbers over TCP).
free_port() {
  "$PYTHON" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

start_switch() {
  T_RUN=$((T_RUN + 1))
  SW_SOCK=$T_DIR/sw$T_RUN.sock
  SW_LOG=$T_DIR/sw$T_RUN.log
  SW_PCAP=$T_DIR/sw$T_RUN.pcap
  local cap=(--pcap "$SW_PCAP")
  [ -n "${SW_NO_PCAP:-}" ] && cap=()
  "$HCASIM" switch "${cap[@]}" "$@" "$SW_SOCK" 2>"$SW_LOG" &
  SW_PID=$!
  T_PIDS+=("$SW_PID")
  local i
  # (up to 30 s: programs run side by side in make test, the machine may be loaded)
  for i in $(seq 600); do [ -S "$SW_SOCK" ] && return 0; sleep 0.05; done
  echo "switch did not come up:"; cat "$SW_LOG"
  return 1
}

stop_switch() {
  kill -TERM "$SW_PID" 2>/dev/null
  wait "$SW_PID" 2>/dev/null
}

# Wait until the server listens on its TCP port (it opens the HCA first; up
# to 60 s, as programs run side by side in make test).
wait_listen() {
  local port=$1 pid=$2 i
  for i in $(seq 1200); do
    if ss -ltn 2>/dev/null | grep -q ":$port "; then return 0; fi
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# run_pair PORT SERVER_CMD... -- CLIENT_CMD...
run_pair() {
  local port=$1; shift
  local srv=() cli=()
  while [ $# -gt 0 ] && [ "$1" != "--" ]; do srv+=("$1"); shift; done
  shift
  cli=("$@")
  SRV_LOG=$T_DIR/run$T_RUN.srv.log
  CLI_LOG=$T_DIR/run$T_RUN.cli.log
  timeout "$T_TIMEOUT" "$HCASIM" run --ip 10.0.0.1 ${SRV_OPTS:-} --switch "$SW_SOCK" -- "${srv[@]}" >"$SRV_LOG" 2>&1 &
  local spid=$!
  T_PIDS+=("$spid")
  wait_listen "$port" "$spid"
  timeout "$T_TIMEOUT" "$HCASIM" run --ip 10.0.0.2 ${CLI_OPTS:-} --switch "$SW_SOCK" -- "${cli[@]}" >"$CLI_LOG" 2>&1
  CLI_RC=$?
  wait "$spid"
  SRV_RC=$?
}

# check_pingpong_wire PCAP SIZE ITERS WHAT: the capture of ibv_rc_pingpong
# (ITERS round trips of SIZE bytes at path MTU $MTU) holds exactly the SEND
# packets and ACKs (one per 32 packets) the IB rules imply, nothing else,
# counted by tshark's own RoCE dissector; and its frames pass
# tests/oracle/check_pcap.py --wire-rules (sampled to about 300 frames).
check_pingpong_wire() {
  local pcap=$1 size=$2 iters=$3 what=$4 counts data acked other every rc
  local pkts=$(( (size + MTU - 1) / MTU ))
  local want_data=$((2 * iters * pkts)) want_acks=$((2 * iters * ((pkts + 31) / 32)))
  counts=$(tshark -r "$pcap" -T fields -e infiniband.bth.opcode 2>/dev/null | sort | uniq -c)
  data=$(awk '$2 <= 4 { n += $1 } END { print n + 0 }' <<<"$counts")
  acked=$(awk '$2 == 17 { n += $1 } END { print n + 0 }' <<<"$counts")
  other=$(awk '$2 > 4 && $2 != 17 { n += $1 } END { print n + 0 }' <<<"$counts")
  [ "$data" -eq "$want_data" ]; ok $? "$what: $data SEND packets on the wire, want $want_data"
  [ "$acked" -eq "$want_acks" ]; ok $? "$what: $acked ACKs on the wire, want $want_acks"
  [ "$other" -eq 0 ]; ok $? "$what: no other opcodes ($other)"
  every=$(( (want_data + want_acks) / 300 + 1 ))
  "$PYTHON" tests/oracle/check_pcap.py "$pcap" --wire-rules --every "$every" >"$T_DIR/check$T_RUN.log" 2>&1
  rc=$?
  ok $rc "$what: capture passes check_pcap.py (every ${every}th frame)"
  [ $rc -eq 0 ] || tail -5 "$T_DIR/check$T_RUN.log"
}

show_logs() {
  echo "---- server ($SRV_RC):"; tail -n 15 "$SRV_LOG"
  echo "---- client ($CLI_RC):"; tail -n 15 "$CLI_LOG"
}

finish() {
  echo "$T_PASS passed, $T_FAIL failed"
  [ "$T_FAIL" -eq 0 ]
  exit $?
}
