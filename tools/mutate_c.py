#!/usr/bin/python3
"""Mutation analysis of the C model (docs/sim.md "Mutation analysis").

    tools/mutate_c.py prep   --out DIR --count N --seed S [--build build]
    tools/mutate_c.py one    --out DIR ID [--mode short|full]
    tools/mutate_c.py report --out DIR [--answers FILE]

prep finds the mutation sites of model/*.c with a small tokenizer (comments,
strings, character constants and preprocessor lines skipped): relational
and equality operators (== != < <= > >=), logical && ||, arithmetic + -,
shifts << >>, bitwise & | between operands, integer constants (0 <-> 1,
N -> N+1), and `if (` conditions negated; it samples N of them (seeded) into
DIR/list.txt and compiles the judge's test programs once (DIR/base/).
`one ID` writes mutant ID's source, compiles it, links every judge program
with the mutated object ahead of the model libraries, runs them (time limit
each) and writes DIR/results/ID.txt: "ID killed|survived|stillborn why".
GNU parallel runs `one` over the ids (sim/mutate/run_model.sh).  The judge:
the model's engine tests and the codec tests (short), built with ASan and
UBSan as make test builds them (the model's -san libraries), plus the oracle
suite -- scapy frames (model_scapy) and the wire-rules check of
tests/oracle/check_pcap.py (model_frames) -- in full mode.
"""
import argparse
import glob
import os
import random
import re
import subprocess
import sys

SOURCES = ["engine.c", "bar0.c", "mgmt.c", "ctx.c", "dma.c", "cq.c", "eq.c", "rq.c", "qp.c", "net.c", "recv.c",
           "req.c", "resp.c", "comp.c", "opcode.c", "hdr.c", "icrc.c"]
