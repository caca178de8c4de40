#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The QEMU port of `hcasim switch` (driver-shim/sw_qemu.c), without QEMU.

    test_sw_qemu.py --hcasim build/bin/hcasim

Plays both ends against a real switch: a "guest" speaking QEMU's stream
netdev framing (4-byte big-endian length + frame) on the --qemu socket, and
an "HCA" speaking swproto.h (HELLO, FRAME, RESOLVE/ANSWER) on the switch
socket.  Frames are built and parsed with scapy (the oracle).  Checked:

  * frames cross both ways unchanged (guest -> HCA unicast and broadcast,
    HCA -> guest), including one QEMU record split across several writes
    and several records in one write;
  * the switch learns the guest's address from its gratuitous ARP: RESOLVE
    of that IPv4 address answers the guest's MAC;
  * proxy ARP: an ARP request from the guest for the HCA's address gets a
    well-formed ARP reply (scapy) with the HCA's MAC; one for an unknown
    address gets none;
  * the capture holds what the guest and HCA sent, once each;
  * a record longer than any frame closes the guest's connection and the
    switch goes on (a new guest connects and is served);
  * the switch's closing counters name the QEMU port.
Ends with "N passed, M failed".
"""

import argparse
import os
import select
import socket
import struct
import subprocess
import sys
import tempfile
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "oracle"))
import pcapfile  # noqa: E402
from scapy.layers.l2 import ARP, Ether  # noqa: E402
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.packet import Raw  # noqa: E402

HELLO, FRAME, RESOLVE, ANSWER = 1, 2, 3, 4
GUEST_MAC, GUEST_IP = "52:54:00:12:34:56", "10.0.0.2"
HCA_MAC, HCA_IP = "02:00:0a:00:00:01", "10.0.0.1"

passed = failed = 0


def check(ok, msg):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print("FAIL: " + msg)


def mac_bytes(m):
    return bytes(int(x, 16) for x in m.split(":"))


# Waits for something that must come (a frame, an answer): long, as the switch
# may be slow to run on a loaded machine (make test runs programs side by
# side); a wait for nothing to come uses its own short time.
WAIT = 10.0


class Hca:
    """An HCA's connection to the switch (swproto.h)."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.s.connect(path)
        hello = mac_bytes(HCA_MAC) + b"\0\0" + socket.inet_aton(HCA_IP) + b"hca0".ljust(32, b"\0")
        self.send(HELLO, hello)

    def send(self, typ, payload):
        self.s.send(struct.pack("=HHI", typ, 0, len(payload)) + payload)

    def recv(self, timeout=WAIT):
        """(type, payload) or None."""
        r, _, _ = select.select([self.s], [], [], timeout)
        if not r:
            return None
        m = self.s.recv(65536)
        typ, _rsvd, ln = struct.unpack("=HHI", m[:8])
        return typ, m[8:8 + ln]

    def frame(self, timeout=WAIT):
        end = time.time() + timeout
        while time.time() < end:
            m = self.recv(end - time.time())
            if m is None:
                return None
            if m[0] == FRAME:
                return m[1]
        return None

    def resolve(self, ip):
        self.send(RESOLVE, socket.inet_aton(ip) + b"\0" * 8)
        end = time.time() + WAIT
        while time.time() < end:
            m = self.recv(end - time.time())
            if m and m[0] == ANSWER:
                found, mac = m[1][4], m[1][6:12]
                return mac if found else None
        return "timeout"


class Guest:
    """QEMU's side of -netdev stream: length-prefixed frames on a stream socket."""

    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.buf = b""

    def send(self, frame, pieces=1):
        rec = struct.pack("!I", len(frame)) + frame
        step = max(1, len(rec) // pieces)
        for i in range(0, len(rec), step):
            self.s.sendall(rec[i:i + step])
            if pieces > 1:
                time.sleep(0.02)

    def frame(self, timeout=WAIT):
        end = time.time() + timeout
        while True:
            if len(self.buf) >= 4:
                n = struct.unpack("!I", self.buf[:4])[0]
                if len(self.buf) >= 4 + n:
                    f, self.buf = self.buf[4:4 + n], self.buf[4 + n:]
                    return f
            left = end - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.s], [], [], left)
            if not r:
                return None
            d = self.s.recv(65536)
            if not d:
                return None
            self.buf += d

    def closed(self, timeout=WAIT):
        r, _, _ = select.select([self.s], [], [], timeout)
        return bool(r) and self.s.recv(1) == b""


