#!/usr/bin/env python3
"""Consistency of the generated programming interface.

1. Staleness: every checked-in output of tools/genspec.py equals what the
   generator makes from spec/hca.toml now.
2. C vs Verilog: every constant printed by the compiled C dump program equals
   the one printed by the Verilator-built dump program, and both name the same
   set of constants.
Prints one line per failure and ends with "N passed, N failed".
"""
import argparse
import os
import subprocess
import sys
import tempfile

OUTPUTS = {"--c": "include/hcasim/hca_spec.h", "--v": "rtl/include/hca_spec.vh", "--md": "docs/reference.md"}


def run_dump(cmd):
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    vals = {}
    for line in out.splitlines():
        if line.startswith("- ") or not line.strip():
            continue  # Verilator's $finish banner
        name, value = line.split()
        vals[name] = int(value)
    return vals


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--spec", default="spec/hca.toml")
    ap.add_argument("--c", required=True, help="compiled C dump program")
    ap.add_argument("--v", required=True, help="Verilator dump program")
    a = ap.parse_args()
    passed = failed = 0

    with tempfile.TemporaryDirectory() as tmp:
        args = [sys.executable, "tools/genspec.py", "--spec", a.spec]
        for opt, path in OUTPUTS.items():
            args += [opt, os.path.join(tmp, os.path.basename(path))]
        subprocess.run(args, check=True)
        for path in OUTPUTS.values():
            with open(path) as f1, open(os.path.join(tmp, os.path.basename(path))) as f2:
                if f1.read() == f2.read():
                    passed += 1
                else:
                    failed += 1
                    print(f"FAIL stale: {path} differs from what tools/genspec.py generates from {a.spec}; run make gen")

    c = run_dump([a.c])
    v = run_dump([a.v])
    for name in sorted(set(c) | set(v)):
        if name not in v:
            failed += 1
            print(f"FAIL {name}: in C, missing in Verilog")
        elif name not in c:
            failed += 1
            print(f"FAIL {name}: in Verilog, missing in C")
        elif c[name] != v[name]:
            failed += 1
            print(f"FAIL {name}: C {c[name]} != Verilog {v[name]}")
        else:
            passed += 1
    if len(c) < 100:
        failed += 1
        print(f"FAIL only {len(c)} constants dumped; the generator lost most of the spec")
    else:
        passed += 1
    print(f"{len(c)} constants compared between C and Verilog")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
