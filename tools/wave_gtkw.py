#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write a GTKWave save file (.gtkw) for an FST from a list of signal names.

    wave_gtkw.py --fst trace.fst --signals list.txt --out trace.gtkw
                 [--marker CYCLE] [--from CYCLE] [--title TEXT] [--timeline FILE]

The signal list follows the RTL, not this script (docs/sim.md "Waveforms"):

    # comment
    @ticks_per_cycle 2          # FST time units per device clock cycle (default 1)
    @cycle_signal TOP.cycle     # or: place --marker/--from where this counter
                                # (the device cycle) first reaches the cycle
    group Doorbell / WQE fetch  # a named, collapsible group (pipeline stage)
    TOP.hca_top.u_db.db_valid   # one signal; the [msb:lsb] range may be left out
    TOP.hca_top.u_fetch.*       # every signal directly in that scope
    TOP.hca_top.u_tx.**         # every signal in that scope and below
    TOP.*hca_top.u_rx.*         # wildcards in the scope: any harness wrapper
    @names TOP.*u_req.state build/rtl/state_names/hca_req.txt
                                # show the values of the signals matching the
                                # pattern by name: a GTKWave translate filter
                                # file ("value NAME" lines), path relative to
                                # the current directory

--timeline FILE writes, for reading without a viewer, every change of the
signals named by @names lines as "<device cycle> <signal> <value> <NAME>"
(the device cycle from @cycle_signal; "-" without one).

