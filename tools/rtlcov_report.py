#!/usr/bin/python3
"""Per-module summary of a Verilator coverage file (make coverage-rtl).

    tools/rtlcov_report.py merged.dat

Verilator writes one line per cover point: C '<key>' <count>, the key a list
of \\x01-separated name\\x02value fields: f (file), l (line), page
("v_line/MODULE", "v_toggle/MODULE", "v_user/MODULE"), h (hierarchy), o
(comment: the signal of a toggle point).  Printed: per module and kind, the
points hit and their share; then the state registers (signals named *state*)
with the bits that never toggled.
"""
import re
import sys


def points(path):
    for line in open(path, errors="replace"):
        m = re.match(r"C '(.*)' (\d+)\s*$", line)
        if not m:
            continue
        f = dict(p.split("\x02", 1) for p in m.group(1).split("\x01") if "\x02" in p)
        yield f, int(m.group(2))


def main():
    per, states = {}, {}
    for f, n in points(sys.argv[1]):
        page = f.get("page", "v_?/?")
        kind, _, mod = page.partition("/")
        kind = kind[2:] if kind.startswith("v_") else kind
        e = per.setdefault(mod, {}).setdefault(kind, [0, 0])
        e[0] += 1 if n else 0
        e[1] += 1
        sig = f.get("o", "")
        if kind == "toggle" and re.search(r"state|(^|_)st($|_)", sig):
            states.setdefault((mod, sig.split("[")[0]), []).append((sig, n))
    kinds = ["line", "toggle", "branch", "user"]
    print("%-18s" % "module" + "".join("%18s" % k for k in kinds))
    tot = {k: [0, 0] for k in kinds}
    for mod in sorted(per):
        row = "%-18s" % mod
        for k in kinds:
            h, t = per[mod].get(k, [0, 0])
            tot[k][0] += h
            tot[k][1] += t
            row += "%18s" % ("%d/%d %5.1f%%" % (h, t, 100.0 * h / t) if t else "-")
        print(row)
    print("%-18s" % "total" + "".join("%18s" % ("%d/%d %5.1f%%" % (tot[k][0], tot[k][1], 100.0 * tot[k][0] / tot[k][1])
                                                 if tot[k][1] else "-") for k in kinds))
    print("\nstate registers (toggle coverage of every bit; a bit that never toggles = states never reached):")
    for (mod, sig), pts in sorted(states.items()):
        dead = [s for s, n in pts if not n]
        print("  %-14s %-28s %d/%d bits toggled%s" % (mod, sig, len(pts) - len(dead), len(pts),
                                                      ("; never: " + " ".join(dead[:8])) if dead else ""))


if __name__ == "__main__":
    main()