def roce_like(src, dst, sip, dip, payload):
    return bytes(Ether(src=src, dst=dst) / IP(src=sip, dst=dip) / UDP(sport=49152, dport=4791) /
                 Raw(payload))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--hcasim", default="build/bin/hcasim")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="hcasim-swqemu.")
    sw_sock, q_sock, pcap = (os.path.join(tmp, n) for n in ("sw.sock", "qemu.sock", "sw.pcap"))
    log = open(os.path.join(tmp, "switch.log"), "w+")
    sw = subprocess.Popen([a.hcasim, "switch", "--pcap", pcap, "--qemu", q_sock, sw_sock],
                          stderr=log)
    try:
        for _ in range(100):
            if os.path.exists(sw_sock) and os.path.exists(q_sock):
                break
            time.sleep(0.05)
        check(os.path.exists(q_sock), "switch listens on its --qemu socket")
        guest = Guest(q_sock)
        hca = Hca(sw_sock)
        time.sleep(0.2)

        # Learning: a gratuitous ARP tells the switch the guest's address.
        garp = bytes(Ether(src=GUEST_MAC, dst="ff:ff:ff:ff:ff:ff") /
                     ARP(op=1, hwsrc=GUEST_MAC, psrc=GUEST_IP, hwdst="00:00:00:00:00:00", pdst=GUEST_IP))
        guest.send(garp)
        f = hca.frame()
        check(f is not None and f.rstrip(b"\0") == garp.rstrip(b"\0"),
              "the guest's broadcast reaches the HCA unchanged")
        mac = hca.resolve(GUEST_IP)
        check(mac == mac_bytes(GUEST_MAC), "RESOLVE %s answers the guest's MAC (got %r)" % (GUEST_IP, mac))
        check(hca.resolve("10.0.0.77") is None, "RESOLVE of an unknown address answers not found")

        # Frames both ways; a record split into pieces; two records in one write.
        g2h = roce_like(GUEST_MAC, HCA_MAC, GUEST_IP, HCA_IP, b"guest to hca" * 100)
        guest.send(g2h, pieces=5)
        check(hca.frame() == g2h, "a frame written in 5 pieces reaches the HCA whole and unchanged")
        r1 = roce_like(GUEST_MAC, HCA_MAC, GUEST_IP, HCA_IP, b"first")
        r2 = roce_like(GUEST_MAC, HCA_MAC, GUEST_IP, HCA_IP, b"second" * 10)
        guest.s.sendall(struct.pack("!I", len(r1)) + r1 + struct.pack("!I", len(r2)) + r2)
        check(hca.frame() == r1 and hca.frame() == r2, "two records in one write arrive as two frames, in order")
        h2g = roce_like(HCA_MAC, GUEST_MAC, HCA_IP, GUEST_IP, b"hca to guest" * 300)
        hca.send(FRAME, h2g)
        check(guest.frame() == h2g, "a frame of the HCA reaches the guest unchanged, length-prefixed")

        # Proxy ARP.
        req = bytes(Ether(src=GUEST_MAC, dst="ff:ff:ff:ff:ff:ff") /
                    ARP(op=1, hwsrc=GUEST_MAC, psrc=GUEST_IP, hwdst="00:00:00:00:00:00", pdst=HCA_IP))
        guest.send(req)
        rep = guest.frame()
        ok = rep is not None
        if ok:
            p = Ether(rep)
            ok = (ARP in p and p[ARP].op == 2 and p[ARP].hwsrc == HCA_MAC and p[ARP].psrc == HCA_IP and
                  p[ARP].hwdst == GUEST_MAC and p[ARP].pdst == GUEST_IP and p.dst == GUEST_MAC and
                  p.src == HCA_MAC and len(rep) >= 60)
        check(ok, "an ARP request for the HCA's address is answered with its MAC (scapy: %s)" %
              (Ether(rep).summary() if rep else None))
        check(hca.frame() is not None, "the ARP request is also forwarded")
        req2 = bytes(Ether(src=GUEST_MAC, dst="ff:ff:ff:ff:ff:ff") /
                     ARP(op=1, hwsrc=GUEST_MAC, psrc=GUEST_IP, hwdst="00:00:00:00:00:00", pdst="10.0.0.99"))
        guest.send(req2)
        check(guest.frame(timeout=0.7) is None, "no reply for an address nobody has")

        # A bad record closes the guest; the switch serves the next one.
        guest.s.sendall(struct.pack("!I", 0x7FFFFFF0) + b"x" * 16)
        check(guest.closed(), "a record longer than any frame closes the guest's connection")
        guest2 = Guest(q_sock)
        time.sleep(0.2)
        hca.send(FRAME, bytes(Ether(src=HCA_MAC, dst="ff:ff:ff:ff:ff:ff") / Raw(b"flood" * 20)))
        f = guest2.frame()
        check(f is not None and f[6:12] == mac_bytes(HCA_MAC), "a new guest connects and gets frames")
        guest2.s.close()
        hca.s.close()
        time.sleep(0.3)
    finally:
        sw.terminate()
        sw.wait(timeout=10)
    log.seek(0)
    text = log.read()
    check("qemu0:" in text and "frames from the guest" in text, "the switch reports the QEMU port's counters")
    frames = [f for _ns, f in pcapfile.read(pcap)]
    sent = [garp, g2h, r1, r2, h2g, req, req2]
    for s in sent:
        check(sum(1 for f in frames if f.rstrip(b"\0") == s.rstrip(b"\0")) == 1,
              "the capture holds %s once" % Ether(s).summary())
    check(sum(1 for f in frames if ARP in Ether(f) and Ether(f)[ARP].op == 2) == 0,
          "proxy ARP replies are not on the switch's wire")
    if failed:
        print(text)
        print("kept " + tmp)
    else:
        for n in os.listdir(tmp):
            os.unlink(os.path.join(tmp, n))
        os.rmdir(tmp)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
