#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""mutate_rtl_survivors: tools/mutate_rtl.py survivors lists what it must.

Two made-up measurements (list.txt, results/, activated.txt, as run_rtl.sh
writes them) and an answers file; the expected rows are written here from the
rules of docs/sim.md 11.3, not from the tool's output:
1. the counts per group: covered = every activated mutant (killed, survived,
   pending), a survivor never activated is "not covered", score = killed of
   killed + survived (pending not counted); an `equivalent` answer marked
   "(proved: mutate_equiv ...)" counts as proved and leaves the second
   score's denominator (an unmarked one, or a mark on another kind, does not);
2. every survivor and pending mutant with its key SRC:MODE:PORT:BIT and the
   kind of the answer keyed exactly so;
3. a survivor with no answer is listed as such; an answer keyed on another
   bit, another line, or a shorter key (SRC, SRC:MODE) does not match (exact
   keys, no guessing);
4. a survivor or pending mutant whose answer says `killed:` is a contradiction;
5. the mutants not covered are listed apart, per group.
Ends with "N passed, N failed".
"""
import os
import subprocess
import sys
import tempfile

passed = failed = 0


def ok(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, ("\n" + detail) if detail else ""))


def measurement(d, muts, results, act):
    os.makedirs(os.path.join(d, "results"))
    with open(os.path.join(d, "list.txt"), "w") as f:
        for i, (src, m) in enumerate(muts, 1):
            f.write("%d %s mutate %s -src %s\n" % (i, src, m, src))
    for i, r in results.items():
        open(os.path.join(d, "results", "%d.txt" % i), "w").write("%d %s\n" % (i, r))
    open(os.path.join(d, "activated.txt"), "w").write("".join("%d\n" % i for i in act))


def main():
    tmp = tempfile.mkdtemp(prefix="mutsurv-")
    a = "rtl/a.sv:10.1-12.4"
    b = "rtl/b.sv:3.5-3.9"
    g1, g2 = os.path.join(tmp, "rtl-g1"), os.path.join(tmp, "rtl-g2")
    measurement(g1, [(a, "-mode inv -module a__d0 -cell $x -port B -portbit 7"),      # 1 killed
                     (a, "-mode inv -module a__d0 -cell $x -port B -portbit 8"),      # 2 survived, port-bit answer
                     (a, "-mode const0 -module a__d0 -cell $x -port Y -portbit 0"),   # 3 survived, answer
                     (b, "-mode const1 -module b__d0 -cell $y -port A -portbit 1"),   # 4 survived, answer
                     (b, "-mode cnot0 -module b__d0 -cell $y -port A -portbit 2"),    # 5 survived, no answer
                     (b, "-mode inv -module b__d0 -cell $y -port Q -portbit 3"),      # 6 pending, killed: answer
                     (b, "-mode inv -module b__d0 -cell $y -port Q -portbit 4"),      # 7 not covered
                     (a, "-mode inv -module a__d0 -cell $x -port B -portbit 11")],    # 8 survived, proved
                {1: "killed plan1: FAIL", 2: "survived judge passed (3 programs)",
                 3: "survived judge passed (1 programs)", 4: "survived judge passed (2 programs)",
                 5: "survived judge passed (2 programs)", 6: "pending 2 programs passed, 1 slower ones not run yet",
                 7: "survived not activated", 8: "survived judge passed (3 programs)"}, [1, 2, 3, 4, 5, 6, 8])
    measurement(g2, [(a, "-mode inv -module a__d1 -cell $z -port B -portbit 9")],   # 1 survived, killed: answer
                {1: "survived judge passed (4 programs)"}, [1])
    ans = os.path.join(tmp, "answers.txt")
    open(ans, "w").write("# comment\n"
                         "%s:inv:B:8 equivalent: bit 8 holds no field\n" % a +
                         "%s:const0:Y:0 unreachable: never written (proved: mutate_equiv)\n" % a +
                         "%s:inv:B:11 equivalent: bit 11 is read by nothing (proved: mutate_equiv --context top)\n" % a +
                         "%s:const1:A:1 open: needs a test\n" % b +
                         "%s equivalent: a key without mode and bit, must not match\n" % b +
                         "%s:cnot0 equivalent: a key without the bit, must not match\n" % b +
                         "%s:inv:Q:3 killed: rtl_x case (hand-applied)\n" % b +
                         "%s:inv:B:9 killed: rtl_y case\n" % a +
                         "rtl/b.sv:4.5-4.9:cnot0:A:2 equivalent: another line, must not match\n" +
                         "%s:cnot0:A:3 equivalent: another bit, must not match\n" % b)
    out = os.path.join(tmp, "measured.txt")
    r = subprocess.run([sys.executable, "tools/mutate_rtl.py", "survivors", "--answers", ans, "-o", out, g1, g2],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    ok(r.returncode == 0, "survivors runs", r.stdout)
    text = open(out).read() if os.path.exists(out) else ""
    ok(text == r.stdout, "-o writes what it prints")
    lines = text.split("\n")

    def row(g):
        return next((l.split() for l in lines if l.split()[:1] == [g]), [])
    # group mutants covered killed survived pending notcov | equiv unrch open killed other none score | proved score
    ok(row("g1")[:7] == ["g1", "8", "7", "1", "5", "1", "1"], "g1 counts", " ".join(row("g1")))
    ok(row("g1")[8:14] == ["2", "1", "1", "0", "0", "1"], "g1 survivors by answer kind", " ".join(row("g1")))
    ok(row("g1")[14:15] == ["16.7%"], "g1 score 1 of 6", " ".join(row("g1")))
    ok(row("g1")[16:] == ["1", "20.0%"], "g1: one proved equivalent (not the marked unreachable), 1 of 6 - 1",
       " ".join(row("g1")))
    ok(row("g2")[:7] == ["g2", "1", "1", "0", "1", "0", "0"] and row("g2")[11] == "1", "g2 counts, one killed: answer",
       " ".join(row("g2")))
    ok(row("all")[:7] == ["all", "9", "8", "1", "6", "1", "1"] and row("all")[16:] == ["1", "16.7%"],
       "sum over groups", " ".join(row("all")))
    want = ["g1 #2 %s:inv:B:8 survived equivalent" % a,
            "g1 #3 %s:const0:Y:0 survived unreachable" % a,
            "g1 #4 %s:const1:A:1 survived open" % b,
            "g1 #5 %s:cnot0:A:2 survived none" % b,
            "g1 #6 %s:inv:Q:3 pending killed" % b,
            "g2 #1 %s:inv:B:9 survived killed" % a]
    for w in want:
        ok(any(w in l for l in lines), "row: " + w)
    ok(not any(" #1 " in l and l.strip().startswith("g1") for l in lines), "a killed mutant is not listed")
    nc = lines.index("not covered (no judge program activates them):") if \
        "not covered (no judge program activates them):" in lines else len(lines)
    ok(not any("#7" in l for l in lines[:nc]), "a mutant not covered is not among the survivors")
    ok(lines[nc + 1:nc + 3] == ["  g1: #7(%s)" % b, "  g2: none"], "not covered, per group", "\n".join(lines[nc:]))
    i = lines.index(next(l for l in lines if l.startswith("survivors with no answer")))
    ok(lines[i].endswith("(1):") and lines[i + 1].strip() == "g1 #5 %s:cnot0:A:2" % b, "no answer: #5 alone",
       "\n".join(lines[i:i + 3]))
    c = [l.strip() for l in lines[lines.index(next(l for l in lines if l.startswith("contradictions"))) + 1:nc]
         if l.strip()]
    ok(len(c) == 2 and c[0].startswith("g1 #6 ") and "(pending): killed: rtl_x" in c[0]
       and c[1].startswith("g2 #1 "), "contradictions: g1 #6 and g2 #1", "\n".join(c))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
