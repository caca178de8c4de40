#!/usr/bin/python3
"""Formal equivalence of RTL mutants, module by module (docs/sim.md 11.3.1; MCY's "NOC" step, sound).

    tools/mutate_equiv.py --dir DIR [--ids 3,7,...|--all|--killed] [--timeout S] [--seq N] [--bmc K]
                          [--out FILE] [--results SUBDIR] [--resume]
    tools/mutate_equiv.py --dir DIR --compare sim/mutate/answers_rtl.txt   (verdicts beside the answers)
    tools/mutate_equiv.py --dir DIR --selftest   (DIR netlists hca_crc32_blk: the make-test checks)
    tools/mutate_equiv.py --dir DIR --context auto|MODULE [--unobserved PORTS] [--outdir OUT] [ids]
    tools/mutate_equiv.py --dir DIR --context auto --selftest   (hca_ctx's QPC RAM: the make-test checks)

--context (docs/sim.md 11.3.1, "In context"): the design flattened from the mutated module up to
an ancestor (auto: the top, hca_top), the mutation marked in every instance of its derivation; a
mutant is proved when its bit-precise structural cone of influence (tools/mutate_coi.py) reaches
no output port of the ancestor (all of them, or all but --unobserved).  One Yosys flatten per
build (OUT/ctx/), then milliseconds to seconds per mutant; verdicts proved or unknown (the ports
reached), in OUT/equiv-ctx.txt.  --outdir OUT keeps DIR read-only (module mode too).

DIR is a mutant build of tools/mutate_rtl.py (prepped.il: the mutated modules after prep's
coarse passes; list.txt: "id src mutate ..." per mutant).  Default ids: every mutant whose
result (DIR/results/<id>.txt) is `survived` or `pending`.  For each id, in DIR/equiv/<id>/:

  gold = the one module (derivation) the mutation is in, as prepped; gate = a copy with that
  single mutation applied (the list's `mutate` command, no -ctrl).  Instances of other modules
  and memories are cut out of both alike: each becomes module ports (its outputs inputs of the
  module, shared by gold and gate; its inputs outputs, to be proven equal), so a proof holds
  for every behaviour of the submodule or memory.  Asynchronous resets: async2sync (the harness
  changes rst_n at clock edges).

  differs  a bounded search (sat -seq K) from equal states of gold and gate finds an input
           sequence on which an output (or a cut submodule/memory input) differs.
  proved   the outputs are equal for every input sequence from equal states: the $equiv cells
           of yosys equiv_make (outputs, and the registers of the mutation's fan-out cone as
           candidate invariants, dropped Houdini-style while not inductive) are all proven by
           equiv_simple/equiv_induct -seq N (induction step), and a bounded check from equal
           states (sat -seq N, every register pair equal at step 1) proves them for the first
           N steps (the base case equiv_induct leaves out).  Then the mutant is equivalent in
           every context the module is used in.
  unknown  neither (induction did not close, or the time budget ran out).

Writes DIR/equiv.txt ("id proved|differs|unknown CPU-seconds key", one line per mutant, merged with
earlier lines for other ids) and prints the lines.  --timeout is CPU seconds of Yosys per mutant
(RLIMIT_CPU; a wall limit of Budget.WALL times that as a safety net).  --resume skips the ids the
result file has and claims each mutant (DIR/equiv/<id>.claim), so several runs can share a build.
"""
import argparse
import ctypes
import os
import resource
import signal
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mutate_rtl import (split_modules, read_list, read_results, read_activated,  # noqa: E402
                        read_answers, answer_keys, lookup)

OUT_PORTS = {"\\Y", "\\Q", "\\X", "\\CO", "\\RD_DATA"}
FF_TYPES = {"$dff", "$dffe", "$sdff", "$sdffe", "$sdffce", "$adff", "$adffe", "$aldff", "$aldffe",
            "$dffsr", "$dffsre", "$ff"}


class Timeout(Exception):
    pass


class Budget:
    """CPU seconds of Yosys per mutant (RLIMIT_CPU on each run; the shared machine's load does not
    change a verdict), and a wall-clock limit of WALL times that as a safety net."""
    WALL = 8

    def __init__(self, cpu):
        self.cpu, self.used, self.t0 = cpu, 0.0, time.time()

    def left(self):
        return min(self.cpu - self.used, self.cpu * self.WALL - (time.time() - self.t0))


def child_limits(cpu):
    """In the Yosys child: RLIMIT_CPU, and SIGKILL when this script dies (no orphan runs on)."""
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu))
    ctypes.CDLL("libc.so.6").prctl(1, signal.SIGKILL)   # PR_SET_PDEATHSIG


