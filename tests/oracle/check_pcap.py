#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Check every frame of a pcap/pcapng with independent RoCEv2 oracles.

    check_pcap.py PCAP [--expect FRAMES.json] [--wire-rules] [--wire-rules-from MAC]
                  [--allow-non-roce] [--every K] [-v]

For each frame:
  * it is Ethernet II / IPv4 without options / UDP to 4791, the IPv4 header
    checksum verifies and the IP, UDP and BTH lengths, opcode and pad count
    are consistent (a parse written here from the IB spec, not the C model);
  * its ICRC equals the one scapy.contrib.roce computes, and a second
    computation with zlib.crc32 from docs/wire.md agrees with scapy's;
  * tshark decodes it as InfiniBand (RRoCE) without malformed-packet or
    expert warnings/errors (IPv4 checksum validation on, payload heuristics
    off), with every header field equal to the parse above;
    a payload it dissects as a MAD (UD SEND to QP0/QP1: CM messages) must
    be the frame's bytes, with the same MAD header fields;
  * --wire-rules: it also obeys hcasim's transmit rules (docs/wire.md 1):
    IP id 0, DF, UDP checksum 0, source port 0xC000|qpn, TVer 0, P_Key
    0xFFFF, MigReq 1, reserved bits 0, zero pad bytes, 60-byte minimum;
    --wire-rules-from MAC (repeatable): the same, for the frames of that
    source MAC only (captures that also hold another implementation's frames);
  * --expect: frame i has the fields of element i of the JSON list
    (roce_scapy.py field names, any subset; "payload" as hex).

Prints one FAIL line per bad frame and ends with "N passed, M failed"
(frames).  Exit status 1 when anything failed, 2 on usage errors.
"""

import argparse
import json
import os
import struct
import subprocess
import sys

sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import roce_scapy as rs  # noqa: E402
from scapy.utils import RawPcapReader  # noqa: E402

ETH, IP_OFF, UDP_OFF, BTH_OFF, EXT_OFF = 14, 14, 34, 42, 54


def read_frames(path):
    out = []
    rd = RawPcapReader(path)      # also opens pcapng (scapy picks the reader)
    try:
        for data, _meta in rd:
            out.append(bytes(data))
    finally:
        rd.close()
    return out


# ----------------------------------------------------------- spec parse

def parse(frame):
    """Fields of a RoCEv2/IPv4 frame per the IB spec, or raise ValueError."""
    f = {}
    if len(frame) < 34:
        raise ValueError("shorter than Ethernet + IPv4 headers")
    if frame[12:14] != b"\x08\x00":
        raise ValueError("EtherType 0x%s is not IPv4" % frame[12:14].hex())
    ip = frame[14:34]
    if ip[0] != 0x45:
        raise ValueError("IPv4 version/IHL 0x%02x (options or not IPv4)" % ip[0])
    if not rs.ipv4_csum_ok(frame):
        raise ValueError("IPv4 header checksum wrong")
    iplen = struct.unpack("!H", ip[2:4])[0]
    if iplen > len(frame) - 14 or iplen < 20 + 8 + 12 + 4:
        raise ValueError("IPv4 total length %d inconsistent with frame length %d" % (iplen, len(frame)))
    if struct.unpack("!H", ip[6:8])[0] & 0x3FFF:
        raise ValueError("IPv4 fragment")
    if ip[9] != 17:
        raise ValueError("IP protocol %d is not UDP" % ip[9])
    udp = frame[34:42]
    sport, dport, ulen, ucsum = struct.unpack("!HHHH", udp)
    if dport != rs.ROCE_PORT:
        raise ValueError("UDP destination port %d" % dport)
    if ulen != iplen - 20:
        raise ValueError("UDP length %d, IP says %d" % (ulen, iplen - 20))
    bth = frame[42:54]
    op = bth[0]
    if op not in rs.OPCODES:
        raise ValueError("opcode 0x%02x not RC/UC/UD" % op)
    name, hdrs, carries = rs.OPCODES[op]
    f.update(dmac=frame[0:6].hex(":"), smac=frame[6:12].hex(":"),
             sip="%d.%d.%d.%d" % tuple(ip[12:16]), dip="%d.%d.%d.%d" % tuple(ip[16:20]),
             tos=ip[1], ttl=ip[8], sport=sport, udp_csum=ucsum,
             ip_id=struct.unpack("!H", ip[4:6])[0], ip_flags=struct.unpack("!H", ip[6:8])[0],
             opcode=op, se=bth[1] >> 7, migreq=(bth[1] >> 6) & 1, padcnt=(bth[1] >> 4) & 3,
             tver=bth[1] & 15, pkey=struct.unpack("!H", bth[2:4])[0], fb_resv=bth[4],
             dqpn=int.from_bytes(bth[5:8], "big"), ackreq=bth[8] >> 7, resv7=bth[8] & 0x7F,
             psn=int.from_bytes(bth[9:12], "big"))
    end = 14 + iplen - 4
    off = EXT_OFF
    ext_len = {rs.DETH: 8, rs.RETH: 16, rs.AtomicETH: 28, rs.AETH: 4, rs.AtomicAckETH: 8, rs.ImmDt: 4}
    if off + sum(ext_len[h] for h in hdrs) > end:
        raise ValueError("%s: packet too short for its headers" % name)
    for h in hdrs:
        b = frame[off:off + ext_len[h]]
        if h is rs.DETH:
            f["deth_qkey"] = struct.unpack("!I", b[0:4])[0]
            f["deth_src_qp"] = int.from_bytes(b[5:8], "big")
        elif h is rs.RETH:
            f["reth_va"], f["reth_rkey"], f["reth_len"] = struct.unpack("!QII", b)
        elif h is rs.AtomicETH:
            (f["atmeth_va"], f["atmeth_rkey"], f["atmeth_swap_add"],
             f["atmeth_compare"]) = struct.unpack("!QIQQ", b)
        elif h is rs.AETH:
            f["aeth_syndrome"] = b[0]
            f["aeth_msn"] = int.from_bytes(b[1:4], "big")
        elif h is rs.AtomicAckETH:
            f["atmack_orig"] = struct.unpack("!Q", b)[0]
        elif h is rs.ImmDt:
            f["imm"] = struct.unpack("!I", b)[0]
        off += ext_len[h]
    rest = end - off
    if rest % 4 or f["padcnt"] > rest or (rest and not carries):
        raise ValueError("%s: payload+pad %d bytes with pad count %d" % (name, rest, f["padcnt"]))
    f["payload"] = frame[off:end - f["padcnt"]]
    f["pad"] = frame[end - f["padcnt"]:end]
    f["icrc"] = frame[end:end + 4]
    f["iplen"] = iplen
    f["hdrs"] = hdrs
    f["name"] = name
    return f


# --------------------------------------------------------------- tshark

TSHARK_FIELDS = [
    ("num", "frame.number"), ("malformed", "_ws.malformed"), ("sev", "_ws.expert.severity"),
    ("msg", "_ws.expert.message"), ("protos", "frame.protocols"),
    ("ipck", "ip.checksum.status"),
    ("opcode", "infiniband.bth.opcode"), ("se", "infiniband.bth.se"), ("migreq", "infiniband.bth.m"),
    ("padcnt", "infiniband.bth.padcnt"), ("tver", "infiniband.bth.tver"),
    ("pkey", "infiniband.bth.p_key"), ("dqpn", "infiniband.bth.destqp"),
    ("ackreq", "infiniband.bth.a"), ("psn", "infiniband.bth.psn"),
    ("va", "infiniband.reth.va"), ("rkey", "infiniband.reth.r_key"), ("reth_len", "infiniband.reth.dmalen"),
    ("aeth_syndrome", "infiniband.aeth.syndrome"), ("aeth_msn", "infiniband.aeth.msn"),
    ("imm", "infiniband.immdt"), ("deth_qkey", "infiniband.deth.q_key"),
    ("deth_src_qp", "infiniband.deth.srcqp"), ("atmeth_swap_add", "infiniband.atomiceth.swapdt"),
    ("atmeth_compare", "infiniband.atomiceth.cmpdt"), ("atmack_orig", "infiniband.atomicacketh.origremdt"),
    ("icrc", "infiniband.invariant.crc"), ("data", "data.data"),
    ("mad", "infiniband.mad"), ("mad_data", "infiniband.mad.data"),
    ("mad_base", "infiniband.mad.baseversion"), ("mad_class", "infiniband.mad.mgmtclass"),
    ("mad_classver", "infiniband.mad.classversion"), ("mad_method", "infiniband.mad.method"),
    ("mad_tid", "infiniband.mad.transactionid"), ("mad_attr", "infiniband.mad.attributeid"),
]
# MAD common header fields (IB spec 13.4.3, byte offset and length) tshark must agree on.
MAD_HDR = [("mad_base", 0, 1), ("mad_class", 1, 1), ("mad_classver", 2, 1), ("mad_method", 3, 1),
           ("mad_tid", 8, 8), ("mad_attr", 16, 2)]
SEV_WARN = 0x00600000   # expert severities: chat 0x2, note 0x4, warn 0x6, error 0x8 (<< 20)


# Heuristic dissectors Wireshark 4.0 tries on InfiniBand payloads (tshark -G
# heuristic-decodes lists them by protocol; these are their heuristic short
# names).  They guess at application bytes and call random data malformed,
# so they are switched off: the payload of a RoCE packet is opaque here.
PAYLOAD_HEURISTICS = ["rpcrdma_infiniband", "smb_direct_infiniband", "smcr_infiniband",
                      "nvme_rdma", "lnet_ib", "iser_infiniband", "eth_over_ib", "mellanox_eoib",
                      "sdp_infiniband", "fc_infiniband", "drbd_rdma"]


def run_tshark(path):
    heur = list(PAYLOAD_HEURISTICS)
    while True:
        cmd = ["tshark", "-n", "-r", path, "-o", "ip.check_checksum:TRUE",
               "-d", "udp.port==4791,infiniband", "-T", "fields", "-E", "separator=\t",
               "-E", "occurrence=f"]
        for h in heur:
            cmd += ["--disable-heuristic", h]
        for _k, fld in TSHARK_FIELDS:
            cmd += ["-e", fld]
        p = subprocess.run(cmd, capture_output=True, text=True)
        if p.returncode == 0:
            break
        # Another tshark version may not know some name: drop it and retry.
        unknown = [h for h in heur if "No such protocol %s," % h in p.stderr]
        if not unknown:
            raise RuntimeError("tshark failed: %s" % p.stderr.strip())
        heur = [h for h in heur if h not in unknown]
    rows = {}
    for ln in p.stdout.splitlines():
        cols = ln.split("\t")
        cols += [""] * (len(TSHARK_FIELDS) - len(cols))
        row = dict(zip([k for k, _ in TSHARK_FIELDS], cols))
        rows[int(row["num"])] = row
    return rows


def tint(v):
    v = v.strip()
    if v in ("True", "true"):
        return 1
    if v in ("False", "false"):
        return 0
    return int(v, 0) if v.lower().startswith("0x") else int(v)


def tshark_problems(row, f):
    """Differences between tshark's decode and the spec parse."""
    errs = []
    if row.get("malformed"):
        errs.append("tshark: %s" % row["malformed"])
    if row.get("sev"):
        sev = max(tint(s) for s in row["sev"].split(",") if s)
        if sev >= SEV_WARN:
            errs.append("tshark expert (severity 0x%x): %s" % (sev, row.get("msg", "")))
    if "infiniband" not in row.get("protos", ""):
        errs.append("tshark did not decode InfiniBand (%s)" % row.get("protos"))
        return errs
    if row.get("ipck") and row["ipck"] != "1":
        errs.append("tshark: IPv4 checksum status %s" % row["ipck"])
    want = {k: f[k] for k in ("opcode", "se", "migreq", "padcnt", "tver", "pkey", "dqpn",
                              "ackreq", "psn")}
    for k in ("reth_len", "aeth_syndrome", "aeth_msn", "deth_qkey", "deth_src_qp",
              "atmeth_swap_add", "atmeth_compare", "atmack_orig", "imm"):
        if k in f:
            want[k] = f[k]
    if "reth_va" in f:
        want["va"], want["rkey"] = f["reth_va"], f["reth_rkey"]
    if "atmeth_va" in f:
        want["va"], want["rkey"] = f["atmeth_va"], f["atmeth_rkey"]
    for k, v in want.items():
        got = row.get(k, "")
        if got == "":
            errs.append("tshark: no %s" % k)
            continue
        try:
            g = int(got.replace(":", ""), 16) if k == "imm" else tint(got.split(",")[0])
        except ValueError:
            errs.append("tshark: %s=%r unparsable" % (k, got))
            continue
        if g != v:
            errs.append("tshark %s=0x%x, frame has 0x%x" % (k, g, v))
    # Invariant CRC: tshark shows the 4 wire bytes read big-endian.
    if row.get("icrc"):
        if tint(row["icrc"]) != int.from_bytes(f["icrc"], "big"):
            errs.append("tshark finds the ICRC %s elsewhere (frame: %s)" % (row["icrc"], f["icrc"].hex()))
    else:
        errs.append("tshark: no invariant CRC")
    if row.get("mad"):
        return errs + mad_problems(row, f)
    # Wireshark shows payload + pad as data.
    data = bytes.fromhex(row.get("data", "").replace(":", ""))
    if data != f["payload"] + f["pad"]:
        errs.append("tshark payload (%d bytes) differs from the frame's (%d + %d pad)" %
                    (len(data), len(f["payload"]), len(f["pad"])))
    return errs


def mad_problems(row, f):
    """A payload tshark dissected as a MAD (UD to QP0/QP1, e.g. CM messages on
    QP1): the MAD is the whole payload, and tshark's header fields and data
    are the frame's bytes."""
    errs = []
    pl = f["payload"]
    mad = bytes.fromhex(row["mad"].replace(":", ""))
    if f["dqpn"] not in (0, 1) or f["opcode"] != 0x64:
        errs.append("tshark decodes a MAD in %s to QP 0x%x" % (f["name"], f["dqpn"]))
    if mad != pl + f["pad"]:
        errs.append("tshark MAD (%d bytes) differs from the frame's payload (%d + %d pad)" %
                    (len(mad), len(pl), len(f["pad"])))
    for k, off, n in MAD_HDR:
        got = row.get(k, "")
        if got == "" or tint(got.split(",")[0]) != int.from_bytes(pl[off:off + n], "big"):
            errs.append("tshark %s=%r, frame has 0x%x" % (k, got, int.from_bytes(pl[off:off + n], "big")))
    if bytes.fromhex(row.get("mad_data", "").replace(":", "")) != pl[24:]:
        errs.append("tshark MAD data differs from the frame's bytes 24..%d" % len(pl))
    return errs


# ----------------------------------------------------------- wire rules

def wire_rule_problems(frame, f):
    errs = []
    need = max(60, 14 + f["iplen"])
    if len(frame) != need:
        errs.append("frame length %d, want %d" % (len(frame), need))
    if any(frame[14 + f["iplen"]:]):
        errs.append("non-zero bytes after the IP datagram")
    if f["ip_id"] != 0:
        errs.append("IP id %d" % f["ip_id"])
    if f["ip_flags"] != 0x4000:
        errs.append("IP flags/offset 0x%04x (want DF)" % f["ip_flags"])
    if f["ttl"] == 0:
        errs.append("TTL 0")
    if f["udp_csum"] != 0:
        errs.append("UDP checksum 0x%04x (want 0)" % f["udp_csum"])
    if f["sport"] & 0xC000 != 0xC000:
        errs.append("UDP source port 0x%04x not 0xC000|qpn" % f["sport"])
    if f["tver"] != 0 or f["pkey"] != 0xFFFF or f["migreq"] != 1:
        errs.append("BTH TVer %d P_Key 0x%04x M %d" % (f["tver"], f["pkey"], f["migreq"]))
    if f["fb_resv"] or f["resv7"]:
        errs.append("BTH reserved bits set")
    if f["padcnt"] != (4 - len(f["payload"]) % 4) % 4 or any(f["pad"]):
        errs.append("pad count %d / pad bytes %s" % (f["padcnt"], f["pad"].hex()))
    if "deth_src_qp" in f and f["deth_src_qp"] >> 24:
        errs.append("DETH reserved")
    return errs


def expect_problems(f, exp):
    errs = []
    e = dict(exp)
    for k, v in e.items():
        if k == "payload":
            if f["payload"] != rs._payload_bytes(v):
                errs.append("payload differs from expected (%d vs %d bytes)" %
                            (len(f["payload"]), len(rs._payload_bytes(v))))
            continue
        if k == "opcode":
            v = rs.opcode_value(v)
        if k == "ttl" and v == 0:
            v = 64
        if k not in f:
            errs.append("expected %s, but %s has no such field" % (k, f["name"]))
        elif f[k] != v:
            errs.append("%s=%s, expected %s" % (k, f[k], v))
    return errs


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pcap")
    ap.add_argument("--expect", help="JSON list of expected fields per frame")
    ap.add_argument("--wire-rules", action="store_true", help="check hcasim's transmit rules too")
    ap.add_argument("--wire-rules-from", action="append", default=[], metavar="MAC",
                    help="check hcasim's transmit rules on the frames of this source MAC")
    ap.add_argument("--allow-non-roce", action="store_true",
                    help="skip (do not fail) frames that are not RoCEv2/IPv4")
    ap.add_argument("--every", type=int, default=1, metavar="K",
                    help="check only every K-th frame (large captures; scapy takes ~1 ms a frame)")
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    try:
        frames = read_frames(a.pcap)
    except (OSError, ValueError, EOFError, Exception) as e:  # scapy raises Scapy_Exception
        print("cannot read %s: %s" % (a.pcap, e))
        print("0 passed, 1 failed")
        return 1
    expect = None
    if a.expect:
        with open(a.expect) as fh:
            expect = json.load(fh)
        if isinstance(expect, dict):
            expect = expect["frames"]
    rows = run_tshark(a.pcap)
    passed = failed = skipped = 0
    if expect is not None and len(expect) != len(frames):
        print("FAIL %d frames, %d expected" % (len(frames), len(expect)))
        failed += 1
    for i, fr in enumerate(frames):
        if a.every > 1 and i % a.every:
            continue
        errs = []
        try:
            f = parse(fr)
        except ValueError as e:
            if a.allow_non_roce:
                skipped += 1
                continue
            errs.append(str(e))
            f = None
        if f is not None:
            ic_s = rs.icrc_scapy(fr)
            ic_z = rs.icrc_zlib(fr)
            if ic_s != ic_z:
                errs.append("oracles disagree: scapy ICRC %s, zlib %s" % (ic_s.hex(), ic_z.hex()))
            if f["icrc"] != ic_s:
                errs.append("ICRC %s, scapy computes %s" % (f["icrc"].hex(), ic_s.hex()))
            row = rows.get(i + 1)
            if row is None:
                errs.append("tshark printed nothing for this frame")
            else:
                errs += tshark_problems(row, f)
            if a.wire_rules or f["smac"] in [m.lower() for m in a.wire_rules_from]:
                errs += wire_rule_problems(fr, f)
            if expect is not None and i < len(expect):
                errs += expect_problems(f, expect[i])
        if errs:
            failed += 1
            print("FAIL frame %d (%s): %s" % (i + 1, f["name"] if f else "?", "; ".join(errs)))
        else:
            passed += 1
            if a.verbose:
                print("ok   frame %d %s psn %d qp 0x%06x" % (i + 1, f["name"], f["psn"], f["dqpn"]))
    if skipped:
        print("skipped %d non-RoCEv2 frames" % skipped)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
