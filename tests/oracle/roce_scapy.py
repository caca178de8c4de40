# SPDX-License-Identifier: MIT
"""RoCEv2 frames built and taken apart with scapy: the independent side of
hcasim's packet oracles (docs/packet.md).

scapy.contrib.roce provides BTH (with the ICRC computation) and AETH; the
other extension headers of IB spec vol. 1 section 9.3 (DETH, RETH, AtomicETH,
AtomicAckETH, ImmDt) are defined here from the spec's figures, not from the
C model.  The opcode -> header table is also transcribed from the IB spec
(table 38 and section 9.4) independently of model/opcode.c, so a disagreement
between the two shows up as a test failure.

Frame field names follow struct roce_pkt in model/roce_hdr.h, so a frame can
be described by one flat dict (or JSON object):

  dmac smac            "02:00:00:00:00:01"
  sip dip              "10.0.0.1"
  tos ttl sport        ints (ttl 0 -> 64, as the engine does)
  opcode               int or IB name ("RC_SEND_ONLY")
  se migreq ackreq     0/1 (migreq defaults to 1)
  pkey dqpn psn        ints (pkey defaults to 0xFFFF)
  reth_va reth_rkey reth_len
  aeth_syndrome aeth_msn
  imm
  atmeth_va atmeth_rkey atmeth_swap_add atmeth_compare
  atmack_orig
  deth_qkey deth_src_qp
  payload              hex string (or bytes)
"""

import struct
import zlib

from scapy.contrib.roce import AETH, BTH
from scapy.fields import BitField, ByteField, IntField, XIntField, XLongField
from scapy.layers.inet import IP, UDP
from scapy.layers.l2 import Ether
from scapy.packet import Packet, Raw, bind_layers

ROCE_PORT = 4791
MIN_FRAME = 60


class DETH(Packet):
    name = "DETH"
    fields_desc = [XIntField("qkey", 0), ByteField("resv8", 0), BitField("srcqp", 0, 24)]


class RETH(Packet):
    name = "RETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0), IntField("dlen", 0)]


class AtomicETH(Packet):
    name = "AtomicETH"
    fields_desc = [XLongField("va", 0), XIntField("rkey", 0),
                   XLongField("swap_add", 0), XLongField("compare", 0)]


class AtomicAckETH(Packet):
    name = "AtomicAckETH"
    fields_desc = [XLongField("orig", 0)]


class ImmDt(Packet):
    name = "ImmDt"
    fields_desc = [XIntField("imm", 0)]


# IB spec table 38: transport base + operation.  Headers after the BTH, in
# wire order (section 9.2: DETH, RETH, AtomicETH, AETH, AtomicAckETH, ImmDt).
_SEND_WRITE = {
    "SEND_FIRST": (0x00, []), "SEND_MIDDLE": (0x01, []), "SEND_LAST": (0x02, []),
    "SEND_LAST_WITH_IMMEDIATE": (0x03, [ImmDt]), "SEND_ONLY": (0x04, []),
    "SEND_ONLY_WITH_IMMEDIATE": (0x05, [ImmDt]),
    "RDMA_WRITE_FIRST": (0x06, [RETH]), "RDMA_WRITE_MIDDLE": (0x07, []),
    "RDMA_WRITE_LAST": (0x08, []), "RDMA_WRITE_LAST_WITH_IMMEDIATE": (0x09, [ImmDt]),
    "RDMA_WRITE_ONLY": (0x0A, [RETH]), "RDMA_WRITE_ONLY_WITH_IMMEDIATE": (0x0B, [RETH, ImmDt]),
}
_RC_ONLY = {
    "RDMA_READ_REQUEST": (0x0C, [RETH]), "RDMA_READ_RESPONSE_FIRST": (0x0D, [AETH]),
    "RDMA_READ_RESPONSE_MIDDLE": (0x0E, []), "RDMA_READ_RESPONSE_LAST": (0x0F, [AETH]),
    "RDMA_READ_RESPONSE_ONLY": (0x10, [AETH]), "ACKNOWLEDGE": (0x11, [AETH]),
    "ATOMIC_ACKNOWLEDGE": (0x12, [AETH, AtomicAckETH]),
    "COMPARE_SWAP": (0x13, [AtomicETH]), "FETCH_ADD": (0x14, [AtomicETH]),
}

OPCODES = {}      # code -> (name, [header classes], carries payload)
for _n, (_c, _h) in _SEND_WRITE.items():
    OPCODES[0x00 + _c] = ("RC_" + _n, _h, True)
    OPCODES[0x20 + _c] = ("UC_" + _n, _h, True)
for _n, (_c, _h) in _RC_ONLY.items():
    _pay = _n.startswith("RDMA_READ_RESPONSE")
    OPCODES[0x00 + _c] = ("RC_" + _n, _h, _pay)
OPCODES[0x64] = ("UD_SEND_ONLY", [DETH], True)
OPCODES[0x65] = ("UD_SEND_ONLY_WITH_IMMEDIATE", [DETH, ImmDt], True)
OPCODE_BY_NAME = {v[0]: k for k, v in OPCODES.items()}


def opcode_value(op):
    if isinstance(op, str):
        if op in OPCODE_BY_NAME:
            return OPCODE_BY_NAME[op]
        return int(op, 0)
    return int(op)


# Dissection: the first extension header hangs off the BTH by opcode; the
# following ones are chosen by walking back to the BTH.
for _c, (_n, _h, _p) in OPCODES.items():
    if _h and not (_c == 0x11 and _h == [AETH]):   # scapy binds ACK -> AETH itself
        bind_layers(BTH, _h[0], opcode=_c)


