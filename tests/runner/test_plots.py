#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""bench_plots: make bench's data and plots, on a quick run.

bench_rtl --quick --csv writes one CSV row per width whose numbers are the
ones its printed table shows (parsed from the table here); tools/plot_bench.py
turns that CSV and a sim.csv in bench-sim's format into the three PNGs
(checked as PNG files of the expected size).
  tests/runner/test_plots.py BENCH_RTL
Ends with "N passed, N failed".
"""
import csv
import os
import re
import struct
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
        print("FAIL %s%s" % (what, ("\n" + str(detail)[-2000:]) if detail else ""))


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        return None
    return struct.unpack(">II", head[16:24])


bench = sys.argv[1]
with tempfile.TemporaryDirectory() as tmp:
    rtl_csv = os.path.join(tmp, "rtl.csv")
    p = subprocess.run([bench, "--quick", "--no-model", "--csv", rtl_csv], capture_output=True, text=True,
                       env=dict(os.environ, HCASIM_PROGRESS="0"))
    ok(p.returncode == 0, "bench_rtl --quick passes", p.stdout + p.stderr)
    # the printed table: "rtl engine, DATA_W=64 ..." then "  64 B  1 | wire cqe | msgs cyc B/cycle beats wire%"
    table, width = {}, None
    for ln in p.stdout.splitlines():
        m = re.match(r"^rtl engine, DATA_W=(\d+)", ln)
        if m:
            width = int(m.group(1))
        m = re.match(r"^\s+(\d+) (B|KiB)\s+(\d+) \|\s+(\d+)\s+(\d+) \|\s+(\d+)\s+([\d.]+)\s+([\d.]+)", ln)
        if m and width:
            size = int(m.group(1)) * (1024 if m.group(2) == "KiB" else 1)
            table[(width, size)] = (int(m.group(4)), int(m.group(5)), float(m.group(8)))
    rows = list(csv.DictReader(open(rtl_csv))) if os.path.exists(rtl_csv) else []
    ok(len(rows) == 2 and {int(r["width"]) for r in rows} == {64, 512}, "one CSV row per width", rows)
    for r in rows:
        key = (int(r["width"]), int(r["size"]))
        # B/cycle: the CSV's 3 decimals against the table's 2, each rounded from the same
        # value, so they differ by at most 0.005 + 0.0005 (rounding the CSV's value again
        # can land on the other side: 0.345 from 0.34548 is printed 0.35)
        ok(key in table and table[key][:2] == (int(r["db_wire"]), int(r["db_cqe"]))
           and abs(table[key][2] - float(r["bytes_per_cycle"])) <= 0.0055 + 1e-9,
           "CSV row %s matches the printed table" % (key,), "%s vs %s" % (r, table.get(key)))
    with open(os.path.join(tmp, "sim.csv"), "w") as f:
        f.write('engine,width,msgs,cycles,wall_s,cycles_per_s,msgs_per_s,result\n'
                '"model",64,2000,40000,1.00,40000,2000,PASS\n"lockstep(model,rtl)",64,50,90000,9.00,10000,5,PASS\n'
                '"model",512,2000,40000,0.80,50000,2500,PASS\n"lockstep(model,rtl)",512,50,30000,6.00,5000,8,PASS\n')
    p = subprocess.run([sys.executable, "tools/plot_bench.py", tmp], capture_output=True, text=True)
    ok(p.returncode == 0, "plot_bench.py runs", p.stdout + p.stderr)
    for name in ("rtl-throughput.png", "rtl-latency.png", "sim-speed.png"):
        path = os.path.join(tmp, name)
        ok(os.path.exists(path) and png_size(path) == (700, 450), "%s written, 700x450 PNG" % name,
           png_size(path) if os.path.exists(path) else "missing")
        ok(("plot: " + path) in p.stdout, "%s reported" % name, p.stdout)
    empty = os.path.join(tmp, "empty")
    os.mkdir(empty)
    p = subprocess.run([sys.executable, "tools/plot_bench.py", empty], capture_output=True, text=True)
    ok(p.returncode == 0 and "no bench tables" in p.stdout and not os.listdir(empty), "no tables: says so, writes nothing")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
