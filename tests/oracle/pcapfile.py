# SPDX-License-Identifier: MIT
"""Minimal classic-pcap reading/writing for the oracle tests (written from
pcap-savefile(5), independent of sim/pcap.c and of scapy)."""

import struct


def read(path):
    """[(ns, bytes)] of a classic pcap (either byte order, us or ns)."""
    with open(path, "rb") as fh:
        b = fh.read()
    magic = b[:4]
    if magic in (b"\x4d\x3c\xb2\xa1", b"\xd4\xc3\xb2\xa1"):
        e = "<"
    elif magic in (b"\xa1\xb2\x3c\x4d", b"\xa1\xb2\xc3\xd4"):
        e = ">"
    else:
        raise ValueError("%s: not a classic pcap" % path)
    nano = magic in (b"\x4d\x3c\xb2\xa1", b"\xa1\xb2\x3c\x4d")
    out, off = [], 24
    while off + 16 <= len(b):
        sec, frac, incl, _orig = struct.unpack(e + "IIII", b[off:off + 16])
        off += 16
        out.append((sec * 10**9 + (frac if nano else frac * 1000), b[off:off + incl]))
        off += incl
    return out


def write(path, frames):
    """frames: [(ns, bytes)] -> nanosecond little-endian pcap, LINKTYPE_ETHERNET."""
    with open(path, "wb") as fh:
        fh.write(struct.pack("<IHHiIII", 0xA1B23C4D, 2, 4, 0, 0, 65535, 1))
        for ns, data in frames:
            fh.write(struct.pack("<IIII", ns // 10**9, ns % 10**9, len(data), len(data)))
            fh.write(data)
