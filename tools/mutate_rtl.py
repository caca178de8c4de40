#!/usr/bin/python3
"""RTL mutation analysis in the way of YosysHQ's MCY (docs/sim.md "Mutation").

    tools/mutate_rtl.py netlist --out DIR --count N --seed S --width W [--modules M,...] SRC...
        Yosys reads the RTL (SRC: rtl/rtl.mk's RTL_SRCS; copies in DIR/ysrc with
        a parameter value '1 spelled out, which Yosys 0.23 reads as 1: PARAM_ONES)
        and elaborates the hierarchy (`hierarchy -top hca_top`, DATA_W W); the modules to mutate
        (--modules, default every module of SRC) are renamed per parameter
        set (M__d0, M__d1, ...: one per derivation), get `prep`'s coarse
        passes (proc, opt, wreduce, memory_collect; the other modules are
        never processed) and `mutate -list N` samples N mutations in them
        (DIR/mutations.txt).  Every mutation is applied behind
        `mutate -ctrl mutsel 10 <id>` (id 1..N; 0 = the design as written)
        with an activation probe (the mutated cell's output differs from the
        original).  Only the mutated modules are written as Yosys netlists
        (DIR/mutants.v); `mutsel` comes from the simulator
        (DPI-C hca_rtl_mutsel(), read once at time 0) and the probes report
        through DPI-C hca_rtl_mut_act(id) at the rising clock edge, so no
        port is added.  DIR/wrap/<file> keeps each mutated module's original
        header (parameters, ports) and picks the derivation matching its
        parameters.  DIR/verilator.f lists the sources of the mutant build:
        the wrappers, mutants.v, and every other source as written -- the
        design is neither flattened nor netlisted outside the mutated modules.
    tools/mutate_rtl.py report --out DIR [--answers FILE]
        Reads DIR/results/*.txt (one line per mutant: "id killed|survived|pending
        reason") and DIR/activated.txt, writes DIR/report.txt.
    tools/mutate_rtl.py survivors --answers FILE [-o OUT] [-v] DIR...
        Over several measurements (the groups' builds): the counts per group, every
        survivor and pending mutant with its answer key and the answer's kind, the
        survivors with no answer, and the contradictions (a survivor whose answer says
        `killed:`).  sim/mutate/measured_rtl.txt is its output.

The judge (which tests run against each mutant) is sim/mutate/run_rtl.sh.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

W = 10  # mutsel width: up to 1023 mutants


def yosys(script, log, cwd=None):
    r = subprocess.run([os.environ.get("YOSYS", "yosys"), "-q", "-l", log, "-p", script],
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, cwd=cwd)
    if r.returncode:
        sys.exit("mutate_rtl: yosys failed, see %s" % log)


def parse_cells(lines):
    """RTLIL lines -> list of (start, end, type, name, {port: sig}, {param: value})."""
    cells, i = [], 0
    while i < len(lines):
        m = re.match(r"\s*cell (\S+) (\S+)\s*$", lines[i])
        if m:
            j, conns, params = i + 1, {}, {}
            while not re.match(r"\s*end\s*$", lines[j]):
                c = re.match(r"\s*connect (\S+) (.*)$", lines[j])
                p = re.match(r"\s*parameter (\S+) (.*)$", lines[j])
                if c:
                    conns[c.group(1)] = c.group(2).strip()
                elif p:
                    params[p.group(1)] = p.group(2).strip()
                j += 1
            cells.append((i, j, m.group(1), m.group(2), conns, params))
            i = j
        i += 1
    return cells


# Yosys 0.23 reads an unsized all-ones literal as the value of a parameter with a packed
# range as 1: `localparam logic [63:0] NEVER = '1;` becomes 64'h1 (Verilator: all ones).
PARAM_ONES = re.compile(r"(\b(?:localparam|parameter)\b[^;=]*?\[([^]:]+):([^]]+)\]\s*\w+\s*=\s*)'1\b")


def yosys_sources(srcs, out):
    """Copies of SRC (and the headers next to them and in rtl/include) under OUT/ysrc, the same
    relative paths (Yosys's -src locations unchanged when it runs there), with every parameter
    value '1 written as a replication of 1'b1 of the parameter's width (PARAM_ONES): the netlist
    then holds the value Verilator gives the RTL as written.  Returns the places rewritten."""
    fixed = []
    dirs = {os.path.dirname(f) for f in srcs} | {"rtl/include"}
    files = list(srcs) + [os.path.join(d, f) for d in sorted(dirs) if os.path.isdir(d)
                          for f in sorted(os.listdir(d)) if f.endswith(".vh")]
    for f in files:
        if os.path.isabs(f) or f.startswith(".."):
            sys.exit("mutate_rtl: sources must be given relative to the project: %s" % f)
        text = open(f).read()
        new = PARAM_ONES.sub(lambda m: "%s{((%s)-(%s)+1){1'b1}}" % (m.group(1), m.group(2), m.group(3)), text)
        if new != text:
            fixed += ["%s:%d" % (f, text[:m.start()].count("\n") + 1) for m in PARAM_ONES.finditer(text)]
        d = os.path.join(out, "ysrc", os.path.dirname(f))
        os.makedirs(d, exist_ok=True)
        open(os.path.join(out, "ysrc", f), "w").write(new)
    return fixed


def modules_of(srcs):
    """Module name -> source file (one module per file, as the project's rules want)."""
    mods = {}
    for f in srcs:
        for m in re.finditer(r"^\s*module\s+(\w+)", open(f).read(), re.M):
            mods[m.group(1)] = f
    return mods


def split_modules(text):
    """RTLIL text -> (trailing lines, [(name, [lines])]); a module's lines start with the
    lines before it (its attributes) and end with its `end`."""
    mods, cur, pending = [], None, []
    for l in text.split("\n"):
        m = re.match(r"module (\S+)$", l)
        if m:
            cur = (m.group(1), pending + [l])
            pending = []
            mods.append(cur)
        elif cur is None:
            pending.append(l)
        else:
            cur[1].append(l)
            if l == "end":
                cur = None
    return pending, mods


def base_name(rtlil_name):
    """\\M, $paramod\\M\\P=..., $paramod$<hash>\\M -> M."""
    m = re.match(r"\$paramod(?:\$[0-9a-f]+)?\\([^\\]+)", rtlil_name)
    return m.group(1) if m else rtlil_name.lstrip("\\")


def rtlil_const(v):
    """RTLIL parameter value -> Verilog expression."""
    m = re.match(r"(\d+)'([01xz]+)$", v)
    if m:
        return "%s'b%s" % (m.group(1), m.group(2))
    if re.match(r"-?\d+$", v):
        return v
    return v  # strings are already quoted


def rename(out, targets):
    """design.il -> renamed.il with every derivation of a target module named M__d<k>;
    returns {M: [(derived name, {param: value})]} and, for the other modules,
    {Yosys name: (M, {param: value})}."""
    tail, mods = split_modules(open("%s/design.il" % out).read())
    deriv, names, others = {}, {}, {}
    for name, lines in mods:
        b = base_name(name)
        params = {}
        for l in lines:
            p = re.match(r"  parameter \\(\S+) (.*)$", l)
            if p:
                params[p.group(1)] = p.group(2).strip()
        if b in targets:
            new = "\\%s__d%d" % (b, len(deriv.setdefault(b, [])))
            deriv[b].append((new[1:], params))
            names[name] = new
        else:
            others[name] = (b, params)
    text = []
    for name, lines in mods:
        for l in lines:
            m = re.match(r"(module |  cell )(\S+)(.*)$", l)
            if m and m.group(2) in names:
                l = m.group(1) + names[m.group(2)] + m.group(3)
            text.append(l)
    open("%s/renamed.il" % out, "w").write("\n".join(text + tail))
    return deriv, others


def instances_as_written(body, others):
    """A netlist's instances of modules that are not mutated name the module as written, with
    its parameters (Yosys names them after the derivation: `\\$paramod...\\M `)."""
    for name, (b, params) in others.items():
        if name == "\\" + b:
            continue
        esc = "\\" + name + " "
        if esc in body:
            ov = ", ".join(".%s(%s)" % (p, rtlil_const(v)) for p, v in sorted(params.items()))
            body = body.replace(esc, "%s #(%s) " % (b, ov))
    return body


def add_probes(il_in, il_out):
    """A probe wire \\mut_act_<id> (mutated value != original) per mutation, in its module."""
    tail, mods = split_modules(open(il_in).read())
    seen = 0
    text = []
    for name, lines in mods:
        cells = parse_cells(lines)
        sel = {}
        for _, _, t, _, c, _ in cells:
            if t == "$eq" and c.get("\\A") == "\\mutsel":
                m = re.match(r"(\d+)'([01]+)$", c.get("\\B", ""))
                if m:
                    sel[c["\\Y"]] = int(m.group(2), 2)
        add = []
        for _, _, t, _, c, p in cells:
            if t == "$mux" and c.get("\\S") in sel:
                idx, w = sel[c["\\S"]], p.get("\\WIDTH", "1")
                seen += 1
                add += ["  attribute \\keep 1", "  wire \\mut_act_%d" % idx,
                        "  cell $ne \\mut_probe_%d" % idx,
                        "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0",
                        "    parameter \\A_WIDTH %s" % w, "    parameter \\B_WIDTH %s" % w, "    parameter \\Y_WIDTH 1",
                        "    connect \\A %s" % c["\\A"], "    connect \\B %s" % c["\\B"],
                        "    connect \\Y \\mut_act_%d" % idx, "  end"]
        text += lines[:-1] + add + [lines[-1]]
    open(il_out, "w").write("\n".join(text + tail))
    return seen


def dpi_module(body, clocked):
    """Yosys Verilog of one mutated module: mutsel from the simulator, probes reported by DPI."""
    body = re.sub(r",\s*mutsel\s*\)", ")", body, count=1)      # the port list
    body = re.sub(r"\(\s*mutsel\s*,", "(", body, count=1)
    body = re.sub(r"\.mutsel\(mutsel\),\s*", "", body)      # mutate -ctrl threads it into instances
    body = re.sub(r",(\s*)\.mutsel\(mutsel\)(\s*\))", r"\1\2", body)
    body = re.sub(r"\n\s*input \[%d:0\] mutsel;" % (W - 1), "", body)
    body = re.sub(r"\n\s*wire \[%d:0\] mutsel;" % (W - 1),
                  "\n  import \"DPI-C\" function int hca_rtl_mutsel();\n  reg [%d:0] mutsel;\n"
                  "  initial mutsel = %d'(hca_rtl_mutsel());" % (W - 1, W), body)
    ids = sorted(set(int(x) for x in re.findall(r"\bmut_act_(\d+)\b", body)))
    if ids:
        ev = "@(posedge clk)" if clocked else "@*"
        add = ["  import \"DPI-C\" function void hca_rtl_mut_act(input int id);"]
        add += ["  always %s if (mut_act_%d) hca_rtl_mut_act(%d);" % (ev, i, i) for i in ids]
        body = re.sub(r"\nendmodule\s*$", "\n" + "\n".join(add) + "\nendmodule\n", body)
    return body


def blank_comments(src):
    """src with // and /* */ comments and strings blanked (positions kept)."""
    return re.sub(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\])*"', lambda m: re.sub(r"[^\n]", " ", m.group(0)), src,
                  flags=re.S)


