#!/usr/bin/env python3
"""Generate the C header, the Verilog include and the reference tables from
spec/hca.toml (the one machine-readable definition of the programming
interface).

    genspec.py [--spec spec/hca.toml] --c OUT.h --v OUT.vh --md OUT.md
    genspec.py ... --dump-c OUT.c --dump-sv OUT.sv   (consistency programs)

Every constant, register offset, field shift/width/mask and struct offset is
emitted under the same name in C and Verilog; the dump programs print
"NAME VALUE" lines for all of them so tests/spec can compare the two
languages' views value by value.
"""
import argparse
import sys
import tomllib

SCALAR = {"u8": 1, "u16": 2, "u32": 4, "u64": 8}
CTYPE = {"u8": "uint8_t", "u16": "uint16_t", "u32": "uint32_t", "u64": "uint64_t"}
ATTR_KIND = {"PTR_IN": 1, "PTR_OUT": 2, "IDR": 3, "ENUM": 4}
IDR_ACCESS = {"NONE": 0, "NEW": 1, "READ": 2, "WRITE": 3, "DESTROY": 4}


class SpecError(Exception):
    pass


class Model:
    """Flattened view of the spec: ordered (name, value, doc) constants plus
    the structured parts the header generator needs."""

    def __init__(self, spec):
        self.spec = spec
        self.values = []          # (name, int value)
        self.names = {}
        self.structs = []
        self.enums = []
        self.objects = []
        self._build()

    def add(self, name, value):
        if not name.replace("_", "").isalnum() or not name[0].isalpha():
            raise SpecError(f"bad identifier {name!r}")
        if name in self.names:
            raise SpecError(f"duplicate name {name}")
        if not isinstance(value, int) or value < 0 or value >= 1 << 64:
            raise SpecError(f"{name}: value {value!r} must be a non-negative 64-bit integer")
        self.names[name] = value
        self.values.append((name, value))

    def _build(self):
        s = self.spec
        self.add("HCA_SPEC_VERSION", s["meta"]["spec_version"])
        for grp in s.get("const", []):
            for name, value, *_ in grp["values"]:
                self.add(grp["prefix"] + name, value)
        for en in s.get("enum", []):
            seen = set()
            for name, value, *_ in en["values"]:
                if value in seen:
                    raise SpecError(f"{en['name']}: value {value} used twice")
                seen.add(value)
                self.add(en["prefix"] + name, value)
            self.enums.append(en)
        for blk in s.get("reg", []):
            pre = f"HCA_{blk['block']}_"
            offs = set()
            for r in blk["regs"]:
                if r["off"] % 4:
                    raise SpecError(f"{pre}{r['name']}: offset not 32-bit aligned")
                if r["off"] in offs:
                    raise SpecError(f"{pre}{r['name']}: offset reused")
                offs.add(r["off"])
                self.add(pre + r["name"], r["off"])
                self._fields(pre + r["name"], r.get("fields", []), 32)
        for st in s.get("struct", []):
            self._struct(st)
        tbl = s["rnr_table"]["usx100"]
        if len(tbl) != 32:
            raise SpecError("rnr_table must have 32 entries")
        clk = self.names["HCA_CLK_HZ"]
        for code, v in enumerate(tbl):
            cycles = v * clk // 100_000_000
            if cycles * 100_000_000 != v * clk:
                raise SpecError(f"RNR code {code}: not a whole number of cycles")
            self.add(f"HCA_RNR_CYCLES_{code}", cycles)
        self.add("HCA_ATTR_KIND_PTR_IN", ATTR_KIND["PTR_IN"])
        self.add("HCA_ATTR_KIND_PTR_OUT", ATTR_KIND["PTR_OUT"])
        self.add("HCA_ATTR_KIND_IDR", ATTR_KIND["IDR"])
        self.add("HCA_ATTR_KIND_ENUM", ATTR_KIND["ENUM"])
        for k, v in IDR_ACCESS.items():
            self.add(f"HCA_IDR_ACCESS_{k}", v)
        self._objects()

    def _fields(self, pre, fields, width):
        used = 0
        for f in fields:
            name, lsb, w = f[0], f[1], f[2]
            if lsb + w > width:
                raise SpecError(f"{pre}_{name}: beyond {width} bits")
            mask = ((1 << w) - 1) << lsb
            if used & mask:
                raise SpecError(f"{pre}_{name}: overlaps another field")
            used |= mask
            self.add(f"{pre}_{name}_SHIFT", lsb)
            self.add(f"{pre}_{name}_WIDTH", w)
            self.add(f"{pre}_{name}_MASK", mask)

    def _struct(self, st):
        pre = "HCA_" + st["name"].upper()
        size = st["size"]
        self.add(pre + "_SIZE", size)
        spans = []
        fields = []
        for f in st["fields"]:
            name, off, typ = f[0], f[1], f[2]
            doc = f[3] if len(f) > 3 else ""
            bits = f[4] if len(f) > 4 else []
            if typ in SCALAR:
                nbytes, count, base = SCALAR[typ], 1, typ
                if off % nbytes:
                    raise SpecError(f"{pre}.{name}: misaligned {typ} at {off}")
            elif typ.startswith("u8[") and typ.endswith("]"):
                count = int(typ[3:-1])
                nbytes, base = count, "u8"
            else:
                raise SpecError(f"{pre}.{name}: unknown type {typ}")
            if off + nbytes > size:
                raise SpecError(f"{pre}.{name}: beyond struct size")
            for a, b in spans:
                if off < b and a < off + nbytes:
                    raise SpecError(f"{pre}.{name}: overlaps another field")
            spans.append((off, off + nbytes))
            fn = f"{pre}_{name.upper()}"
            self.add(fn + "_OFF", off)
            self.add(fn + "_LEN", nbytes)
            if bits:
                if base == "u8" and count > 1:
                    raise SpecError(f"{fn}: bit fields on a byte array")
                self._fields(fn, bits, nbytes * 8)
            fields.append(dict(name=name, off=off, type=base, count=count,
                               nbytes=nbytes, doc=doc, bits=bits, array=typ not in SCALAR))
        fields.sort(key=lambda f: f["off"])
        self.structs.append(dict(name=st["name"], size=size, doc=st.get("doc", ""), fields=fields))

    def _objects(self):
        structs = {s["name"]: s for s in self.structs}
        obj_ids = {}
        for ob in self.spec.get("object", []):
            obj_ids[ob["name"]] = ob["id"]
            self.add(f"HCA_OBJ_{ob['name']}", ob["id"])
        for ob in self.spec.get("object", []):
            mids = set()
            methods = []
            for m in ob["methods"]:
                if m["id"] in mids:
                    raise SpecError(f"{ob['name']}.{m['name']}: method id reused")
                mids.add(m["id"])
                mpre = f"{ob['name']}_{m['name']}"
                self.add(f"HCA_METHOD_{mpre}", m["id"])
                aids = set()
                attrs = []
                for a in m["attrs"]:
                    if a["id"] in aids:
                        raise SpecError(f"{mpre}.{a['name']}: attribute id reused")
                    aids.add(a["id"])
                    kind = a["kind"]
                    if kind not in ATTR_KIND:
                        raise SpecError(f"{mpre}.{a['name']}: unknown kind {kind}")
                    spec = dict(name=a["name"], id=a["id"], kind=kind, mandatory=bool(a.get("mandatory")),
                                access="NONE", obj=0, len=0, min_len=0, zero_trailing=0, elems=[],
                                doc=a.get("doc", ""), type=a.get("type", ""))
                    if kind == "IDR":
                        spec["access"] = a["access"]
                        spec["obj"] = obj_ids[a["obj"]]
                        spec["objname"] = a["obj"]
                    elif kind in ("PTR_IN", "PTR_OUT"):
                        t = a["type"]
                        if t.startswith("struct:"):
                            sname = t[7:]
                            if sname not in structs:
                                raise SpecError(f"{mpre}.{a['name']}: unknown struct {sname}")
                            spec["len"] = structs[sname]["size"]
                            spec["min_len"] = a.get("min_len", spec["len"])
                            spec["zero_trailing"] = 1
                        else:
                            spec["len"] = spec["min_len"] = SCALAR[t]
                    else:  # ENUM
                        for e in a["elems"]:
                            spec["elems"].append(dict(name=e["name"], id=e["id"], len=e["len"]))
                            self.add(f"HCA_ATTR_{mpre}_{a['name']}_{e['name']}", e["id"])
                    self.add(f"HCA_ATTR_{mpre}_{a['name']}", a["id"])
                    attrs.append(spec)
                methods.append(dict(name=m["name"], id=m["id"], attrs=attrs, doc=m.get("doc", "")))
            self.objects.append(dict(name=ob["name"], id=ob["id"], methods=methods, doc=ob.get("doc", "")))


