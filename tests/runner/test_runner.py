#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""test_runner: tools/run-tests.sh on a synthetic list, its JUnit XML read
back with xml.etree, and its progress line.

Programs: one that passes and records two named checks (HCASIM_RESULTS),
one that fails two named checks (FAIL lines with XML-special and control
characters) and exits 1, one without a result line, one that outlives a
2-second HCASIM_TEST_TIMEOUT, one whose result line says pass but exits 3.
The XML's counts must add up to the runner's own total line, each program
must be a suite with a case for itself (failed with the runner's reason)
and one per named check (failed ones with their message).  Then: the
optional-result-line mode (make regress), an HCASIM_TESTS subset, progress
only on request (not a terminal) with an estimate from the previous run's
durations, parallel runs (HCASIM_TEST_JOBS: faster than one at a time,
lines in the list's order, longest first, "@after" honoured, no more
programs at once than jobs), and cosim's per-run records.  Ends with
"N passed, N failed".
"""
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

passed = failed = 0


def ok(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, ("\n" + str(detail)[-3000:]) if detail else ""))


PROGRAMS = [
    ("good", "echo working; printf 'pass\\tnamed one\\t0.5\\t\\npass\\tnamed two\\t\\t\\n' >> \"$HCASIM_RESULTS\"; "
             "echo '3 passed, 0 failed'"),
    ("bad", "echo 'FAIL: thing <one> & \"two\"'; printf 'FAIL tests/x.c:3: a == b: got 1\\001\\n'; "
            "echo '2 passed, 2 failed'; exit 1"),
    ("noline", "echo hello"),
    ("slow", "sleep 30; echo '1 passed, 0 failed'"),
    ("liar", "echo '1 passed, 0 failed'; exit 3"),
]
# (passed, failed) each program must count: its line plus the runner's extra failure
WANT = {"good": (3, 0), "bad": (2, 3), "noline": (0, 1), "slow": (0, 1), "liar": (1, 1)}


def run_list(tmp, tag, env_extra, names=None, programs=PROGRAMS, extra_lines=""):
    lst = os.path.join(tmp, tag + ".list")
    with open(lst, "w") as f:
        for n, c in programs:
            if names is None or n in names:
                f.write("%s\t%s\n" % (n, c))
        f.write(extra_lines)
    xml = os.path.join(tmp, "results", tag + ".xml")
    env = dict(os.environ, HCASIM_TEST_TIMEOUT="2")
    env.update(env_extra)
    env.pop("HCASIM_TESTS", None) if "HCASIM_TESTS" not in env_extra else None
    p = subprocess.run(["bash", "tools/run-tests.sh", lst, os.path.join(tmp, "logs-" + tag), xml],
                       capture_output=True, env=env)
    return p.returncode, (p.stdout + p.stderr).decode(errors="replace"), xml


def total(out):
    m = re.findall(r"^(\d+) passed, (\d+) failed$", out, re.M)
    return tuple(map(int, m[-1])) if m else None


def suites(xml):
    root = ET.parse(xml).getroot()
    return root, {s.get("name"): s for s in root.findall("testsuite")}


with tempfile.TemporaryDirectory() as tmp:
    os.environ.pop("HCASIM_PROGRESS", None)
    rc, out, xml = run_list(tmp, "all", {})
    tot = total(out)
    ok(rc != 0, "the runner fails when a program fails", out)
    ok(tot == (sum(p for p, _ in WANT.values()), sum(f for _, f in WANT.values())),
       "total line %s" % (tot,), out)
    ok("\r" not in out and "\033[K" not in out, "no progress line when not on a terminal", repr(out[:300]))
    ok(re.search(r"^slow .*\(timed out after 2s\)$", out, re.M) is not None, "timeout reported", out)
    ok(os.path.exists(xml), "JUnit XML written", out)
    root, by = suites(xml)
    ok(root.tag == "testsuites" and int(root.get("tests")) == tot[0] + tot[1] and int(root.get("failures")) == tot[1],
       "root counts %s/%s match the total line %s" % (root.get("tests"), root.get("failures"), tot))
    ok(sorted(by) == sorted(WANT), "one suite per program: %s" % sorted(by))
    ok(sum(int(s.get("tests")) for s in by.values()) == int(root.get("tests")), "suites add up to the root")
    for name, (p, f) in WANT.items():
        s = by.get(name)
        if s is None:
            continue
        ok((int(s.get("tests")), int(s.get("failures"))) == (p + f, f),
           "%s: suite counts %s/%s, want %d/%d" % (name, s.get("tests"), s.get("failures"), p + f, f))
        cases = s.findall("testcase")
        prog = [c for c in cases if c.get("name") == name]
        ok(len(prog) == 1, "%s: a case for the program" % name)
        if prog:
            ok((prog[0].find("failure") is not None) == (f > 0), "%s: program case fails iff the program failed" % name)
    g = {c.get("name"): c for c in by["good"].findall("testcase")}
    ok("named one" in g and "named two" in g and all(c.find("failure") is None for c in g.values()),
       "recorded named checks are passing cases", sorted(g))
    ok(g.get("named one") is not None and g["named one"].get("time") == "0.5", "a named check keeps its time")
    b = [c for c in by["bad"].findall("testcase") if c.get("name") != "bad"]
    msgs = [c.find("failure").get("message") for c in b if c.find("failure") is not None]
    ok(len(b) == 2 and len(msgs) == 2, "each FAIL line is a failing case", [c.get("name") for c in b])
    ok('thing <one> & "two"' in msgs, "XML-special characters survive the round trip", msgs)
    ok(any(m.startswith("tests/x.c:3: a == b: got 1") for m in msgs), "a control character does not break the XML",
       msgs)
    why = {n: by[n].find("testcase[@name='%s']/failure" % n) for n in ("slow", "noline", "liar")}
    ok(why["slow"] is not None and "timed out after 2s" in why["slow"].get("message"), "timeout in the XML")
    ok(why["noline"] is not None and "no result line" in why["noline"].get("message"), "no result line in the XML")
    ok(why["liar"] is not None and "exit 3" in why["liar"].get("message"), "exit status in the XML")
    ok(why["noline"] is not None and "hello" in (why["noline"].text or ""), "the log's end is in the failure text")

    # make regress: a missing result line counts by the exit status
    rc, out, xml = run_list(tmp, "optional", {"HCASIM_TEST_RESULT_LINE": "optional"}, ["good", "noline"])
    ok(rc == 0 and total(out) == (4, 0), "optional result line: exit 0 counts one pass", out)
    # a subset
    rc, out, xml = run_list(tmp, "all", {"HCASIM_TESTS": "good"})
    root, by = suites(xml)
    ok(rc == 0 and sorted(by) == ["good"] and total(out) == (3, 0), "HCASIM_TESTS subset", out)

    # progress, forced (this is no terminal); the second run estimates from the first's durations
    rc, out, xml = run_list(tmp, "prog", {"HCASIM_PROGRESS": "1", "HCASIM_TEST_JOBS": "1"}, ["good", "noline"])
    ok(re.search(r"\r\033\[K\[0/2\] 0s elapsed, ~\S+ left: good", out) is not None, "progress before the first program",
       repr(out[:400]))
    ok(re.search(r"\r\033\[K\[1/2\] \S+ elapsed, ~\S+ left: noline", out) is not None, "progress counts programs",
       repr(out[:400]))
    dur = os.path.join(tmp, "logs-prog", ".durations")
    ok(os.path.exists(dur) and open(dur).read().count("\n") == 2, "durations kept for the next estimate")
    with open(dur, "w") as f:
        f.write("good\t300\nnoline\t40\n")
    rc, out, xml = run_list(tmp, "prog", {"HCASIM_PROGRESS": "1", "HCASIM_TEST_JOBS": "1"}, ["good", "noline"])
    ok(re.search(r"\[0/2\] 0s elapsed, ~5m40s left: good", out) is not None,
       "estimate from the previous durations (300 s + 40 s)", repr(out[:300]))

    # parallel (two jobs; each program notes its start and end in a shared file, no
    # wall-clock bound that a loaded machine could break): two run at once, never
    # more; the lines come in the list's order; the longest (previous durations)
    # starts first; "@after" holds a program back until the one it names has ended
    ev = os.path.join(tmp, "events")
    step = os.path.join(tmp, "step.sh")     # step.sh NAME SECONDS: note the start and end of a program
    with open(step, "w") as f:
        f.write('echo "$(date +%%s.%%N) +$1" >> %s; sleep "$2"; echo "$(date +%%s.%%N) -$1" >> %s\n'
                'echo "1 passed, 0 failed"\n' % (ev, ev))
    par = [(n, "bash %s %s %s" % (step, n, t)) for n, t in (("a", 2), ("b", 2), ("c", 2), ("d", 0), ("e", 0.2))]
    os.makedirs(os.path.join(tmp, "logs-par"), exist_ok=True)
    with open(os.path.join(tmp, "logs-par", ".durations"), "w") as f:
        f.write("a\t1\nb\t1\nc\t9\nd\t1\ne\t1\n")
    rc, out, xml = run_list(tmp, "par", {"HCASIM_TEST_JOBS": "2", "HCASIM_TEST_TIMEOUT": "30"}, programs=par,
                            extra_lines="@after\td\tc\n")
    ok(rc == 0 and total(out) == (5, 0), "parallel: every program passes", out)
    lines = [ln.split()[0] for ln in out.splitlines() if re.match(r"^[a-e] +\d+ passed", ln)]
    ok(lines == ["a", "b", "c", "d", "e"], "parallel: lines in the list's order %s" % lines, out)
    evs = [ln.split()[1] for ln in open(ev).read().splitlines()] if os.path.exists(ev) else []
    ok(evs[:1] == ["+c"], "parallel: the longest (c, 9 s before) starts first %s" % evs, out)
    run, most = 0, 0
    for e in evs:
        run += 1 if e[0] == "+" else -1
        most = max(most, run)
    ok(most == 2, "parallel: at most 2 at once (%d)" % most, evs)
    ok("+d" in evs and "-c" in evs and evs.index("+d") > evs.index("-c"), "parallel: @after d c: d starts after c ended %s" % evs)
    rc, out, xml = run_list(tmp, "bad-jobs", {"HCASIM_TEST_JOBS": "x"}, ["good"])
    ok(rc != 0 and "HCASIM_TEST_JOBS" in out, "a bad HCASIM_TEST_JOBS is refused", out)

    # cosim records one named check per run
    cosim = sys.argv[1] if len(sys.argv) > 1 else ""
    if cosim:
        res = os.path.join(tmp, "cosim.results")
        env = dict(os.environ, HCASIM_RESULTS=res, HCASIM_PROGRESS="0")
        subprocess.run([cosim, "--test", "imm_se", "--width", "64", "--seed", "5", "--dut", "model-mutant",
                        "--out", os.path.join(tmp, "sim")], capture_output=True, env=env)
        subprocess.run([cosim, "--test", "random", "--width", "64", "--seed", "4", "--messages", "20", "--dut",
                        "model-mutant", "--bug", "bug=payload_byte,at=2", "--out", os.path.join(tmp, "sim")],
                       capture_output=True, env=env)
        lines = open(res).read().splitlines() if os.path.exists(res) else []
        ok(len(lines) == 2 and lines[0].startswith("pass\timse-w64-s5".replace("ims", "imm_s")) and
           lines[1].startswith("fail\trandom-w64-s4-bug\t"), "cosim records its runs", lines)
        out = os.path.join(tmp, "results", "sim.xml")
        p = subprocess.run([sys.executable, "tools/junit.py", "--program", "sim", "--rc", "1", "--results", res,
                            "--out", out], capture_output=True, text=True)
        root, by = suites(out)
        cases = {c.get("name"): c for c in by["sim"].findall("testcase")} if "sim" in by else {}
        ok(p.returncode == 0 and root.get("tests") == "2" and root.get("failures") == "1" and
           cases.get("random-w64-s4-bug") is not None and cases["random-w64-s4-bug"].find("failure") is not None,
           "make sim's XML: one case per run", p.stdout + p.stderr)

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