Names are resolved against the FST's own variable list (read with fst2vcd),
so a stale list only loses the signals that no longer exist: each is
reported on stderr, and a group with no signal left is dropped.  Exit
status 0 when at least one signal was placed, 1 otherwise.
"""
import argparse
import fnmatch
import os
import re
import subprocess
import sys


def fst_vars(path):
    """[(full name without range, range suffix or '', width, VCD id code)] in file order."""
    proc = subprocess.Popen(["fst2vcd", "-f", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, errors="replace")
    scope, out = [], []
    try:
        for line in proc.stdout:
            tok = line.split()
            if not tok:
                continue
            if tok[0] == "$scope" and len(tok) >= 3:
                scope.append(tok[2])
            elif tok[0] == "$upscope":
                if scope:
                    scope.pop()
            elif tok[0] == "$var" and len(tok) >= 5:
                width = int(tok[2]) if tok[2].isdigit() else 1
                name = tok[4]
                rng = tok[5] if len(tok) > 5 and tok[5].startswith("[") else ""
                m = re.match(r"^(.*?)(\[\d+(?::\d+)?\])$", name)
                if m and not rng:
                    name, rng = m.group(1), m.group(2)
                out.append((".".join(scope + [name]), rng, width, tok[3]))
            elif tok[0] == "$enddefinitions":
                break
    finally:
        proc.kill()
        proc.wait()
    return out


def cycle_times(path, ident, cycles):
    """{cycle: first FST time at which the counter with VCD id `ident` is >=
    cycle} for the cycles asked (a cycle the trace never reaches is left out)."""
    want = sorted(set(c for c in cycles if c is not None))
    found, t, body = {}, 0, False
    proc = subprocess.Popen(["fst2vcd", "-f", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, errors="replace")
    try:
        for line in proc.stdout:
            tok = line.split()
            if not tok:
                continue
            if not body:
                body = tok[0] == "$enddefinitions"
            elif tok[0].startswith("#"):
                t = int(tok[0][1:])
            elif tok[0][0] in "bB" and len(tok) == 2 and tok[1] == ident:
                bits = tok[0][1:]
                if all(c in "01" for c in bits):
                    v = int(bits, 2)
                    while want and v >= want[0]:
                        found[want.pop(0)] = t
                    if not want:
                        break
    finally:
        proc.kill()
        proc.wait()
    return found


def load_names(path):
    """{value: NAME} of a translate filter file ("value NAME" lines)."""
    out = {}
    with open(path) as f:
        for raw in f:
            tok = raw.split("#", 1)[0].split()
            if len(tok) >= 2 and tok[0].isdigit():
                out[int(tok[0])] = tok[1]
    return out


def timeline(path, named, cycle_id):
    """[(cycle, signal, value, NAME)] for every value change of the named
    signals; named: {VCD id: (signal, {value: NAME})}.  A change is given the
    device cycle the counter shows after the same time step (state and
    counter change at the same clock edge)."""
    rows, t_cycle, body, pend = [], None, False, []
    proc = subprocess.Popen(["fst2vcd", "-f", path], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True, errors="replace")
    last = {}

    def flush():
        for ident, v in pend:
            if last.get(ident) != v:
                last[ident] = v
                sig, names = named[ident]
                rows.append(("-" if t_cycle is None else t_cycle, sig, v, names.get(v, "?")))
        pend.clear()
    try:
        for line in proc.stdout:
            tok = line.split()
            if not body:
                body = bool(tok) and tok[0] == "$enddefinitions"
                continue
            if tok and tok[0].startswith("#"):
                flush()
                continue
            if len(tok) != 2 or tok[0][0] not in "bB" or not all(c in "01" for c in tok[0][1:]):
                continue
            v = int(tok[0][1:], 2)
            if tok[1] == cycle_id:
                t_cycle = v
            if tok[1] in named:
                pend.append((tok[1], v))
        flush()
    finally:
        proc.kill()
        proc.wait()
    return rows


def parse_list(path):
    """(ticks_per_cycle, cycle_signal, [(group, [patterns])], [(pattern, filter file)])"""
    ticks, groups, csig, names = 1, [], None, []
    cur = None
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.split("#", 1)[0].strip()
            if not line:
                continue
            if line.startswith("@ticks_per_cycle"):
                ticks = int(line.split()[1])
            elif line.startswith("@cycle_signal"):
                csig = line.split()[1]
            elif line.startswith("@names"):
                tok = line.split()
                if len(tok) != 3:
                    print(f"wave_gtkw: {path}:{n}: @names PATTERN FILE", file=sys.stderr)
                else:
                    names.append((tok[1], tok[2]))
            elif line.startswith("group "):
                cur = (line[6:].strip(), [])
                groups.append(cur)
            else:
                if cur is None:
                    cur = ("signals", [])
                    groups.append(cur)
                cur[1].append(line)
    return ticks, csig, groups, names


def resolve(pattern, variables):
    """Variables matching one list entry, in FST order.  The scope part of
    `scope.*` / `scope.**` may itself hold shell wildcards (TOP.*hca_top)."""
    base = re.sub(r"\[\d+(?::\d+)?\]$", "", pattern)
    if base.endswith(".**"):
        scope = base[:-3]
        return [v for v in variables if "." in v[0] and
                (v[0].startswith(scope + ".") or fnmatch.fnmatchcase(v[0], scope + ".*"))]
    if base.endswith(".*"):
        scope = base[:-2]
        return [v for v in variables if "." in v[0] and fnmatch.fnmatchcase(v[0].rsplit(".", 1)[0], scope)]
    if any(c in base for c in "*?["):
        return [v for v in variables if fnmatch.fnmatchcase(v[0], base)]
    return [v for v in variables if v[0] == base]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fst", required=True)
    ap.add_argument("--signals", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--marker", type=int, default=None, help="cycle of the divergence (primary marker)")
    ap.add_argument("--from", dest="start", type=int, default=None, help="first cycle shown")
    ap.add_argument("--title", default="")
    ap.add_argument("--timeline", default=None, help="write the named signals' changes by device cycle here")
    a = ap.parse_args()

    variables = fst_vars(a.fst)
    if not variables:
        print(f"wave_gtkw: {a.fst}: no variables (not an FST, or fst2vcd missing)", file=sys.stderr)
        return 1
    ticks, csig, groups, names = parse_list(a.signals)
    # translate filter of each named signal (GTKWave numbers its filter files)
    filters, filter_no = {}, {}
    for pattern, path in names:
        if not os.path.exists(path):
            print(f"wave_gtkw: names file missing: {path}", file=sys.stderr)
            continue
        path = os.path.abspath(path)
        filter_no.setdefault(path, len(filter_no) + 1)
        for full, rng, _, _ in resolve(pattern, variables):
            filters[(full, rng)] = path
    at = {}
    if csig:
        ids = [v[3] for v in variables if v[0] == csig]
        if ids:
            at = cycle_times(a.fst, ids[0], [a.start, a.marker])
        else:
            print(f"wave_gtkw: cycle signal not in the trace: {csig}", file=sys.stderr)

    def when(cycle):
        return at.get(cycle, cycle * ticks)

    lines = [
        f"[dumpfile] \"{os.path.abspath(a.fst)}\"",
        f"[savefile] \"{os.path.abspath(a.out)}\"",
        "[size] 1600 900",
        "[pos] -1 -1",
    ]
    if a.start is not None:
        lines.append(f"[timestart] {when(a.start)}")
    if a.marker is not None:
        # primary marker and named marker A at the divergence, B..Z unused
        lines.append(f"*-12.000000 {when(a.marker)} {when(a.marker)}" + " -1" * 25)
    if a.title:
        lines.append(f"[comment] {a.title}")
    placed, missing = 0, 0
    for name, patterns in groups:
        body, seen = [], set()	# a signal appears once per group (it may be in several groups)
        for p in patterns:
            hits = resolve(p, variables)
            if not hits:
                print(f"wave_gtkw: not in the trace: {p}", file=sys.stderr)
                missing += 1
                continue
            for full, rng, width, _ in hits:
                if (full, rng) in seen:
                    continue
                seen.add((full, rng))
                if (full, rng) in filters:
                    # decimal, right-justified, translated by the filter file
                    path = filters[(full, rng)]
                    body.append("@2024")
                    body.append(f"^{filter_no[path]} {path}")
                else:
                    body.append("@28" if width == 1 else "@22")
                body.append(full + rng)
        if not body:
            print(f"wave_gtkw: group '{name}' has no signal in the trace; dropped", file=sys.stderr)
            continue
        lines += ["@800200", f"-{name}"] + body + ["@1000200", f"-{name}"]
        placed += sum(1 for x in body if not x.startswith(("@", "^")))
    with open(a.out, "w") as f:
        f.write("\n".join(lines) + "\n")
    if a.timeline:
        cid = next((v[3] for v in variables if csig and v[0] == csig), None)
        named = {v[3]: (v[0], load_names(filters[(v[0], v[1])])) for v in variables if (v[0], v[1]) in filters}
        with open(a.timeline, "w") as f:
            for row in timeline(a.fst, named, cid):
                f.write("%s %s %d %s\n" % row)
    print(f"wave_gtkw: {a.out}: {placed} signals in {sum(1 for _ in groups)} groups"
          f"{f', {missing} list entries not in the trace' if missing else ''}")
    return 0 if placed else 1


if __name__ == "__main__":
    sys.exit(main())
