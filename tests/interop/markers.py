#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Cut one `hcasim switch` capture into one capture per test.

    markers.py mark SWITCH_SOCK NAME    put a marker frame for test NAME on the switch
    markers.py split PCAP OUTDIR         OUTDIR/NAME.pcap: the frames after marker NAME,
                                        up to the next marker (markers left out)

A marker is an Ethernet broadcast with the local experimental EtherType
0x88B5 and the payload "hcasim-interop-mark:NAME", sent from its own
short-lived switch port (swproto.h: a FRAME message, no HELLO).  The
switch captures every frame as it enters, so the markers fall between the
tests' frames in capture order; receivers ignore the EtherType.
"""

import os
import socket
import struct
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import pcapfile  # noqa: E402

ETHERTYPE = 0x88B5
TAG = b"hcasim-interop-mark:"
HCASW_FRAME = 2


def marker_frame(name):
    payload = TAG + name.encode()
    f = b"\xff" * 6 + b"\x02\x00\x00\x00\x00\xfe" + struct.pack("!H", ETHERTYPE) + payload
    return f + b"\0" * max(0, 60 - len(f))


def marker_name(frame):
    if len(frame) < 14 or struct.unpack("!H", frame[12:14])[0] != ETHERTYPE:
        return None
    body = frame[14:]
    if not body.startswith(TAG):
        return None
    return body[len(TAG):].rstrip(b"\0").decode(errors="replace")


def mark(sock_path, name):
    f = marker_frame(name)
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    s.connect(sock_path)
    s.send(struct.pack("=HHI", HCASW_FRAME, 0, len(f)) + f)
    s.close()


def split(pcap, outdir):
    os.makedirs(outdir, exist_ok=True)
    parts, cur = {}, None
    for ns, data in pcapfile.read(pcap):
        name = marker_name(data)
        if name is not None:
            cur = name
            parts.setdefault(cur, [])
        elif cur is not None:
            parts[cur].append((ns, data))
    for name, frames in parts.items():
        pcapfile.write(os.path.join(outdir, name + ".pcap"), frames)
        print("%s: %d frames" % (name, len(frames)))


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "mark":
        mark(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "split":
        split(sys.argv[2], sys.argv[3])
    else:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
