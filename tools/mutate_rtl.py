#!/usr/bin/python3
"""RTL mutation analysis in the way of YosysHQ's MCY (docs/sim.md "Mutation").

    tools/mutate_rtl.py netlist --out DIR --count N --seed S --width W SRC...
        Yosys: read the RTL, prep -flatten, `mutate -list N` samples N
        mutations (DIR/mutations.txt), applies them all behind
        `mutate -ctrl mutsel 10 <id>` (id 1..N; 0 = the design as written),
        adds for every mutation an activation probe (output mut_act[id-1]: the
        mutated cell's output differs from the original in this cycle) and
        writes DIR/mutants.v, one netlist that Verilator builds once.
    tools/mutate_rtl.py report --out DIR [--answers FILE]
        Reads DIR/results/*.txt (one line per mutant: "id killed|survived
        reason") and DIR/activated.txt, writes DIR/report.txt.

The judge (which tests run against each mutant) is sim/mutate/judge_rtl.sh.
"""
import argparse
import glob
import os
import re
import subprocess
import sys

W = 10  # mutsel width: up to 1023 mutants


def yosys(script, log):
    r = subprocess.run([os.environ.get("YOSYS", "yosys"), "-q", "-l", log, "-p", script],
                       stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit("mutate_rtl: yosys failed, see %s" % log)


def parse_cells(lines):
    """RTLIL module body -> list of (start, end, type, name, {port: sig}, {param: value})."""
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


def add_probes(il_in, il_out, n):
    lines = open(il_in).read().split("\n")
    cells = parse_cells(lines)
    sel = {}
    for _, _, t, _, c, _ in cells:
        if t == "$eq" and c.get("\\A") == "\\mutsel":
            b = c.get("\\B", "")
            m = re.match(r"(\d+)'([01]+)$", b)
            if m:
                sel[c["\\Y"]] = int(m.group(2), 2)
    probes = []
    for _, _, t, name, c, p in cells:
        if t == "$mux" and c.get("\\S") in sel:
            probes.append((sel[c["\\S"]], c["\\A"], c["\\B"], p.get("\\WIDTH", "1")))
    ports = [int(m.group(1)) for l in lines for m in [re.match(r"\s*wire .*(?:input|output|inout) (\d+) ", l)] if m]
    nextport = max(ports) + 1 if ports else 1
    # insert before the `end` of module \hca_top (the only module after flatten)
    end = max(i for i, l in enumerate(lines) if l.strip() == "end")
    add = ["  wire width %d output %d \\mut_act" % (n, nextport)]
    seen = set()
    for idx, a, b, w in probes:
        seen.add(idx)
        add += ["  wire \\mut_act_%d" % idx,
                "  cell $ne \\mut_probe_%d" % idx,
                "    parameter \\A_SIGNED 0", "    parameter \\B_SIGNED 0",
                "    parameter \\A_WIDTH %s" % w, "    parameter \\B_WIDTH %s" % w, "    parameter \\Y_WIDTH 1",
                "    connect \\A %s" % a, "    connect \\B %s" % b, "    connect \\Y \\mut_act_%d" % idx, "  end"]
    for idx in range(1, n + 1):
        add.append("  connect \\mut_act [%d] %s" % (idx - 1, "\\mut_act_%d" % idx if idx in seen else "1'0"))
    lines[end:end] = add
    open(il_out, "w").write("\n".join(lines))
    return len(seen)


def netlist(a):
    os.makedirs(a.out, exist_ok=True)
    out = os.path.abspath(a.out)
    srcs = " ".join(a.src)
    yosys("read_verilog -sv -Irtl -Irtl/include %s; chparam -set DATA_W %d hca_top; prep -top hca_top -flatten; "
          "write_rtlil %s/design.il; mutate -list %d -seed %d -o %s/mutations.txt"
          % (srcs, a.width, out, a.count, a.seed, out), "%s/yosys-list.log" % out)
    apply_all(a, out)


def apply_all(a, out):
    muts = [l.strip() for l in open("%s/mutations.txt" % out) if l.strip()]
    with open("%s/mutate.ys" % out, "w") as f:
        f.write("read_rtlil %s/design.il\n" % out)
        for i, m in enumerate(muts, 1):
            f.write("mutate -ctrl mutsel %d %d %s\n" % (W, i, m.split(None, 1)[1]))
        f.write("write_rtlil %s/mutated.il\n" % out)
    r = subprocess.run([os.environ.get("YOSYS", "yosys"), "-q", "-l", "%s/yosys-mutate.log" % out,
                        "%s/mutate.ys" % out], stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
    if r.returncode:
        sys.exit("mutate_rtl: yosys mutate failed, see %s/yosys-mutate.log" % out)
    n = add_probes("%s/mutated.il" % out, "%s/probed.il" % out, len(muts))
    yosys("read_rtlil %s/probed.il; write_verilog -noattr %s/mutants.v" % (out, out), "%s/yosys-write.log" % out)
    with open("%s/list.txt" % out, "w") as f:
        for i, m in enumerate(muts, 1):
            src = re.findall(r"-src (\S+)", m)   # the innermost (last) source location
            f.write("%d %s %s\n" % (i, src[-1] if src else "?", m))
    print("mutate_rtl: %d mutations of hca_top (DATA_W %d, seed %d), %d activation probes -> %s/mutants.v"
          % (len(muts), a.width, a.seed, n, a.out))


def report(a):
    lst = {}
    for l in open(os.path.join(a.out, "list.txt")):
        i, src, m = l.rstrip("\n").split(" ", 2)
        lst[int(i)] = (src, m)
    res = {}
    for f in glob.glob(os.path.join(a.out, a.results, "*.txt")):
        for l in open(f):
            p = l.split(None, 2)
            if len(p) >= 2 and p[0].isdigit():
                res[int(p[0])] = (p[1], p[2].strip() if len(p) > 2 else "")
    act = set()
    if os.path.exists(os.path.join(a.out, "activated.txt")):
        act = {int(l) for l in open(os.path.join(a.out, "activated.txt")) if l.strip().isdigit()}
    answers = {}
    if a.answers and os.path.exists(a.answers):
        for l in open(a.answers):
            if l.strip() and not l.startswith("#"):
                k, v = l.split(None, 1)
                answers[k] = v.strip()
    killed = [i for i in res if res[i][0] == "killed"]
    surv = [i for i in res if res[i][0] == "survived" and i in act]
    nocov = [i for i in res if res[i][0] == "survived" and i not in act]
    cov = len(killed) + len(surv)
    lines = ["RTL mutation analysis: %d mutants (%s/%s)" % (len(res), a.out, a.results),
             "  killed       %4d" % len(killed),
             "  survived     %4d  (activated by the judge, not detected)" % len(surv),
             "  not covered  %4d  (the mutated cell never changed its output under the judge)" % len(nocov),
             "  score: %d of %d covered mutants killed = %.1f %%" % (len(killed), cov, 100.0 * len(killed) / cov if cov else 0),
             "", "survivors (covered), with their answer (%s):" % (a.answers or "none")]
    for i in sorted(surv):
        src, m = lst.get(i, ("?", "?"))
        key = "%s:%s" % (src, re.search(r"-mode (\S+)", m).group(1) if "-mode" in m else "?")
        lines.append("  #%-4d %-40s %s" % (i, src, answers.get(key, answers.get(src, "NO ANSWER YET"))))
        lines.append("         %s" % m)
    lines.append("")
    lines.append("not covered: %s" % " ".join("#%d(%s)" % (i, lst.get(i, ("?",))[0]) for i in sorted(nocov)))
    text = "\n".join(lines) + "\n"
    open(os.path.join(a.out, "report.txt"), "w").write(text)
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
    n.add_argument("src", nargs="+")
    r = sp.add_parser("report")
    r.add_argument("--out", required=True)
    r.add_argument("--answers")
    r.add_argument("--results", default="results", help="subdirectory of --out with the result files")
    a = ap.parse_args()
    return netlist(a) if a.cmd == "netlist" else report(a)


if __name__ == "__main__":
    sys.exit(main() or 0)
