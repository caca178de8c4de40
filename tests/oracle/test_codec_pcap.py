#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""make test: oracle_codec_pcap.

1. Frames of every opcode and several payload lengths, built by the C codec
   (build/oracle/codec_pcap), pass check_pcap.py --wire-rules --expect: scapy's
   ICRC, the spec parse, tshark without warnings, hcasim's wire rules, and the
   header values they were built from.
2. check_pcap.py can fail: planted faults (payload bit flip, IPv4 checksum,
   UDP checksum, BTH reserved byte, non-zero pad with a recomputed ICRC, a
   wrong expectation) are reported for exactly the planted frames.
3. The C pcap reader reads what Wireshark's editcap writes (pcapng, and
   microsecond pcap): roce_dump decodes the same frames from all three.

Ends with "N passed, M failed".
"""

import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True      # no __pycache__ in the source tree
sys.path.insert(0, HERE)
import pcapfile  # noqa: E402

passed = failed = 0


def check(cond, what):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s" % what)


def run(cmd):
    p = subprocess.run(cmd, capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def result_line(out):
    m = re.findall(r"^(\d+) passed, (\d+) failed$", out, re.M)
    return (int(m[-1][0]), int(m[-1][1])) if m else (None, None)


def check_pcap(*args):
    return run([sys.executable, os.path.join(HERE, "check_pcap.py")] + list(args))


def fix_icrc(fr):
    iplen = struct.unpack("!H", fr[16:18])[0]
    end = 14 + iplen - 4
    ip = bytearray(fr[14:34])
    ip[1] = ip[8] = 0xFF
    ip[10:12] = b"\xff\xff"
    udp = bytearray(fr[34:42])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(fr[42:54])
    bth[4] = 0xFF
    c = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + bytes(fr[54:end]))
    fr[end:end + 4] = struct.pack("<I", c)


def fix_ipcsum(fr):
    fr[24:26] = b"\0\0"
    s = sum(struct.unpack("!10H", bytes(fr[14:34])))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    fr[24:26] = struct.pack("!H", ~s & 0xFFFF)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", default="build/oracle")
    a = ap.parse_args()
    tmpdir = tempfile.TemporaryDirectory(prefix="hcasim-oracle-")
    tmp = tmpdir.name
    pc, js = os.path.join(tmp, "codec.pcap"), os.path.join(tmp, "codec.json")

    # 1. every opcode, two seeds
    for seed in ("1", "2"):
        rc, out = run([os.path.join(a.bin, "codec_pcap"), pc, js, seed])
        check(rc == 0, "codec_pcap seed %s: %s" % (seed, out))
        if rc:
            continue
        n = len(json.load(open(js)))
        rc, out = check_pcap(pc, "--wire-rules", "--expect", js)
        p, f = result_line(out)
        print("check_pcap seed %s: %s passed, %s failed (of %d frames)" % (seed, p, f, n))
        check(rc == 0 and p == n and f == 0, "C-codec frames pass every oracle:\n" + out[-3000:])
        names = {e["opcode"] for e in json.load(open(js))}
        check(len(names) == 35, "all 35 RC/UC/UD opcodes covered (%d)" % len(names))

    # 2. planted faults
    frames = pcapfile.read(pc)
    exp = json.load(open(js))
    plant = {}

    plen = [len(bytes.fromhex(e["payload"])) for e in exp]
    big = iter([k for k in range(len(exp)) if plen[k] >= 8])

    i = next(big)
    fr = bytearray(frames[i][1]); fr[60] ^= 0x10; frames[i] = (frames[i][0], bytes(fr))
    plant[i] = "ICRC"
    i = next(big)
    fr = bytearray(frames[i][1]); fr[24] ^= 1; frames[i] = (frames[i][0], bytes(fr))
    plant[i] = "checksum"
    i = next(big)
    fr = bytearray(frames[i][1]); fr[40:42] = b"\x12\x34"; frames[i] = (frames[i][0], bytes(fr))
    plant[i] = "UDP checksum"             # masked in the ICRC: only the wire rules see it
    i = next(big)
    fr = bytearray(frames[i][1]); fr[46] = 0x80; frames[i] = (frames[i][0], bytes(fr))
    plant[i] = "reserved"                 # FECN: masked in the ICRC too
    i = next(k for k in range(len(exp)) if plen[k] % 4 == 1 and k not in plant)
    fr = bytearray(frames[i][1])
    iplen = struct.unpack("!H", fr[16:18])[0]
    fr[14 + iplen - 5] = 0xAA             # last pad byte, ICRC recomputed
    fix_icrc(fr)
    frames[i] = (frames[i][0], bytes(fr))
    plant[i] = "pad"
    i = next(k for k in big if k not in plant)
    exp[i]["psn"] = (exp[i]["psn"] + 1) & 0xFFFFFF
    plant[i] = "psn="
    i = next(k for k in big if k not in plant)
    fr = bytearray(frames[i][1]); fr[22] = 1; fix_ipcsum(fr); fix_icrc(fr)   # TTL 1, valid
    frames[i] = (frames[i][0], bytes(fr))
    plant[i] = "ttl="                     # only the expectation catches it
    bad_pc, bad_js = os.path.join(tmp, "bad.pcap"), os.path.join(tmp, "bad.json")
    pcapfile.write(bad_pc, frames)
    json.dump(exp, open(bad_js, "w"))
    rc, out = check_pcap(bad_pc, "--wire-rules", "--expect", bad_js)
    got = {int(m.group(1)) - 1: m.group(0) for m in re.finditer(r"^FAIL frame (\d+).*$", out, re.M)}
    check(rc == 1, "check_pcap exits 1 on planted faults")
    for i, word in sorted(plant.items()):
        check(i in got and word in got[i], "planted fault '%s' in frame %d reported: %s" %
              (word, i + 1, got.get(i, "(not reported)")))
    check(set(got) == set(plant), "only planted frames fail (extra: %s)" %
          sorted(k + 1 for k in set(got) - set(plant)))
    p, f = result_line(out)
    check(f == len(plant) and p == len(frames) - len(plant), "check_pcap totals %s/%s" % (p, f))
    rc, out = check_pcap(os.path.join(tmp, "missing.pcap"))
    check(rc == 1 and result_line(out) == (0, 1), "unreadable file is a failure")

    # 3. C reader vs editcap's pcapng and microsecond pcap
    rc, ref = run([os.path.join(a.bin, "roce_dump"), pc])
    check(rc == 0, "roce_dump on the codec pcap")
    ref_lines = [json.loads(ln) for ln in ref.splitlines()]
    for fmt, div in (("pcapng", 1), ("pcap", 1000)):
        conv = os.path.join(tmp, "conv." + fmt)
        rc, out = run(["editcap", "-F", fmt, pc, conv])
        check(rc == 0, "editcap -F %s: %s" % (fmt, out))
        if rc:
            continue
        rc, out = run([os.path.join(a.bin, "roce_dump"), conv])
        check(rc == 0, "roce_dump reads editcap's %s" % fmt)
        lines = [json.loads(ln) for ln in out.splitlines()]
        same = len(lines) == len(ref_lines)
        for x, y in zip(lines, ref_lines):
            if "frame" in x:
                xn, yn = x.pop("ns"), y.get("ns")
                same &= xn == yn // div * div
                x["ns"] = yn
            same &= x == y
        check(same, "%s: same frames, fields and timestamps (to the format's resolution)" % fmt)
        if fmt == "pcapng":
            rc, out = check_pcap(conv, "--wire-rules")
            check(rc == 0, "check_pcap reads pcapng:\n" + out[-500:])

    tmpdir.cleanup()
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
