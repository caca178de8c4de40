#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make test: oracle_scapy_codec.

Frames built by scapy (tests/oracle/roce_scapy.py: scapy.contrib.roce BTH and
ICRC, extension headers from the IB spec) for every RC/UC/UD opcode with
random header values and payload lengths are written with scapy's own pcap
writer and decoded by the model's codec (build/oracle/roce_dump, i.e.
roce_parse_ex through sim/pcap.c).  Every field must come back as scapy was
asked to build it.  Bad frames built with scapy (wrong ICRC, IPv4 checksum,
options, fragments, ports, VLAN, IPv6, unknown opcodes, TVer, pad count,
truncation, UDP checksums) must be refused for the right reason, and a
correct non-zero UDP checksum (which scapy computes when asked) accepted.

Ends with "N passed, M failed".
"""

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import roce_scapy as rs  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402
from scapy.layers.inet import IP, UDP, IPOption  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Dot1Q, Ether  # noqa: E402
from scapy.packet import Raw  # noqa: E402
from scapy.utils import PcapWriter  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s" % what)


def rand_fields(rnd, op):
    name, hdrs, carries = rs.OPCODES[op]
    mac = lambda: ":".join("%02x" % b for b in [rnd.getrandbits(8) & 0xFE] + [rnd.getrandbits(8) for _ in range(5)])
    ip = lambda: ".".join(str(rnd.getrandbits(8)) for _ in range(4))
    f = {"dmac": mac(), "smac": mac(), "sip": ip(), "dip": ip(), "tos": rnd.getrandbits(8),
         "ttl": rnd.choice([0, 1, 64, 255, rnd.randrange(1, 256)]), "sport": rnd.getrandbits(16),
         "opcode": name, "se": rnd.getrandbits(1), "migreq": rnd.getrandbits(1),
         "pkey": rnd.getrandbits(16), "dqpn": rnd.getrandbits(24), "ackreq": rnd.getrandbits(1),
         "psn": rnd.getrandbits(24)}
    for h in hdrs:
        if h is rs.DETH:
            f.update(deth_qkey=rnd.getrandbits(32), deth_src_qp=rnd.getrandbits(24))
        elif h is rs.RETH:
            f.update(reth_va=rnd.getrandbits(64), reth_rkey=rnd.getrandbits(32), reth_len=rnd.getrandbits(32))
        elif h is rs.AtomicETH:
            f.update(atmeth_va=rnd.getrandbits(64), atmeth_rkey=rnd.getrandbits(32),
                     atmeth_swap_add=rnd.getrandbits(64), atmeth_compare=rnd.getrandbits(64))
        elif h is rs.AETH:
            f.update(aeth_syndrome=rnd.getrandbits(8), aeth_msn=rnd.getrandbits(24))
        elif h is rs.AtomicAckETH:
            f.update(atmack_orig=rnd.getrandbits(64))
        elif h is rs.ImmDt:
            f.update(imm=rnd.getrandbits(32))
    return f


def roce(**bth):
    """Ether/IP/UDP/BTH with hcasim's defaults, for the refusal cases."""
    return (Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") /
            IP(src="10.0.0.1", dst="10.0.0.2", id=0, flags="DF", ttl=64) /
            UDP(sport=0xC001, dport=4791, chksum=0) / BTH(**bth))


