#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""make bench's plots: PNGs next to the benches' CSV tables.

  tools/plot_bench.py [DIR]        (default build/bench)

Reads what the benches wrote and plots what is there:
  rtl.csv (bench_rtl)   -> rtl-throughput.png: streaming payload bytes per
                           cycle against message size, both widths, with
                           the 100 GbE goodput limit at 4 KiB frames
                           (48.9 B/cycle at 250 MHz) and each width's beat
                           limit (8, 64 B/cycle);
                           rtl-latency.png: doorbell->wire and doorbell->CQE
                           cycles against message size, both widths
  sim.csv (bench-sim)   -> sim-speed.png: simulated messages per wall-clock
                           second of each engine and lockstep pair, per width
docs/rtl.md and docs/sim.md ("Performance") say how to read them.
"""
import csv
import os
import sys

import matplotlib

matplotlib.use("Agg")  # no display: write files only
import matplotlib.pyplot as plt  # noqa: E402

CLOCK_HZ = 250e6
# 100 GbE at 4 KiB frames: 4096 payload bytes of 4190 on the wire (headers,
# ICRC, FCS, preamble, inter-frame gap), 12.5e9 B/s at 250 MHz.
GBE100_GOODPUT = 100e9 / 8 / CLOCK_HZ * 4096 / 4190


def rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def size_label(s):
    return "%d KiB" % (s // 1024) if s >= 1024 and s % 1024 == 0 else "%d B" % s


def by_width(data):
    out = {}
    for r in data:
        out.setdefault(int(r["width"]), []).append(r)
    for w in out:
        out[w].sort(key=lambda r: int(r["size"]))
    return out


def sizes_axis(ax, sizes):
    ax.set_xscale("log", base=2)
    ax.set_xticks(sizes)
    ax.set_xticklabels([size_label(s) for s in sizes])
    ax.set_xlabel("RDMA WRITE message size")
    ax.grid(True, which="both", alpha=0.3)


def plot_rtl(data, outdir):
    made = []
    widths = by_width(data)
    sizes = sorted({int(r["size"]) for r in data})
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for w, rs in sorted(widths.items()):
        line, = ax.plot([int(r["size"]) for r in rs], [float(r["bytes_per_cycle"]) for r in rs], "o-",
                        label="DATA_W=%d measured" % w)
        ax.axhline(w / 8, color=line.get_color(), ls=":", lw=1)
        ax.annotate("%d-bit datapath: %d B/cycle" % (w, w // 8), (sizes[0], w / 8), textcoords="offset points",
                    xytext=(2, 3), fontsize=8, color=line.get_color())
    ax.axhline(GBE100_GOODPUT, color="red", ls="--", lw=1.2)
    ax.annotate("100 GbE goodput, 4 KiB frames, 250 MHz: %.1f B/cycle" % GBE100_GOODPUT, (sizes[0], GBE100_GOODPUT),
                textcoords="offset points", xytext=(2, -11), fontsize=8, color="red")
    sizes_axis(ax, sizes)
    ax.set_yscale("log", base=2)
    ax.set_ylabel("payload bytes per device cycle (streaming)")
    ax.set_title("RTL streaming throughput (RC RDMA WRITE, PMTU 4096)")
    ax.legend(loc="lower right", fontsize=8)
    fig.tight_layout()
    path = os.path.join(outdir, "rtl-throughput.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    made.append(path)

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for w, rs in sorted(widths.items()):
        x = [int(r["size"]) for r in rs]
        line, = ax.plot(x, [int(r["db_cqe"]) for r in rs], "o-", label="DATA_W=%d doorbell->CQE" % w)
        ax.plot(x, [int(r["db_wire"]) for r in rs], "s--", color=line.get_color(),
                label="DATA_W=%d doorbell->wire" % w)
    sizes_axis(ax, sizes)
    ax.set_yscale("log")
    ax.set_ylabel("device cycles (single message, idle pair)")
    ax.set_title("RTL latency (wire latency 250 cycles each way)")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(outdir, "rtl-latency.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    made.append(path)
    return made


def plot_sim(data, outdir):
    engines = []
    for r in data:
        if r["engine"] not in engines:
            engines.append(r["engine"])
    widths = sorted({int(r["width"]) for r in data})
    fig, ax = plt.subplots(figsize=(7, 4.5))
    bar = 0.8 / max(1, len(widths))
    for i, w in enumerate(widths):
        vals = []
        for e in engines:
            m = [r for r in data if r["engine"] == e and int(r["width"]) == w]
            vals.append(float(m[0]["msgs_per_s"]) if m else 0.0)
        xs = [k + (i - (len(widths) - 1) / 2) * bar for k in range(len(engines))]
        bars = ax.bar(xs, vals, bar, label="DATA_W=%d" % w)
        for b, v in zip(bars, vals):
            ax.annotate("%.0f" % v, (b.get_x() + b.get_width() / 2, v), ha="center", va="bottom", fontsize=7)
    ax.set_xticks(range(len(engines)))
    ax.set_xticklabels([e.replace("lockstep(", "lockstep\n(") for e in engines], fontsize=8)
    ax.set_yscale("log")
    ax.set_ylabel("simulated messages per wall-clock second")
    ax.set_title("Simulation speed per engine (random traffic, 8 QP pairs)")
    ax.grid(True, axis="y", which="both", alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    path = os.path.join(outdir, "sim-speed.png")
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return [path]


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "build/bench"
    made = []
    for name, fn in (("rtl.csv", plot_rtl), ("sim.csv", plot_sim)):
        path = os.path.join(outdir, name)
        if os.path.exists(path):
            data = rows(path)
            if data:
                made += fn(data, outdir)
    for m in made:
        print("plot: %s" % m)
    if not made:
        print("plot: no bench tables (rtl.csv, sim.csv) in %s" % outdir)
    return 0


if __name__ == "__main__":
    sys.exit(main())