def c_lit(v):
    if v < 1 << 31:
        return str(v) if v < 256 else f"0x{v:x}"
    if v < 1 << 32:
        return f"0x{v:x}u"
    return f"0x{v:x}ull"


def v_lit(v):
    if v < 1 << 31:
        return str(v)
    if v < 1 << 32:
        return f"32'h{v:08x}"
    return f"64'h{v:016x}"


BANNER = "Generated by tools/genspec.py from spec/hca.toml. Do not edit."


def gen_c(m):
    o = [f"/* {BANNER} */", "#ifndef HCASIM_HCA_SPEC_H", "#define HCASIM_HCA_SPEC_H", "",
         "#include <stddef.h>", "#include <stdint.h>", "",
         "#define HCA_FIELD_GET(v, F) (((v) & F##_MASK) >> F##_SHIFT)",
         "#define HCA_FIELD_PREP(F, x) ((((uint32_t)(x)) << F##_SHIFT) & F##_MASK)", ""]
    enum_names = {en["prefix"] + n for en in m.enums for n, *_ in en["values"]}
    for name, v in m.values:
        if name not in enum_names:
            o.append(f"#define {name} {c_lit(v)}")
    o.append("")
    for en in m.enums:
        o.append(f"/* {en.get('doc', '')} */")
        o.append(f"enum {en['name']} {{")
        for n, v, *_ in en["values"]:
            o.append(f"\t{en['prefix']}{n} = {v},")
        o.append("};\n")
        # Value -> spec name, for logs and mismatch reports.
        o.append(f"/* Name of an {en['name']} value without its prefix, \"?\" if none. */")
        o.append(f"static inline const char *{en['name']}_name(unsigned int v)")
        o.append("{")
        o.append("\tswitch (v) {")
        for n, v, *_ in en["values"]:
            o.append(f"\tcase {en['prefix']}{n}: return \"{n}\";")
        o.append("\tdefault: return \"?\";")
        o.append("\t}")
        o.append("}\n")
    for st in m.structs:
        o.append(f"/* {st['doc']} */")
        o.append(f"struct hca_{st['name']} {{")
        pos = 0
        for f in st["fields"]:
            if f["off"] > pos:
                o.append(f"\tuint8_t rsvd_{pos:02x}[{f['off'] - pos}];")
            if f["array"]:
                o.append(f"\tuint8_t {f['name']}[{f['count']}];")
            else:
                o.append(f"\t{CTYPE[f['type']]} {f['name']};")
            pos = f["off"] + f["nbytes"]
        if pos < st["size"]:
            o.append(f"\tuint8_t rsvd_{pos:02x}[{st['size'] - pos}];")
        o.append("};")
        up = "HCA_" + st["name"].upper()
        o.append(f"_Static_assert(sizeof(struct hca_{st['name']}) == {up}_SIZE, \"{st['name']} size\");")
        for f in st["fields"]:
            o.append(f"_Static_assert(offsetof(struct hca_{st['name']}, {f['name']}) == "
                     f"{up}_{f['name'].upper()}_OFF, \"{st['name']}.{f['name']}\");")
        o.append("")
    # Command interface tables as X-macros: firmware builds its dispatcher data
    # from these, the driver shim its command builders.
    o.append("/* X(NAME, id) for every object */")
    o.append("#define HCA_UAPI_OBJECTS(X) \\")
    o.append(" \\\n".join(f"\tX({ob['name']}, {ob['id']})" for ob in m.objects))
    o.append("")
    for ob in m.objects:
        o.append(f"/* X(OBJ, METHOD, id) for the methods of {ob['name']} */")
        o.append(f"#define HCA_UAPI_METHODS_{ob['name']}(X) \\")
        o.append(" \\\n".join(f"\tX({ob['name']}, {me['name']}, {me['id']})" for me in ob["methods"]))
        o.append("")
        for me in ob["methods"]:
            o.append(f"/* X(OBJ, METHOD, ATTR, id, kind, idr_access, idr_obj, mandatory, len, min_len, zero_trailing) */")
            o.append(f"#define HCA_UAPI_ATTRS_{ob['name']}_{me['name']}(X) \\")
            rows = []
            for a in me["attrs"]:
                rows.append(f"\tX({ob['name']}, {me['name']}, {a['name']}, {a['id']}, HCA_ATTR_KIND_{a['kind']}, "
                            f"HCA_IDR_ACCESS_{a['access']}, {a['obj']}, {int(a['mandatory'])}, {a['len']}, "
                            f"{a['min_len']}, {a['zero_trailing']})")
            o.append(" \\\n".join(rows))
            o.append("")
            for a in me["attrs"]:
                if a["kind"] == "ENUM":
                    o.append(f"/* X(ELEM, id, len) */")
                    o.append(f"#define HCA_UAPI_ENUM_{ob['name']}_{me['name']}_{a['name']}(X) \\")
                    o.append(" \\\n".join(f"\tX({e['name']}, {e['id']}, {e['len']})" for e in a["elems"]))
                    o.append("")
    o.append("#define HCA_RNR_CYCLES_TABLE { \\")
    o.append(", \\\n".join(f"\t{c_lit(m.names[f'HCA_RNR_CYCLES_{i}'])}" for i in range(32)) + " }")
    o.append("")
    o.append("#endif /* HCASIM_HCA_SPEC_H */")
    return "\n".join(o) + "\n"