def _next_class(layer):
    bth = layer.underlayer
    while bth is not None and not isinstance(bth, BTH):
        bth = bth.underlayer
    if bth is None or bth.opcode not in OPCODES:
        return Raw
    hdrs = OPCODES[bth.opcode][1]
    if type(layer) in hdrs:
        i = hdrs.index(type(layer))
        if i + 1 < len(hdrs):
            return hdrs[i + 1]
    return Raw


for _cls in (DETH, RETH, AtomicETH, AtomicAckETH, ImmDt):
    _cls.guess_payload_class = lambda self, payload: _next_class(self)
AETH.guess_payload_class = lambda self, payload: _next_class(self)


DEFAULTS = {
    "dmac": "02:00:00:00:00:02", "smac": "02:00:00:00:00:01",
    "sip": "10.0.0.1", "dip": "10.0.0.2", "tos": 0, "ttl": 0, "sport": 0xC000,
    "opcode": 0x04, "se": 0, "migreq": 1, "pkey": 0xFFFF, "dqpn": 0, "ackreq": 0,
    "psn": 0,
    "reth_va": 0, "reth_rkey": 0, "reth_len": 0,
    "aeth_syndrome": 0, "aeth_msn": 0, "imm": 0,
    "atmeth_va": 0, "atmeth_rkey": 0, "atmeth_swap_add": 0, "atmeth_compare": 0,
    "atmack_orig": 0, "deth_qkey": 0, "deth_src_qp": 0,
    "payload": b"",
}


def _payload_bytes(v):
    if isinstance(v, (bytes, bytearray)):
        return bytes(v)
    return bytes.fromhex(v)


def normalize(fields):
    """Defaults filled in, opcode as int, payload as bytes."""
    f = dict(DEFAULTS)
    unknown = set(fields) - set(DEFAULTS)
    if unknown:
        raise ValueError("unknown frame fields: %s" % ", ".join(sorted(unknown)))
    f.update(fields)
    f["opcode"] = opcode_value(f["opcode"])
    f["payload"] = _payload_bytes(f["payload"])
    return f


def build_packet(fields):
    """The scapy packet (Ether/IP/UDP/BTH/...) for one frame description."""
    f = normalize(fields)
    op = f["opcode"]
    if op not in OPCODES:
        raise ValueError("opcode 0x%02x is not a RoCEv2 RC/UC/UD opcode" % op)
    name, hdrs, carries = OPCODES[op]
    pay = f["payload"]
    if pay and not carries:
        raise ValueError("%s carries no payload" % name)
    pad = (4 - len(pay) % 4) % 4
    pkt = (Ether(dst=f["dmac"], src=f["smac"], type=0x0800) /
           IP(version=4, ihl=5, tos=f["tos"], id=0, flags="DF", frag=0,
              ttl=f["ttl"] or 64, proto=17, src=f["sip"], dst=f["dip"]) /
           UDP(sport=f["sport"], dport=ROCE_PORT, chksum=0) /
           BTH(opcode=op, solicited=f["se"], migreq=f["migreq"], padcount=pad,
               version=0, pkey=f["pkey"], fecn=0, becn=0, resv6=0,
               dqpn=f["dqpn"], ackreq=f["ackreq"], resv7=0, psn=f["psn"]))
    for h in hdrs:
        if h is DETH:
            pkt = pkt / DETH(qkey=f["deth_qkey"], srcqp=f["deth_src_qp"])
        elif h is RETH:
            pkt = pkt / RETH(va=f["reth_va"], rkey=f["reth_rkey"], dlen=f["reth_len"])
        elif h is AtomicETH:
            pkt = pkt / AtomicETH(va=f["atmeth_va"], rkey=f["atmeth_rkey"],
                                  swap_add=f["atmeth_swap_add"], compare=f["atmeth_compare"])
        elif h is AETH:
            pkt = pkt / AETH(syndrome=f["aeth_syndrome"], msn=f["aeth_msn"])
        elif h is AtomicAckETH:
            pkt = pkt / AtomicAckETH(orig=f["atmack_orig"])
        elif h is ImmDt:
            pkt = pkt / ImmDt(imm=f["imm"])
    if pay or pad:
        pkt = pkt / Raw(pay + b"\0" * pad)
    return pkt


def build_frame(fields):
    """Frame bytes as they go on the wire (zero-padded to 60 bytes)."""
    b = bytes(build_packet(fields))
    if len(b) < MIN_FRAME:
        b += b"\0" * (MIN_FRAME - len(b))
    return b


def icrc_scapy(frame):
    """ICRC as scapy.contrib.roce computes it, as the 4 wire bytes.

    The frame is cut to the IPv4 total length first (Ethernet padding is not
    part of the RoCE packet), then dissected; BTH.compute_icrc() rebuilds the
    masked pseudo-packet itself."""
    iplen = struct.unpack("!H", frame[16:18])[0]
    pkt = Ether(frame[:14 + iplen])
    return pkt[BTH].compute_icrc(None)


def icrc_zlib(frame):
    """ICRC computed directly from docs/wire.md with zlib's CRC-32: a second,
    scapy-independent computation (the two must agree)."""
    iplen = struct.unpack("!H", frame[16:18])[0]
    end = 14 + iplen - 4
    ip = bytearray(frame[14:34])
    ip[1] = 0xFF
    ip[8] = 0xFF
    ip[10:12] = b"\xff\xff"
    udp = bytearray(frame[34:42])
    udp[6:8] = b"\xff\xff"
    bth = bytearray(frame[42:54])
    bth[4] = 0xFF
    crc = zlib.crc32(b"\xff" * 8 + bytes(ip) + bytes(udp) + bytes(bth) + frame[54:end])
    return struct.pack("<I", crc & 0xFFFFFFFF)


def ipv4_csum_ok(frame):
    s = 0
    for i in range(14, 34, 2):
        s += (frame[i] << 8) | frame[i + 1]
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF
