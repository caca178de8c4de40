#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""deps_list: the package list stays honest (tools/check_deps.py).

1. The tree as it is: every command it calls is in tools/deps-commands.txt
   and comes from a package tools/deps.sh installs; the scan finds the
   commands we know the tree calls (grepped independently here).
2. It can fail: the same check with gtkwave taken out of a copy of
   tools/deps.sh fails and says to add gtkwave to PKGS (the sim_wave failure
   of a fresh machine, issue 10); a copy of the flake map without gtkwave
   fails the flake test.
3. A small tree that calls new programs the way the parts do (a script, a
   Makefile recipe through a variable, `hcasim run -- PROG`, a Python import
   and argv list, a C execlp) fails for each one, naming the command and
   the file to edit; it passes once they are listed.
4. With dpkg: a table that names the wrong package, a `base:` package that is
   not on every Debian system, and a `(from PKG)` that is no dependency fail.
Ends with "N passed, N failed".
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile

PY = sys.executable
CHECK = os.path.abspath("tools/check_deps.py")
passed = failed = 0


def ok(cond, what, detail=""):
    global passed, failed
    if cond:
        passed += 1
    else:
        failed += 1
        print("FAIL %s%s" % (what, ("\n" + detail) if detail else ""))


def run(args, cwd=None, env=None):
    p = subprocess.run(args, capture_output=True, text=True, cwd=cwd, env=env)
    return p.returncode, p.stdout + p.stderr


def result(out):
    m = re.findall(r"^(\d+) passed, (\d+) failed$", out, re.M)
    return tuple(map(int, m[-1])) if m else None


have_dpkg = shutil.which("dpkg") is not None

# 1. the tree
rc, out = run([PY, CHECK])
ok(rc == 0 and result(out) and result(out)[1] == 0, "the tree's commands are all listed and installed", out[-3000:])
rc, lst = run([PY, CHECK, "--list"] + ([] if have_dpkg else ["--no-dpkg"]))
listed = {ln.split()[0]: ln.split()[1] for ln in lst.splitlines() if len(ln.split()) >= 3 and not ln.startswith("FAIL")}
# independent: commands a grep of the sources shows in use
for cmd, path, pat in [("vcd2fst", "sim/regress/test_wave.sh", r"^vcd2fst "),
                       ("tshark", "tests/oracle/check_pcap.py", r'\["tshark"'),
                       ("yosys", "rtl/scripts/synth.sh", r"YOSYS:-yosys"),
                       ("riscv64-unknown-elf-gcc", "firmware/firmware.mk", r"RV_PREFIX \?= riscv64-unknown-elf-"),
                       ("ss", "driver-shim/tests/lib.sh", r"\bss -ltn"),
                       ("python3:scapy", "tests/oracle/roce_scapy.py", r"^from scapy"),
                       ("ib_write_bw", "driver-shim/tests/bench.sh", r"-- \\?$|ib_write_bw -F")]:
    with open(path) as f:
        used = re.search(pat, f.read(), re.M) is not None
    ok(used and cmd in listed, "scan finds %s (used in %s)" % (cmd, path), "listed: %s" % sorted(listed)[:80])
ok(listed.get("vcd2fst") == "gtkwave", "vcd2fst is gtkwave's", str(listed.get("vcd2fst")))

with tempfile.TemporaryDirectory() as tmp:
    # 2. gtkwave removed from a copy of the package list
    with open("tools/deps.sh") as f:
        deps = f.read()
    nogtk = os.path.join(tmp, "deps-no-gtkwave.sh")
    with open(nogtk, "w") as f:
        f.write(re.sub(r"\bgtkwave\b", "", deps, count=1))
    rc, out = run([PY, CHECK, "--deps", nogtk])
    ok(rc != 0 and result(out) and result(out)[1] > 0, "without gtkwave in PKGS the check fails", out[-2000:])
    ok(re.search(r"^FAIL vcd2fst .*gtkwave.*add gtkwave to PKGS", out, re.M) is not None,
       "the failure names vcd2fst and says to add gtkwave to PKGS", out[-2000:])
    # ... and with gtkwave gone from the table too, on a machine without it
    # (--no-dpkg: nothing is looked up), the scan alone still finds vcd2fst
    with open("tools/deps-commands.txt") as f:
        tab = f.read()
    notab = os.path.join(tmp, "deps-commands.txt")
    with open(notab, "w") as f:
        f.write(re.sub(r"^gtkwave:.*\n", "", tab, flags=re.M))
    rc, out = run([PY, CHECK, "--deps", nogtk, "--table", notab, "--no-dpkg"])
    ok(rc != 0 and re.search(r"^FAIL vcd2fst is used \(sim/regress/test_wave.sh\) but .* does not say which package",
                             out, re.M) is not None, "unlisted and not installed: vcd2fst still reported", out[-2000:])
    with open("tools/deps-nix.txt") as f:
        nixmap = f.read()
    nonix = os.path.join(tmp, "deps-nix.txt")
    with open(nonix, "w") as f:
        f.write(re.sub(r"^gtkwave:.*\n", "", nixmap, flags=re.M))
    env = dict(os.environ, DEPS_NIX=nonix)
    rc, out = run(["bash", "tests/flake/check.sh"], env=env)
    ok(rc != 0 and "FAIL gtkwave is in tools/deps.sh but not in" in out, "flake test fails without gtkwave's Nix name",
       out[-1500:])

    # 3. a small tree calling new programs
    t = os.path.join(tmp, "tree")
    os.makedirs(os.path.join(t, "part", "tests"))
    files = {
        "Makefile": "GNUPLOT ?= gnuplot\nplot:\n\t@$(GNUPLOT) -e 'set term png' plot.gp\n",
        "part/part.mk": "TESTS += boot\nTEST_CMD_boot = timeout 60 qemu-system-x86_64 -nographic -kernel k\n",
        "part/tests/run.sh": "#!/bin/bash\nset -u\n# rping is mentioned in a comment only: not a use\n"
                             "\"$HCASIM\" run --ip 10.0.0.1 -- udaddy -s 10.0.0.2 | grep -q ok\n"
                             "x=$(parallel -j2 echo ::: a b)\ncat <<'EOF'\nnotacmd --here\nEOF\n",
        "part/tests/plot.py": "import os\nimport matplotlib\nimport subprocess\n"
                              "subprocess.run([\"busybox\", \"sh\"])\n",
        "part/shim.c": "static void go(void) { execlp(\"rping\", \"rping\", \"-s\", (char *)0); }\n",
    }
    for name, text in files.items():
        with open(os.path.join(t, name), "w") as f:
            f.write(text)
    pkgs = "PKGS=(\n  coreutils grep\n)\n"
    with open(os.path.join(t, "deps.sh"), "w") as f:
        f.write(pkgs)
    table = os.path.join(t, "table.txt")
    with open(table, "w") as f:
        f.write("base: coreutils grep\ncoreutils: cat echo timeout\ngrep: grep\n")
    base = [PY, CHECK, "--root", t, "--deps", os.path.join(t, "deps.sh"), "--table", table, "--no-dpkg"]
    rc, out = run(base)
    ok(rc != 0, "new programs fail the check", out)
    for cmd, where in [("gnuplot", "Makefile"), ("qemu-system-x86_64", "part/part.mk"),
                       ("udaddy", "part/tests/run.sh"), ("parallel", "part/tests/run.sh"),
                       ("python3:matplotlib", "part/tests/plot.py"), ("busybox", "part/tests/plot.py"),
                       ("rping", "part/shim.c")]:
        ok(re.search(r"^FAIL %s is used \(%s\) but .*table.txt does not say which package gives it: add it to its "
                     r"package's line" % (re.escape(cmd), re.escape(where)), out, re.M) is not None,
           "%s (%s) reported as unlisted, with what to add where" % (cmd, where), out)
    for word in ("notacmd", "os", "subprocess", "HCASIM", "echo", "set", "x", "j2"):
        ok(not re.search(r"^FAIL %s is used" % re.escape(word), out, re.M), "%s is not taken for a command" % word, out)
    with open(table, "a") as f:
        f.write("gnuplot-nox: gnuplot\nqemu-system-x86: qemu-system-x86_64\nrdmacm-utils: udaddy rping\n"
                "parallel: parallel\npython3-matplotlib: python3:matplotlib\nbusybox-static: busybox\n")
    rc, out = run(base)
    ok(rc != 0 and "FAIL gnuplot (used in Makefile) comes from gnuplot-nox" in out and
       "add gnuplot-nox to PKGS" in out, "listed but not installed by deps.sh: still fails, says add it to PKGS", out)
    with open(os.path.join(t, "deps.sh"), "w") as f:
        f.write(pkgs.replace("grep", "grep gnuplot-nox qemu-system-x86 rdmacm-utils parallel python3-matplotlib "
                                     "busybox-static"))
    rc, out = run(base)
    ok(rc == 0, "listed and installed: passes", out)

    # 4. the table against dpkg
    if have_dpkg and shutil.which("vcd2fst", path="/usr/bin:/bin"):
        with open(table, "a") as f:
            f.write("verilator: vcd2fst\n")
        with open(os.path.join(t, "part", "wave.sh"), "w") as f:
            f.write("#!/bin/sh\nvcd2fst a.vcd a.fst\n")
        rc, out = run(base[:-1])
        ok(rc != 0 and re.search(r"^FAIL .*says vcd2fst comes from verilator, but dpkg -S \S+ says gtkwave", out, re.M),
           "a wrong package in the table is caught by dpkg -S", out)
        with open(table, "w") as f:
            f.write("base: coreutils grep gtkwave\nwireshark-common (from coreutils): editcap\n")
        rc, out = run(base[:-1])
        ok(re.search(r"^FAIL .*gtkwave on the `base:` line, but dpkg-query says", out, re.M) is not None,
           "a base: package that is not on every system is caught", out)
        ok(re.search(r"^FAIL .*wireshark-common comes with coreutils, but it is no direct dependency", out, re.M)
           is not None, "a wrong (from PKG) is caught", out)
    else:
        print("(no dpkg or gtkwave here: the dpkg cross-checks were not run)")

print("%d passed, %d failed" % (passed, failed))
sys.exit(1 if failed else 0)
