#!/usr/bin/python3
"""Bit-precise structural cone of influence over a flattened Yosys JSON netlist: the first, SAT-free
stage of tools/mutate_equiv.py --context (docs/sim.md 11.3.1).

    Netlist(module_json).cone(seeds) -> (observed output port bits reached, nets in the cone)

A net bit is in the cone when a structural path leads to it from a seed.  Each cell maps an input
bit to the output bits it can change:
  - flops: D[i] -> Q[i] (SET[i]/CLR[i]/AD[i] likewise); clock, enables and resets -> every Q bit;
  - $mux: A[i], B[i] -> Y[i], S -> every Y bit; $pmux: A[i], B[j*W+i] -> Y[i], S -> every Y bit;
  - $not/$pos/$and/$or/$xor/$xnor: bit i -> Y[i] (the sign-extension bit -> the extended Y bits);
    an $and input bit whose other operand bit is always 0 (an $or's: 1) reaches nothing;
  - $shl/$shr/$sshl/$sshr/$shift/$shiftx: the bits it can move to, for every shift amount in the
    range an interval analysis of the amount allows (constants, zero extension, $add, $sub, $mul,
    constant shifts, $mux/$pmux as the union of their inputs, the rest any value of its width;
    with the known power-of-two factor, e.g. a byte offset 8*x moves a bit only by multiples of 8);
  - $mem_v2, column by column: a WR_DATA bit -> its column unless its WR_EN bit is always 0,
    a WR_EN bit -> its column, a write port's address/clock -> the columns that port can write;
    a column -> that bit of every read port; a read port's address/enable/clock/reset -> its data;
  - every other cell (arithmetic, comparisons, reductions, variable shifts, unknown types): every
    input bit -> every output bit.
("Always 0": the value analysis of the shift amounts finds the bit's only value 0.)  This
over-approximates each cell's dependence (Yosys's cell semantics, techlibs/common/simlib.v), so
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


MAXSET = 4096


def summary(vals):
    """A set of values -> (lo, hi, tz, vals); vals dropped (None) when larger than MAXSET."""
    if not vals:
        return (0, 0, 64, set())
    tz = min(((v & -v).bit_length() - 1 if v else 64) for v in vals)
    return (min(vals), max(vals), tz, set(vals) if len(vals) <= MAXSET else None)


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
        self.seen = set()               # nets in the cone (of one query)
        self.driver = {}                # net -> (cell name, output port, bit)
        for name, c in self.cells.items():
            for p, sig in c["connections"].items():
                if c.get("port_directions", {}).get(p) == "output":
                    for k, b in enumerate(sig):
                        if isinstance(b, int):
                            self.driver[b] = (name, p, k)
        self.ranges = {}                # tuple(sig) -> (lo, hi, tz)

    def value_range(self, sig, depth=0):
        """Unsigned value of sig -> (lo, hi, tz, vals): lo <= value <= hi, value a multiple of
        2**tz, and value in vals when vals is not None (a set of at most MAXSET values)."""
        key = tuple(sig)
        if key in self.ranges:
            return self.ranges[key]
        var = [i for i, b in enumerate(sig) if b not in ("0", "1")]
        base = sum(1 << i for i, b in enumerate(sig) if b == "1")
        if len(var) <= 8:
            vals = {base + sum(1 << var[j] for j in range(len(var)) if m >> j & 1) for m in range(1 << len(var))}
            r = summary(vals)
        else:
            r = (base, base + sum(1 << i for i in var), next((i for i, b in enumerate(sig) if b != "0"), 64), None)
        first = next((b for b in sig if isinstance(b, int)), None)
        d = self.driver.get(first) if first is not None else None
        if d and depth < 24:
            name, port, _ = d
            c = self.cells[name]
            y = c["connections"][port]
            at = {b: i for i, b in enumerate(y) if isinstance(b, int)}
            if c["type"] in ("$adff", "$adffe") and port == "Q" and all(b in at for b in sig):
                r = self.flop_range(key, c, [at[b] for b in sig], r, depth)
            elif c["type"] in ("$mux", "$pmux") and sig != y and all(b in at or b in ("0", "1") for b in sig):
                # some bits of a mux's output: the union over its inputs' same bits
                yw = len(y)
                words = [c["connections"]["A"]] + [c["connections"]["B"][k:k + yw] for k in range(0, len(c["connections"]["B"]), yw)]
                rs = [self.value_range([wd[at[b]] if b in at else b for b in sig], depth + 1) for wd in words]
                if all(x[3] is not None for x in rs) and sum(len(x[3]) for x in rs) <= MAXSET:
                    q = summary(set().union(*(x[3] for x in rs)))
                else:
                    q = (min(x[0] for x in rs), max(x[1] for x in rs), min(x[2] for x in rs), None)
                r = q if r[3] is None or q[3] is None else summary(r[3] & q[3])
            elif sig[:len(y)] == y and all(b in ("0", "1") for b in sig[len(y):]):
                q = self.cell_range(c, len(y), depth + 1)
                hc = sum(1 << i for i, b in enumerate(sig) if b == "1")     # constant high bits
                if q and hc:
                    q = summary({v + hc for v in q[3]}) if q[3] is not None else (
                        q[0] + hc, q[1] + hc, min(q[2], (hc & -hc).bit_length() - 1), None)
                if q:
                    vals = q[3] if q[3] is not None else (
                        {v for v in r[3] if q[0] <= v <= q[1] and v % (1 << min(q[2], 62)) == 0} if r[3] is not None else None)
                    r = summary(vals) if vals is not None else (max(r[0], q[0]), min(r[1], q[1]), max(r[2], q[2]), None)
        self.ranges[key] = r
        return r

    def operand(self, c, x, depth):
        """The range of operand x as the cell reads it: unsigned, or two's complement when it is
        signed (x_SIGNED; for the two-operand arithmetic cells only when both are, as in
        simlib.v) -- then None unless its values are known or all non-negative."""
        sig = c["connections"][x]
        r = self.value_range(sig, depth)
        signed = par(c, x + "_SIGNED")
        if c["type"] in ("$add", "$sub", "$mul"):
            signed = par(c, "A_SIGNED") and par(c, "B_SIGNED")
        if not signed or not sig:
            return r
        half = 1 << (len(sig) - 1)
        if r[3] is not None:
            vals = {v - 2 * half if v >= half else v for v in r[3]}
            return (min(vals), max(vals), r[2], vals)
        return r if r[1] < half else None

    def flop_range(self, key, c, idx, r, depth):
        """Bits idx of an asynchronously reset flop's Q whose reset value is 0: 0 in every reachable
        state when that is inductive -- the registers start at 0 (Verilator's initial state under
        the harness's --x-initial fast, rtl/rtl.mk), the harness holds rst_n low for its first
        clocks (sim/rtl/rtl_engine.c), and D's bits are 0 whenever Q's are (checked with Q assumed
        0; the assumption and what was derived from it are dropped when the check fails).  Else r
        (what the bits alone say)."""
        rv = c["parameters"].get("ARST_VALUE", "")
        rv = rv[::-1] if isinstance(rv, str) else ""     # LSB first
        if len(rv) < len(c["connections"]["Q"]) or any(rv[i] not in "01" for i in idx):
            return r
        v0 = sum(1 << j for j, i in enumerate(idx) if rv[i] == "1")
        if v0:              # a reset value 0 only: also the value before the first clock
            return r
        mark = len(self.ranges)
        self.ranges[key] = summary({v0})
        d = self.value_range([c["connections"]["D"][i] for i in idx], depth + 1)
        if d[3] is not None and d[3] <= {v0}:
            return summary({v0})
        while len(self.ranges) > mark:
            self.ranges.popitem()
        return r

    def cell_range(self, c, yw, depth):
        """The value range of a cell's whole output Y (unsigned), or None (any value)."""
        t, con = c["type"], c["connections"]
        full = (1 << yw) - 1
        if t not in ("$add", "$sub", "$mul", "$mux", "$pmux", "$pos", "$shl", "$shr"):
            return None
        a = self.operand(c, "A", depth)
        if a is None:
            return None
        if t == "$pos":
            return summary({v & full for v in a[3]}) if a[3] is not None else (a if 0 <= a[0] and a[1] <= full else None)
        if t == "$shr" and par(c, "A_SIGNED"):
            return None
        if t in ("$mux", "$pmux"):
            rs = [a] + [self.value_range(con["B"][k:k + yw], depth) for k in range(0, len(con["B"]), yw)]
            if all(x[3] is not None for x in rs) and sum(len(x[3]) for x in rs) <= MAXSET:
                return summary(set().union(*(x[3] for x in rs)))
            return (min(x[0] for x in rs), max(x[1] for x in rs), min(x[2] for x in rs), None)
        b = self.operand(c, "B", depth)
        if b is None:
            return None
        if t in ("$shl", "$shr") and (b[0] != b[1] or b[0] < 0):
            return None
        if a[3] is not None and b[3] is not None and len(a[3]) * len(b[3]) <= MAXSET:
            op = {"$add": lambda x, y: x + y, "$sub": lambda x, y: x - y, "$mul": lambda x, y: x * y,
                  "$shl": lambda x, y: x << y, "$shr": lambda x, y: x >> y}[t]
            return summary({op(x, y) & full for x in a[3] for y in b[3]})      # Y = (A op B) mod 2**yw
        if min(a[0], b[0]) < 0:
            return None
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
        return r + (None,) if r[1] <= full else None

    def same_const(self, a, b):
        """Bits a and b hold one and the same constant value in every reachable state of the
        original (both outside the cone: the callers' select bit is what changed)."""
        if a in self.seen or b in self.seen:
            return False
        va, vb = self.value_range([a])[3], self.value_range([b])[3]
        return va is not None and len(va) == 1 and va == vb

    def zero(self, b):
        """Bit b is 0 in every state (a constant, or e.g. a mux of constant 0s)."""
        return self.value_range([b])[3] == {0}

    def reset(self):
        """Start a new query (before its seeds: seed_of_cell may taint memory columns)."""
        self.mem_cols = {}
        self.seen = set()

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
        if port == "WR_DATA":                       # (an enable bit in the cone taints the column itself)
            if not self.zero(ext_bit(en, False, k)):
                cols.add(k % w)
        elif port == "WR_EN":
            cols.add(k % w)
        elif port.startswith("WR_"):
            p = k // ab if port == "WR_ADDR" else k
            cols |= {i for i in range(w) if not self.zero(ext_bit(en, False, p * w + i))}
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
            if port == "S":     # not the bits whose two inputs are one and the same constant value
                a, b = con["A"], con["B"]
                return self.nets_of(c, "Y", [i for i in range(len(a)) if not self.same_const(a[i], b[i])])
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
                # killed by the other operand's bit when that is always 0 (1) in the original and
                # not in the cone (else it may differ; and when it joins the cone later, its own
                # fan-out finds this bit in the cone and does not kill)
                kill = 0 if t == "$and" else 1
                pos = [i for i in pos if ext_bit(osig, osigned, i) in self.seen or
                       self.value_range([ext_bit(osig, osigned, i)])[3] != {kill}]
            return self.nets_of(c, "Y", pos)
        if t in SHIFTS and port == "A":
            bsig = con["B"]
            lo, hi, tz, vals = self.value_range(bsig)
            if par(c, "B_SIGNED") and bsig and hi >= 1 << (len(bsig) - 1):
                if not all(b in ("0", "1") for b in bsig) or t not in ("$shift", "$shiftx"):
                    return self.outs[name]
                lo = hi = lo - (1 << len(bsig))      # a negative constant: a left shift
                vals = {lo}
            yw, aw, signed = len(con["Y"]), len(con["A"]), par(c, "A_SIGNED")
            if t in ("$shl", "$sshl"):
                lo, hi = -hi, -lo
                vals = {-v for v in vals} if vals is not None else None
            step = 1 << min(tz, 62)
            # Y[i] = A[i + s] for every shift amount s: A[k] -> Y[k - s]
            if vals is not None:
                pos = sorted({k - v for v in vals if 0 <= k - v < yw})
            else:
                pos = [i for i in range(max(0, k - hi), min(yw, k - lo + 1)) if (k - i) % step == 0]
            if signed and k == aw - 1 and t != "$shiftx":  # the sign fills every position past A
                pos = list(range(yw))
            return self.nets_of(c, "Y", pos)
        if t == "$mem_v2":
            return self.mem_fanout(name, c, port, k)
        return self.outs[name]

    def cone(self, seeds, observed=None, first=False):
        """seeds: net ids -> ({output port: [bit indices reached]}, cone size in nets); with
        first, the search ends at the first observed bit it reaches."""
        obs = {}
        for p, bits in self.ports.items():
            if observed is None or p in observed:
                for i, b in enumerate(bits):
                    if isinstance(b, int):
                        obs.setdefault(b, []).append((p, i))
        seen = self.seen
        seen |= set(b for b in seeds if isinstance(b, int))
        todo = list(seen)
        found = any(b in obs for b in seen)
        while todo and not (first and found):
            b = todo.pop()
            for name, port, k in self.readers.get(b, ()):
                for n in self.fanout(name, port, k):
                    if n not in seen:
                        seen.add(n)
                        todo.append(n)
                        found = found or n in obs
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