def bad_frames():
    """(description, frame bytes, expected err, expected reason substring)."""
    pay = Raw(b"\x11\x22\x33\x44")
    out = []
    out.append(("ICRC forced wrong", bytes(roce(opcode=4, icrc=0xDEADBEEF) / pay), "icrc", "ICRC"))
    p = roce(opcode=4) / pay
    p[IP].chksum = 0x1234
    out.append(("IPv4 checksum", bytes(p), "malformed", "checksum"))
    p = roce(opcode=4) / pay
    p[IP].options = [IPOption(b"\x01\x01\x01\x00")]
    out.append(("IPv4 options", bytes(p), "malformed", "options"))
    p = roce(opcode=4) / pay
    p[IP].flags = "MF"
    out.append(("IPv4 fragment", bytes(p), "malformed", "fragment"))
    p = roce(opcode=4) / pay
    p[IP].proto = 6
    out.append(("IP protocol TCP", bytes(p), "malformed", "not UDP"))
    p = roce(opcode=4) / pay
    p[UDP].dport = 4790
    out.append(("UDP port 4790", bytes(p), "malformed", "port"))
    p = roce(opcode=4) / pay
    p[UDP].chksum = 0x0BAD
    out.append(("wrong non-zero UDP checksum", bytes(p), "malformed", "UDP checksum"))
    p = (Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") / Dot1Q(vlan=5) /
         IP(src="10.0.0.1", dst="10.0.0.2", flags="DF") / UDP(sport=0xC001, dport=4791, chksum=0) /
         BTH(opcode=4) / pay)
    out.append(("VLAN tag", bytes(p), "malformed", "EtherType"))
    p = (Ether(dst="02:00:00:00:00:02", src="02:00:00:00:00:01") /
         IPv6(src="fe80::1", dst="fe80::2") / UDP(sport=0xC001, dport=4791) / BTH(opcode=4, icrc=0) / pay)
    out.append(("RoCEv2 over IPv6 (not supported)", bytes(p), "malformed", "EtherType"))
    out.append(("RD opcode 0x40", bytes(roce(opcode=0x40) / pay), "malformed", "opcode"))
    out.append(("CNP 0x81", bytes(roce(opcode=0x81, becn=1) / Raw(b"\0" * 16)), "malformed", "opcode"))
    out.append(("TVer 1", bytes(roce(opcode=4, version=1) / pay), "malformed", "TVer"))
    out.append(("ACK with pad count 1", bytes(roce(opcode=0x11, padcount=1) / rs.AETH()), "malformed", "pad"))
    out.append(("SEND with 2 stray bytes", bytes(roce(opcode=4) / Raw(b"\1\2\3\4\5\6")), "malformed", "pad"))
    out.append(("ACK without AETH", bytes(roce(opcode=0x11)), "malformed", "too short"))
    good = bytes(roce(opcode=4, padcount=0) / pay)
    out.append(("truncated by one byte", good[:-1], "malformed", "total length"))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/oracle")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--per-opcode", type=int, default=12)
    a = ap.parse_args()
    rnd = random.Random(a.seed)
    tmpdir = tempfile.TemporaryDirectory(prefix="hcasim-scapy-")
    tmp = tmpdir.name
    path = os.path.join(tmp, "scapy.pcap")

    intents = []
    frames = []
    for op in sorted(rs.OPCODES):
        carries = rs.OPCODES[op][2]
        lens = [0, 1, 2, 3, 4, 7, 64, 255, 1024, 4096] if carries else [0]
        lens += [rnd.randrange(0, 1500) for _ in range(max(0, a.per_opcode - len(lens)))] if carries else []
        for ln in lens:
            f = rand_fields(rnd, op)
            f["payload"] = bytes(rnd.getrandbits(8) for _ in range(ln)).hex()
            intents.append(f)
            frames.append(("good", rs.build_frame(f)))
    bads = bad_frames()
    # A valid non-zero UDP checksum, computed by scapy (chksum=None).
    p = roce(opcode=4) / Raw(b"\x11\x22\x33\x44")
    p[UDP].chksum = None
    good_csum = bytes(p)
    check(good_csum[40:42] != b"\0\0", "scapy computed a UDP checksum")

    w = PcapWriter(path, nano=True, linktype=1, sync=True)
    w.write_header(None)          # write_packet() of raw bytes does not write it
    t = 1_000_000_000
    for _kind, fr in frames:
        w.write_packet(fr, sec=t // 10**9, usec=t % 10**9)
        t += 4 * 17
    for _d, fr, _e, _r in bads:
        w.write_packet(fr, sec=t // 10**9, usec=t % 10**9)
        t += 4
    w.write_packet(good_csum, sec=t // 10**9, usec=t % 10**9)
    w.close()

    p = subprocess.run([os.path.join(a.bin, "roce_dump"), path], capture_output=True, text=True)
    check(p.returncode == 0, "roce_dump ran: %s" % p.stderr)
    lines = [json.loads(ln) for ln in p.stdout.splitlines()]
    summary = lines.pop() if lines and "frames" in lines[-1] else {}
    check(len(lines) == len(frames) + len(bads) + 1, "one line per frame (%d)" % len(lines))
    check(summary.get("frames") == len(lines), "summary line")

    # Good frames: every field as scapy built it.
    mism = 0
    for i, f in enumerate(intents):
        if i >= len(lines):
            break
        got = lines[i]
        if not got.get("ok"):
            mism += 1
            print("FAIL frame %d (%s): refused: %s" % (i + 1, f["opcode"], got.get("reason")))
            continue
        want = dict(f)
        want["opcode"] = rs.opcode_value(f["opcode"])
        if want["ttl"] == 0:
            want["ttl"] = 64
        want["padcnt"] = (4 - len(bytes.fromhex(f["payload"])) % 4) % 4
        want["name"] = f["opcode"]
        bad = [k for k in want if got.get(k) != want[k]]
        extra = [k for k in got if k not in want and k not in ("frame", "ns", "len", "ok")]
        if bad or extra:
            mism += 1
            print("FAIL frame %d (%s): fields %s differ, unexpected %s" % (i + 1, f["opcode"], bad, extra))
            for k in bad[:4]:
                print("   %s: codec %r, scapy %r" % (k, got.get(k), want[k]))
    check(mism == 0, "%d scapy-built frames decoded to their fields" % len(intents))
    ops = {f["opcode"] for f in intents}
    check(len(ops) == 35, "all 35 opcodes (%d)" % len(ops))
    # Timestamps through scapy's writer and sim/pcap.c's reader.
    check(all(lines[i]["ns"] == 1_000_000_000 + 68 * i for i in range(len(intents)) if i < len(lines)),
          "nanosecond timestamps")

    # Bad frames: refused, for the right reason.
    for j, (desc, _fr, err, why) in enumerate(bads):
        k = len(frames) + j
        got = lines[k] if k < len(lines) else {}
        check(got.get("ok") is False and got.get("err") == err and why.lower() in got.get("reason", "").lower(),
              "%s: want %s (%s), got %s" % (desc, err, why, got))
    last = lines[-1] if lines else {}
    check(last.get("ok") is True and last.get("payload") == "11223344",
          "valid non-zero UDP checksum accepted: %s" % last)

    test_gen_frames(a, tmp)
    tmpdir.cleanup()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


def test_gen_frames(a, tmp):
    """gen_frames.py: JSON and --frame input -> pcap the codec, scapy and tshark agree on."""
    gen = [sys.executable, os.path.join(HERE, "gen_frames.py")]
    spec = {"defaults": {"dqpn": 0x11, "smac": "02:00:00:00:00:01", "dmac": "02:00:00:00:00:02"},
            "frames": [
                {"opcode": "RC_RDMA_WRITE_ONLY", "psn": 0, "ackreq": 1, "reth_va": 0x10000,
                 "reth_rkey": 0x1234, "reth_len": 8, "payload": "0102030405060708", "cycle": 100},
                {"opcode": "RC_SEND_ONLY", "psn": 1, "ackreq": 1, "payload": "68656c6c6f"},
                {"opcode": "RC_SEND_FIRST", "psn": 2, "payload": "aa" * 256},
                {"opcode": "RC_SEND_LAST", "psn": 3, "ackreq": 1, "se": 1, "payload": "bb" * 3},
                {"opcode": "RC_RDMA_READ_REQUEST", "psn": 4, "ackreq": 1, "reth_va": 0x2000,
                 "reth_rkey": 0x99, "reth_len": 4096},
                {"opcode": "RC_ACKNOWLEDGE", "psn": 4, "aeth_syndrome": 0x1F, "aeth_msn": 2,
                 "time_ns": 123456789},
            ]}
    js = os.path.join(tmp, "gen.json")
    out, exp = os.path.join(tmp, "gen.pcap"), os.path.join(tmp, "gen-expect.json")
    json.dump(spec, open(js, "w"))
    p = subprocess.run(gen + ["-o", out, "--json", js, "--expect-out", exp, "--frame",
                              "opcode=UD_SEND_ONLY,dqpn=0x20,deth_qkey=0x11111111,deth_src_qp=0x21,payload=00ff"],
                       capture_output=True, text=True)
    check(p.returncode == 0, "gen_frames ran: %s" % p.stderr)
    if p.returncode:
        return
    expect = json.load(open(exp))
    check(len(expect) == 7, "7 frames described")
    p = subprocess.run([os.path.join(a.bin, "roce_dump"), out], capture_output=True, text=True)
    lines = [json.loads(ln) for ln in p.stdout.splitlines()][:-1]
    ok = len(lines) == 7
    for got, want in zip(lines, expect):
        for k, v in want.items():
            if k == "opcode":
                ok &= got.get("name") == v
            elif k == "ttl":
                ok &= got.get(k) == (v or 64)
            elif k in got:
                ok &= got[k] == v
            elif k.split("_")[0] in ("reth", "aeth", "atmeth", "atmack", "deth") or k == "imm":
                pass        # header the opcode does not carry
            else:
                ok = False
    check(ok, "codec decodes gen_frames output to the described fields")
    check(lines and lines[0]["ns"] == 400 and lines[5]["ns"] == 123456789 and lines[6]["ns"] == 123457789,
          "timestamps: cycle*4, time_ns, then gap")
    p = subprocess.run([sys.executable, os.path.join(HERE, "check_pcap.py"), out, "--wire-rules",
                        "--expect", exp], capture_output=True, text=True)
    check(p.returncode == 0, "gen_frames output passes check_pcap --wire-rules:\n" + p.stdout[-1500:])
    for bad in ("opcode=RC_ACKNOWLEDGE,payload=00", "opcode=RC_SEND_ONLY,bogus=1", "opcode=0x15", "psn"):
        p = subprocess.run(gen + ["-o", os.path.join(tmp, "bad.pcap"), "--frame", bad],
                           capture_output=True, text=True)
        check(p.returncode == 2 and "gen_frames:" in p.stderr, "gen_frames refuses %r" % bad)


if __name__ == "__main__":
    sys.exit(main())
