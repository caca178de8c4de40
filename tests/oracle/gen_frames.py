#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Build RoCEv2 frames with scapy into a pcap (nanosecond, Ethernet), for
feeding scapy-built traffic to the model (wire_replay_pcap, or an engine
test's rx_frame).

    gen_frames.py -o OUT.pcap [--json FRAMES.json | -] [--frame 'k=v,k=v' ...]
                  [--start-ns NS] [--gap-ns NS] [--expect-out FIELDS.json]

Each frame is a set of fields with the names of tests/oracle/roce_scapy.py
(struct roce_pkt's): dmac smac sip dip tos ttl sport opcode se migreq pkey
dqpn ackreq psn reth_va reth_rkey reth_len aeth_syndrome aeth_msn imm
atmeth_va atmeth_rkey atmeth_swap_add atmeth_compare atmack_orig deth_qkey
deth_src_qp payload (hex); unspecified fields take roce_scapy.DEFAULTS.
`opcode` is an IB name (RC_RDMA_WRITE_ONLY) or a number.  A frame may also
give "time_ns" (or "cycle", 4 ns each) for its pcap timestamp; otherwise
frames are --gap-ns apart from --start-ns.

JSON input is a list of frame objects, or {"defaults": {...}, "frames": [...]}.
On the command line, --frame takes comma-separated key=value pairs; numbers
may be decimal or 0x-hex, payload is hex, e.g.

    gen_frames.py -o w.pcap --frame 'opcode=RC_RDMA_WRITE_ONLY,dqpn=0x12,psn=0,
        reth_va=0x10000,reth_rkey=0x1234,reth_len=8,payload=0102030405060708'

--expect-out writes the complete field set of every frame (defaults filled
in, opcode as a name, only the extension headers the opcode carries) --
usable as check_pcap.py --expect.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_scapy as rs  # noqa: E402
from scapy.utils import PcapWriter  # noqa: E402

STRING_FIELDS = {"dmac", "smac", "sip", "dip", "opcode", "payload"}
# Extension header -> its field-name prefix (fields of absent headers are not described).
HDR_FIELDS = [(rs.DETH, "deth"), (rs.RETH, "reth"), (rs.AtomicETH, "atmeth"), (rs.AETH, "aeth"),
              (rs.AtomicAckETH, "atmack"), (rs.ImmDt, "imm")]


def parse_kv(text):
    f = {}
    for item in text.split(","):
        item = item.strip()
        if not item:
            continue
        if "=" not in item:
            raise ValueError("--frame item %r is not key=value" % item)
        k, v = item.split("=", 1)
        k, v = k.strip(), v.strip()
        if k in STRING_FIELDS and not (k == "opcode" and v[:1].isdigit()):
            f[k] = v
        else:
            f[k] = int(v, 0)
    return f


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__)
    ap.add_argument("-o", "--output", required=True)
    ap.add_argument("--json", help="file with frames ('-' = stdin)")
    ap.add_argument("--frame", action="append", default=[], help="k=v,k=v (repeatable)")
    ap.add_argument("--start-ns", type=int, default=0)
    ap.add_argument("--gap-ns", type=int, default=1000)
    ap.add_argument("--expect-out")
    a = ap.parse_args()

    defaults, frames = {}, []
    try:
        if a.json:
            data = json.load(sys.stdin if a.json == "-" else open(a.json))
            if isinstance(data, dict):
                defaults = data.get("defaults", {})
                data = data.get("frames", [])
            frames += data
        frames += [parse_kv(t) for t in a.frame]
        if not frames:
            ap.error("no frames given (--json or --frame)")
        w = PcapWriter(a.output, nano=True, linktype=1, sync=False)
        w.write_header(None)
        t = a.start_ns
        expect = []
        for i, fr in enumerate(frames):
            fr = dict(defaults, **fr)
            ts = fr.pop("time_ns", None)
            cyc = fr.pop("cycle", None)
            if ts is None and cyc is not None:
                ts = int(cyc) * 4
            if ts is None:
                ts = t
            t = ts + a.gap_ns
            raw = rs.build_frame(fr)
            w.write_packet(raw, sec=ts // 10**9, usec=ts % 10**9)
            n = rs.normalize(fr)
            name, hdrs, _pay = rs.OPCODES[n["opcode"]]
            for cls, prefix in HDR_FIELDS:
                if cls not in hdrs:
                    for k in [k for k in n if k == prefix or k.startswith(prefix + "_")]:
                        del n[k]
            n["opcode"] = name
            n["payload"] = n["payload"].hex()
            expect.append(n)
        w.close()
    except (ValueError, KeyError, TypeError, OSError) as e:
        print("gen_frames: %s" % e, file=sys.stderr)
        return 2
    if a.expect_out:
        with open(a.expect_out, "w") as fh:
            json.dump(expect, fh, indent=1)
    print("gen_frames: %d frames -> %s" % (len(frames), a.output), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
