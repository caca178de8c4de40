#!/usr/bin/python3
"""Functional coverage report: bins table + .cov count files -> text and HTML.

    tools/covreport.py --bins sim/coverage/bins.txt --out build/coverage DIR_OR_FILE...

The bins are defined once in the table (format in its header); the .cov files
("key count" lines) come from the collector (sim/cov.h): cosim --cov DIR,
HCASIM_COV=DIR for sim/tb and sim/device programs.  A file is named
<run>.<engine>.cov (lockstep: <run>.ref.<engine>.cov, <run>.dut.<engine>.cov);
the report shows the hits of every engine apart.  The headline figure counts
the bins of the features the RTL implements that were hit ON THE RTL (files of
engine "rtl"); "all engines" counts any hit.  Writes OUT/summary.txt and
OUT/index.html; prints the summary.  --min PCT fails (exit 1) when fewer than
PCT % of those bins are hit on the RTL.
"""
import argparse
import html
import os
import re
import sys


def expand(pattern):
    m = re.search(r"\{([^{}]*)\}", pattern)
    if not m:
        return [pattern]
    out = []
    for alt in m.group(1).split(","):
        out += expand(pattern[: m.start()] + alt + pattern[m.end():])
    return out


def read_bins(path):
    rtl, bins, seen = set(), [], set()
    for n, line in enumerate(open(path), 1):
        line = line.split("#", 1)[0].strip() if not line.lstrip().startswith("#") else ""
        if not line:
            continue
        if line.startswith("@rtl"):
            rtl |= set(line.split()[1:])
            continue
        parts = line.split(None, 2)
        if len(parts) < 2:
            sys.exit("%s:%d: want FEATURE KEY-PATTERN [description]" % (path, n))
        feat, pat = parts[0], parts[1]
        desc = parts[2] if len(parts) > 2 else ""
        for key in expand(pat):
            if key in seen:
                sys.exit("%s:%d: bin %s defined twice" % (path, n, key))
            seen.add(key)
            bins.append((feat, key, desc))
    return rtl, bins


def read_counts(paths):
    tot, side, files = {}, {}, 0
    for p in paths:
        fl = [os.path.join(p, f) for f in sorted(os.listdir(p)) if f.endswith(".cov")] if os.path.isdir(p) else [p]
        for f in fl:
            files += 1
            parts = os.path.basename(f).split(".")
            kind = parts[-2] if len(parts) >= 3 else "other"
            side.setdefault(kind, {})
            for line in open(f):
                if line.startswith("#") or not line.strip():
                    continue
                k, v = line.split()
                tot[k] = tot.get(k, 0) + int(v)
                side[kind][k] = side[kind].get(k, 0) + int(v)
    return tot, side, files


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bins", required=True)
    ap.add_argument("--out")
    ap.add_argument("--min", type=float)
    ap.add_argument("--quiet", action="store_true", help="print only the headline and holes of RTL features")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    rtl, bins = read_bins(a.bins)
    tot, side, nfiles = read_counts(a.inputs)
    feats = []
    for f, _, _ in bins:
        if f not in feats:
            feats.append(f)
    keys = {k for _, k, _ in bins}
    unlisted = sorted(k for k in tot if k not in keys)

    def pct(h, n):
        return 100.0 * h / n if n else 100.0

    rows, holes_rtl, holes_other = [], [], []
    for f in feats:
        fb = [(k, d) for ff, k, d in bins if ff == f]
        hit = sum(1 for k, _ in fb if tot.get(k, 0))
        rows.append((f, f in rtl, hit, len(fb)))
        for k, d in fb:
            if not tot.get(k, 0):
                (holes_rtl if f in rtl else holes_other).append((f, k, d))
    rb = [(f, k) for f, k, _ in bins if f in rtl]
    on_rtl = side.get("rtl", {})
    rhit = sum(1 for _, k in rb if on_rtl.get(k, 0))
    rany = sum(1 for _, k in rb if tot.get(k, 0))
    ahit = sum(1 for _, k, _ in bins if tot.get(k, 0))
    lines = []
    lines.append("functional coverage: %d count files, %d bins (%s)" % (nfiles, len(bins), a.bins))
    lines.append("RTL features (%s)" % " ".join(sorted(rtl)))
    lines.append("  hit on the RTL:     %d of %d bins = %.1f %%" % (rhit, len(rb), pct(rhit, len(rb))))
    lines.append("  hit on any engine:  %d of %d bins = %.1f %%" % (rany, len(rb), pct(rany, len(rb))))
    lines.append("all features, any engine: %d of %d bins hit = %.1f %%" % (ahit, len(bins), pct(ahit, len(bins))))
    lines.append("")
    lines.append("%-12s %-4s %6s %6s %7s %7s" % ("feature", "rtl", "hit", "bins", "%", "on-rtl"))
    for f, r, h, n in rows:
        hr = sum(1 for ff, k, _ in bins if ff == f and on_rtl.get(k, 0))
        lines.append("%-12s %-4s %6d %6d %6.1f%% %7d" % (f, "yes" if r else "no", h, n, pct(h, n), hr))
    lines.append("")
    rtl_holes = [(f, k, d) for f, k, d in bins if f in rtl and not on_rtl.get(k, 0)]
    lines.append("holes in features the RTL implements, on the RTL (%d; * = hit on another engine):" % len(rtl_holes))
    for f, k, d in rtl_holes:
        lines.append("  %-12s %s%-44s %s" % (f, "*" if tot.get(k, 0) else " ", k, d))
    if not a.quiet:
        lines.append("")
        lines.append("holes in model-only features (%d):" % len(holes_other))
        for f, k, d in holes_other:
            lines.append("  %-12s %-44s %s" % (f, k, d))
        lines.append("")
        lines.append("keys counted but not in the bin table (%d):" % len(unlisted))
        for k in unlisted:
            lines.append("  %-56s %d" % (k, tot[k]))
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        os.makedirs(a.out, exist_ok=True)
        with open(os.path.join(a.out, "summary.txt"), "w") as f:
            f.write(text)
        write_html(os.path.join(a.out, "index.html"), a, rtl, bins, tot, side, rows, rhit, len(rb), ahit, unlisted)
        with open(os.path.join(a.out, "counts.txt"), "w") as f:
            for k in sorted(tot):
                f.write("%s %d %s\n" % (k, tot[k], " ".join("%s=%d" % (e, side[e].get(k, 0)) for e in sorted(side))))
    if a.min is not None and pct(rhit, len(rb)) < a.min:
        print("coverage below %.1f %% for the features the RTL implements" % a.min)
        return 1
    return 0