def header_end(src, name):
    """Index just after the `;` that ends module `name`'s header (parameter and port lists)."""
    src = blank_comments(src)
    m = re.search(r"^\s*module\s+%s\b" % name, src, re.M)
    i = m.end()
    for _ in range(2):
        while src[i].isspace():
            i += 1
        if src[i] == "#":
            i += 1
            while src[i].isspace():
                i += 1
        if src[i] != "(":
            break
        depth = 0
        while True:
            depth += {"(": 1, ")": -1}.get(src[i], 0)
            i += 1
            if depth == 0:
                break
    return src.index(";", i) + 1


def wrapper(src_file, name, derivs):
    """The original file with module `name`'s body replaced by a choice of its mutated derivations."""
    src = open(src_file).read()
    h = header_end(src, name)
    e = src.index("endmodule", h)
    body = ["", "  // mutation analysis (tools/mutate_rtl.py): the Yosys netlist of this", "  // parameter set"]
    for k, (dname, params) in enumerate(derivs):
        cond = " && ".join("(%s == %s)" % (p, rtlil_const(v)) for p, v in sorted(params.items())) or "1"
        body.append("  %sif (%s) begin : g_mut_d%d" % ("" if k == 0 else "else ", cond, k))
        body.append("    %s u_mut (.*);" % dname)
        body.append("  end")
    body.append("  else begin : g_mut_none")
    body.append("    initial $fatal(1, \"%s: no mutant netlist for these parameters\");" % name)
    body.append("  end")
    return src[:h] + "\n".join(body) + "\n" + src[e:]


