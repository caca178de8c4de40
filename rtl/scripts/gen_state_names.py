#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""Write the state names of the RTL's state machines, for waveforms.

    gen_state_names.py --out DIR rtl/*.sv

For every module whose file declares `typedef enum logic [..] { ... } st_t;`
(one state machine per job, docs/rtl.md "State names"), writes
DIR/<module>.txt, a GTKWave translate filter file: one line "<value> <NAME>"
per state, the value in decimal as GTKWave prints it.  tools/wave_gtkw.py
attaches these files to the state signals named by `@names` lines of a
signal list (sim/rtl/wave_signals.txt), so `make wave` shows REQST_WAIT_TX
instead of 27.  Also writes DIR/states.txt: "<module> <value> <NAME>" for
every state of every module (a reference for reading dumps by hand).
"""
import argparse
import os
import re
import sys

ENUM = re.compile(r"typedef\s+enum\s+logic\s*(\[[^\]]*\])?\s*\{(.*?)\}\s*st_t\s*;", re.S)


def states(text):
    """[(value, name)] of the st_t enum in one source, [] without one."""
    m = ENUM.search(text)
    if not m:
        return []
    body = re.sub(r"//[^\n]*", "", m.group(2))
    body = re.sub(r"/\*.*?\*/", "", body, flags=re.S)
    out, value = [], 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, given = item.partition("=")
        if given.strip():
            value = int(given.strip().split("'")[-1].lstrip("dh"), 0)
        out.append((value, name.strip()))
        value += 1
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args()
    os.makedirs(a.out, exist_ok=True)
    table = []
    for src in a.sources:
        with open(src) as f:
            st = states(f.read())
        if not st:
            continue
        module = os.path.splitext(os.path.basename(src))[0]
        with open(os.path.join(a.out, module + ".txt"), "w") as f:
            f.write(f"# {module} states, from {src} (rtl/scripts/gen_state_names.py)\n")
            for v, n in st:
                f.write(f"{v} {n}\n")
        table += [(module, v, n) for v, n in st]
    with open(os.path.join(a.out, "states.txt"), "w") as f:
        for module, v, n in table:
            f.write(f"{module} {v} {n}\n")
    print(f"gen_state_names: {len(table)} states of {len(set(t[0] for t in table))} modules in {a.out}")
    return 0 if table else 1


if __name__ == "__main__":
    sys.exit(main())