def write_html(path, a, rtl, bins, tot, side, rows, rhit, rn, ahit, unlisted):
    e = html.escape
    o = ["<!doctype html><html><head><meta charset='utf-8'><title>hcasim functional coverage</title>",
         "<style>body{font-family:sans-serif;margin:1em}table{border-collapse:collapse;margin-bottom:1em}"
         "td,th{border:1px solid #ccc;padding:2px 6px;font-size:13px}td.n{text-align:right}"
         ".hole{background:#fdd}.hit{background:#dfd}.model{color:#888}</style></head><body>",
         "<h1>hcasim functional coverage</h1>",
         "<p>Bins: <code>%s</code>. RTL features (%s): <b>%d of %d bins hit on the RTL (%.1f %%)</b>; "
         "all features, any engine: %d of %d.</p>"
         % (e(a.bins), e(" ".join(sorted(rtl))), rhit, rn, 100.0 * rhit / rn if rn else 100, ahit, len(bins)),
         "<table><tr><th>feature</th><th>RTL implements</th><th>hit</th><th>bins</th><th>%</th></tr>"]
    for f, r, h, n in rows:
        o.append("<tr><td><a href='#%s'>%s</a></td><td>%s</td><td class=n>%d</td><td class=n>%d</td>"
                 "<td class=n>%.1f</td></tr>" % (e(f), e(f), "yes" if r else "no", h, n, 100.0 * h / n if n else 100))
    o.append("</table>")
    for f, r, _, _ in rows:
        engines = sorted(side)
        o.append("<h2 id='%s'>%s%s</h2><table><tr><th>bin</th><th>hits</th>%s<th>what</th></tr>"
                 % (e(f), e(f), "" if r else " (model only)", "".join("<th>%s</th>" % e(x) for x in engines)))
        for ff, k, d in bins:
            if ff != f:
                continue
            n = tot.get(k, 0)
            o.append("<tr class='%s'><td><code>%s</code></td><td class=n>%d</td>%s<td>%s</td></tr>"
                     % ("hit" if n else "hole", e(k), n,
                        "".join("<td class=n>%d</td>" % side[x].get(k, 0) for x in engines), e(d)))
        o.append("</table>")
    o.append("<h2>Keys counted but not in the table</h2><ul>")
    for k in unlisted:
        o.append("<li><code>%s</code> %d</li>" % (e(k), tot[k]))
    o.append("</ul></body></html>")
    with open(path, "w") as f:
        f.write("\n".join(o))


if __name__ == "__main__":
    sys.exit(main())