# name, sources, libraries, arguments, full mode only
JUDGE = [
    ("model_codec", ["model/tests/test_codec.c", "model/tests/test_codec_kat.c"], ["hcaroce"], [], False),
    ("model_rc", ["model/tests/test_model_rc.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_nak", ["model/tests/test_model_nak.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_retry", ["model/tests/test_model_retry.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_protect", ["model/tests/test_model_protect.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_queues", ["model/tests/test_model_queues.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_ud_uc", ["model/tests/test_model_ud_uc.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_mgmt", ["model/tests/test_model_mgmt.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_rules", ["model/tests/test_model_rules.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_wqe", ["model/tests/test_model_wqe.c"], ["hcamodel", "hcaroce", "hcasim"], [], False),
    ("model_fuzz", ["model/tests/test_model_fuzz.c"], ["hcamodel", "hcaroce", "hcasim"],
     ["--iterations", "3000", "--seed", "1"], False),
    ("model_scapy", ["model/tests/test_model_scapy.c"], ["hcamodel", "hcaroce", "hcasim"],
     ["/usr/bin/python3", "tests/oracle/gen_frames.py", "{tmp}"], True),
    ("model_frames", ["model/tests/test_model_frames.c"], ["hcamodel", "hcaroce", "hcasim"], ["{tmp}/frames.pcap"], True),
]
# Built as make test builds the tests: with AddressSanitizer and UBSan (a
# mutant that reads past an array or overflows is a bug the suite catches).
SAN = ["-fsanitize=address,undefined", "-fno-sanitize-recover=undefined", "-fno-omit-frame-pointer"]
CFLAGS = ["-std=c11", "-D_DEFAULT_SOURCE", "-D_GNU_SOURCE", "-O1", "-w", "-Iinclude", "-Imodel", "-Isim", "-Itests"] + SAN
RUN_ENV = dict(os.environ, UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
SWAPS = {"==": "!=", "!=": "==", "<": "<=", "<=": "<", ">": ">=", ">=": ">", "&&": "||", "||": "&&",
         "+": "-", "-": "+", "<<": ">>", ">>": "<<", "&": "|", "|": "&"}
TOKEN = re.compile(r"0[xX][0-9a-fA-F]+[uUlL]*|\d+[uUlL]*|[A-Za-z_]\w*|<<=|>>=|->|\+\+|--|&&|\|\||[<>=!]=|<<|>>|"
                   r"[-+*/%&|^~!<>=?:;,.(){}\[\]]|\S")


def strip(src):
    """Blank out comments, strings, char constants and preprocessor lines (positions kept)."""
    out, i, n = list(src), 0, len(src)
    while i < n:
        c = src[i]
        if src.startswith("/*", i):
            j = src.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif src.startswith("//", i):
            while i < n and src[i] != "\n":
                out[i] = " "
                i += 1
        elif c in "\"'":
            j = i + 1
            while j < n and src[j] != c:
                j += 2 if src[j] == "\\" else 1
            for k in range(i, min(j + 1, n)):
                out[k] = " "
            i = j + 1
        elif c == "#" and (i == 0 or src.rfind("\n", 0, i) == i - 1 or src[src.rfind("\n", 0, i) + 1:i].strip() == ""):
            while i < n and src[i] != "\n":
                if src[i] == "\\" and i + 1 < n and src[i + 1] == "\n":
                    out[i] = " "
                    i += 2
                    continue
                out[i] = " "
                i += 1
        else:
            i += 1
    return "".join(out)


def sites(path):
    src = open(path).read()
    clean = strip(src)
    toks = [(m.group(0), m.start()) for m in TOKEN.finditer(clean)]
    res = []
    depth_static = False
    for k, (t, pos) in enumerate(toks):
        prev = toks[k - 1][0] if k else ""
        nxt = toks[k + 1][0] if k + 1 < len(toks) else ""
        if t in ("static", "const") and nxt in ("const", "struct", "uint8_t", "char"):
            depth_static = True
        if t == ";":
            depth_static = False
        if depth_static:
            continue        # tables and constant data: not behaviour
        operand_before = prev and (re.match(r"\w", prev) or prev in (")", "]"))
        if t in SWAPS:
            if t in ("&", "|", "+", "-", "<", ">") and not operand_before:
                continue    # unary, address-of, template-ish
            if t in ("+", "-") and nxt in ("+", "-", "="):
                continue
            res.append((pos, t, SWAPS[t], "op"))
        elif re.match(r"\d", t) and prev not in ("[",) and operand_before is not None:
            v = re.match(r"(0[xX][0-9a-fA-F]+|\d+)(.*)", t)
            num = int(v.group(1), 0)
            new = ("1" if num == 0 else "0" if num == 1 else str(num + 1)) + v.group(2)
            res.append((pos, t, new, "const"))
        elif t == "if" and nxt == "(":
            res.append((toks[k + 1][1], "(", "(!", "cond"))
    return src, res


def line_of(src, pos):
    return src.count("\n", 0, pos) + 1


def prep(a):
    os.makedirs(os.path.join(a.out, "base"), exist_ok=True)
    allsites = []
    for f in SOURCES:
        path = "model/" + f
        src, s = sites(path)
        for pos, old, new, kind in s:
            allsites.append((path, pos, old, new, kind, line_of(src, pos)))
    rnd = random.Random(a.seed)
    pick = sorted(rnd.sample(range(len(allsites)), min(a.count, len(allsites))))
    with open(os.path.join(a.out, "list.txt"), "w") as f:
        for i, k in enumerate(pick, 1):
            path, pos, old, new, kind, line = allsites[k]
            f.write("%d %s %d %d %s %s %s\n" % (i, path, line, pos, kind, old, new))
    for name, srcs, _, _, _ in JUDGE:
        for s in srcs:
            o = os.path.join(a.out, "base", os.path.basename(s)[:-2] + ".o")
            subprocess.run(["gcc"] + CFLAGS + ["-c", s, "-o", o], check=True)
    with open(os.path.join(a.out, "build"), "w") as f:
        f.write(os.path.abspath(a.build))
    print("mutate_c: %d sites in %d files, %d sampled (seed %d) -> %s/list.txt"
          % (len(allsites), len(SOURCES), len(pick), a.seed, a.out))


def one(a):
    out = os.path.abspath(a.out)
    build = open(os.path.join(out, "build")).read().strip()
    ent = {}
    for l in open(os.path.join(out, "list.txt")):
        p = l.split()
        ent[int(p[0])] = p
    i = a.id
    _, path, line, pos, kind, old, new = ent[i]
    pos = int(pos)
    src = open(path).read()
    assert src[pos:pos + len(old)] == old, "site moved: %s" % ent[i]
    mdir = os.path.join(out, "m%d" % i)
    os.makedirs(mdir, exist_ok=True)
    msrc = os.path.join(mdir, os.path.basename(path))
    open(msrc, "w").write(src[:pos] + new + src[pos + len(old):])
    res = os.path.join(out, "results")
    os.makedirs(res, exist_ok=True)

    def done(verdict, why):
        with open(os.path.join(res, "%d.txt" % i), "w") as f:
            f.write("%d %s %s\n" % (i, verdict, why))
        subprocess.run(["rm", "-rf", mdir])

    mobj = os.path.join(mdir, "mut.o")
    if subprocess.run(["gcc"] + CFLAGS + ["-c", msrc, "-o", mobj], stdout=subprocess.DEVNULL,
                      stderr=subprocess.DEVNULL).returncode:
        return done("stillborn", "does not compile")
    tmp = os.path.join(mdir, "tmp")
    os.makedirs(tmp, exist_ok=True)
    for name, srcs, libs, args, full in JUDGE:
        if full and a.mode != "full":
            continue
        if path.endswith(("opcode.c", "hdr.c", "icrc.c")) is False and libs == ["hcaroce"]:
            continue        # the codec test does not link the engine
        exe = os.path.join(mdir, name)
        objs = [os.path.join(out, "base", os.path.basename(s)[:-2] + ".o") for s in srcs]
        lib = [os.path.join(build, "lib", "lib%s-san.a" % l) for l in libs]
        if subprocess.run(["gcc"] + SAN + ["-o", exe, mobj] + objs + lib + ["-lm"], stdout=subprocess.DEVNULL,
                          stderr=subprocess.DEVNULL).returncode:
            return done("stillborn", "does not link with %s" % name)
        argv = [x.replace("{tmp}", tmp) for x in args]
        try:
            r = subprocess.run([exe] + argv, cwd=os.getcwd(), env=RUN_ENV,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=a.timeout)
            rc, outp = r.returncode, r.stdout.decode(errors="replace")
        except subprocess.TimeoutExpired:
            return done("killed", "%s: timeout (%d s)" % (name, a.timeout))
        if rc == 0 and name == "model_frames":
            r = subprocess.run(["/usr/bin/python3", "tests/oracle/check_pcap.py", "--wire-rules",
                                os.path.join(tmp, "frames.pcap")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            rc, outp = r.returncode, r.stdout.decode(errors="replace")
        if rc != 0:
            first = next((l for l in outp.splitlines() if "FAIL" in l), outp.strip().splitlines()[-1:] or ["?"])
            first = first if isinstance(first, str) else first[0]
            return done("killed", "%s: %s" % (name, first.strip()[:160]))
    done("survived", "every judge program passed")


def report(a):
    ent = {}
    for l in open(os.path.join(a.out, "list.txt")):
        p = l.split()
        ent[int(p[0])] = p
    res = {}
    for f in glob.glob(os.path.join(a.out, "results", "*.txt")):
        for l in open(f):
            p = l.split(None, 2)
            if p and p[0].isdigit():
                res[int(p[0])] = (p[1], p[2].strip() if len(p) > 2 else "")
    answers = {}
    if a.answers and os.path.exists(a.answers):
        for l in open(a.answers):
            if l.strip() and not l.startswith("#"):
                k, v = l.split(None, 1)
                answers[k] = v.strip()
    k = sorted(i for i in res if res[i][0] == "killed")
    s = sorted(i for i in res if res[i][0] == "survived")
    sb = sorted(i for i in res if res[i][0] == "stillborn")
    n = len(k) + len(s)
    def key(i):
        _, path, line, pos, kind, old, new = ent[i]
        return "%s:%s:%s>%s" % (path, line, old, new)
    eq = [i for i in s if answers.get(key(i), "").startswith(("equivalent", "unreachable"))]
    open_ = [i for i in s if key(i) not in answers]
    ne = n - len(eq)
    lines = ["model mutation analysis: %d mutants (%s)" % (len(res), a.out),
             "  killed     %4d" % len(k), "  survived   %4d" % len(s), "  stillborn  %4d  (do not compile; not counted)" % len(sb),
             "  score: %d of %d = %.1f %%" % (len(k), n, 100.0 * len(k) / n if n else 0),
             "  equivalent or unreachable survivors (answered): %d; score without them: %d of %d = %.1f %%"
             % (len(eq), len(k), ne, 100.0 * len(k) / ne if ne else 0),
             "  survivors with no answer: %d" % len(open_), "",
             "survivors, with their answer (%s):" % (a.answers or "none")]
    for i in s:
        _, path, line, pos, kind, old, new = ent[i]
        key = "%s:%s:%s>%s" % (path, line, old, new)
        lines.append("  #%-4d %s:%s  %s -> %s  %s" % (i, path, line, old, new, answers.get(key, "NO ANSWER YET")))
    text = "\n".join(lines) + "\n"
    open(os.path.join(a.out, "report.txt"), "w").write(text)
    sys.stdout.write(text)
    return 0


def main():
    ap = argparse.ArgumentParser()
    sp = ap.add_subparsers(dest="cmd", required=True)
    p = sp.add_parser("prep")
    p.add_argument("--out", required=True)
    p.add_argument("--count", type=int, default=200)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--build", default="build")
    o = sp.add_parser("one")
    o.add_argument("--out", required=True)
    o.add_argument("--mode", default="full")
    o.add_argument("--timeout", type=int, default=20)
    o.add_argument("id", type=int)
    r = sp.add_parser("report")
    r.add_argument("--out", required=True)
    r.add_argument("--answers")
    a = ap.parse_args()
    return {"prep": prep, "one": one, "report": report}[a.cmd](a)


if __name__ == "__main__":
    sys.exit(main() or 0)
