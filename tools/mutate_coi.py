#!/usr/bin/python3
"""Bit-precise structural cone of influence over a flattened Yosys JSON netlist: the first, SAT-free
stage of tools/mutate_equiv.py --context (docs/sim.md 11.3.1).

    Netlist(module_json).cone(seeds) -> (observed output port bits reached, nets in the cone)

A net bit is in the cone when a structural path leads to it from a seed.  Each cell maps an input
bit to the output bits it can change:
  - flops: D[i] -> Q[i] (SET[i]/CLR[i]/AD[i] likewise); clock, enables and resets -> every Q bit;
  - $mux: A[i], B[i] -> Y[i], S -> every Y bit; $pmux: A[i], B[j*W+i] -> Y[i], S -> every Y bit;
  - $not/$pos/$and/$or/$xor/$xnor: bit i -> Y[i] (the sign-extension bit -> the extended Y bits);
    an $and input bit whose other operand bit is the constant 0 (an $or's: 1) reaches nothing;
  - $shl/$shr/$sshl/$sshr/$shift/$shiftx: the bits it can move to, for every shift amount in the
    range an interval analysis of the amount allows (constants, zero extension, $add, $sub, $mul,
    constant shifts, $mux/$pmux as the union of their inputs, the rest any value of its width;
    with the known power-of-two factor, e.g. a byte offset 8*x moves a bit only by multiples of 8);
  - $mem_v2, column by column: a WR_DATA bit -> its column unless its WR_EN bit is the constant 0,
    a WR_EN bit -> its column, a write port's address/clock -> the columns that port can write;
    a column -> that bit of every read port; a read port's address/enable/clock/reset -> its data;
  - every other cell (arithmetic, comparisons, reductions, variable shifts, unknown types): every
    input bit -> every output bit.
This over-approximates each cell's dependence (Yosys's cell semantics, techlibs/common/simlib.v), so
a bit outside the cone has the same value in the original and in any design that differs from it
only in the seed bits: if no observed output is in the cone, the change is unobservable.
"""

FF = {"$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff", "$adffe", "$aldff", "$aldffe",
      "$dffsr", "$dffsre", "$ff", "$dlatch", "$adlatch", "$dlatchsr", "$sr"}
BITWISE = {"$not", "$pos", "$and", "$or", "$xor", "$xnor"}
SHIFTS = {"$shl", "$shr", "$sshl", "$sshr", "$shift", "$shiftx"}


def par(c, name, default=0):
    v = c["parameters"].get(name)
    if v is None:
        return default
    if isinstance(v, int):
        return v
    return int(v, 2) if v and set(v) <= {"0", "1"} else default


def ext_bit(sig, signed, i):
    """Bit i of sig extended (sign or zero) -> net id or constant string."""
    if i < len(sig):
        return sig[i]
    if signed and sig:
        return sig[-1]
    return "0"


