#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check the RoCEv2 conversation in a capture of two ends (IB spec, Vol. 1 ch. 9).

    check_flow.py PCAP --side NAME=MAC ... [--expect NAME:CLASS=N[+]] ...
                  [--allow NAME:CLASS] ... [--acked NAME] ...

Frames are parsed by tests/oracle/check_pcap.py's spec parse and sorted by
their source MAC into the named sides.  Opcode classes (BTH opcode, and the
AETH syndrome for ACKs, IB spec 9.7.5.2.1 / table 44):

  send write read_req read_resp atomic atomic_ack   RC
  ack rnr_nak nak                                   RC Acknowledge by syndrome
  uc_send uc_write ud_send                          UC, UD

--expect NAME:CLASS=N    side NAME sent packets of CLASS with exactly N distinct
                         PSNs (retransmissions count once); N+ means at least N
--allow NAME:CLASS       NAME may send CLASS, any number (e.g. nak on a lossy wire)
--acked NAME             the other side answered NAME's last request (an ACK,
                         READ response or atomic ACK whose PSN is at or past it)

Anything else fails: a RoCE frame from an unknown MAC, a class a side sent
that was neither expected nor allowed.  Non-RoCE frames (ARP, IPv6) are
ignored.  Ends with "N passed, M failed" (checks).
"""

import argparse
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import check_pcap  # noqa: E402

RC_CLASSES = {0: "send", 1: "send", 2: "send", 3: "send", 4: "send", 5: "send",
              6: "write", 7: "write", 8: "write", 9: "write", 10: "write", 11: "write",
              12: "read_req", 13: "read_resp", 14: "read_resp", 15: "read_resp",
              16: "read_resp", 18: "atomic_ack", 19: "atomic", 20: "atomic"}
REQUESTS = {"send", "write", "read_req", "atomic"}
RESPONSES = {"ack", "read_resp", "atomic_ack"}


def op_class(f):
    op = f["opcode"]
    if op == 17:
        syn = f["aeth_syndrome"] >> 5
        return {0: "ack", 1: "rnr_nak", 3: "nak"}.get(syn, "reserved_aeth")
    if op < 0x20:
        return RC_CLASSES.get(op, "rc_0x%02x" % op)
    if 0x20 <= op <= 0x25:
        return "uc_send"
    if 0x26 <= op <= 0x2B:
        return "uc_write"
    if op in (0x64, 0x65):
        return "ud_send"
    return "opcode_0x%02x" % op


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("--side", action="append", default=[], metavar="NAME=MAC")
    ap.add_argument("--expect", action="append", default=[], metavar="NAME:CLASS=N[+]")
    ap.add_argument("--allow", action="append", default=[], metavar="NAME:CLASS")
    ap.add_argument("--acked", action="append", default=[], metavar="NAME")
    a = ap.parse_args()

    sides = {}
    for s in a.side:
        name, mac = s.split("=", 1)
        sides[mac.lower()] = name
    psns = {}          # (side, class) -> set of PSNs
    first = {}         # side -> first request PSN (reference for wrap-around order)
    bad = []
    for i, fr in enumerate(check_pcap.read_frames(a.pcap)):
        try:
            f = check_pcap.parse(fr)
        except ValueError:
            continue
        side = sides.get(f["smac"])
        if side is None:
            bad.append("frame %d: RoCE frame from unknown MAC %s" % (i + 1, f["smac"]))
            continue
        c = op_class(f)
        psns.setdefault((side, c), set()).add(f["psn"])
        if c in REQUESTS and side not in first:
            first[side] = f["psn"]

    passed = failed = 0

    def check(ok, msg):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL: " + msg)

    for m in bad:
        check(False, m)
    expected = set()
    for e in a.expect:
        key, n = e.split("=", 1)
        side, c = key.split(":", 1)
        expected.add((side, c))
        got = len(psns.get((side, c), ()))
        if n.endswith("+"):
            check(got >= int(n[:-1]), "%s sent %d distinct %s PSNs, want at least %s" % (side, got, c, n[:-1]))
        else:
            check(got == int(n), "%s sent %d distinct %s PSNs, want %s" % (side, got, c, n))
    allowed = {tuple(x.split(":", 1)) for x in a.allow}
    for (side, c), s in sorted(psns.items()):
        if (side, c) not in expected and (side, c) not in allowed:
            check(False, "%s sent %d unexpected %s packets" % (side, len(s), c))
    for side in a.acked:
        others = [n for n in set(sides.values()) if n != side]
        if side not in first:
            check(False, "%s sent no request" % side)
            continue
        ref = first[side]

        def off(p):
            return (p - ref) & 0xFFFFFF
        last = max(off(p) for (s, c), ps in psns.items() if s == side and c in REQUESTS for p in ps)
        answered = [off(p) for (s, c), ps in psns.items() if s in others and c in RESPONSES for p in ps]
        check(any(x >= last for x in answered),
              "%s's last request (PSN 0x%06x) was never answered (highest answer 0x%06x)" %
              (side, (ref + last) & 0xFFFFFF, (ref + max(answered, default=0)) & 0xFFFFFF))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
