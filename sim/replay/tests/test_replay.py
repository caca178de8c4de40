#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make test: sim_replay -- `hcasim replay` on captures crafted with scapy.

Every capture here is built by scapy (tests/oracle/roce_scapy.py:
scapy.contrib.roce's BTH and ICRC, the other headers from the IB spec),
never by the project's own code.  Each is replayed into a fresh device on the
model, the RTL at 64 and 512 bits, and lockstep (RTL checked against the
model).  The expected outcome of each frame is worked out here from the
InfiniBand Architecture Specification vol. 1 (IBA) and its RoCEv2 annex
(A17), with the project's restatement in docs/wire.md; the device's answers
are decoded by scapy from the answers pcap, and the receive buffers are read
back from the MR dump.

  (a) good SEND, in sequence, AckReq: accepted; receive CQE SUCCESS with
      byte_len = payload; payload in the receive buffer; one ACK answered
      (AETH ACK, MSN 1, PSN = the request's) with a valid ICRC.
  (b) the same SEND with a bad ICRC: dropped silently, RX_DROP_ICRC counts.
  (c) RDMA WRITE with a wrong rkey: NAK remote access error (AETH 0x62),
      QP to ERR with QP_ACCESS_ERR, not a byte written.
  (d) PSN ahead of the expected PSN: one NAK PSN sequence error (AETH 0x60)
      for the first such packet, silence for the next; a duplicate PSN:
      re-ACKed, not executed again (no second CQE, receive WQE kept).
  (e) truncated headers: dropped as malformed (a RETH cut short with a valid
      ICRC; a frame cut inside the BTH).
  plus the command's error handling: bad setup files name file and line,
  unreadable or corrupt captures are refused, exit status 2.

Ends with "N passed, M failed"; exit status 1 on any failure.
"""

import argparse
import json
import os
import random
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "tests", "oracle"))
import roce_scapy as rs  # noqa: E402
from scapy.contrib.roce import AETH, BTH  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import rdpcap, wrpcap  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s" % what)


# ---- the device under test and its peer, as the setup file states them -------------------
DEV_MAC, DEV_IP = "02:00:00:00:00:02", "10.0.0.2"
PEER_MAC, PEER_IP = "02:00:00:00:00:01", "10.0.0.1"
QPN, PEER_QPN, EPSN = 0x11, 0x22, 0x100          # responder QP, requester QP, first expected PSN
RKEY = 0x302                                       # MR index 3, key byte 2
RECV_VA, RECV_LEN = 0x20000, 256                   # two receive WQEs of 256 bytes each
TARGET_VA, TARGET_LEN = 0x30000, 4096
FILL = 0xEE

SETUP = """# sim_replay: one RC responder QP
ip  = %(DEV_IP)s
mac = %(DEV_MAC)s

[pd pd0]

[mr recvbuf]            # receive buffers
addr   = 0x%(RECV_VA)x
length = %(RECVBUF_LEN)d
access = local_write
fill   = 0x%(FILL)x

[mr target]             # RDMA WRITE target
addr   = 0x%(TARGET_VA)x
length = %(TARGET_LEN)d
access = local_write,remote_write
rkey   = 0x%(RKEY)x
fill   = 0x%(FILL)x

[cq cq0]
entries = 64

[qp qp0]
type       = rc
qpn        = 0x%(QPN)x
state      = rts
remote_mac = %(PEER_MAC)s
remote_ip  = %(PEER_IP)s
dest_qpn   = 0x%(PEER_QPN)x
rq_psn     = 0x%(EPSN)x
sq_psn     = 0x500
path_mtu   = 1024
access     = remote_write
max_recv_wr = 4
recv = recvbuf 0x%(RECV_VA)x %(RECV_LEN)d
recv = recvbuf 0x%(RECV2_VA)x %(RECV_LEN)d
""" % dict(DEV_IP=DEV_IP, DEV_MAC=DEV_MAC, RECV_VA=RECV_VA, RECVBUF_LEN=2 * RECV_LEN, FILL=FILL,
           TARGET_VA=TARGET_VA, TARGET_LEN=TARGET_LEN, RKEY=RKEY, QPN=QPN, PEER_MAC=PEER_MAC,
           PEER_IP=PEER_IP, PEER_QPN=PEER_QPN, EPSN=EPSN, RECV2_VA=RECV_VA + RECV_LEN, RECV_LEN=RECV_LEN)

# IBA 9.7.5.2, the AETH syndrome: bits 7:5 = 000 ACK (bits 4:0 credits), 001 RNR NAK,
# 011 NAK with code 0 PSN sequence error, 1 invalid request, 2 remote access error, ...
AETH_NAK_PSN_SEQ = 0x60
AETH_NAK_REMOTE_ACCESS = 0x62
OP_ACK = 0x11                    # IBA table 38: RC Acknowledge
WC_SUCCESS, WC_OP_RECV = 0, 128  # enum ibv_wc_status / ibv_wc_opcode (verbs ABI)


def request(**f):
    """A request from the peer to the device's QP (scapy builds it, ICRC included)."""
    base = dict(dmac=DEV_MAC, smac=PEER_MAC, sip=PEER_IP, dip=DEV_IP, sport=0xC000 | PEER_QPN,
                dqpn=QPN, ackreq=1)
    base.update(f)
    return rs.build_frame(base)


def bad_icrc(frame):
    """The frame with its ICRC (the 4 bytes before any Ethernet padding) inverted."""
    iplen = (frame[16] << 8) | frame[17]
    end = 14 + iplen
    return frame[:end - 4] + bytes(b ^ 0xFF for b in frame[end - 4:end]) + frame[end:]


class Run:
    """One `hcasim replay` of one capture into a fresh device."""

    def __init__(self, args, name, backend, width, frames, spacing=None, setup=SETUP, extra=(), times=None):
        d = os.path.join(args.out, "%s-%s%s" % (name, backend, width or ""))
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        self.cap, self.ans, self.json = (os.path.join(d, x) for x in ("in.pcap", "answers.pcap", "report.json"))
        self.dump = os.path.join(d, "mrs")
        setup_path = os.path.join(d, "setup.conf")
        with open(setup_path, "w") as fh:
            fh.write(setup)
        pkts = [Ether(f) for f in frames]
        for p, t in zip(pkts, times or []):
            p.time = t
        wrpcap(self.cap, pkts)
        cmd = [args.hcasim, "replay", "--backend", backend, "--setup", setup_path, "--out", self.ans,
               "--json", self.json, "--dump-mrs", self.dump, self.cap]
        if width:
            cmd[2:2] = ["--width", str(width)]
        if spacing:
            cmd[2:2] = ["--spacing", str(spacing)]
        cmd[2:2] = list(extra) + list(getattr(args, "extra", []))
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=300)
        self.rc, self.text = p.returncode, p.stdout
        with open(os.path.join(d, "report.txt"), "w") as fh:
            fh.write(self.text)
        self.what = "%s on %s%s" % (name, backend, "/%d" % width if width else "")
        self.frames = []
        if os.path.exists(self.json):
            with open(self.json) as fh:
                self.frames = [json.loads(line) for line in fh if line.strip()]
        self.answers = [bytes(p) for p in rdpcap(self.ans)] if os.path.exists(self.ans) else []
        check(self.rc == 0, "%s: exit status %d\n%s" % (self.what, self.rc, self.text[-1500:]))
        check(len(self.frames) == len(frames), "%s: %d report lines for %d frames" %
              (self.what, len(self.frames), len(frames)))
        if backend == "lockstep":
            check("agreed on every transaction" in self.text, "%s: lockstep found no divergence" % self.what)
        if self.frames:
            # the device settles --spacing cycles after the setup before the first frame
            c0 = self.frames[0].get("in", {}).get("cycle", 0)
            check(c0 >= (spacing or 10000), "%s: first frame at cycle %d, after the setup and %d cycles" %
                  (self.what, c0, spacing or 10000))
        if times is None and len(self.frames) > 1:
            # fixed spacing: the device clock moves by --spacing from frame to frame, idle or not
            c = [f.get("in", {}).get("cycle", 0) for f in self.frames]
            check(all(b - a == (spacing or 10000) for a, b in zip(c, c[1:])),
                  "%s: frames %s cycles apart, want %d" % (self.what, [b - a for a, b in zip(c, c[1:])],
                                                           spacing or 10000))

    def mr(self, name):
        path = os.path.join(self.dump, name + ".bin")
        check(os.path.exists(path), "%s: mr %s dumped" % (self.what, name))
        if not os.path.exists(path):
            return b""
        with open(path, "rb") as fh:
            return fh.read()

    def frame(self, i):
        return self.frames[i] if i < len(self.frames) else {}


def aeth_of(frame):
    """(BTH, AETH) of an answer as scapy dissects it, and whether scapy's ICRC matches."""
    pkt = Ether(frame)
    ok = BTH in pkt and AETH in pkt
    icrc_ok = ok and rs.icrc_scapy(frame) == rs.icrc_zlib(frame) and \
        frame[14 + ((frame[16] << 8) | frame[17]) - 4:14 + ((frame[16] << 8) | frame[17])] == rs.icrc_scapy(frame)
    return (pkt[BTH] if ok else None), (pkt[AETH] if ok else None), icrc_ok, pkt


def check_answer(r, frame, what, syndrome_type, syndrome, psn, msn):
    bth, aeth, icrc_ok, pkt = aeth_of(frame)
    check(bth is not None and aeth is not None, "%s: %s: scapy finds BTH+AETH" % (r.what, what))
    if bth is None:
        return
    # Responses go back to the requester (IBA 9.7.5; RoCEv2 A17: addresses of the request swapped).
    check(pkt[Ether].dst == PEER_MAC and pkt[Ether].src == DEV_MAC, "%s: %s: MACs" % (r.what, what))
    check(pkt[IP].src == DEV_IP and pkt[IP].dst == PEER_IP, "%s: %s: IPs" % (r.what, what))
    check(pkt[UDP].dport == 4791, "%s: %s: UDP port 4791" % (r.what, what))
    check(bth.opcode == OP_ACK, "%s: %s: opcode RC Acknowledge (0x%02x)" % (r.what, what, bth.opcode))
    check(bth.dqpn == PEER_QPN, "%s: %s: to the requester's QP (0x%x)" % (r.what, what, bth.dqpn))
    check(bth.psn == psn, "%s: %s: PSN 0x%x, want 0x%x" % (r.what, what, bth.psn, psn))
    check(aeth.syndrome >> 5 == syndrome_type, "%s: %s: AETH type %d (syndrome 0x%02x)" %
          (r.what, what, syndrome_type, aeth.syndrome))
    if syndrome is not None:
        check(aeth.syndrome == syndrome, "%s: %s: AETH syndrome 0x%02x, want 0x%02x" %
              (r.what, what, aeth.syndrome, syndrome))
    check(aeth.msn == msn, "%s: %s: MSN %d, want %d" % (r.what, what, aeth.msn, msn))
    check(icrc_ok, "%s: %s: ICRC valid (scapy and zlib)" % (r.what, what))


def check_untouched(r, name, what):
    data = r.mr(name)
    check(data and data == bytes([FILL]) * len(data), "%s: %s: mr %s untouched" % (r.what, what, name))


def no_effect(r, i, what):
    f = r.frame(i)
    check(not f.get("answers") and not f.get("cqes") and not f.get("dma_writes"),
          "%s: %s: no answer, no CQE, no DMA write" % (r.what, what))


def payload(rnd, n):
    return bytes(rnd.getrandbits(8) for _ in range(n))


# ---- the scenarios -----------------------------------------------------------------------

def good_send(args, backend, width, rnd):
    data = payload(rnd, 40)
    r = Run(args, "a-send", backend, width, [request(opcode="RC_SEND_ONLY", psn=EPSN, payload=data.hex())])
    f = r.frame(0)
    # IBA 9.7.4.1: PSN == ePSN, valid SEND ONLY -> executed; 9.7.5.1: AckReq set -> ACK with
    # this PSN and the MSN, which counts completed messages (1 after the first).
    check(f.get("verdict") == "accepted", "%s: SEND accepted (%s: %s)" % (r.what, f.get("verdict"), f.get("why")))
    cq = f.get("cqes", [])
    check(len(cq) == 1, "%s: one receive CQE (%d)" % (r.what, len(cq)))
    if cq:
        c = cq[0]
        check(c["status"] == WC_SUCCESS and c["opcode"] == WC_OP_RECV, "%s: CQE RECV SUCCESS (%s %s)" %
              (r.what, c["opcode_name"], c["status_name"]))
        check(c["byte_len"] == len(data), "%s: CQE byte_len %d, want %d" % (r.what, c["byte_len"], len(data)))
        check(c["qpn"] == QPN and c["wqe_index"] == 0, "%s: CQE qpn 0x%x wqe_index %d" %
              (r.what, c["qpn"], c["wqe_index"]))
    buf = r.mr("recvbuf")
    check(buf[:len(data)] == data, "%s: payload in the first receive buffer" % r.what)
    check(buf[len(data):] == bytes([FILL]) * (len(buf) - len(data)), "%s: nothing else written" % r.what)
    check_untouched(r, "target", "SEND")
    dw = [w for w in f.get("dma_writes", []) if w["region"].startswith("mr ")]
    check(len(dw) == 1 and dw[0]["len"] == len(data) and dw[0]["region"] == "mr recvbuf va 0x%x" % RECV_VA,
          "%s: one DMA write of the payload into recvbuf (%s)" % (r.what, dw))
    check(len(r.answers) == 1, "%s: one answer in the pcap (%d)" % (r.what, len(r.answers)))
    if r.answers:
        check_answer(r, r.answers[0], "ACK", 0, None, EPSN, 1)
    check(not f.get("qp_states"), "%s: QP stays in RTS" % r.what)


def bad_icrc_send(args, backend, width, rnd):
    data = payload(rnd, 40)
    frame = bad_icrc(request(opcode="RC_SEND_ONLY", psn=EPSN, payload=data.hex()))
    r = Run(args, "b-icrc", backend, width, [frame])
    f = r.frame(0)
    # IBA 7.8 / A17 (ICRC): a CA checks the ICRC of every packet addressed to it and silently
    # discards one that fails -- no response, no effect.
    check(f.get("verdict") == "dropped", "%s: bad ICRC dropped (%s)" % (r.what, f.get("verdict")))
    check(f.get("counters", {}).get("RX_DROP_ICRC") == 1, "%s: RX_DROP_ICRC +1 (%s)" % (r.what, f.get("counters")))
    no_effect(r, 0, "bad ICRC")
    check(not r.answers, "%s: answers pcap empty" % r.what)
    check_untouched(r, "recvbuf", "bad ICRC")
    check(not f.get("qp_states"), "%s: QP state unchanged" % r.what)


def wrong_rkey(args, backend, width, rnd):
    data = payload(rnd, 32)
    frame = request(opcode="RC_RDMA_WRITE_ONLY", psn=EPSN, reth_va=TARGET_VA, reth_rkey=RKEY ^ 0x1,
                    reth_len=len(data), payload=data.hex())
    r = Run(args, "c-rkey", backend, width, [frame])
    f = r.frame(0)
    # IBA 9.7.5.2.4 / 9.9.3 (responder class C error): an R_Key that fails validation is a
    # remote access error: NAK code 2 (syndrome 0x62) with the request's PSN, nothing written,
    # and the responder's QP goes to the Error state (an affiliated access error event,
    # IBV_EVENT_QP_ACCESS_ERR; docs/wire.md 4.2).
    check(f.get("verdict") == "nak", "%s: wrong rkey NAKed (%s: %s)" % (r.what, f.get("verdict"), f.get("why")))
    check(len(r.answers) == 1, "%s: one answer (%d)" % (r.what, len(r.answers)))
    if r.answers:
        check_answer(r, r.answers[0], "NAK", 3, AETH_NAK_REMOTE_ACCESS, EPSN, 0)
    check_untouched(r, "target", "wrong rkey")
    check_untouched(r, "recvbuf", "wrong rkey")
    check(not [w for w in f.get("dma_writes", []) if w["region"].startswith("mr ")],
          "%s: no DMA write into any MR" % r.what)
    st = f.get("qp_states", [])
    check(len(st) == 1 and st[0]["from"] == "RTS" and st[0]["to"] == "ERR", "%s: QP RTS -> ERR (%s)" % (r.what, st))
    ev = [e["name"] for e in f.get("events", [])]
    check("QP_ACCESS_ERR" in ev, "%s: QP_ACCESS_ERR event (%s)" % (r.what, ev))


def psn_window(args, backend, width, rnd):
    a, b = payload(rnd, 24), payload(rnd, 24)
    frames = [request(opcode="RC_SEND_ONLY", psn=EPSN + 5, payload=a.hex()),
              request(opcode="RC_SEND_ONLY", psn=EPSN + 6, payload=b.hex())]
    r = Run(args, "d-ahead", backend, width, frames)
    # IBA 9.7.4.1.x / 9.9.3 class B: a PSN ahead of ePSN (within the valid window) is out of
    # sequence: one NAK PSN sequence error (syndrome 0x60) carrying ePSN; until a packet with
    # ePSN arrives the responder sends no other NAK; nothing executes, the QP stays as it is.
    for i in (0, 1):
        check(r.frame(i).get("verdict") == "out-of-sequence", "%s: frame %d out of sequence (%s)" %
              (r.what, i + 1, r.frame(i).get("verdict")))
        check(r.frame(i).get("counters", {}).get("RX_SEQ_ERR") == 1, "%s: frame %d RX_SEQ_ERR" % (r.what, i + 1))
        check(not r.frame(i).get("cqes") and not r.frame(i).get("qp_states"),
              "%s: frame %d no CQE, QP unchanged" % (r.what, i + 1))
    check(len(r.frame(0).get("answers", [])) == 1 and not r.frame(1).get("answers"),
          "%s: one NAK for the first, none for the second" % r.what)
    check(len(r.answers) == 1, "%s: one answer in the pcap (%d)" % (r.what, len(r.answers)))
    if r.answers:
        check_answer(r, r.answers[0], "NAK", 3, AETH_NAK_PSN_SEQ, EPSN, 0)
    check_untouched(r, "recvbuf", "PSN ahead")

    first, dup, nxt = payload(rnd, 30), payload(rnd, 30), payload(rnd, 20)
    frames = [request(opcode="RC_SEND_ONLY", psn=EPSN, payload=first.hex()),
              request(opcode="RC_SEND_ONLY", psn=EPSN, payload=dup.hex()),
              request(opcode="RC_SEND_ONLY", psn=EPSN + 1, payload=nxt.hex())]
    r = Run(args, "d-dup", backend, width, frames)
    # IBA 9.7.4.1.x (duplicate requests): a PSN behind ePSN is a duplicate; a SEND is not
    # executed again (no receive WQE consumed, no CQE) and the responder answers with an ACK
    # for the most recent PSN it executed (ePSN - 1) and the current MSN.
    check(r.frame(0).get("verdict") == "accepted", "%s: first SEND accepted" % r.what)
    f = r.frame(1)
    check(f.get("verdict") == "duplicate", "%s: second copy is a duplicate (%s)" % (r.what, f.get("verdict")))
    check(f.get("counters", {}).get("RX_DUP") == 1, "%s: RX_DUP +1" % r.what)
    check(not f.get("cqes") and not [w for w in f.get("dma_writes", []) if w["region"].startswith("mr ")],
          "%s: duplicate not executed (no CQE, no data written)" % r.what)
    check(r.frame(2).get("verdict") == "accepted", "%s: next PSN accepted" % r.what)
    cq = r.frame(2).get("cqes", [])
    check(len(cq) == 1 and cq[0]["wqe_index"] == 1 and cq[0]["byte_len"] == len(nxt),
          "%s: next SEND completes on receive WQE 1 (the duplicate consumed none): %s" % (r.what, cq))
    buf = r.mr("recvbuf")
    check(buf[:len(first)] == first, "%s: first buffer holds the first copy, not the duplicate" % r.what)
    check(buf[RECV_LEN:RECV_LEN + len(nxt)] == nxt, "%s: second buffer holds the next SEND" % r.what)
    check(len(r.answers) == 3, "%s: three ACKs (%d)" % (r.what, len(r.answers)))
    if len(r.answers) == 3:
        check_answer(r, r.answers[0], "ACK 1", 0, None, EPSN, 1)
        check_answer(r, r.answers[1], "re-ACK", 0, None, EPSN, 1)
        check_answer(r, r.answers[2], "ACK 2", 0, None, EPSN + 1, 2)


def truncated(args, backend, width, rnd):
    data = payload(rnd, 16)
    # A RETH cut to 8 of its 16 bytes, lengths consistent and ICRC valid (scapy computes it
    # over what is there): IBA 9.3 (header layout per opcode, table 38) -- the packet is
    # malformed and is discarded without a response.
    cut_reth = bytes(Ether(dst=DEV_MAC, src=PEER_MAC) /
                     IP(src=PEER_IP, dst=DEV_IP, id=0, flags="DF", ttl=64) /
                     UDP(sport=0xC000 | PEER_QPN, dport=4791, chksum=0) /
                     BTH(opcode=0x0A, migreq=1, dqpn=QPN, ackreq=1, psn=EPSN) /
                     Raw((TARGET_VA).to_bytes(8, "big")))
    cut_reth += b"\0" * max(0, 60 - len(cut_reth))
    # A frame that ends inside the BTH (the capture holds 50 of its bytes).
    whole = request(opcode="RC_SEND_ONLY", psn=EPSN, payload=data.hex())
    r = Run(args, "e-trunc", backend, width, [cut_reth, whole[:50]])
    for i, what in ((0, "RETH cut short"), (1, "frame cut in the BTH")):
        f = r.frame(i)
        check(f.get("verdict") == "dropped", "%s: %s dropped (%s)" % (r.what, what, f.get("verdict")))
        check(f.get("counters", {}).get("RX_DROP_MALFORMED") == 1, "%s: %s counts RX_DROP_MALFORMED (%s)" %
              (r.what, what, f.get("counters")))
        no_effect(r, i, what)
    check(not r.answers, "%s: no answers" % r.what)
    check_untouched(r, "target", "truncated")
    check_untouched(r, "recvbuf", "truncated")


# ---- the checks can fail: planted RTL bugs (sim/rtl/rtl_engine.h) -------------------------

def planted(args, rnd):
    """Each planted bug must make the scenario that covers it fail."""
    global passed, failed
    cases = [("rtl", ["--options", "bug=drop_ack"], "no ACK"),
             ("rtl", ["--options", "bug=cqe_field"], "a CQE byte_len bit"),
             ("lockstep", ["--options", "dut.bug=cqe_field,quiet=1"], "lockstep divergence")]
    for backend, extra, what in cases:
        saved = (passed, failed)
        sub = argparse.Namespace(**vars(args))
        sub.extra = extra
        sub.out = os.path.join(args.out, "planted")
        os.makedirs(sub.out, exist_ok=True)
        out = sys.stdout
        sys.stdout = open(os.devnull, "w")
        try:
            if what == "lockstep divergence":
                # a divergence is the replay's result, exit status 1
                r = Run(sub, "bug-cqe", backend, 64,
                        [request(opcode="RC_SEND_ONLY", psn=EPSN, payload=payload(rnd, 8).hex())])
                caught = r.rc == 1 and "diverged" in r.text
            else:
                good_send(sub, backend, 64, rnd)
                caught = failed > saved[1]
        finally:
            sys.stdout.close()
            sys.stdout = out
        passed, failed = saved
        check(caught, "planted bug (%s, %s) is caught" % (" ".join(extra), what))


def capture_timing(args, rnd):
    """--timing capture: frames arrive at their capture-time offsets (4 ns a cycle, HCA_CLK_HZ)."""
    frames = [request(opcode="RC_SEND_ONLY", psn=EPSN + i, payload=payload(rnd, 8).hex()) for i in range(2)]
    r = Run(args, "timing", "model", None, frames, extra=["--timing", "capture"], times=[1000.0, 1000.001])
    c = [f.get("in", {}).get("cycle", 0) for f in r.frames]
    check(len(c) == 2 and c[1] - c[0] == 250000, "capture timing: 1 ms apart = 250000 cycles (%s)" % c)
    check(all(f.get("verdict") == "accepted" for f in r.frames), "capture timing: both SENDs accepted")


def rtl_trace(args, rnd):
    """--trace: an FST waveform of the RTL over the cycles asked for (read back by the header)."""
    fst = os.path.join(args.out, "trace.fst")
    if os.path.exists(fst):
        os.remove(fst)
    r = Run(args, "trace", "rtl", 64, [request(opcode="RC_SEND_ONLY", psn=EPSN, payload=payload(rnd, 8).hex())],
            extra=["--trace", fst, "--trace-from", "9000", "--trace-to", "11000"])
    check(r.frame(0).get("verdict") == "accepted", "trace: SEND accepted with tracing on")
    size = os.path.getsize(fst) if os.path.exists(fst) else 0
    head = b""
    if size:
        with open(fst, "rb") as fh:
            head = fh.read(1)
    # FST files start with a header block, block type 0 (FST_BL_HDR, gtkwave's fstapi.h)
    check(size > 100 and head == b"\x00", "trace: %s written (%d bytes)" % (fst, size))


# ---- the command's own error handling -----------------------------------------------------

def bad_inputs(args):
    d = os.path.join(args.out, "errors")
    os.makedirs(d, exist_ok=True)
    good_setup = os.path.join(d, "good.conf")
    with open(good_setup, "w") as fh:
        fh.write(SETUP)
    cap = os.path.join(d, "one.pcap")
    wrpcap(cap, [Ether(request(opcode="RC_SEND_ONLY", psn=EPSN, payload="00"))])

    def run(setup, capture, extra=()):
        p = subprocess.run([args.hcasim, "replay", "--setup", setup] + list(extra) + [capture],
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=60)
        return p.returncode, p.stderr

    cases = [
        ("ip = 10.0.0.2\n[mr m]\nlength = 0x10\naccess = remote_flying\n", "bad.conf:4", "unknown access flag"),
        ("ip = 10.0.0.2\n[qp q]\ntype = rc\nrecv = nosuch 0 8\n", "bad.conf:4", "mr \"nosuch\" is not defined"),
        ("ip = 10.0.0.2\n[qp q]\nqpn = 0x11\n", "bad.conf:2", "needs remote_ip"),
        ("[pd p]\n", "bad.conf", "no device address"),
        ("ip = 10.0.0.2\n[cq c]\nentries = lots\n", "bad.conf:3", "entries wants"),
        ("ip = 10.0.0.2\n[frobnicator x]\n", "bad.conf:2", "unknown section"),
        ("ip = 10.0.0.2\n[qp q]\nqpn = 1\nremote_ip = 10.0.0.1\ndest_qpn = 2\n", "bad.conf:2", "QP0/QP1"),
        ("ip = 10.0.0.2\n[mr m]\nlength = 16\nrkey = 0x12\n", "bad.conf:2", "MR index 0"),
    ]
    bad = os.path.join(d, "bad.conf")
    for text, where, msg in cases:
        with open(bad, "w") as fh:
            fh.write(text)
        rc, err = run(bad, cap)
        check(rc == 2 and where in err and msg in err, "bad setup %r: exit 2 naming %s and %r, got %d: %s" %
              (text, where, msg, rc, err.strip()))
    rc, err = run(os.path.join(d, "missing.conf"), cap)
    check(rc == 2 and "missing.conf" in err, "missing setup: exit 2 naming it (%d: %s)" % (rc, err.strip()))
    rc, err = run(good_setup, os.path.join(d, "missing.pcap"))
    check(rc == 2 and "missing.pcap" in err, "missing capture: exit 2 naming it (%d: %s)" % (rc, err.strip()))
    junk = os.path.join(d, "junk.pcap")
    with open(junk, "wb") as fh:
        fh.write(b"this is not a capture at all")
    rc, err = run(good_setup, junk)
    check(rc == 2 and "junk.pcap" in err, "garbage capture: exit 2 naming it (%d: %s)" % (rc, err.strip()))
    with open(cap, "rb") as fh:
        whole = fh.read()
    cut = os.path.join(d, "cut.pcap")
    with open(cut, "wb") as fh:
        fh.write(whole[:-10])
    rc, err = run(good_setup, cut)
    check(rc == 2 and "cut.pcap" in err and "frame 1" in err, "capture cut inside a record: exit 2 (%d: %s)" %
          (rc, err.strip()))
    rc, err = run(good_setup, cap, ["--backend", "quantum"])
    check(rc == 2 and "quantum" in err, "unknown backend refused (%d: %s)" % (rc, err.strip()))
    rc, err = run(good_setup, cap, ["--width", "128"])
    check(rc == 2 and "128" in err, "bad width refused (%d: %s)" % (rc, err.strip()))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--hcasim", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--backends", default="model,rtl:64,rtl:512,lockstep:64",
                    help="comma-separated BACKEND[:WIDTH]")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    rnd = random.Random(args.seed)
    for spec in args.backends.split(","):
        backend, _, width = spec.partition(":")
        width = int(width) if width else None
        for scenario in (good_send, bad_icrc_send, wrong_rkey, psn_window, truncated):
            scenario(args, backend, width, rnd)
    planted(args, rnd)
    capture_timing(args, rnd)
    rtl_trace(args, rnd)
    bad_inputs(args)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