class Netlist:
    def __init__(self, mod):
        self.cells = mod["cells"]
        self.readers = {}               # net -> [(cell name, port, bit)]
        self.outs = {}                  # cell name -> [net] (every output bit)
        for name, c in self.cells.items():
            dirs = c.get("port_directions", {})
            o = []
            for p, sig in c["connections"].items():
                d = dirs.get(p, "inout")
                if d in ("output", "inout"):
                    o += [b for b in sig if isinstance(b, int)]
                if d in ("input", "inout"):
                    for k, b in enumerate(sig):
                        if isinstance(b, int):
                            self.readers.setdefault(b, []).append((name, p, k))
            self.outs[name] = o
        self.ports = {}                 # output port name -> [net]
        for p, v in mod["ports"].items():
            if v["direction"] in ("output", "inout"):
                self.ports[p] = v["bits"]
        self.mem_cols = {}              # $mem_v2 cell -> columns in the cone (of one query)
        self.driver = {}                # net -> (cell name, output port, bit)
        for name, c in self.cells.items():
            for p, sig in c["connections"].items():
                if c.get("port_directions", {}).get(p) == "output":
                    for k, b in enumerate(sig):
                        if isinstance(b, int):
                            self.driver[b] = (name, p, k)
        self.ranges = {}                # tuple(sig) -> (lo, hi, tz)

    def value_range(self, sig, depth=0):
        """Unsigned value of sig -> (lo, hi, tz): lo <= value <= hi, value a multiple of 2**tz."""
        key = tuple(sig)
        if key in self.ranges:
            return self.ranges[key]
        w = len(sig)
        lo = sum(1 << i for i, b in enumerate(sig) if b == "1")
        hi = lo + sum(1 << i for i, b in enumerate(sig) if isinstance(b, int) or b not in ("0", "1"))
        tz = next((i for i, b in enumerate(sig) if b != "0"), 64)
        r = (lo, hi, tz)
        d = self.driver.get(sig[0]) if sig and isinstance(sig[0], int) else None
        if d and depth < 24:
            name, port, _ = d
            c = self.cells[name]
            y = c["connections"][port]
            if sig[:len(y)] == y and all(b == "0" for b in sig[len(y):]):
                q = self.cell_range(c, len(y), depth + 1)
                if q:
                    r = (max(r[0], q[0]), min(r[1], q[1]), max(r[2], q[2]))
        self.ranges[key] = r
        return r

    def cell_range(self, c, yw, depth):
        t, con = c["type"], c["connections"]
        full = (1 << yw) - 1
        if t in ("$add", "$sub", "$mul", "$mux", "$pmux", "$pos") or \
                (t in ("$shl", "$shr") and all(b in ("0", "1") for b in con["B"])):
            if any(par(c, x + "_SIGNED") for x in ("A", "B") if x + "_SIGNED" in c["parameters"]):
                return None
            a = self.value_range(con["A"], depth)
            if t == "$pos":
                return a if a[1] <= full else None
            if t in ("$mux", "$pmux"):
                rs = [a] + [self.value_range(con["B"][k:k + yw], depth) for k in range(0, len(con["B"]), yw)]
                return (min(x[0] for x in rs), max(x[1] for x in rs), min(x[2] for x in rs))
            b = self.value_range(con["B"], depth)
            if t == "$add":
                r = (a[0] + b[0], a[1] + b[1], min(a[2], b[2]))
            elif t == "$sub":
                if a[0] < b[1]:
                    return None
                r = (a[0] - b[1], a[1] - b[0], min(a[2], b[2]))
            elif t == "$mul":
                r = (a[0] * b[0], a[1] * b[1], a[2] + b[2])
            else:
                sh = b[0]
                r = (a[0] << sh, a[1] << sh, a[2] + sh) if t == "$shl" else (a[0] >> sh, a[1] >> sh, max(0, a[2] - sh))
            return r if r[1] <= full else None
        return None

    def reset(self):
        """Start a new query (before its seeds: seed_of_cell may taint memory columns)."""
        self.mem_cols = {}

    def nets_of(self, c, port, idx):
        sig = c["connections"].get(port, [])
        return [sig[i] for i in idx if i < len(sig) and isinstance(sig[i], int)]

    def mem_fanout(self, name, c, port, k):
        """$mem_v2 input bit -> output nets (and the columns it taints, kept in mem_cols)."""
        w, ab = par(c, "WIDTH"), par(c, "ABITS")
        con = c["connections"]
        nrd = par(c, "RD_PORTS")
        if any(ch == "1" for ch in str(c["parameters"].get("RD_WIDE_CONTINUATION", "")) +
               str(c["parameters"].get("WR_WIDE_CONTINUATION", ""))):
            return self.outs[name]      # wide ports: every bit (conservative)
        en = con.get("WR_EN", [])
        cols = set()
        if port == "WR_DATA":
            if ext_bit(en, False, k) != "0":
                cols.add(k % w)
        elif port == "WR_EN":
            cols.add(k % w)
        elif port.startswith("WR_"):
            p = k // ab if port == "WR_ADDR" else k
            cols |= {i for i in range(w) if ext_bit(en, False, p * w + i) != "0"}
        else:                           # RD_ADDR, RD_EN, RD_CLK, RD_ARST, RD_SRST: that port's data
            p = k // ab if port == "RD_ADDR" else k
            return self.nets_of(c, "RD_DATA", range(p * w, (p + 1) * w))
        have = self.mem_cols.setdefault(name, set())
        new = cols - have
        have |= new
        return self.nets_of(c, "RD_DATA", [p * w + i for p in range(nrd) for i in sorted(new)])

    def fanout(self, name, port, k):
        """Input bit k of port of cell name -> the output nets it can change."""
        c = self.cells[name]
        t, con = c["type"], c["connections"]
        if t in FF:
            q = "Q"
            if port == "D" or (port in ("SET", "CLR", "AD") and t in ("$dffsr", "$dffsre", "$aldff", "$aldffe",
                                                                         "$dlatchsr", "$sr")):
                return self.nets_of(c, q, [k])
            return self.nets_of(c, q, range(len(con.get(q, []))))
        if t == "$mux":
            if port == "S":
                return self.outs[name]
            return self.nets_of(c, "Y", [k])
        if t == "$pmux":
            w = len(con["Y"])
            if port == "S":
                return self.outs[name]
            return self.nets_of(c, "Y", [k % w])
        if t in BITWISE and port in ("A", "B"):
            yw = len(con["Y"])
            w, signed = par(c, port + "_WIDTH"), par(c, port + "_SIGNED")
            pos = [k] if k < yw else []
            if signed and k == w - 1:
                pos += list(range(w, yw))
            if t in ("$and", "$or"):
                o = "B" if port == "A" else "A"
                osig, osigned = con.get(o, []), par(c, o + "_SIGNED")
                kill = "0" if t == "$and" else "1"
                pos = [i for i in pos if ext_bit(osig, osigned, i) != kill]
            return self.nets_of(c, "Y", pos)
        if t in SHIFTS and port == "A":
            bsig = con["B"]
            lo, hi, tz = self.value_range(bsig)
            if par(c, "B_SIGNED") and bsig and hi >= 1 << (len(bsig) - 1):
                if not all(b in ("0", "1") for b in bsig) or t not in ("$shift", "$shiftx"):
                    return self.outs[name]
                lo = hi = lo - (1 << len(bsig))      # a negative constant: a left shift
            yw, aw, signed = len(con["Y"]), len(con["A"]), par(c, "A_SIGNED")
            if t in ("$shl", "$sshl"):
                lo, hi = -hi, -lo
            step = 1 << min(tz, 62)
            # Y[i] = A[i + s] for s in [lo, hi], s a multiple of step: A[k] -> Y[k - s]
            pos = [i for i in range(max(0, k - hi), min(yw, k - lo + 1)) if (k - i) % step == 0]
            if signed and k == aw - 1 and t != "$shiftx":  # the sign fills every position past A
                pos = list(range(yw))
            return self.nets_of(c, "Y", pos)
        if t == "$mem_v2":
            return self.mem_fanout(name, c, port, k)
        return self.outs[name]

    def cone(self, seeds, observed=None):
        """seeds: net ids -> ({output port: [bit indices reached]}, cone size in nets)."""
        obs = {}
        for p, bits in self.ports.items():
            if observed is None or p in observed:
                for i, b in enumerate(bits):
                    if isinstance(b, int):
                        obs.setdefault(b, []).append((p, i))
        seen = set(b for b in seeds if isinstance(b, int))
        todo = list(seen)
        while todo:
            b = todo.pop()
            for name, port, k in self.readers.get(b, ()):
                for n in self.fanout(name, port, k):
                    if n not in seen:
                        seen.add(n)
                        todo.append(n)
        hit = {}
        for b in seen:
            for p, i in obs.get(b, ()):
                hit.setdefault(p, []).append(i)
        return hit, len(seen)

    def seed_of_cell(self, name, port, k):
        """The nets a change of bit k of the cell's port can change directly: the bit itself if
        the port is an output, else the cell's output bits that input bit reaches."""
        c = self.cells[name]
        d = c.get("port_directions", {}).get(port, "inout")
        sig = c["connections"].get(port, [])
        if d == "output":
            return [sig[k]] if k < len(sig) and isinstance(sig[k], int) else []
        out = self.fanout(name, port, k)
        if d == "inout" and k < len(sig) and isinstance(sig[k], int):
            out = out + [sig[k]]
        return out