def yosys(script, log, budget):
    left = budget.left()
    if left <= 1:
        raise Timeout()
    lim = int(left) + 1
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        r = subprocess.run([os.environ.get("YOSYS", "yosys"), "-q", "-l", log, "-p", script],
                           stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                           timeout=budget.cpu * budget.WALL - (time.time() - budget.t0),
                           preexec_fn=lambda: child_limits(lim))
    except subprocess.TimeoutExpired:
        raise Timeout()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    budget.used += (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if r.returncode < 0 or budget.left() <= 0:      # killed by RLIMIT_CPU (SIGXCPU/SIGKILL)
        raise Timeout()
    return r.returncode, open(log).read()


# ---- RTLIL signals (bit sets, ordered LSB first) --------------------------------------------

TOK = re.compile(r"\s*(\{|\}|\[[0-9:]+\]|-?\d+'[01xzm-]*|-?\d+|[\\$]\S+)")


def sig_bits(s, widths):
    """RTLIL sigspec text -> list of bits LSB first: (wire, index) or a constant char."""
    toks = [t for t in TOK.findall(s)]
    pos = 0

    def one():
        nonlocal pos
        t = toks[pos]
        pos += 1
        if t == "{":
            parts = []
            while toks[pos] != "}":
                parts.append(one())
            pos += 1
            out = []
            for p in reversed(parts):      # MSB first in the text
                out += p
            return out
        m = re.match(r"(-?\d+)'(.*)$", t)
        if m:
            return list(reversed(m.group(2))) if m.group(2) else []
        if re.match(r"-?\d+$", t):
            return list(format(int(t) & 0xffffffff, "032b")[::-1])
        w = t
        rng = None
        if pos < len(toks) and toks[pos].startswith("["):
            rng = toks[pos][1:-1]
            pos += 1
        if rng is None:
            return [(w, i) for i in range(widths[w])]
        if ":" in rng:
            hi, lo = (int(x) for x in rng.split(":"))
            return [(w, i) for i in range(lo, hi + 1)]
        return [(w, int(rng))]

    out = []
    while pos < len(toks):
        out += one()
    return out


def bit_text(b):
    return ("1'%s" % b) if isinstance(b, str) else "%s [%d]" % b


def parse_module(lines):
    """-> widths {wire: width}, ports {wire: (dir, id)}, cells [(type, name, {port: sig}, start, end)],
    connects [(lhs, rhs)]."""
    widths, ports, cells, conns = {}, {}, [], []
    i = 0
    while i < len(lines):
        l = lines[i]
        m = re.match(r"  wire (.*)$", l)
        if m:
            f = m.group(1).split()
            name, w = f[-1], 1
            for k in range(len(f) - 1):
                if f[k] == "width":
                    w = int(f[k + 1])
                elif f[k] in ("input", "output", "inout"):
                    ports[name] = (f[k], int(f[k + 1]))
            widths[name] = w
        m = re.match(r"  cell (\S+) (\S+)$", l)
        if m:
            j, cc = i + 1, {}
            while lines[j] != "  end":
                c = re.match(r"    connect (\S+) (.*)$", lines[j])
                if c:
                    cc[c.group(1)] = c.group(2)
                j += 1
            cells.append((m.group(1), m.group(2), cc, i, j))
            i = j
        m = re.match(r"  connect (.*)$", l)
        if m:
            conns.append(m.group(1))
        i += 1
    return widths, ports, cells, conns


def split_connect(text, widths):
    """'lhs rhs' of a module-level connect -> (lhs bits, rhs bits)."""
    toks = TOK.findall(text)
    depth, k = 0, 0
    for k, t in enumerate(toks):     # the lhs ends where the brace depth returns to 0
        depth += {"{": 1, "}": -1}.get(t, 0)
        if depth == 0 and not (k + 1 < len(toks) and toks[k + 1].startswith("[")):
            break
    lhs = " ".join(toks[:k + 1])
    rhs = " ".join(toks[k + 1:])
    return sig_bits(lhs, widths), sig_bits(rhs, widths)


# ---- the gold/gate pair ---------------------------------------------------------------------

def cut_cells(lines, port_dirs):
    """Instances of other modules and memories -> module ports: the cell's outputs become inputs
    `\\cut.<cell>.<port>`, its inputs outputs `\\cuto.<cell>.<port>`."""
    widths, ports, cells, _ = parse_module(lines)
    nid = max([p[1] for p in ports.values()] + [0])
    drop, add_w, add_c = set(), [], []
    for t, name, cc, s, e in cells:
        if t != "$mem_v2" and t not in port_dirs:     # a cell of Yosys's own (modelled by SAT)
            continue
        dirs = port_dirs.get(t, {}) if t != "$mem_v2" else {p: ("output" if p == "\\RD_DATA" else "input") for p in cc}
        for p, sig in sorted(cc.items()):
            bits = sig_bits(sig, widths)
            if not bits:
                continue
            d = dirs.get(p)
            if d is None:
                sys.exit("mutate_equiv: port %s of %s (%s): direction unknown" % (p, name, t))
            nid += 1
            if d == "output":
                w = "\\cut.%s.%s" % (name.lstrip("\\$"), p.lstrip("\\"))
                add_w.append("  wire width %d input %d %s" % (len(bits), nid, w))
                for k, b in enumerate(bits):
                    if not isinstance(b, str):
                        add_c.append("  connect %s %s [%d]" % (bit_text(b), w, k))
            else:
                w = "\\cuto.%s.%s" % (name.lstrip("\\$"), p.lstrip("\\"))
                add_w.append("  wire width %d output %d %s" % (len(bits), nid, w))
                add_c.append("  connect %s %s" % (w, sig))
        drop.update(range(s, e + 1))
    body = [l for k, l in enumerate(lines[:-1]) if k not in drop]
    # cell attributes directly above a dropped cell are dropped with it
    out = []
    for k, l in enumerate(lines[:-1]):
        if k in drop:
            while out and out[-1].startswith("  attribute "):
                out.pop()
            continue
        out.append(l)
    del body
    return out + add_w + add_c + [lines[-1]]


def port_directions(mods):
    """{module name: {\\port: input|output}} of every module of prepped.il."""
    dirs = {}
    for name, lines in mods:
        d = {}
        for l in lines:
            m = re.match(r"  wire .*\b(input|output|inout) \d+ (\S+)$", l)
            if m:
                d[m.group(2)] = m.group(1)
        dirs[name] = d
    return dirs


def cone(gold_lines, gate_lines):
    """Cells and wires of gate in the forward cone of the mutation (the cells and wires gate has
    and gold has not), at bit level, through every cell including registers."""
    gw, _, gcells, _ = parse_module(gold_lines)
    widths, ports, cells, conns = parse_module(gate_lines)
    gold_cells = {c[1]: (c[0], c[2]) for c in gcells}
    readers = {}            # bit -> [cell index]
    fwd = {}                # bit -> [bits] (module connects: rhs drives lhs)
    outs = []
    for k, (t, name, cc, _, _) in enumerate(cells):
        o = []
        for p, sig in cc.items():
            bits = sig_bits(sig, widths)
            if p in OUT_PORTS:
                o += [b for b in bits if not isinstance(b, str)]
            else:
                for b in bits:
                    if not isinstance(b, str):
                        readers.setdefault(b, []).append(k)
        outs.append(o)
    for c in conns:
        lhs, rhs = split_connect(c, widths)
        for a, b in zip(lhs, rhs):
            if not isinstance(b, str) and not isinstance(a, str):
                fwd.setdefault(b, []).append(a)
    todo = [b for w in widths if w not in gw for b in [(w, i) for i in range(widths[w])]]
    seen_cells = set()
    for k, c in enumerate(cells):
        if gold_cells.get(c[1]) != (c[0], c[2]):     # new, or its connections changed
            seen_cells.add(k)
            todo += outs[k]
    seen = set(todo)
    while todo:
        b = todo.pop()
        nxt = list(fwd.get(b, []))
        for k in readers.get(b, []):
            if k not in seen_cells:
                seen_cells.add(k)
                nxt += outs[k]
        for n in nxt:
            if n not in seen:
                seen.add(n)
                todo.append(n)
    cwires = {b[0] for b in seen}
    ccells = {cells[k][1] for k in seen_cells}
    regs = set()
    for k in seen_cells:
        t, name, cc, _, _ = cells[k]
        if t in FF_TYPES and "\\Q" in cc:
            regs |= {b[0] for b in sig_bits(cc["\\Q"], widths) if not isinstance(b, str)}
    return ccells, cwires, regs, ports


def aliases(widths, conns):
    """Union-find over bits joined by module-level connects -> find(bit)."""
    parent = {}

    def find(x):
        while parent.get(x, x) != x:
            parent[x] = parent.get(parent[x], parent[x])
            x = parent[x]
        return x
    for c in conns:
        lhs, rhs = split_connect(c, widths)
        for p, q in zip(lhs, rhs):
            a, b = find(p), find(q)
            if a != b:
                if isinstance(a, str):
                    a, b = b, a
                parent[a] = b            # a constant stays the representative
    return find


def trivial(cc, widths, find):
    """A $equiv whose A and B are the same net."""
    return [find(x) for x in sig_bits(cc["\\A"], widths)] == [find(x) for x in sig_bits(cc["\\B"], widths)]


def eq_extras(eq_lines):
    """The equiv module after equiv_make -> RTLIL lines adding \\ini_g/\\ini_t (the Q of every
    register pair gold/gate left apart) and \\ob_a/\\ob_b (A and B of every $equiv)."""
    widths, ports, cells, conns = parse_module(eq_lines)
    find = aliases(widths, conns)
    q = {}
    a, b = [], []
    internal = 0
    for t, name, cc, _, _ in cells:
        if t in FF_TYPES:
            m = re.match(r"(.*)_(gold|gate)$", name)
            if m:
                q.setdefault(m.group(1), {})[m.group(2)] = cc["\\Q"]
        if t == "$equiv" and not trivial(cc, widths, find):
            a.append(cc["\\A"])
            b.append(cc["\\B"])
            y = sig_bits(cc["\\Y"], widths)
            internal += any(isinstance(x, tuple) and x[0] not in ports for x in y)
    g = [v["gold"] for v in q.values() if len(v) == 2]
    h = [v["gate"] for v in q.values() if len(v) == 2]
    add = []

    def bus(name, sigs):
        bits = []
        for s in sigs:
            bits += sig_bits(s, widths)
        if not bits:
            return False
        add.append("  wire width %d %s" % (len(bits), name))
        add.append("  connect %s { %s }" % (name, " ".join(bit_text(x) for x in reversed(bits))))
        return True

    have_ini = bus("\\ini_g", g) and bus("\\ini_t", h)
    have_ob = bus("\\ob_a", a) and bus("\\ob_b", b)
    return add, have_ini, have_ob, internal


def with_extras(eq_text, name):
    tail, mods = split_modules(eq_text)
    out, info = [], None
    for n, lines in mods:
        if n == name:
            add, ini, ob, n_eq = eq_extras(lines)
            lines = lines[:-1] + add + [lines[-1]]
            info = (ini, ob, n_eq)
        out += lines
    return "\n".join(out + tail), info


def unproven(eq_text, name):
    """$equiv cells still A != B after the proofs -> the names they stand for (a matched wire:
    its name; a cell input cut: the cell's name), and whether one of them is a port."""
    tail, mods = split_modules(eq_text)
    lines = dict(mods)[name]
    widths, ports, cells, conns = parse_module(lines)
    find = aliases(widths, conns)
    yreaders = {}
    for t, cname, cc, _, _ in cells:
        if t != "$equiv":
            for p, sig in cc.items():
                for b in sig_bits(sig, widths):
                    if not isinstance(b, str):
                        yreaders.setdefault(b[0], set()).add(cname)
    names, port, count = set(), False, 0
    for t, cname, cc, _, _ in cells:
        if t == "$equiv" and cc["\\A"] != cc["\\B"] and not trivial(cc, widths, find):
            count += 1
            y = sig_bits(cc["\\Y"], widths)[0]
            w = y[0]
            if w in ports:
                port = True
            if w.startswith("$auto$equiv_make"):
                names |= yreaders.get(w, set())
            else:
                names.add(w)
    return names, port, count


def check(d, mid, mut, mods, dirs, a, deadline):
    """One mutant -> (verdict, note)."""
    w = os.path.join(d, "equiv", str(mid))
    os.makedirs(w, exist_ok=True)
    mname = "\\" + re.search(r"-module (\S+)", mut).group(1)
    src = dict(mods)
    if mname not in src:
        return "unknown", "module %s not in prepped.il" % mname
    # the module, and a blackbox stub (its ports) of every module it instantiates
    types = {m.group(1) for l in src[mname] for m in [re.match(r"  cell (\S+) \S+$", l)] if m} - {mname}
    stubs = []
    for t in sorted(x for x in types if x in src):
        stubs += ["attribute \\blackbox 1", "module %s" % t]
        stubs += [l for l in src[t] if re.match(r"  wire .*\b(input|output|inout) \d+ ", l)]
        stubs += ["end"]
    open(os.path.join(w, "m.il"), "w").write("\n".join(stubs + src[mname]) + "\n")
    gmut = re.sub(r"-module \S+", "-module gate", mut)
    gmut = re.sub(r" -(wire|wirebit|src) \S+", "", gmut)
    # async2sync before the copy keeps the names of its new cells equal in gold and gate (they are
    # then merged); a mutation of an asynchronous FF itself is applied before async2sync (exact
    # for that FF; the new cells then differ in name and stay apart, which costs only speed).
    cell = re.search(r"-cell (\S+)", mut).group(1)
    afirst = not any(l == "  cell %s %s" % (t, cell) for l in src[mname] for t in ("$adff", "$adffe", "$aldff",
                                                                                       "$aldffe", "$dffsr", "$dffsre"))
    steps = ("async2sync; copy gold gate; {g}; write_rtlil {w}/pair0.il; write_rtlil {w}/pair.il" if afirst else
             "copy gold gate; {g}; write_rtlil {w}/pair0.il; async2sync; write_rtlil {w}/pair.il")
    # x constants -> $anyseq cells and undriven nets -> inputs, before the copy, so gold and gate
    # share them (SAT would read x as 0, Verilator's --x-assign fast as any fixed value)
    rc, log = yosys(("read_rtlil {w}/m.il; rename {m} gold; setundef -undriven -expose -anyseq gold; " + steps).format(w=w, m=mname, g=gmut),
                    "%s/y-pair.log" % w, deadline)
    if rc:
        return "unknown", "yosys pair failed (%s/y-pair.log)" % w
    _, pm0 = split_modules(open("%s/pair0.il" % w).read())
    tail, pm = split_modules(open("%s/pair.il" % w).read())
    p0 = dict(pm0)
    pm = [(n, cut_cells(l, dirs)) for n, l in pm if n in ("\\gold", "\\gate")]
    open("%s/flat.il" % w, "w").write("\n".join(sum((l for _, l in pm), []) + tail))
    ccells, cwires, regs, ports = cone(p0["\\gold"], p0["\\gate"])
    allw = set(parse_module(p0["\\gate"])[0]) | set(parse_module(p0["\\gold"])[0])
    allw = {x for x in allw if x not in ports}
    allc = {c[1] for n in ("\\gold", "\\gate") for c in parse_module(dict(pm)[n])[2]}
    fixed = (ccells | allw) - regs
    body = {n: [l for l in p0[n] if l.startswith(" ")] for n in ("\\gold", "\\gate")}
    if body["\\gold"] == body["\\gate"]:
        return "proved", "the mutation changes nothing (gate's netlist is gold's)"
    if not ccells:
        return "unknown", "no cell changed, yet the netlists differ"

    def run(black, seq, induct, tag):
        """equiv_make with blacklist; base case (sat -seq seq from equal states), and with induct
        the proofs.  -> (base_ok, names unproven, port unproven)"""
        open("%s/black-%s.txt" % (w, tag), "w").write("\n".join(sorted(black)) + "\n")
        rc, log = yosys("read_rtlil {w}/flat.il; equiv_make -inames -blacklist {w}/black-{t}.txt gold gate eq; "
                        "write_rtlil {w}/eq0-{t}.il".format(w=w, t=tag), "%s/y-make-%s.log" % (w, tag), deadline)
        if rc:
            raise RuntimeError("equiv_make failed (%s/y-make-%s.log)" % (w, tag))
        text, (ini, ob, internal) = with_extras(open("%s/eq0-%s.il" % (w, tag)).read(), "\\eq")
        open("%s/eq1-%s.il" % (w, tag), "w").write(text)
        if not ob:
            base = ""
        else:
            base = "sat -tempinduct -tempinduct-baseonly -maxsteps %d %s -prove ob_a ob_b eq; " % (seq, "-set-at 1 ini_g ini_t" if ini else "")
        script = "read_rtlil %s/eq1-%s.il; %s" % (w, tag, base)
        if induct:
            script += ("equiv_simple -seq 2 eq; equiv_induct -seq %d eq; write_rtlil %s/eq2-%s.il" % (seq, w, tag))
        rc, log = yosys(script, "%s/y-proof-%s.log" % (w, tag), deadline)
        if rc:
            raise RuntimeError("yosys proof failed (%s/y-proof-%s.log)" % (w, tag))
        ok = "model found for base case: FAIL" not in log
        if ob and ok and "proved base case for %d steps: SUCCESS" % seq not in log:
            raise RuntimeError("no verdict from sat (%s/y-proof-%s.log)" % (w, tag))
        if not induct:
            return ok, internal, None
        names, port, count = unproven(open("%s/eq2-%s.il" % (w, tag)).read(), "\\eq")
        return ok, (names, count), port

    t0 = time.time()
    try:
        # the bounded search: the cells outside the mutation's cone merged (they compute the same
        # in gold and gate), no cut but the ports -- the exact pair; should a merged cell read a
        # bit of the cone (a $equiv not on a port), again with nothing merged
        ok, internal, _ = run(ccells | allw, a.bmc, False, "bmc")
        if not ok and internal:
            ok, internal, _ = run(allc | allw, a.bmc, False, "bmc-all")
        if not ok and not internal:
            return "differs", "bounded search: an output differs within %d steps from equal states" % a.bmc
        black = set(fixed)
        for it in range(50):
            ok, (names, count), port = run(black, a.seq, True, "i%d" % it)
            if port:
                return "unknown", "an output not proven by induction (-seq %d, %d rounds)" % (a.seq, it + 1)
            if count and not names - black:
                return "unknown", "%d $equiv cells unproven, none left to drop" % count
            if not count:
                if ok:
                    return "proved", "%d register candidates kept, %d rounds" % (len(regs - black), it + 1)
                return "unknown", "induction closes, base case fails"
            black |= names
        return "unknown", "no fixed point"
    except Timeout:
        return "unknown", "timeout (%d CPU s)" % a.timeout
    except RuntimeError as e:
        return "unknown", str(e)
    finally:
        del t0


# ---- context mode: the mutation in the flattened design up to an ancestor ----------------------

def mutation_parts(m):
    """mutate command -> (module, cell, port, bit)."""
    g = lambda k: re.search(r"-%s (\S+)" % k, m).group(1)
    cell = g("cell")
    mod = g("module")
    return mod if mod.startswith("$") else "\\" + mod, cell if cell.startswith("$") else "\\" + cell, g("port"), int(g("portbit"))


def find_ancestor(mods, want):
    """`auto` (the module no other instantiates) or a module name, plain or parametrised."""
    names = [n for n, _ in mods]
    if want != "auto":
        for n in names:
            if n == "\\" + want or n == want or re.match(r"\\%s__d\d+$" % re.escape(want), n) or \
                    re.match(r"\$paramod(\$[0-9a-f]+)?\\%s(\\|$)" % re.escape(want), n):
                return n
        sys.exit("mutate_equiv: no module %s in prepped.il" % want)
    used = {m.group(1) for _, ls in mods for l in ls for m in [re.match(r"  cell (\S+) \S+$", l)] if m}
    tops = [n for n in names if n not in used]
    if len(tops) > 1:   # beside hca_top, a target elaborated on its own (mutate_rtl.py OWN_TOP)
        tops = [n for n in tops if re.match(r"(\\|\$paramod(\$[0-9a-f]+)?\\)hca_top(\\|$)", n)] or tops
    if len(tops) != 1:
        sys.exit("mutate_equiv: --context auto: %d uninstantiated modules (%s); name one" % (len(tops), " ".join(tops)))
    return tops[0]


def under(mods, anc):
    """The modules instantiated (transitively) by anc, anc included."""
    src = dict(mods)
    seen, todo = {anc}, [anc]
    while todo:
        for l in src.get(todo.pop(), []):
            m = re.match(r"  cell (\S+) \S+$", l)
            if m and m.group(1) in src and m.group(1) not in seen:
                seen.add(m.group(1))
                todo.append(m.group(1))
    return seen


def mark_mutations(mods, muts):
    """Attribute lines that survive flatten: \\mut_<id> on the mutated cell (a Yosys cell), or
    \\mutw_<id> = bit on the wire a mutated submodule port bit is connected to (the port wire of
    the submodule when that bit is a constant: every instance then, a superset).
    muts: {id: mutate command} -> (RTLIL lines of the marked design, {id: why it is not marked})."""
    src = dict(mods)
    add, bad = {}, {}            # (module, line index) -> attribute lines

    def before(mod, pat, attr):
        for k, l in enumerate(src[mod]):
            if re.match(pat, l):
                add.setdefault((mod, k), []).append(attr)
                return True
        return False
    for i, m in sorted(muts.items()):
        mod, cell, port, bit = mutation_parts(m)
        if mod not in src:
            bad[i] = "module %s not in prepped.il" % mod
            continue
        t = next((x.split()[1] for x in src[mod] if x.startswith("  cell ") and x.split()[2] == cell), None)
        if t is None:
            bad[i] = "cell %s not in %s" % (cell, mod)
        elif t not in src:       # a Yosys cell: marked itself
            before(mod, r"  cell \S+ %s$" % re.escape(cell), "  attribute \\mut_%d 1" % i)
        else:                    # a submodule instance: the net on its port bit
            widths, _, cells, _ = parse_module(src[mod])
            cc = next(c[2] for c in cells if c[1] == cell)
            bits = sig_bits(cc.get("\\" + port, ""), widths)
            if bit < len(bits) and not isinstance(bits[bit], str):
                w, k = bits[bit]
                ok = before(mod, r"  wire .*\s%s$" % re.escape(w), "  attribute \\mutw_%d %d" % (i, k))
            else:
                ok = before(t, r"  wire .*\s\\%s$" % re.escape(port), "  attribute \\mutw_%d %d" % (i, bit))
            if not ok:
                bad[i] = "port %s of %s: no wire to mark" % (port, cell)
    out = []
    for n, ls in mods:
        for k, l in enumerate(ls):
            out += add.get((n, k), [])
            out.append(l)
    return out, bad


def procd(d, w, budget):
    """DIR/prepped.il with the processes of the modules prep left alone (the unmutated ones) made
    netlists (proc -noopt: no opt_expr, which could fold a mutated cell) -> W/procd.il (cached)."""
    out, src = os.path.join(w, "procd.il"), os.path.join(d, "prepped.il")
    if not (os.path.exists(out) and os.path.getmtime(out) >= os.path.getmtime(src)):
        rc, _ = yosys("read_rtlil %s; proc -noopt; write_rtlil %s.tmp" % (src, out), os.path.join(w, "y-proc.log"), budget)
        if rc:
            sys.exit("mutate_equiv: proc of %s failed (%s/y-proc.log)" % (src, w))
        os.replace(out + ".tmp", out)
    return out


def attr_int(v):
    return v if isinstance(v, int) else int(v, 2)


class Context:
    """The design flattened up to an ancestor with every listed mutation marked (one Yosys run per
    build), and the bit-precise cone of each mutation in it (tools/mutate_coi.py)."""

    def __init__(self, d, outdir, anc, muts, budget):
        import json
        from mutate_coi import Netlist
        w = os.path.join(outdir, "ctx")
        os.makedirs(w, exist_ok=True)
        tail, mods = split_modules(open(procd(d, w, budget)).read())
        self.anc = find_ancestor(mods, anc)
        self.inside = under(mods, self.anc)
        self.name = re.sub(r"^\$paramod(\$[0-9a-f]+)?\\|^\\", "", self.anc).split("\\")[0]
        lines, self.bad = mark_mutations(mods, muts)
        text, mk, fj = "\n".join(lines + tail), os.path.join(w, "marked.il"), os.path.join(w, "flat.json")
        same = os.path.exists(fj) and os.path.exists(mk) and open(mk).read() == text and \
            os.path.getmtime(fj) >= os.path.getmtime(mk)
        if not same:
            open(mk, "w").write(text)
            rc, _ = yosys("read_rtlil {w}/marked.il; hierarchy -top {a}; flatten; memory_collect; "
                          "write_json {w}/flat.json".format(w=w, a=self.anc), os.path.join(w, "y-flat.log"), budget)
            if rc:
                sys.exit("mutate_equiv: flattening %s failed (%s/y-flat.log)" % (self.anc, w))
        self.flat_cpu = budget.used
        mod = json.load(open(os.path.join(w, "flat.json")))["modules"]
        top = mod[next(iter(mod))] if len(mod) == 1 else mod[self.anc.lstrip("\\")]
        self.net = Netlist(top)
        self.all_hits = False        # list every output port reached (slower: the whole cone)
        self.marks = {}      # id -> [("cell", name) | ("net", bit)]
        for name, c in top["cells"].items():
            for a in c.get("attributes", {}):
                if a.startswith("mut_"):
                    self.marks.setdefault(int(a[4:]), []).append(("cell", name))
        for name, n in top["netnames"].items():
            for a, v in n.get("attributes", {}).items():
                if a.startswith("mutw_"):
                    self.marks.setdefault(int(a[5:]), []).append(("net", n["bits"][attr_int(v)]))

    def check(self, i, m, unobserved):
        """-> (verdict, note) of the structural stage: proved, or unknown with the ports reached."""
        mod, cell, port, bit = mutation_parts(m)
        if i in self.bad:
            return "unknown", self.bad[i]
        if mod not in self.inside:
            return "unknown", "%s is not under %s" % (mod, self.name)
        if i not in self.marks:
            return "unknown", "the marked cell is gone after flatten"
        seeds = []
        self.net.reset()
        for kind, x in self.marks[i]:
            if kind == "net":
                seeds.append(x)
            else:
                seeds += self.net.seed_of_cell(x, port, bit)
        observed = set(self.net.ports) - set(unobserved)
        hit, size = self.net.cone(seeds, observed, first=not self.all_hits)
        obs = "observed: every output of %s%s" % (self.name, "" if not unobserved else
                                                   " but " + ",".join(sorted(unobserved)))
        n = len(self.marks[i])
        if not hit:
            return "proved", "cone of influence: no path to an output (%d instance(s), %d nets in the cone; %s)" % (n, size, obs)
        return "unknown", "cone of influence reaches %s%s (%d nets; %s)" % (
            "" if self.all_hits else "first ", 
            ",".join("%s[%d]" % (p, min(b)) + ("+%d" % (len(b) - 1) if len(b) > 1 else "") for p, b in sorted(hit.items())), size, obs)


def selftest_mutations(mods):
    """Two hand-made mutations of a CRC block (hca_crc32_blk: each output bit the XOR of the data
    and CRC bits a constant mask selects): an AND input bit forced to 1 where the mask bit is 0
    (equivalent: the bit never reaches the XOR) and one inverted where the mask bit is 1 (a
    different CRC).  -> [(expected verdict, mutate command)]"""
    for name, lines in mods:
        if not name.startswith("\\hca_crc32_blk__d"):
            continue
        _, _, cells, _ = parse_module(lines)
        for t, cname, cc, _, _ in cells:
            m = re.match(r"(\d+)'([01]+)$", cc.get("\\B", ""))
            if t == "$and" and m and not cc["\\A"][0].isdigit() and "0" in m.group(2) and "1" in m.group(2):
                bits = m.group(2)[::-1]
                zero, one = bits.index("0"), bits.index("1")
                base = "mutate -module %s -cell %s -port A -portbit %%d" % (name[1:], cname)
                return [("proved", "mutate -mode const1 " + (base % zero)[7:]),
                        ("differs", "mutate -mode inv " + (base % one)[7:])]
    return []


def result_lines(outf):
    """{id: line} of a result file (equiv.txt, equiv-ctx.txt) written so far; {} before the first."""
    old = {}
    if os.path.exists(outf):
        for l in open(outf):
            p = l.split()
            if p and p[0].isdigit():
                old[int(p[0])] = l.rstrip("\n")
    return old


def compare(d, outf, answers_file):
    """Each verdict beside the mutant's answer (looked up as tools/mutate_rtl.py report does)."""
    answers, lst = read_answers(answers_file), read_list(d)
    for l in open(outf):
        p = l.split()
        if not p or not p[0].isdigit():
            continue
        key = p[3]
        ans = lookup(answers, *lst[int(p[0])])[1] if int(p[0]) in lst else None
        kind = ans.split(":")[0].split()[0] if ans else "-"
        print("%s %-8s %-12s %s %s" % (d, p[1], kind, p[0], key))
    return 0


# A register fed through a masked AND (asynchronous reset, enable): forcing a masked input bit is
# equivalent only by induction over the registers (r, then q); forcing an unmasked bit differs.
SEQ_TOY = """module seq_toy(input clk, input rst_n, input en, input [3:0] a, output reg [3:0] q, output [3:0] y);
  reg [3:0] r;
  always @(posedge clk or negedge rst_n)
    if (!rst_n) begin r <= 4'd0; q <= 4'd0; end
    else begin if (en) r <= a & 4'b0111; q <= r; end
  assign y = a ^ r;
endmodule
"""


def selftest_seq(d, a):
    """The sequential hand-made check in D/selftest-seq -> [(mutation, verdict, want, note, cpu)]."""
    w = os.path.join(d, "selftest-seq")
    os.makedirs(w, exist_ok=True)
    open(os.path.join(w, "seq_toy.v"), "w").write(SEQ_TOY)
    b = Budget(a.timeout)
    yosys("read_verilog {w}/seq_toy.v; proc; opt_clean; rename seq_toy seq_toy__d0; write_rtlil {w}/prepped.il"
          .format(w=w), os.path.join(w, "y-toy.log"), b)
    _, mods = split_modules(open(os.path.join(w, "prepped.il")).read())
    cell = next(c[1] for c in parse_module(dict(mods)["\\seq_toy__d0"])[2] if c[0] == "$and")
    out = []
    for k, (want, bit) in enumerate((("proved", 3), ("differs", 2)), 1):
        m = "mutate -mode const1 -module seq_toy__d0 -cell %s -port A -portbit %d" % (cell, bit)
        b = Budget(a.timeout)
        v, note = check(w, "seq-%d" % k, m, mods, port_directions(mods), a, b)
        out.append((m, v, want, note, b.used))
    return out


def context_main(a, d, outdir, ids, lst):
    """--context: one flatten of the build, then each mutant's cone; DIR/equiv-ctx.txt (or --out)
    gets "id verdict CPU-seconds key" lines, CPU the mutant's own (the flatten's is printed once)."""
    unobs = [x for x in a.unobserved.split(",") if x]
    outf = a.out or os.path.join(outdir, "equiv-ctx.txt")
    t = resource.getrusage(resource.RUSAGE_SELF)
    fb = Budget(max(a.timeout, 900))
    ctx = Context(d, outdir, a.context, {i: lst[i][1] for i in ids}, fb)
    ctx.all_hits = a.all_ports
    t2 = resource.getrusage(resource.RUSAGE_SELF)
    print("# context %s: flatten %.1f CPU s (Yosys), netlist %.1f CPU s; %s" % (
        ctx.name, fb.used, t2.ru_utime + t2.ru_stime - t.ru_utime - t.ru_stime,
        "observed: every output" + (" but " + ",".join(unobs) if unobs else "")), flush=True)
    old = result_lines(outf)
    for i in ids:
        src, m = lst[i]
        t0 = resource.getrusage(resource.RUSAGE_SELF)
        v, note = ctx.check(i, m, unobs)
        t1 = resource.getrusage(resource.RUSAGE_SELF)
        cpu = t1.ru_utime + t1.ru_stime - t0.ru_utime - t0.ru_stime
        line = "%d %s %.1f %s" % (i, v, cpu, answer_keys(src, m)[0])
        print("%s  # %s" % (line, note), flush=True)
        old[i] = line
    with open(outf + ".tmp", "w") as f:
        f.write("".join(old[k] + "\n" for k in sorted(old)))
    os.replace(outf + ".tmp", outf)
    return 0


# A byte picked from 6 at offset 2 or 4 (a shift by a variable amount of two values), and a memory
# whose write port enables bits 3:0 only: a bit of byte 3, or a data bit 7:4, reaches no output.
# Two registers with an asynchronous reset to 0 and a soft reset (sz, sr): z is only ever loaded
# with 0, so its soft-reset mux's select does not matter; r loads wd, so it does.
CTX_TOY = """module ctx_toy(input clk, input rst_n, input sel, input we, input sz, input sr, input [3:0] wa,
               input [3:0] ra, input [7:0] wd, input [47:0] bytes, output [7:0] y, output reg [7:0] q,
               output reg [3:0] z, output reg [3:0] r);
  wire [2:0] o = sel ? 3'd2 : 3'd4;
  assign y = bytes[8*o +: 8];
  reg [7:0] mem [0:15];
  always @(posedge clk) begin
    if (we) mem[wa][3:0] <= wd[3:0];
    q <= mem[ra];
  end
  always @(posedge clk or negedge rst_n)
    if (!rst_n) begin z <= 4'd0; r <= 4'd0; end
    else begin
      z <= sz ? 4'd0 : (we ? 4'd0 : z);
      r <= sr ? 4'd0 : (we ? wd[3:0] : r);
    end
endmodule
"""


def selftest_ctx_toy(outdir):
    """CTX_TOY's four context checks -> [(mutation, verdict, want, note, CPU s)]."""
    w = os.path.join(outdir, "selftest-ctx-toy")
    os.makedirs(w, exist_ok=True)
    open(os.path.join(w, "ctx_toy.v"), "w").write(CTX_TOY)
    b = Budget(120)
    yosys("read_verilog {w}/ctx_toy.v; proc; opt_clean; memory_collect; rename ctx_toy ctx_toy__d0; "
          "write_rtlil {w}/prepped.il".format(w=w), os.path.join(w, "y-toy.log"), b)
    _, mods = split_modules(open(os.path.join(w, "prepped.il")).read())
    cells = parse_module(dict(mods)["\\ctx_toy__d0"])[2]
    sh = next(c[1] for c in cells if c[0] == "$shiftx")
    sz, sr = (next(c[1] for c in cells if c[0] == "$mux" and c[2].get("\\S") == x) for x in ("\\sz", "\\sr"))
    base = "mutate -mode inv -module ctx_toy__d0 -cell %s -port %s -portbit %d"
    tests = [("proved", base % ("mem", "WR_DATA", 6)), ("unknown", base % ("mem", "WR_DATA", 2)),
             ("proved", base % (sh, "A", 25)), ("unknown", base % (sh, "A", 17)),
             ("proved", base % (sz, "S", 0)), ("unknown", base % (sr, "S", 0))]
    ctx = Context(w, w, "auto", {k + 1: m for k, (_, m) in enumerate(tests)}, b)
    out = []
    for k, (want, m) in enumerate(tests):
        t0 = time.process_time()
        v, note = ctx.check(k + 1, m, [])
        out.append((m, v, want, note, time.process_time() - t0))
    return out


def selftest_context(d, outdir, a):
    """Hand-made mutations of hca_ctx's QPC RAM (u_qpc), the engine port's read register b_rdata,
    checked in the design flattened up to the top: a bit of the QPC's FLOW_LABEL (an IPv6 field
    that no engine module reads: proved; the module-level check cannot, b_rdata is a port there)
    and a bit of DEST_QPN (read into every request header: not proved).  The offsets come from
    rtl/include/hca_spec.vh.  -> [(mutation, verdict, want, note, CPU s)]"""
    spec = open(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "rtl", "include", "hca_spec.vh")).read()
    off = lambda f: int(re.search(r"`define HCA_QPC_%s_OFF (\d+)" % f, spec).group(1))
    b = Budget(max(a.timeout, 900))
    w = os.path.join(outdir, "ctx")
    os.makedirs(w, exist_ok=True)
    _, mods = split_modules(open(procd(d, w, b)).read())
    src = dict(mods)
    ctx = next((ls for n, ls in mods if re.search(r"(^\\|\\)hca_ctx(__d\d+)?$", n)), None)
    if ctx is None:
        return [("-", "no hca_ctx", "proved", "DIR has no hca_ctx module", 0)]
    qpc = next(l.split()[1] for l in ctx if re.match(r"  cell \S+ \\u_qpc$", l))
    _, _, cells, _ = parse_module(src[qpc])
    reg = next(c[1] for c in cells if c[0] in FF_TYPES and c[2].get("\\Q") == "\\b_rdata")
    tests = [("proved", "mutate -mode inv -module %s -cell %s -port Q -portbit %d" % (qpc, reg, 8 * off("FLOW_LABEL") + 3)),
             ("unknown", "mutate -mode inv -module %s -cell %s -port Q -portbit %d" % (qpc, reg, 8 * off("DEST_QPN") + 1))]
    muts = {900001 + k: m for k, (_, m) in enumerate(tests)}
    ctx = Context(d, outdir, "auto", muts, b)
    out = []
    for k, (want, m) in enumerate(tests):
        t0 = time.process_time()
        v, note = ctx.check(900001 + k, m, [])
        out.append((m, v, want, note, time.process_time() - t0))
    print("# context %s: proc and flatten %.1f CPU s (Yosys)" % (ctx.name, b.used))
    return selftest_ctx_toy(outdir) + out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--ids", help="comma list of mutant ids (default: survived and pending)")
    ap.add_argument("--all", action="store_true", help="every mutant with a result")
    ap.add_argument("--killed", action="store_true", help="the killed mutants (soundness check)")
    ap.add_argument("--timeout", type=float, default=60, help="CPU seconds of Yosys per mutant (then unknown)")
    ap.add_argument("--seq", type=int, default=4, help="induction depth")
    ap.add_argument("--bmc", type=int, default=4, help="bounded search depth for differs")
    ap.add_argument("--out", help="result file (default DIR/equiv.txt)")
    ap.add_argument("--results", default="results", help="subdirectory of DIR with the judge's result files")
    ap.add_argument("--compare", metavar="ANSWERS",
                    help="print each verdict of the result file beside the answer (sim/mutate/answers_rtl.txt)")
    ap.add_argument("--resume", action="store_true", help="skip the ids the result file has already")
    ap.add_argument("--selftest", action="store_true",
                    help="hand-made CRC mask mutations (DIR holds hca_crc32_blk): proved, differs")
    ap.add_argument("--context", metavar="ANCESTOR",
                    help="check in the design flattened up to ANCESTOR (a module name, or auto: the top)")
    ap.add_argument("--unobserved", default="", metavar="PORTS",
                    help="with --context: output ports of ANCESTOR not taken as observations (comma list)")
    ap.add_argument("--all-ports", action="store_true",
                    help="with --context: list every output an unproved mutant reaches (else the first found)")
    ap.add_argument("--outdir", help="write results and work files here instead of DIR (DIR stays read-only)")
    a = ap.parse_args()
    d = a.dir
    if a.compare:
        return compare(d, a.out or os.path.join(d, "equiv.txt"), a.compare)
    if a.selftest and a.context:
        bad = 0
        for m, v, want, note, used in selftest_context(d, a.outdir or d, a):
            bad += v != want
            print("%s %s: %s (want %s; %.1f CPU s; %s)" % ("ok  " if v == want else "FAIL", m, v, want, used, note))
        return 1 if bad else 0
    if a.selftest:
        tail, mods = split_modules(open(os.path.join(d, "prepped.il")).read())
        bad = 0
        tests = selftest_mutations(mods)
        if not tests:
            print("FAIL no hca_crc32_blk AND with a constant mask in %s/prepped.il" % d)
            return 1
        res = []
        for k, (want, m) in enumerate(tests, 1):
            b = Budget(a.timeout)
            v, note = check(d, "selftest-%d" % k, m, mods, port_directions(mods), a, b)
            res.append((m, v, want, note, b.used))
        res += selftest_seq(d, a)
        for m, v, want, note, used in res:
            bad += v != want
            print("%s %s: %s (want %s; %.1f CPU s; %s)" % ("ok  " if v == want else "FAIL", m, v, want, used, note))
        return 1 if bad else 0
    lst = read_list(d)
    res = {i: r[0] for i, r in read_results(d, a.results).items()}
    if a.ids:
        ids = [int(x) for x in a.ids.split(",") if x]
    elif a.all:
        ids = sorted(res)
    elif a.killed:
        ids = sorted(i for i in res if res[i] == "killed")
    else:       # covered survivors (activated.txt, when the judge wrote it) and pending mutants
        act = read_activated(d) if os.path.exists(os.path.join(d, "activated.txt")) else set(res)
        ids = sorted(i for i in res if res[i] == "pending" or (res[i] == "survived" and i in act))
    outdir = a.outdir or d
    if a.context:
        return context_main(a, d, outdir, ids, lst)
    tail, mods = split_modules(open(os.path.join(d, "prepped.il")).read())
    dirs = port_directions(mods)
    outf = a.out or os.path.join(outdir, "equiv.txt")
    for i in ids:
        if a.resume:        # several runs may share a build: each mutant is claimed by one
            if i in result_lines(outf):
                continue
            os.makedirs(os.path.join(outdir, "equiv"), exist_ok=True)
            try:
                os.close(os.open(os.path.join(outdir, "equiv", "%d.claim" % i), os.O_CREAT | os.O_EXCL))
            except FileExistsError:
                continue
        src, m = lst[i]
        b = Budget(a.timeout)
        v, note = check(outdir, i, m, mods, dirs, a, b)
        line = "%d %s %.1f %s" % (i, v, b.used, answer_keys(src, m)[0])
        print("%s  # %s" % (line, note), flush=True)
        old = result_lines(outf)
        old[i] = line
        with open(outf + ".tmp", "w") as f:
            f.write("".join(old[k] + "\n" for k in sorted(old)))
        os.replace(outf + ".tmp", outf)
    return 0


if __name__ == "__main__":
    sys.exit(main())
