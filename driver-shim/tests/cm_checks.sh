# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Checks of connection manager captures and rping output, shared by the
# shim's CM test (driver-shim/tests/cm.sh) and the rxe interop test
# (tests/interop/interop.sh); sourced after driver-shim/tests/lib.sh.
#
#   mads PCAP                      "ATTR SRC" per CM MAD, in capture order
#   count_mad PCAP ATTR            how many MADs with that attribute ID
#   count_op PCAP OPCODE [SRC]     BTH opcodes (decimal), from SRC only if given
#   check_mads PCAP WHAT           every QP1 frame a CM MAD tshark decodes, none malformed
#   check_rping_lines LOG N WHAT   N "ping data" lines carrying rping's own pattern
#   cm_seq_ok SEQ CLI SRV          SEQ ("ATTR/SRC ...") is one connection's REQ REP RTU, then its
#                                  disconnection: a DREQ answered by the other side's DREP, or
#                                  DREQs crossing (each side sends both, each DREP after the
#                                  other side's DREQ)
#   wait_line PATTERN FILE PID     until FILE has a line matching PATTERN (or PID exits)

# mads PCAP: "ATTR SRC" per CM MAD (infiniband.mad.attributeid, IP source), in capture order.
mads() {
  tshark -r "$1" -Y infiniband.mad -T fields -e infiniband.mad.attributeid -e ip.src 2>/dev/null
}

# count_mad PCAP ATTR: how many MADs with that attribute ID (0x0010 REQ ...).
count_mad() {
  mads "$1" | awk -v a="$2" '$1 == a { n++ } END { print n + 0 }'
}

# count_op PCAP OPCODE [SRC]: BTH opcodes (decimal), from SRC only if given.
count_op() {
  tshark -r "$1" -T fields -e infiniband.bth.opcode -e ip.src 2>/dev/null |
    awk -v o="$2" -v s="${3:-}" '$1 == o && (s == "" || $2 == s) { n++ } END { print n + 0 }'
}

# check_mads PCAP WHAT: every frame to or from QP1 is a CM MAD as RoCE sends
# it, tshark decodes it as InfiniBand CM, and nothing in the capture is
# malformed.
check_mads() {
  local pcap=$1 what=$2 n bad mal
  n=$(tshark -r "$pcap" -Y "infiniband.bth.destqp == 1" 2>/dev/null | wc -l)
  bad=$(tshark -r "$pcap" -Y "infiniband.bth.destqp == 1 && !(infiniband.bth.opcode == 100 &&
        infiniband.deth.srcqp == 1 && infiniband.deth.q_key == 0x80010000 &&
        infiniband.bth.p_key == 0xffff && infiniband.mad.mgmtclass == 0x07 &&
        infiniband.mad.classversion == 2 && infiniband.mad.method == 0x03 &&
        (infiniband.cm.req || infiniband.cm.rep || infiniband.cm.rtu.localcommid ||
         infiniband.cm.rej.localcommid || infiniband.cm.dreq.localcommid ||
         infiniband.cm.drsp.localcommid || infiniband.mad.attributeid in {0x0011 0x0017 0x0018}))" \
        2>/dev/null | wc -l)
  # (perftest's own small SENDs trip tshark's RPC-over-RDMA heuristics: only MADs count here)
  mal=$(tshark -r "$pcap" -Y "infiniband.bth.destqp == 1 && (_ws.malformed || _ws.expert.severity >= error)" \
        2>/dev/null | wc -l)
  [ "$n" -gt 0 ] && [ "$bad" -eq 0 ]
  ok $? "$what: all $n QP1 frames are CM MADs tshark decodes (UD, QP1->QP1, Q_Key, P_Key) ($bad not)"
  [ "$mal" -eq 0 ]; ok $? "$what: tshark flags no CM MAD malformed ($mal frames)"
}

# rping's data: ping i carries "rdma-ping-i: " and then letters from
# chr(65 + i % 58) on (rping.c rping_test_client).
check_rping_lines() {
  local log=$1 count=$2 what=$3 got
  got=$(awk '/^ping data: rdma-ping-[0-9]+: / {
           split($3, a, "-"); i = a[3] + 0; c = substr($4, 1, 1);
           if (c == sprintf("%c", 65 + i % 58)) good[i] = 1 }
         END { n = 0; for (k in good) n++; print n }' "$log")
  [ "$got" -eq "$count" ]; ok $? "$what: $got of $count ping lines with rping's data"
}

# cm_seq_ok SEQ CLI SRV: the MAD sequence of one connection set up by CLI
# and torn down by either side.  Both sides may send a DREQ at once (rping
# disconnects from both ends); a CM that receives a DREQ while its own is
# outstanding answers it with a DREP and goes to TimeWait (the shim's
# cm_proto.c CM_DREQ_SENT, as the IB CM state machine and Linux's ib_cm
# do), so crossing DREQs give two DREQs and two DREPs.
cm_seq_ok() {
  local seq=$1 cli=$2 srv=$3 head rest
  head="0x0010/$cli 0x0013/$srv 0x0014/$cli "
  [ "${seq#"$head"}" != "$seq" ] || return 1
  rest=${seq#"$head"}
  [ "$rest" = "0x0015/$cli 0x0016/$srv " ] && return 0
  [ "$rest" = "0x0015/$srv 0x0016/$cli " ] && return 0
  echo "$rest" | awk -v a="$cli" -v b="$srv" '
    { for (i = 1; i <= NF; i++) { split($i, f, "/"); k = f[1] "/" f[2]
        if (k in pos) exit 1; pos[k] = i } }
    END { if (NF != 4) exit 1
          ok = ("0x0015/" a in pos) && ("0x0015/" b in pos) && ("0x0016/" a in pos) && ("0x0016/" b in pos)
          exit !(ok && pos["0x0016/" b] > pos["0x0015/" a] && pos["0x0016/" a] > pos["0x0015/" b]) }'
}

# wait_line PATTERN FILE PID: until FILE has a line matching PATTERN (a
# server's "cm: listening" under hcasim run --debug), or PID exits (up to
# 60 s: programs run side by side in make test).
wait_line() {
  local _
  for _ in $(seq 1200); do
    grep -q "$1" "$2" 2>/dev/null && return 0
    kill -0 "$3" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}