def gen_v(m):
    o = [f"// {BANNER}", "`ifndef HCA_SPEC_VH", "`define HCA_SPEC_VH"]
    for name, v in m.values:
        o.append(f"`define {name} {v_lit(v)}")
    o.append("`endif // HCA_SPEC_VH")
    return "\n".join(o) + "\n"


def gen_dump_c(m):
    o = [f"/* {BANNER} */", '#include <stdio.h>', '#include "hcasim/hca_spec.h"', "int main(void)", "{"]
    for name, _ in m.values:
        o.append(f'\tprintf("{name} %llu\\n", (unsigned long long)({name}));')
    o += ["\treturn 0;", "}"]
    return "\n".join(o) + "\n"


def gen_dump_sv(m):
    o = [f"// {BANNER}", '`include "hca_spec.vh"', "module spec_dump;", "  initial begin"]
    for name, _ in m.values:
        o.append(f'    $display("{name} %0d", `{name});')
    o += ["    $finish;", "  end", "endmodule"]
    return "\n".join(o) + "\n"


def md_escape(s):
    return str(s).replace("|", "\\|")


def gen_md(m):
    s = m.spec
    o = [f"<!-- {BANNER} -->", "# hcasim programming interface: reference tables", "",
         "Generated from `spec/hca.toml`; the prose that explains how the pieces work together is in",
         "[programming.md](programming.md), [wire.md](wire.md) and [backend.md](backend.md).",
         "C names are the names below (`include/hcasim/hca_spec.h`); Verilog uses the same names as",
         "`` `define `` macros (`rtl/include/hca_spec.vh`). Struct fields `F` of struct `S` give",
         "`HCA_S_F_OFF` (byte offset) and `HCA_S_F_LEN` (bytes); bit fields give `_SHIFT`, `_WIDTH`, `_MASK`.", ""]
    o.append("## Constants\n")
    for grp in s.get("const", []):
        o.append(f"### `{grp['prefix']}*`\n\n{grp.get('doc', '')}\n")
        o.append("| name | value | meaning |\n|---|---|---|")
        for name, value, *doc in grp["values"]:
            o.append(f"| `{grp['prefix']}{name}` | {value:#x} ({value}) | {md_escape(doc[0] if doc else '')} |")
        o.append("")
    o.append("## Enumerations\n")
    for en in m.enums:
        o.append(f"### `enum {en['name']}`\n\n{en.get('doc', '')}\n")
        o.append("| name | value |\n|---|---|")
        for name, value, *_ in en["values"]:
            o.append(f"| `{en['prefix']}{name}` | {value:#x} ({value}) |")
        o.append("")
    o.append("## Registers\n")
    for blk in s.get("reg", []):
        o.append(f"### Block `{blk['block']}`\n\n{blk.get('doc', '')}\n")
        o.append("| offset | name | access | description | fields |\n|---|---|---|---|---|")
        for r in blk["regs"]:
            fl = "; ".join(f"`{f[0]}` [{f[1] + f[2] - 1}:{f[1]}]" + (f" {f[3]}" if len(f) > 3 and f[3] else "")
                           for f in r.get("fields", []))
            o.append(f"| {r['off']:#05x} | `HCA_{blk['block']}_{r['name']}` | {r['access']} | "
                     f"{md_escape(r.get('doc', ''))} | {md_escape(fl)} |")
        o.append("")
    o.append("## Structures\n")
    for st in m.structs:
        o.append(f"### `struct hca_{st['name']}` ({st['size']} bytes)\n\n{st['doc']}\n")
        o.append("| offset | field | type | description |\n|---|---|---|---|")
        for f in st["fields"]:
            t = f"u8[{f['count']}]" if f["array"] else f["type"]
            d = f["doc"]
            if f["bits"]:
                d += " Bits: " + "; ".join(f"`{b[0]}` [{b[1] + b[2] - 1}:{b[1]}] {b[3]}" for b in f["bits"])
            o.append(f"| {f['off']:#04x} | `{f['name']}` | {t} | {md_escape(d)} |")
        o.append("")
    o.append("## Command objects, methods and attributes\n")
    o.append("Kinds: PTR_IN, PTR_OUT, IDR (handle, with access NEW/READ/WRITE/DESTROY), ENUM. "
             "`len`/`min_len` are the accepted payload bounds; structs are zero-trailing "
             "(a longer payload is accepted when the extra bytes are zero).\n")
    for ob in m.objects:
        o.append(f"### Object `{ob['name']}` (HCA_OBJ_{ob['name']} = {ob['id']})\n")
        if ob["doc"]:
            o.append(ob["doc"] + "\n")
        for me in ob["methods"]:
            o.append(f"#### `{ob['name']}.{me['name']}` (method {me['id']})\n")
            if me["doc"]:
                o.append(me["doc"] + "\n")
            o.append("| id | attribute | kind | spec | mandatory |\n|---|---|---|---|---|")
            for a in me["attrs"]:
                if a["kind"] == "IDR":
                    sp = f"{a['access']} {a['objname']}"
                elif a["kind"] == "ENUM":
                    sp = ", ".join(f"{e['name']}={e['id']} ({e['len']} B)" for e in a["elems"])
                else:
                    sp = f"{a['type']} len {a['min_len']}..{a['len']}" + (" zero-trailing" if a["zero_trailing"] else "")
                o.append(f"| {a['id']} | `HCA_ATTR_{ob['name']}_{me['name']}_{a['name']}` | {a['kind']} | "
                         f"{sp} | {'yes' if a['mandatory'] else 'no'} |")
            o.append("")
    o.append("## RNR timer table\n")
    o.append("| code | time | device cycles |\n|---|---|---|")
    for code, v in enumerate(s["rnr_table"]["usx100"]):
        o.append(f"| {code} | {v / 100000:.2f} ms | {m.names[f'HCA_RNR_CYCLES_{code}']} |")
    o.append("")
    return "\n".join(o)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--spec", default="spec/hca.toml")
    ap.add_argument("--c")
    ap.add_argument("--v")
    ap.add_argument("--md")
    ap.add_argument("--dump-c")
    ap.add_argument("--dump-sv")
    args = ap.parse_args()
    try:
        with open(args.spec, "rb") as f:
            m = Model(tomllib.load(f))
    except (SpecError, KeyError, tomllib.TOMLDecodeError) as e:
        print(f"genspec: {args.spec}: {e}", file=sys.stderr)
        return 1
    for path, fn in ((args.c, gen_c), (args.v, gen_v), (args.md, gen_md),
                     (args.dump_c, gen_dump_c), (args.dump_sv, gen_dump_sv)):
        if path:
            text = fn(m)
            try:
                with open(path) as f:
                    if f.read() == text:
                        continue  # keep timestamps of unchanged outputs
            except FileNotFoundError:
                pass
            with open(path, "w") as f:
                f.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
