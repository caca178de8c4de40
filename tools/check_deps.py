#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Keep the package list honest: every external command the tree calls
must come from a package tools/deps.sh installs.

  tools/check_deps.py [--deps tools/deps.sh] [--table tools/deps-commands.txt]
                      [--no-dpkg] [--list] [--root DIR]

Finds the commands automatically, by scanning the sources (no hand list of
what is used):
  - shell: Makefile and */*.mk recipes and TEST_CMD_* values, *.sh and other
    shell scripts (by #! line): the first word of every simple command, after
    variable defaults (VERILATOR=${VERILATOR:-verilator}, $(RV_PREFIX)gcc)
    are resolved, and the program a runner word starts (timeout, env,
    `hcasim run ... --`, run_pair, xargs ...);
  - Python: imported modules that are not the standard library's nor the
    tree's own (python3:MODULE), and argv lists ["tshark", ...];
  - C: string literals handed to exec*p() / popen() / system();
  - every word of the scanned code (comments dropped) that names a program
    installed from a package outside the base system (so `hcasim run -- ib_write_bw`
    and "open it with gtkwave FILE" are found too).
Then checks, for each command found:
  (a) tools/deps-commands.txt lists it (command -> Debian package);
  (b) that package is in tools/deps.sh's PKGS, or on the table's `base:`
      line (verified with dpkg-query: Essential, or Priority required, so on
      every Debian system), or the command is on the `optional:` line (used
      only when present, e.g. `command -v shellcheck && shellcheck ...`);
  (c) where dpkg is available and the command is installed, `dpkg -S` of
      its path agrees with the table (python modules: the module's file).
Every failure says what to add where.  Ends with "N passed, N failed".
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

SH_BUILTINS = set("""
: . [ [[ ]] alias bg bind break builtin caller case cd command compgen complete continue declare dirs disown
do done echo elif else enable esac eval exec exit export false fc fg fi for function getopts hash help
history if in jobs kill let local logout mapfile popd printf pushd pwd read readarray readonly return select
set shift shopt source suspend test then time times trap true type typeset ulimit umask unalias unset until
wait while { } !
""".split())
# Words after which the next word is the program that runs (skipping options
# and, for timeout, the duration).
RUNNERS = {"timeout", "env", "nohup", "exec", "command", "xargs", "sudo", "nice", "stdbuf", "setsid", "time"}
FILE_NAME = re.compile(r"\.(so|a|o|c|h|log|txt|fst|vcd|pcap|json|py|sh|mk)$")
WORD = re.compile(r"^[A-Za-z0-9_]*[A-Za-z][A-Za-z0-9_.+-]*$")


def tracked_files(root):
    try:
        out = subprocess.run(["git", "-C", root, "ls-files", "--cached", "--others", "--exclude-standard"],
                             capture_output=True, text=True, check=True).stdout
        return [f for f in out.splitlines() if os.path.isfile(os.path.join(root, f))]
    except (OSError, subprocess.CalledProcessError):
        res = []
        for d, dirs, files in os.walk(root):
            dirs[:] = [x for x in dirs if x not in (".git", "build")]
            res += [os.path.relpath(os.path.join(d, f), root) for f in files]
        return res


def kind_of(root, path):
    if path == "Makefile" or path.endswith(".mk"):
        return "make"
    if path.endswith(".sh"):
        return "sh"
    if path.endswith(".py"):
        return "py"
    if path.endswith((".c", ".h", ".cpp")):
        return "c"
    try:
        with open(os.path.join(root, path), "rb") as f:
            first = f.readline(200)
    except OSError:
        return None
    if first.startswith(b"#!") and (b"sh" in first.split(b"/")[-1] or b"bash" in first):
        return "sh"
    if first.startswith(b"#!") and b"python" in first:
        return "py"
    return None


# ---------------------------------------------------------------- shell text
def strip_heredocs(lines):
    out, end = [], None
    for ln in lines:
        if end is not None:
            if ln.strip() == end:
                end = None
            out.append("")
            continue
        m = re.search(r"<<-?\s*['\"]?([A-Za-z_][A-Za-z0-9_]*)['\"]?", ln)
        if m and "<<<" not in ln:
            end = m.group(1)
        out.append(ln)
    return out


def strip_comment(ln):
    """Drop a shell comment (a # that starts a word, outside quotes)."""
    q = None
    for i, ch in enumerate(ln):
        if q:
            if ch == q:
                q = None
            elif ch == "\\" and q == '"':
                continue
        elif ch in "'\"":
            q = ch
        elif ch == "#" and (i == 0 or ln[i - 1] in " \t;(") and not ln[i - 1:i + 1] == "$#":
            return ln[:i]
    return ln


def unquote_code(text):
    """Keep what runs: single-quoted text goes (awk/sed programs, messages),
    double-quoted text goes except its $(...) substitutions; a quoted single
    word ("$HCASIM", "${SUDO[@]}") stays, unquoted."""
    out, i, n = [], 0, len(text)
    while i < n:
        ch = text[i]
        if ch == "\\" and i + 1 < n:
            out.append(" ")
            i += 2
        elif ch == "'":
            j = text.find("'", i + 1)
            j = n if j < 0 else j
            out.append(" " + "\n" * text.count("\n", i, j))
            i = j + 1
        elif ch == '"':
            j, depth = i + 1, 0
            while j < n and (text[j] != '"' or depth):
                if text[j] == "\\":
                    j += 1
                elif text.startswith("$(", j):
                    depth += 1
                elif text[j] == ")" and depth:
                    depth -= 1
                j += 1
            body = text[i + 1:j]
            if re.match(r"^\$\{?[A-Za-z_][A-Za-z0-9_]*(\[@\])?\}?$", body):
                out.append(body)  # "$HCASIM": the word is the variable's value
            else:
                subs = [unquote_code(balanced(body, m.end() - 1)) for m in re.finditer(r"(?<!\$)\$\((?!\()", body)]
                out.append(" " + " ".join("$( %s )" % x for x in subs) + " " + "\n" * body.count("\n"))
            i = j + 1
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def resolve(word, env):
    """Expand $NAME ${NAME} ${NAME:-default} $(NAME) from env (one level of
    single-word values); None when something stays unresolved."""
    def sub(m):
        name = m.group(1) or m.group(2) or m.group(4)
        if m.group(3) is not None and name not in env:
            return m.group(3)
        return env.get(name, "\0")
    for _ in range(4):
        new = re.sub(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}|\$\{([A-Za-z_][A-Za-z0-9_]*):?-([^}]*)\}|\$[({]([A-Za-z_][A-Za-z0-9_]*)[)}]|"
                     r"\$([A-Za-z_][A-Za-z0-9_]*)",
                     lambda m: sub(m) if not m.group(5) else env.get(m.group(5), "\0"), word)
        if new == word:
            break
        word = new
    if "\0" in word or "$" in word:
        return None
    return word


def shell_assignments(text, env):
    for m in re.finditer(r"(?:^|[\s;])([A-Za-z_][A-Za-z0-9_]*)=\$\{[A-Za-z_][A-Za-z0-9_]*:?-([^}\s]+)\}", text):
        env.setdefault(m.group(1), m.group(2))
    for m in re.finditer(r"(?:^|[\s;])([A-Za-z_][A-Za-z0-9_]*)=([A-Za-z0-9_/.+-]+)(?=[\s;]|$)", text, re.M):
        env.setdefault(m.group(1), m.group(2))


def segments(code):
    """Split shell code into simple commands."""
    code = code.replace("\\\n", " ")
    code = drop_arithmetic(code)
    code = re.sub(r"\b[A-Za-z_][A-Za-z0-9_]*\+?=\([^)]*\)", " ", code)  # array assignments
    code = re.sub(r"^\s*[^\s()]+\)", " ", code, flags=re.M)  # case patterns
    code = re.sub(r"[0-9]*>&[0-9-]+|&>", " ", code)  # redirections
    return re.split(r"\|\||&&|[|;&\n`()]|(?<!\$)\{(?=\s)|(?<=[\s;])\}|\$\(|<\(|>\(|\bthen\b|\bdo\b|\belse\b|\bif\b|\belif\b|\bwhile\b|\buntil\b|!", code)


def first_words(seg, env, defined):
    """The program(s) a simple command runs."""
    words = seg.split()
    out = []
    i = 0
    while i < len(words):
        w = words[i]
        if re.match(r"^[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=", w):  # VAR=value prefix
            i += 1
            continue
        if w.startswith(("<", ">", "2>", "&>")) or w in ("case", "for", "select"):
            return out
        rest = words[i + 1:]
        if rest[:1] == ["run"] and "--" in rest:  # hcasim run [options] -- PROGRAM ...
            return out + first_words(" ".join(rest[rest.index("--") + 1:]), env, defined)
        r = resolve(w.strip("\"'"), env)
        if r is None and re.match(r"^\$\{[A-Za-z_][A-Za-z0-9_]*\[@\]\}$", w):
            i += 1  # "${SUDO[@]}" apt-get ...: an array of runner words
            continue
        if r is None or not r:
            return out
        r = r.strip("\"'")
        if "/" in r:
            if not r.startswith("/"):
                return out  # a file of the tree or the build
            r = os.path.basename(r)
        if not WORD.match(r) or FILE_NAME.search(r) or r in SH_BUILTINS or r in defined:
            if r in defined and r in ("run", "run_pair"):  # runners of verbs programs
                rest = words[i + 1:]
                if "--" in rest:
                    return out + first_words(" ".join(rest[rest.index("--") + 1:]), env, defined)
            return out
        out.append(r)
        if r in RUNNERS:
            i += 1
            while i < len(words) and (words[i].startswith("-") or "=" in words[i]):
                i += 1
            if r == "timeout":
                i += 1  # the duration
            continue
        return out
    return out


def make_text(root, files):
    """Recipes and TEST_CMD values of the Makefile and fragments, with make
    variables resolved where they name one word."""
    env = {"CC": "gcc", "CXX": "g++", "MAKE": "make", "AR": "ar", "SHELL": "bash"}
    chunks = []
    for path in files:
        with open(os.path.join(root, path)) as f:
            text = f.read().replace("\\\n", " ")
        for m in re.finditer(r"^([A-Za-z_][A-Za-z0-9_]*)\s*(?:\?|:|::)?=[ \t]*(\S+)[ \t]*$", text, re.M):
            env.setdefault(m.group(1), m.group(2))
        for ln in text.splitlines():
            if ln.startswith("\t"):
                chunks.append((path, ln.lstrip("\t@-+")))
            m = re.match(r"^(TEST_CMD_\S+|[A-Z_]*CMD[A-Z_]*)\s*[:?+]?=\s*(.*)$", ln)
            if m:
                chunks.append((path, m.group(2)))
            for m in re.finditer(r"\$\(shell ", ln):
                chunks.append((path, balanced(ln, m.start() + 1)[len("shell "):]))
    out = []
    for path, c in chunks:
        out.append((path, make_expand(c, env)))
    return out, env


def balanced(text, start):
    """The text after the opening bracket at start, up to its closing one."""
    depth = 0
    for j in range(start, len(text)):
        if text[j] == "(":
            depth += 1
        elif text[j] == ")":
            depth -= 1
            if depth == 0:
                return text[start + 1:j]
    return text[start + 1:]


def drop_arithmetic(code):
    """$(( ... )) and (( ... )), nested parentheses included."""
    out, i = [], 0
    while True:
        m = re.compile(r"\$?\(\(").search(code, i)
        if not m:
            return "".join(out) + code[i:]
        body = balanced(code, m.start() + (1 if code[m.start()] == "$" else 0))
        out.append(code[i:m.start()] + " ")
        i = m.start() + (1 if code[m.start()] == "$" else 0) + len(body) + 2


def make_expand(text, env):
    """Make's $(NAME) by its value where that is one word, any other
    reference or function by $UNRESOLVED; then $$ -> $ for the shell."""
    text = re.sub(r"\$\$([({])([A-Z_@<^*][A-Za-z0-9_]*|@D|@F)([)}])", r"$\1\2\3", text)  # $$(VAR) in define
    text = text.replace("$$", "\1")
    for _ in range(8):
        new = re.sub(r"\$[({]([^(){}$]*)[)}]",
                     lambda m: env.get(m.group(1), "\x01U") if re.match(r"^[A-Za-z_][A-Za-z0-9_]*$", m.group(1))
                     else "\x01U", text)
        new = re.sub(r"\$[@<^*?%]", "\x01U", new)
        if new == text:
            break
        text = new
    return text.replace("\1", "$")


def defined_functions(texts):
    names = set()
    for t in texts:
        names.update(re.findall(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*\(\)", t, re.M))
    return names


# ---------------------------------------------------------------- python / C
def python_uses(text, local_mods):
    mods, cmds = set(), set()
    for m in re.finditer(r"^\s*(?:import\s+([A-Za-z0-9_]+)|from\s+([A-Za-z0-9_]+)[.\w]*\s+import)", text, re.M):
        mod = m.group(1) or m.group(2)
        if mod not in sys.stdlib_module_names and mod not in local_mods and mod != "__future__":
            mods.add(mod)
    for m in re.finditer(r"(?:subprocess\.\w+|Popen|check_output|call|run)\(\s*\[\s*[\"']([A-Za-z0-9_][A-Za-z0-9_.+-]*)[\"']", text):
        cmds.add(m.group(1))
    for m in re.finditer(r"\bcmd\s*=\s*\[\s*[\"']([A-Za-z0-9_][A-Za-z0-9_.+-]*)[\"']", text):
        cmds.add(m.group(1))
    for m in re.finditer(r"shutil\.which\(\s*[\"']([^\"']+)[\"']", text):
        cmds.add(m.group(1))
    return mods, cmds


def c_uses(text):
    return set(re.findall(r"\b(?:execlp|execvp|popen|system)\s*\(\s*\"([A-Za-z0-9_][A-Za-z0-9_.+-]*)", text))


# ---------------------------------------------------------------- table
# Files (path prefixes) that run inside the interop guest, on the guest
# image's busybox and the tools copied into it (tests/interop/mkguest.sh
# checks those exist when it builds the image), not on this machine: the
# table's `guest-side:` line; not scanned.
GUEST_SIDE = []


def read_table(path):
    """PACKAGE [(from PKG)]: COMMAND...   base: PACKAGE...   optional: COMMAND...
    not-a-command: WORD...  guest-side: PATH...  ->  ({command: package},
    {package: the PKGS package it is a direct dependency of}, base, optional,
    ignore, errors); the guest-side paths go to GUEST_SIDE."""
    cmds, dep_of, base, optional, ignore, errors = {}, {}, set(), set(), set(), []
    with open(path) as f:
        for n, ln in enumerate(f, 1):
            ln = ln.split("#", 1)[0].strip()
            if not ln:
                continue
            m = re.match(r"^([a-z0-9][a-z0-9.+-]*)(?:\s+\(from\s+([a-z0-9][a-z0-9.+-]*)\))?:(\s.*|)$", ln)
            key, via, words = (m.group(1), m.group(2), m.group(3).split()) if m else (None, None, [])
            if not m:
                errors.append("%s:%d: want `PACKAGE: COMMAND...`, `PACKAGE (from PKG): COMMAND...` "
                              "(or base:, optional:, not-a-command:)" % (path, n))
            elif key == "base":
                base.update(words)
            elif key == "optional":
                optional.update(words)
            elif key == "not-a-command":
                ignore.update(words)
            elif key == "guest-side":
                GUEST_SIDE.extend(words)
            else:
                for w in words:
                    if w in cmds and cmds[w] != key:
                        errors.append("%s:%d: %s listed under %s and %s" % (path, n, w, cmds[w], key))
                    cmds[w] = key
                if via:
                    dep_of[key] = via
    return cmds, dep_of, base, optional, ignore, errors


def read_pkgs(path):
    with open(path) as f:
        text = f.read()
    lists = re.findall(r"^PKGS(?:_[A-Z_]+)?=\((.*?)^\)", text, re.S | re.M)
    if not lists:
        return None
    # PKGS and its variants (PKGS_NO_RECOMMENDS: installed without Recommends).
    body = "\n".join(ln.split("#", 1)[0] for m in lists for ln in m.splitlines())
    return set(body.split())


class Dpkg:
    """What dpkg -S says, from dpkg's own file lists (read once: one dpkg -S
    per word would take minutes); absent on non-Debian hosts."""
    INFO = "/var/lib/dpkg/info"

    def __init__(self, enabled):
        self.ok = enabled and shutil.which("dpkg") is not None and os.path.isdir(self.INFO)
        self.files = None

    def _index(self):
        self.files = {}
        for name in os.listdir(self.INFO):
            if not name.endswith(".list"):
                continue
            pkg = name[:-5].split(":")[0]
            with open(os.path.join(self.INFO, name), errors="replace") as f:
                for ln in f:
                    if "/bin/" in ln or "/dist-packages/" in ln or "/sbin/" in ln:
                        self.files.setdefault(ln.rstrip("\n"), set()).add(pkg)

    def owner(self, path):
        """The packages that hold path (merged /usr: /bin/x is /usr/bin/x), or None."""
        if not self.ok or not path:
            return None
        if self.files is None:
            self._index()
        cands = {path, os.path.realpath(path)}
        cands |= {c[4:] if c.startswith("/usr/") else "/usr" + c for c in list(cands)}
        owners = set()
        for c in cands:
            owners |= self.files.get(c, set())
        return owners or None

    def depends(self, pkg):
        """Names of the direct dependencies (Depends, Pre-Depends) of pkg."""
        r = subprocess.run(["dpkg-query", "-W", "-f=${Depends}, ${Pre-Depends}", pkg], capture_output=True, text=True)
        return set(re.findall(r"(?:^|[,|]\s*)([a-z0-9][a-z0-9.+-]*)", r.stdout)) if r.returncode == 0 else set()

    def base(self, pkg):
        """Essential, or of Priority required: on every Debian system."""
        if not self.ok:
            return None
        r = subprocess.run(["dpkg-query", "-W", "-f=${Essential} ${Priority}", pkg], capture_output=True, text=True)
        return r.returncode == 0 and r.stdout.split()[:1] == ["yes"] or r.stdout.strip().endswith("required")


def module_file(mod, python):
    r = subprocess.run([python, "-c", "import importlib.util as u, sys; s = u.find_spec(sys.argv[1]); "
                        "print(s.origin if s and s.origin not in (None, 'namespace') else "
                        "(list(s.submodule_search_locations)[0] if s else ''))", mod],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else ""


# ---------------------------------------------------------------- main
def scan(root):
    """{command: first place it is used} (python modules as python3:MOD)."""
    files = [f for f in tracked_files(root) if not any(f.startswith(g) for g in GUEST_SIDE)]
    kinds = {f: kind_of(root, f) for f in files}
    texts = {}
    for f, k in kinds.items():
        if k:
            with open(os.path.join(root, f), errors="replace") as fh:
                texts[f] = fh.read()
    found = {}

    def add(cmd, where):
        found.setdefault(cmd, where)

    make_files = [f for f in files if kinds[f] == "make"]
    chunks, menv = make_text(root, make_files)
    sh_files = [f for f in files if kinds[f] == "sh"]
    defined = defined_functions(texts[f] for f in sh_files) | {"hca_test", "hca_lib"}
    code_of = {}  # path -> code (comments and heredocs gone) for the word scan
    for path, c in chunks:
        env = dict(menv)
        shell_assignments(c, env)
        for seg in segments(unquote_code(c)):
            for w in first_words(seg, env, defined):
                add(w, path)
        code_of[path] = code_of.get(path, "") + "\n" + c
    for path in sh_files:
        lines = [strip_comment(ln) for ln in strip_heredocs(texts[path].splitlines())]
        code = "\n".join(lines)
        env = {}
        shell_assignments(code, env)
        for seg in segments(unquote_code(code)):
            for w in first_words(seg, env, defined):
                add(w, path)
        code_of[path] = code
    local_mods = {os.path.splitext(os.path.basename(f))[0] for f in files if f.endswith(".py")}
    for path in (f for f in files if kinds[f] == "py"):
        mods, cmds = python_uses(texts[path], local_mods)
        for m in mods:
            add("python3:" + m, path)
        for c in cmds:
            add(c, path)
    for path in (f for f in files if kinds[f] == "c"):
        for c in c_uses(texts[path]):
            add(c, path)
    return found, code_of


SYSTEM_PATH = "/usr/sbin:/usr/bin:/sbin:/bin"


def installed_words(code_of, dpkg, base, skip):
    """Words of the code that name an installed program of a package outside
    the base system ({word: file})."""
    found = {}
    if not dpkg.ok:
        return found
    name = r"(?<![\w/.$@%=:-])([A-Za-z][A-Za-z0-9_.+-]*[A-Za-z0-9])(?![\w/=:-])"
    for path, code in sorted(code_of.items()):
        if path in skip:
            continue
        # shell and awk variables of the file are no commands
        variables = set(re.findall(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)", code))
        variables |= set(re.findall(r"\b([A-Za-z_][A-Za-z0-9_]*)\+?=", code))
        for m in re.finditer(r"\b(?:read|local|for|declare)((?:\s+-?[A-Za-z_][A-Za-z0-9_]*)+)", code):
            variables |= set(m.group(1).split())
        for w in sorted(set(re.findall(name, code)) - variables - SH_BUILTINS):
            if w in found:
                continue
            p = shutil.which(w, path=SYSTEM_PATH)
            owners = dpkg.owner(p) if p else None
            if owners and not (owners & base):
                found[w] = path
    return found


def program_file(cmd, python):
    """Where an installed command (or python3:MODULE) lives, or None."""
    if cmd.startswith("python3:"):
        return module_file(cmd.split(":", 1)[1], python) or None
    return shutil.which(cmd, path=SYSTEM_PATH)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--root", default=".")
    ap.add_argument("--deps", default="tools/deps.sh")
    ap.add_argument("--table", default="tools/deps-commands.txt")
    ap.add_argument("--no-dpkg", action="store_true", help="check (a) and (b) only")
    ap.add_argument("--list", action="store_true", help="print the commands found, their package and where")
    ap.add_argument("--python", default="/usr/bin/python3")
    a = ap.parse_args()

    passed = failed = 0
    problems = []

    def check(ok, msg):
        nonlocal passed, failed
        if ok:
            passed += 1
        else:
            failed += 1
            problems.append(msg)

    cmds, dep_of, base, optional, ignore, errors = read_table(a.table)
    for e in errors:
        check(False, e)
    pkgs = read_pkgs(a.deps)
    if pkgs is None:
        print("FAIL %s: no PKGS=( ... ) list" % a.deps)
        print("0 passed, 1 failed")
        return 1
    dpkg = Dpkg(not a.no_dpkg)

    def installs(pkg):
        return pkg in pkgs or pkg in base or dep_of.get(pkg) in pkgs

    found, code_of = scan(a.root)
    # the package lists name packages, not commands
    skip = {os.path.relpath(os.path.abspath(x), os.path.abspath(a.root)) for x in (a.deps, a.table)}
    skip |= {"tools/deps.sh", "tools/deps-commands.txt"}
    for w, path in installed_words(code_of, dpkg, base, skip).items():
        found.setdefault(w, path)
    if a.list:
        for c in sorted(found):
            print("%-28s %-30s %s" % (c, "(not a command)" if c in ignore else cmds.get(c, "?"), found[c]))

    table_hint = "add it to its package's line in %s (`PACKAGE: ... %%s`)" % a.table
    for c in sorted(set(found) - ignore):
        where = found[c]
        if c not in cmds:
            hint = ""
            if dpkg.ok:
                p = program_file(c, a.python)
                owners = dpkg.owner(p) if p else None
                hint = "; here it comes from %s" % ", ".join(sorted(owners)) if owners else "; not installed here"
            check(False, "%s is used (%s) but %s does not say which package gives it: %s, and put that "
                  "package in PKGS in %s and its Nix equivalent in flake.nix%s (a word that is no command goes on "
                  "the `not-a-command:` line)" % (c, where, a.table, table_hint % c, a.deps, hint))
            continue
    for c, pkg in sorted(cmds.items()):
        check(installs(pkg) or c in optional,
              "%s (%s) comes from %s (%s), which %s does not install: add %s to PKGS there and its Nix "
              "equivalent to flake.nix" % (c, "used in " + found[c] if c in found else "not used now", pkg,
                                           a.table, a.deps, pkg))
    if dpkg.ok:
        for pkg in sorted(base):
            check(dpkg.base(pkg), "%s has %s on the `base:` line, but dpkg-query says it is neither Essential nor "
                  "Priority required (not on every Debian system): put it in PKGS in %s" % (a.table, pkg, a.deps))
        for pkg, via in sorted(dep_of.items()):
            check(pkg in dpkg.depends(via), "%s says %s comes with %s, but it is no direct dependency of it "
                  "(dpkg-query -W -f='${Depends}' %s): put %s in PKGS in %s" % (a.table, pkg, via, via, pkg, a.deps))
        for c, pkg in sorted(cmds.items()):
            p = program_file(c, a.python)
            owners = dpkg.owner(p) if p else None
            if owners is None:
                continue  # not installed here, or not from a package: (a) and (b) still hold
            check(pkg in owners, "%s says %s comes from %s, but dpkg -S %s says %s: fix the table" %
                  (a.table, c, pkg, p, ", ".join(sorted(owners))))
    for p in problems:
        print("FAIL " + p)
    print("%d commands found in the tree, %d in the table, %d packages in PKGS%s" %
          (len(found), len(cmds), len(pkgs), "" if dpkg.ok else " (no dpkg here: the table is not checked against it)"))
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