# Modules not instantiated under hca_top, elaborated on their own when mutated.
OWN_TOP = {"hca_crc32_blk"}


def netlist(a):
    os.makedirs(os.path.join(a.out, "wrap"), exist_ok=True)
    out = os.path.abspath(a.out)
    mods = modules_of(a.src)
    targets = set(a.modules.split(",")) if a.modules else set(mods)
    bad = targets - set(mods)
    if bad:
        sys.exit("mutate_rtl: no such module in the sources: %s" % " ".join(sorted(bad)))
    fixed = yosys_sources(a.src, out)
    if fixed:
        print("mutate_rtl: parameter value '1 (Yosys 0.23 reads it as 1) written as all ones for Yosys: %s"
              % " ".join(fixed))
    # A target outside hca_top's hierarchy (hca_crc32_blk: the reference CRC block, which the
    # framers' CRC functions replaced in the design; tb_crc checks them against each other) is
    # elaborated on its own, with its default parameters, and kept beside the hierarchy.
    # (Without such a target the script is as it was: the same cell names, the same sample.)
    own = "".join("design -load srcs; hierarchy -check -top %s; design -stash own_%s; " % (m, m)
                  for m in sorted(targets & OWN_TOP))
    keep = "".join("design -copy-from own_%s %s; " % (m, m) for m in sorted(targets & OWN_TOP))
    if own:
        own = "design -save srcs; %sdesign -load srcs; " % own
    yosys("read_verilog -sv -Irtl -Irtl/include %s; %schparam -set DATA_W %d hca_top; hierarchy -check -top hca_top; "
          "%swrite_rtlil %s/design.il" % (" ".join(a.src), own, a.width, keep, out), "%s/yosys-hier.log" % out,
          cwd=os.path.join(out, "ysrc"))
    deriv, others = rename(out, targets)
    dmods = [d for m in sorted(deriv) for d, _ in deriv[m]]
    # prep's coarse passes (module-local without -flatten) on the mutated modules only:
    # the rest is never written, so a sample of a few small modules needs no prep of the design.
    sel = " ".join(dmods)
    yosys("read_rtlil {o}/renamed.il; proc {s}; opt_expr -keepdc {s}; opt_clean {s}; opt -noff -keepdc {s}; "
          "wreduce -keepdc {s}; opt_clean {s}; memory_collect {s}; opt -noff -keepdc -fast {s}; "
          "write_rtlil {o}/prepped.il".format(o=out, s=sel), "%s/yosys-prep.log" % out)
    yosys("read_rtlil %s/prepped.il; mutate -list %d -seed %d -o %s/mutations.txt %s"
          % (out, a.count, a.seed, out, sel), "%s/yosys-list.log" % out)
    muts = [l.strip() for l in open("%s/mutations.txt" % out) if l.strip()]
    with open("%s/mutate.ys" % out, "w") as f:
        f.write("read_rtlil %s/prepped.il\n" % out)
        for i, m in enumerate(muts, 1):
            f.write("mutate -ctrl mutsel %d %d %s\n" % (W, i, m.split(None, 1)[1]))
        f.write("write_rtlil %s/mutated.il\n" % out)
    r = subprocess.run([os.environ.get("YOSYS", "yosys"), "-q", "-l", "%s/yosys-mutate.log" % out,
                        "%s/mutate.ys" % out], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit("mutate_rtl: yosys mutate failed, see %s/yosys-mutate.log" % out)
    n = add_probes("%s/mutated.il" % out, "%s/probed.il" % out)
    # splitnets -driver: a vector whose bits are driven by different cells becomes one wire per
    # part, else Verilator sees a combinational loop through the vector (UNOPTFLAT) and iterates.
    yosys("read_rtlil %s/probed.il; splitnets -driver %s; select %s; write_verilog -noattr -selected %s/netlist.v"
          % (out, sel, sel, out), "%s/yosys-write.log" % out)
    text = open("%s/netlist.v" % out).read()
    parts = re.split(r"(?m)^(?=module )", text)
    with open("%s/mutants.v" % out, "w") as f:
        f.write(parts[0])
        for p in parts[1:]:
            clocked = re.search(r"\n\s*input (\[[^]]*\] )?clk;", p) is not None
            f.write(instances_as_written(dpi_module(p, clocked), others))
    srcs = []
    for src in a.src:
        names = [m for m, f in mods.items() if f == src and m in deriv]
        if not names:
            srcs.append(os.path.abspath(src))
            continue
        w = os.path.join(out, "wrap", os.path.basename(src))
        text = open(src).read()
        open(w, "w").write(wrapper(src, names[0], deriv[names[0]]))
        srcs.append(w)
    with open("%s/verilator.f" % out, "w") as f:
        f.write("\n".join(srcs + ["%s/mutants.v" % out]) + "\n")
    with open("%s/list.txt" % out, "w") as f:
        for i, m in enumerate(muts, 1):
            src = re.findall(r"-src (\S+)", m)   # the innermost (last) source location
            f.write("%d %s %s\n" % (i, src[-1] if src else "?", m))
    print("mutate_rtl: %d mutations in %d modules (%s; DATA_W %d, seed %d), %d activation probes -> %s"
          % (len(muts), len(deriv), " ".join(sorted(deriv)), a.width, a.seed, n, a.out))


def read_list(out):
    """DIR/list.txt -> {id: (innermost src, mutate command)}."""
    lst = {}
    for l in open(os.path.join(out, "list.txt")):
        i, src, m = l.rstrip("\n").split(" ", 2)
        lst[int(i)] = (src, m)
    return lst


def read_results(out, results="results"):
    """DIR/RESULTS/*.txt -> {id: (killed|survived|pending, reason)}."""
    res = {}
    for f in glob.glob(os.path.join(out, results, "*.txt")):
        for l in open(f):
            p = l.split(None, 2)
            if len(p) >= 2 and p[0].isdigit():
                res[int(p[0])] = (p[1], p[2].strip() if len(p) > 2 else "")
    return res


def read_activated(out):
    f = os.path.join(out, "activated.txt")
    return {int(l) for l in open(f) if l.strip().isdigit()} if os.path.exists(f) else set()


def read_answers(path):
    """answers_rtl.txt -> {KEY: answer}."""
    answers = {}
    if path and os.path.exists(path):
        for l in open(path):
            if l.strip() and not l.startswith("#"):
                k, v = l.split(None, 1)
                answers[k] = v.strip()
    return answers


def answer_keys(src, m):
    """A mutation's answer keys, most specific first: SRC:MODE:PORT:BIT, SRC:MODE, SRC."""
    key = "%s:%s" % (src, re.search(r"-mode (\S+)", m).group(1) if "-mode" in m else "?")
    bit = re.search(r"-port (\S+) -portbit (\d+)", m)
    return (["%s:%s:%s" % (key, bit.group(1), bit.group(2))] if bit else []) + [key, src]


def lookup(answers, src, m):
    """(key that matched or the most specific key, answer or None)."""
    keys = answer_keys(src, m)
    k = next((k for k in keys if k in answers), None)
    return (k, answers[k]) if k else (keys[0], None)


def answer_kind(ans):
    """An answer's kind: its first word (killed, equivalent, unreachable, open), or none."""
    if ans is None:
        return "none"
    w = re.match(r"[a-z]+", ans)
    return w.group(0) if w and w.group(0) in ("killed", "equivalent", "unreachable", "open") else "other"


def classify(out, results="results"):
    """(list, results, killed, survived, not covered, pending): the id lists of one measurement."""
    lst, res, act = read_list(out), read_results(out, results), read_activated(out)
    killed = sorted(i for i in res if res[i][0] == "killed")
    surv = sorted(i for i in res if res[i][0] == "survived" and i in act)
    nocov = sorted(i for i in res if res[i][0] == "survived" and i not in act)
    pending = sorted(i for i in res if res[i][0] == "pending")
    return lst, res, killed, surv, nocov, pending


def equiv_score(out, killed, surv):
    """The second score (docs/sim.md 11.3.1): survivors proven equivalent by tools/mutate_equiv.py
    (OUT/equiv.txt) leave the count: killed / (covered - proved)."""
    f = os.path.join(out, "equiv.txt")
    if not os.path.exists(f):
        return []
    v = {int(l.split()[0]): l.split()[1] for l in open(f) if l.split() and l.split()[0].isdigit()}
    proved = [i for i in surv if v.get(i) == "proved"]
    bad = [i for i in killed if v.get(i) == "proved"]
    cov = len(killed) + len(surv) - len(proved)
    lines = ["  proved equivalent %4d  (survivors; tools/mutate_equiv.py, %d of %d survivors checked: equiv.txt)"
             % (len(proved), len([i for i in surv if i in v]), len(surv)),
             "  score without them: %d of %d = %.1f %%" % (len(killed), cov, 100.0 * len(killed) / cov if cov else 0)]
    if bad:
        lines.append("  UNSOUND: killed mutants proved equivalent: %s" % " ".join("#%d" % i for i in sorted(bad)))
    return lines


def report(a):
    lst, res, killed, surv, nocov, pending = classify(a.out, a.results)
    answers = read_answers(a.answers)
    cov = len(killed) + len(surv)
    lines = ["RTL mutation analysis: %d mutants (%s/%s)" % (len(res), a.out, a.results),
             "  killed       %4d" % len(killed),
             "  survived     %4d  (activated by the judge, not detected)" % len(surv),
             "  not covered  %4d  (the mutated cell never changed its output under the judge)" % len(nocov),
             "  pending      %4d  (passed the fast programs, the slower ones not run yet: not counted)" % len(pending),
             "  score: %d of %d covered mutants killed = %.1f %%" % (len(killed), cov, 100.0 * len(killed) / cov if cov else 0),
             ] + equiv_score(a.out, killed, surv) + [
             "", "survivors (covered), with their answer (%s):" % (a.answers or "none")]
    for i in sorted(surv):
        src, m = lst.get(i, ("?", "?"))
        ans = lookup(answers, src, m)[1] if m != "?" else None
        lines.append("  #%-4d %-40s %s" % (i, src, ans or "NO ANSWER YET"))
        lines.append("         %s" % m)
    lines.append("")
    if pending:
        lines.append("pending: %s" % " ".join("#%d(%s)" % (i, lst.get(i, ("?",))[0]) for i in sorted(pending)))
    lines.append("not covered: %s" % " ".join("#%d(%s)" % (i, lst.get(i, ("?",))[0]) for i in sorted(nocov)))
    text = "\n".join(lines) + "\n"
    open(os.path.join(a.out, "report.txt"), "w").write(text)
    sys.stdout.write(text)
    return 0


KINDS = ("equivalent", "unreachable", "open", "killed", "other", "none")
PROVED = re.compile(r"\(proved: mutate_equiv[^)]*\)")


def proved_equivalent(ans):
    """An `equivalent` answer carrying a formal proof (tools/mutate_equiv.py, module or context mode:
    "(proved: mutate_equiv ...)"); such a survivor leaves the score's denominator, as MCY leaves out
    the equivalents its formal check proves.  An argued equivalent stays in."""
    return answer_kind(ans) == "equivalent" and PROVED.search(ans) is not None


def survivors(a):
    """Every survivor and pending mutant of the measurements DIR... with its answer (exact key:
    SRC:MODE:PORT:BIT, no shorter form), the counts per group, the survivors' answers by kind, the survivors with no
    answer, and the contradictions: a survivor whose answer says `killed:` (its test should have
    killed it: a key that matches another mutation, or a test that no longer kills)."""
    answers = read_answers(a.answers)
    rows, table, noans, contra, nocov_rows = [], [], [], [], []
    tot = [0] * 6 + [0] * len(KINDS) + [0]
    for d in a.dirs:
        if not os.path.exists(os.path.join(d, "list.txt")):
            sys.exit("mutate_rtl survivors: %s is no measured mutant build (no list.txt)" % d)
        g = re.sub(r"^rtl-", "", os.path.basename(os.path.normpath(d)))
        lst, res, killed, surv, nocov, pending = classify(d)
        kinds = dict.fromkeys(KINDS, 0)
        nproved = 0
        for i in surv + pending:
            src, m = lst[i]
            k = answer_keys(src, m)[0]      # the exact key only: a shorter key may name another mutation
            ans = answers.get(k)
            kind = answer_kind(ans)
            st = "survived" if i in surv else "pending"
            if st == "survived":
                kinds[kind] += 1
                nproved += proved_equivalent(ans)
            rows.append("%s #%d %s %s %s" % (g, i, k, st, kind))
            if a.verbose:
                rows.append("    %s" % m)
            if kind == "none" and st == "survived":
                noans.append("%s #%d %s" % (g, i, k))
            if kind == "killed":
                contra.append("%s #%d %s (%s): %s" % (g, i, k, st, ans))
        nocov_rows.append("%s: %s" % (g, " ".join("#%d(%s)" % (i, lst[i][0]) for i in nocov) or "none"))
        n = [len(lst), len(killed) + len(surv) + len(pending), len(killed), len(surv), len(pending), len(nocov)]
        n += [kinds[x] for x in KINDS] + [nproved]
        tot = [x + y for x, y in zip(tot, n)]
        table.append((g, n))
    table.append(("all", tot))
    head = "%-5s %7s %7s %6s %8s %7s %7s | %5s %5s %5s %6s %5s %5s %6s | %6s %6s" % (
        "group", "mutants", "covered", "killed", "survived", "pending", "notcov",
        "equiv", "unrch", "open", "killed", "other", "none", "score", "proved", "score")
    out = ["RTL mutation survivors (answers: %s)" % a.answers, "",
           "counts per group (covered: activated, pending included; score: killed of killed + survived,",
           "pending not counted); the survivors' answers by kind (killed = a contradiction); proved: the",
           "equivalent answers marked (proved: mutate_equiv ...), and the score without them in the",
           "denominator: killed of killed + survived - proved (MCY's rule)", head]

    def pct(k, c):
        return 100.0 * k / c if c else 0
    for g, n in table:
        out.append("%-5s %7d %7d %6d %8d %7d %7d | %5d %5d %5d %6d %5d %5d %5.1f%% | %6d %5.1f%%" % (
            (g,) + tuple(n[:-1]) + (pct(n[2], n[2] + n[3]), n[-1], pct(n[2], n[2] + n[3] - n[-1]))))
    out += ["", "survivors and pending (group #id key result answer-kind):"] + ["  " + r for r in rows]
    out += ["", "survivors with no answer (%d):" % len(noans)] + ["  " + r for r in noans]
    out += ["", "contradictions: a survivor or pending mutant whose answer says killed (%d):" % len(contra)]
    out += ["  " + r for r in contra]
    out += ["", "not covered (no judge program activates them):"] + ["  " + r for r in nocov_rows]
    text = "\n".join(out) + "\n"
    if a.o:
        open(a.o, "w").write(text)
    sys.stdout.write(text)
    return 0


def main():
    ap = argparse.ArgumentParser()
    sp = ap.add_subparsers(dest="cmd", required=True)
    n = sp.add_parser("netlist")
    n.add_argument("--out", required=True)
    n.add_argument("--count", type=int, default=200)
    n.add_argument("--seed", type=int, default=1)
    n.add_argument("--width", type=int, default=64)
    n.add_argument("--modules", help="comma-separated modules to mutate (default: every module of SRC)")
    n.add_argument("src", nargs="+")
    r = sp.add_parser("report")
    r.add_argument("--out", required=True)
    r.add_argument("--answers")
    r.add_argument("--results", default="results", help="subdirectory of --out with the result files")
    s = sp.add_parser("survivors")
    s.add_argument("--answers", required=True)
    s.add_argument("-o", help="also write the list to this file")
    s.add_argument("-v", "--verbose", action="store_true", help="each row followed by its mutation (the Yosys mutate command)")
    s.add_argument("dirs", nargs="+", help="measured builds (DIR/list.txt, DIR/results, DIR/activated.txt)")
    a = ap.parse_args()
    return {"netlist": netlist, "report": report, "survivors": survivors}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main() or 0)
