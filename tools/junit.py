#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Write JUnit XML (GitLab, Jenkins and GitHub read it) for test programs.

  tools/junit.py --records REC --out FILE.xml [--name "make test"] [--expect "P F"]
  tools/junit.py --program NAME --rc RC [--results R] [--log L] [--seconds S] --out FILE.xml

REC has one line per program, tab-separated:
  name  passed  failed  exit-status  seconds  note  log-file  results-file
(passed/failed: the program's "P passed, F failed" line plus the runner's
extra failure, or "-" when it printed none; note: why the runner failed it,
e.g. "timed out after 60s").

One <testsuite> per program holds one <testcase> for the program itself
(failed, with the note and the end of its log, when the program failed in
any way) and one per named check:
  - a results file (HCASIM_RESULTS; lines "pass|fail<TAB>name<TAB>seconds<TAB>message",
    written by cosim and the shell tests' ok()), else
  - the log's "FAIL ..." lines (tests/check.h, the scripts' FAIL: lines).
The suites' tests/failures attributes carry the program's own counts, so the
root's add up to the runner's total line.  The XML is read back and its
counts checked before this exits 0.
"""
import argparse
import os
import re
import sys
import xml.etree.ElementTree as ET

LOG_TAIL = 60          # lines of a failed program's log kept in the XML
MAX_TEXT = 20000       # characters of any one text


def clean(text):
    """XML 1.0 allows no control characters but tab, newline, CR."""
    text = re.sub(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]", "?", text)
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
    return text if len(text) <= MAX_TEXT else text[:MAX_TEXT] + "\n[... cut]"


def read_log(path):
    if not path or not os.path.exists(path):
        return []
    with open(path, errors="replace") as f:
        return f.read().splitlines()


def named_checks(results, log_lines):
    """[(name, failed, seconds, message)] of one program."""
    checks = []
    if results and os.path.exists(results):
        with open(results, errors="replace") as f:
            for ln in f:
                parts = ln.rstrip("\n").split("\t")
                if len(parts) < 2 or not parts[1].strip():
                    continue
                status, name = parts[0], parts[1].strip()
                secs = parts[2] if len(parts) > 2 and re.match(r"^[0-9.]+$", parts[2]) else ""
                msg = parts[3] if len(parts) > 3 else ""
                checks.append((name, status != "pass", secs, msg or name))
        return checks
    for ln in log_lines:
        m = re.match(r"^FAIL[:\s]\s*(.*\S)", ln)
        if m:
            checks.append((m.group(1)[:200], True, "", m.group(1)))
    return checks


def counts(rec, checks):
    """(passed, failed) of a program: its result line, else its named checks
    and exit status."""
    if rec["passed"] != "-" and rec["failed"] != "-":
        return int(rec["passed"]), int(rec["failed"])
    p = sum(1 for c in checks if not c[1])
    f = sum(1 for c in checks if c[1])
    if rec["rc"] != "0" and f == 0:
        f = 1
    return p, f


def suite_of(rec):
    lines = read_log(rec["log"])
    checks = named_checks(rec["results"], lines)
    p, f = counts(rec, checks)
    name = rec["name"]
    s = ET.Element("testsuite", name=name, tests=str(p + f), failures=str(f), errors="0", skipped="0",
                   time=rec["seconds"] or "0")
    prog = ET.SubElement(s, "testcase", classname=name, name=name, time=rec["seconds"] or "0")
    if f or rec["rc"] != "0":
        why = rec["note"] or ("exit status %s" % rec["rc"] if rec["rc"] != "0" else "%d checks failed" % f)
        fail = ET.SubElement(prog, "failure", message=clean("%s: %s" % (name, why)), type="program")
        fail.text = clean("\n".join(lines[-LOG_TAIL:]))
    seen = {}
    for cname, failed, secs, msg in checks:
        seen[cname] = seen.get(cname, 0) + 1
        if seen[cname] > 1:
            cname = "%s #%d" % (cname, seen[cname])
        c = ET.SubElement(s, "testcase", classname=name, name=clean(cname), time=secs or "0")
        if failed:
            ET.SubElement(c, "failure", message=clean(msg), type="check").text = clean(msg)
    if rec["log"]:
        ET.SubElement(s, "system-out").text = "log: %s" % rec["log"]
    return s, p, f


def write(records, out, title):
    root = ET.Element("testsuites", name=title)
    tp = tf = 0
    total_time = 0.0
    for rec in records:
        s, p, f = suite_of(rec)
        root.append(s)
        tp += p
        tf += f
        total_time += float(rec["seconds"] or 0)
    root.set("tests", str(tp + tf))
    root.set("failures", str(tf))
    root.set("errors", "0")
    root.set("time", "%.0f" % total_time)
    ET.indent(root)
    os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
    tmp = out + ".tmp"
    ET.ElementTree(root).write(tmp, encoding="UTF-8", xml_declaration=True)
    os.replace(tmp, out)
    # read it back: well-formed, and the counts add up
    back = ET.parse(out).getroot()
    suites = back.findall("testsuite")
    assert len(suites) == len(records), "suite count"
    assert sum(int(x.get("tests")) for x in suites) == int(back.get("tests")) == tp + tf, "tests count"
    assert sum(int(x.get("failures")) for x in suites) == int(back.get("failures")) == tf, "failures count"
    return tp, tf, sum(len(x.findall("testcase")) for x in suites)


FIELDS = ("name", "passed", "failed", "rc", "seconds", "note", "log", "results")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--records")
    ap.add_argument("--program")
    ap.add_argument("--rc", default="0")
    ap.add_argument("--results", default="")
    ap.add_argument("--log", default="")
    ap.add_argument("--seconds", default="0")
    ap.add_argument("--name")
    ap.add_argument("--out", required=True)
    ap.add_argument("--expect", help='"P F": the runner\'s total line, which the XML must add up to')
    a = ap.parse_args()
    if a.records:
        records = []
        with open(a.records) as f:
            for ln in f:
                parts = ln.rstrip("\n").split("\t")
                if len(parts) >= 2:
                    records.append(dict(zip(FIELDS, parts + [""] * (len(FIELDS) - len(parts)))))
    elif a.program:
        records = [dict(name=a.program, passed="-", failed="-", rc=a.rc, seconds=a.seconds, note="",
                        log=a.log, results=a.results)]
    else:
        ap.error("--records or --program")
    tp, tf, cases = write(records, a.out, a.name or a.program or "tests")
    if a.expect and a.expect.split() != [str(tp), str(tf)]:
        print("junit: %s holds %d passed, %d failed; the runner counted %s" % (a.out, tp, tf, a.expect))
        return 1
    print("JUnit XML: %s (%d programs, %d test cases; %d passed, %d failed)" % (a.out, len(records), cases, tp, tf))
    return 0


if __name__ == "__main__":
    sys.exit(main())
