#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Test vectors for the RTL unit testbenches, built with scapy (an oracle
independent of the RTL and of the C model).

Output lines:
  G <fields...> <frame-hex>   a well-formed RoCEv2 frame and the header fields
                              that produced it (header generator + parser +
                              ICRC vectors)
  P <reason> <frame-hex>      a frame with one defect and the drop reason the
                              parser must report first (docs/packet.md order)

Field order of G lines (hex):
  opcode se ackreq psn dqpn pay_len dmac smac tclass hop_limit sip dip sport
  reth_va reth_rkey reth_len imm aeth_syn aeth_msn deth_qkey deth_sqp
  atm_swap_add atm_compare atmack_orig hdrs
where hdrs names the headers the opcode carries (D=DETH R=RETH T=AtomicETH
A=AETH K=AtomicAckETH I=ImmDt P=payload).
"""
import random
import struct
import sys

from scapy.all import Ether, IP, UDP, Raw, raw  # noqa: E402
from scapy.contrib.roce import BTH  # noqa: E402

# Extension headers per opcode: (DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt, payload)
def ops():
    t = {}
    for base in (0x00, 0x20):
        for i, h in enumerate([
            "P", "P", "P", "IP", "P", "IP",          # SEND first/middle/last/last_imm/only/only_imm
            "RP", "P", "P", "IP", "RP", "RIP"]):      # WRITE first/middle/last/last_imm/only/only_imm
            t[base + i] = h
    t.update({0x0C: "R", 0x0D: "AP", 0x0E: "P", 0x0F: "AP", 0x10: "AP", 0x11: "A",
              0x12: "AK", 0x13: "T", 0x14: "T", 0x64: "DP", 0x65: "DIP"})
    return t

OPS = ops()
# Reasons (rtl/hca_defs.vh `RXD_*, model/roce_hdr.h enum roce_drop_reason)
R = dict(NONE=0, SHORT=1, ETHERTYPE=2, IP_VERSION=3, IP_OPTIONS=4, IP_CSUM=5, IP_LEN=6,
         IP_FRAG=7, IP_PROTO=8, UDP_PORT=9, UDP_LEN=10, UDP_CSUM=11, ICRC=12, OPCODE=13,
         TVER=14, HDR_LEN=15, PAD=16)


def rnd_fields(rng, opcode):
    h = OPS[opcode]
    f = dict(opcode=opcode, se=rng.getrandbits(1), ackreq=rng.getrandbits(1),
             psn=rng.getrandbits(24), dqpn=rng.getrandbits(24),
             pay_len=(rng.choice([0, 1, 2, 3, 4, 5, 7, 8, 63, 64, 65, 255, 256, 300, 1024])
                      if "P" in h else 0),
             dmac=rng.getrandbits(48), smac=rng.getrandbits(48), tclass=rng.getrandbits(8),
             hop_limit=rng.choice([0, 1, 64, 255, rng.getrandbits(8)]),
             sip=rng.getrandbits(32), dip=rng.getrandbits(32),
             sport=0xC000 | rng.getrandbits(14),
             reth_va=rng.getrandbits(64), reth_rkey=rng.getrandbits(32), reth_len=rng.getrandbits(32),
             imm=rng.getrandbits(32), aeth_syn=rng.getrandbits(8), aeth_msn=rng.getrandbits(24),
             deth_qkey=rng.getrandbits(32), deth_sqp=rng.getrandbits(24),
             atm_swap_add=rng.getrandbits(64), atm_compare=rng.getrandbits(64),
             atmack_orig=rng.getrandbits(64))
    return f


def mac(v):
    return ":".join("%02x" % b for b in v.to_bytes(6, "big"))


def ipstr(v):
    return ".".join(str(b) for b in v.to_bytes(4, "big"))


def build(f, rng, payload=None):
    """The frame docs/wire.md prescribes for these fields, built by scapy."""
    h = OPS[f["opcode"]]
    ext = b""
    if "D" in h:
        ext += struct.pack(">IB", f["deth_qkey"], 0) + f["deth_sqp"].to_bytes(3, "big")
    if "R" in h:
        ext += struct.pack(">QII", f["reth_va"], f["reth_rkey"], f["reth_len"])
    if "T" in h:
        ext += struct.pack(">QIQQ", f["reth_va"], f["reth_rkey"], f["atm_swap_add"], f["atm_compare"])
    if "A" in h:
        ext += bytes([f["aeth_syn"]]) + f["aeth_msn"].to_bytes(3, "big")
    if "K" in h:
        ext += struct.pack(">Q", f["atmack_orig"])
    if "I" in h:
        ext += f["imm"].to_bytes(4, "big")
    n = f["pay_len"]
    if payload is None:
        payload = bytes(rng.getrandbits(8) for _ in range(n))
    pad = (4 - n % 4) % 4
    ttl = f["hop_limit"] or 64
    pkt = (Ether(dst=mac(f["dmac"]), src=mac(f["smac"]), type=0x0800) /
           IP(version=4, ihl=5, tos=f["tclass"], id=0, flags="DF", frag=0, ttl=ttl, proto=17,
              src=ipstr(f["sip"]), dst=ipstr(f["dip"])) /
           UDP(sport=f["sport"], dport=4791, chksum=0) /
           BTH(opcode=f["opcode"], solicited=f["se"], migreq=1, padcount=pad, version=0,
               pkey=0xFFFF, dqpn=f["dqpn"], ackreq=f["ackreq"], psn=f["psn"]) /
           Raw(ext + payload + bytes(pad)))
    b = raw(pkt)
    if len(b) < 60:
        b += bytes(60 - len(b))
    return b


FIELDS = ["opcode", "se", "ackreq", "psn", "dqpn", "pay_len", "dmac", "smac", "tclass",
          "hop_limit", "sip", "dip", "sport", "reth_va", "reth_rkey", "reth_len", "imm",
          "aeth_syn", "aeth_msn", "deth_qkey", "deth_sqp", "atm_swap_add", "atm_compare",
          "atmack_orig"]

# Byte-array fields travel in wire order: the RTL takes byte 0 in bits [7:0].
WIRE_ORDER = {"dmac": 6, "smac": 6, "sip": 4, "dip": 4, "imm": 4}


def g_line(f, frame):
    vals = []
    for k in FIELDS:
        v = f[k]
        if k in WIRE_ORDER:
            v = int.from_bytes(v.to_bytes(WIRE_ORDER[k], "big"), "little")
        vals.append("%x" % v)
    return "G " + " ".join(vals) + " " + (OPS[f["opcode"]] or "-") + " " + frame.hex()


def fix_ip_csum(b):
    b = bytearray(b)
    b[24:26] = b"\0\0"
    s = sum(struct.unpack(">10H", bytes(b[14:34])))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    b[24:26] = struct.pack(">H", ~s & 0xFFFF)
    return bytes(b)


def udp_csum(b):
    iplen = struct.unpack(">H", b[16:18])[0]
    d = bytearray(b[34:14 + iplen])
    d[6:8] = b"\0\0"
    if len(d) % 2:
        d += b"\0"
    s = sum(struct.unpack(">4H", b[26:34])) + 17 + (iplen - 20)
    s += sum(struct.unpack(">%dH" % (len(d) // 2), bytes(d)))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s & 0xFFFF) or 0xFFFF


def defects(rng, f, good):
    """(reason, frame) pairs, each with exactly one defect that the parser
    must report first."""
    out = []
    b = bytearray(good)
    iplen = struct.unpack(">H", good[16:18])[0]
    out.append((R["SHORT"], bytes(b[:rng.randrange(0, 14)])))
    x = bytearray(b); x[12:14] = b"\x86\xdd"; out.append((R["ETHERTYPE"], bytes(x)))
    out.append((R["SHORT"], bytes(b[:rng.randrange(14, 34)])))
    x = bytearray(b); x[14] = 0x65; out.append((R["IP_VERSION"], fix_ip_csum(x)))
    x = bytearray(b); x[14] = 0x46; out.append((R["IP_OPTIONS"], fix_ip_csum(x)))
    x = bytearray(b); x[24] ^= 1 << rng.randrange(8); out.append((R["IP_CSUM"], bytes(x)))
    x = bytearray(b); x[16:18] = struct.pack(">H", len(b) - 14 + 1); out.append((R["IP_LEN"], fix_ip_csum(x)))
    x = bytearray(b); x[16:18] = struct.pack(">H", 27); out.append((R["IP_LEN"], fix_ip_csum(x)))
    x = bytearray(b); x[20] |= 0x20; out.append((R["IP_FRAG"], fix_ip_csum(x)))
    x = bytearray(b); x[21] = 1; out.append((R["IP_FRAG"], fix_ip_csum(x)))
    x = bytearray(b); x[23] = 6; out.append((R["IP_PROTO"], fix_ip_csum(x)))
    x = bytearray(b); x[36:38] = b"\x12\xb8"; out.append((R["UDP_PORT"], bytes(x)))
    x = bytearray(b); x[38:40] = struct.pack(">H", iplen - 20 + 4); out.append((R["UDP_LEN"], bytes(x)))
    # A correct non-zero UDP checksum is accepted; a wrong one is dropped.
    x = bytearray(b); c = udp_csum(bytes(x)); x[40:42] = struct.pack(">H", c)
    out.append((R["NONE"], bytes(x)))
    x[40:42] = struct.pack(">H", c ^ 0x0100 if c ^ 0x0100 else 1); out.append((R["UDP_CSUM"], bytes(x)))
    # Transport shorter than BTH + ICRC (lengths consistent, checksums right).
    x = bytearray(b[:14 + 28 + 15]); x[16:18] = struct.pack(">H", 28 + 15); x[38:40] = struct.pack(">H", 8 + 15)
    x = fix_ip_csum(x); out.append((R["HDR_LEN"], bytes(x) + bytes(max(0, 60 - len(x)))))
    # ICRC: any flipped bit inside the region, or in the ICRC itself.
    p = rng.choice([rng.randrange(42, 14 + iplen), 15, 22, 46])
    x = bytearray(b)
    if p in (15, 22):   # masked bytes: a change there is not an ICRC error
        x[p] ^= 0xFF; x = bytearray(fix_ip_csum(x)); out.append((R["NONE"], bytes(x)))
    elif p == 46:
        x[p] ^= 0x80; out.append((R["NONE"], bytes(x)))
    else:
        x[p] ^= 1 << rng.randrange(8); out.append((R["ICRC"], bytes(x)))
    # BTH defects need a correct ICRC: rebuild with scapy.
    def rebuilt(**kw):
        g = dict(f); g.update(kw)
        return g
    op_bad = rng.choice([0x15, 0x1F, 0x2C, 0x63, 0x66, 0x81, 0xFF])
    out.append((R["OPCODE"], raw_with(f, rng, opcode=op_bad)))
    out.append((R["TVER"], raw_with(f, rng, version=rng.randrange(1, 16))))
    if OPS[f["opcode"]] != "P" and OPS[f["opcode"]] != "":
        # cut the transport short of the extension headers
        out.append((R["HDR_LEN"], raw_with(f, rng, truncate=True)))
    out.append((R["PAD"], raw_with(f, rng, padfix=3 if f["pay_len"] % 4 == 0 and f["pay_len"] == 0 else None, odd=True)))
    return out


def raw_with(f, rng, opcode=None, version=None, truncate=False, padfix=None, odd=False):
    """A frame with a correct ICRC but a bad BTH/length (scapy computes ICRC)."""
    h = OPS[f["opcode"]]
    extlen = (8 if "D" in h else 0) + (16 if "R" in h else 0) + (28 if "T" in h else 0) + \
             (4 if "A" in h else 0) + (8 if "K" in h else 0) + (4 if "I" in h else 0)
    n = f["pay_len"]
    pad = (4 - n % 4) % 4
    body = bytes(rng.getrandbits(8) for _ in range(extlen + n + pad))
    padcount = pad
    if truncate:
        body = body[:extlen - 1 - ((extlen - 1) % 4)] if extlen > 4 else b""
        padcount = 0
    if odd:
        # payload+pad not a multiple of 4, or pad larger than payload+pad,
        # or payload on an opcode without payload
        if "P" in h:
            body = body + b"\x00"          # one stray byte
        else:
            body = body + b"\x00" * 4      # payload where none is allowed
    pkt = (Ether(dst=mac(f["dmac"]), src=mac(f["smac"])) /
           IP(tos=f["tclass"], id=0, flags="DF", ttl=64, proto=17, src=ipstr(f["sip"]), dst=ipstr(f["dip"])) /
           UDP(sport=f["sport"], dport=4791, chksum=0) /
           BTH(opcode=opcode if opcode is not None else f["opcode"], solicited=0, migreq=1,
               padcount=padcount, version=version or 0, dqpn=f["dqpn"], psn=f["psn"]) /
           Raw(body))
    b = raw(pkt)
    return b + bytes(max(0, 60 - len(b)))


def main():
    seed = int(sys.argv[1]) if len(sys.argv) > 1 else 1
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    rng = random.Random(seed)
    for opcode in sorted(OPS):
        for _ in range(n):
            f = rnd_fields(rng, opcode)
            frame = build(f, rng)
            print(g_line(f, frame))
            for reason, bad in defects(rng, f, frame):
                print("P %x %s" % (reason, bad.hex()))


if __name__ == "__main__":
    main()
