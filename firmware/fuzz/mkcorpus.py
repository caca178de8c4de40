#!/usr/bin/python3
# Seed corpus of the firmware command fuzzer (firmware/fuzz/fuzz_cmd.c),
# generated from spec/hca.toml: one valid command per method (naming the
# handles the fuzzer's prologue creates), a QP state walk, the driver
# namespace, engine events, and one input per validation rule.
#   firmware/fuzz/mkcorpus.py OUTDIR
import hashlib
import os
import struct
import sys
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
SPEC = tomllib.load(open(os.path.join(HERE, "..", "..", "spec", "hca.toml"), "rb"))

MEM_IOVA = 0x10000
# Prologue handles (fuzz_cmd.c PROLOGUE_*).
H = {"CONTEXT": 0x00010000, "PD": 0x00020000, "EQ": 0x00030001, "CQ": 0x00040002,
     "SRQ": 0x00050003, "QP": 0x00060004, "MR": 0x00070005}
QPN, SRQN, CQN = 2, 1, 1
KIND = {"PTR_IN": 1, "PTR_OUT": 2, "IDR": 3, "ENUM": 4}
consts = {}
for c in SPEC["const"]:
    for v in c["values"]:
        consts[c["prefix"] + v[0]] = v[1]
for e in SPEC["enum"]:
    for v in e["values"]:
        consts[e["prefix"] + v[0]] = v[1]
structs = {s["name"]: s for s in SPEC["struct"]}
for ob in SPEC["object"]:
    consts["HCA_OBJ_" + ob["name"]] = ob["id"]
    for me in ob["methods"]:
        consts[f"HCA_METHOD_{ob['name']}_{me['name']}"] = me["id"]
MANDATORY = consts["HCA_ATTR_F_MANDATORY"]


def pack_struct(name, **fields):
    st = structs[name]
    buf = bytearray(st["size"])
    for f in st["fields"]:
        if f[0] not in fields:
            continue
        v, off, typ = fields[f[0]], f[1], f[2]
        if typ.startswith("u8["):
            buf[off:off + len(v)] = v
        else:
            buf[off:off + {"u8": 1, "u16": 2, "u32": 4, "u64": 8}[typ]] = \
                v.to_bytes({"u8": 1, "u16": 2, "u32": 4, "u64": 8}[typ], "little")
    return bytes(buf)


def qp_attr(state, **kw):
    d = dict(qp_state=state, port_num=1, qkey=0x1111, qp_access_flags=1, path_mtu=3, dest_qp_num=3,
             rq_psn=0x10, sq_psn=0x20, max_dest_rd_atomic=1, max_rd_atomic=1, min_rnr_timer=12,
             timeout=14, retry_cnt=7, rnr_retry=7, is_global=1, sgid_index=0, hop_limit=64,
             dgid=bytes(10) + b"\xff\xff\x0a\x00\x00\x02", dmac=b"\x02\x00\x00\x00\x00\x02")
    d.update(kw)
    return pack_struct("qp_attr", **d)


A = lambda n: consts["HCA_QP_ATTR_" + n]
PAYLOAD = {
    ("DEVICE", "QUERY_PORT", "PORT_NUM"): (1).to_bytes(4, "little"),
    ("DEVICE", "QUERY_GID", "PORT_NUM"): (1).to_bytes(4, "little"),
    ("DEVICE", "QUERY_GID", "INDEX"): (0).to_bytes(4, "little"),
    ("DEVICE", "SET_GID", "PORT_NUM"): (1).to_bytes(4, "little"),
    ("DEVICE", "SET_GID", "INDEX"): (0).to_bytes(4, "little"),
    ("DEVICE", "SET_GID", "ADDR"): bytes([10, 0, 0, 1]),
    ("DEVICE", "DEL_GID", "PORT_NUM"): (1).to_bytes(4, "little"),
    ("DEVICE", "DEL_GID", "INDEX"): (0).to_bytes(4, "little"),
    ("MR", "REG", "ADDR"): (0x2000).to_bytes(8, "little"),
    ("MR", "REG", "LENGTH"): (0x1000).to_bytes(8, "little"),
    ("MR", "REG", "DMA_ADDR"): (0x30000).to_bytes(8, "little"),
    ("MR", "REG", "ACCESS"): (7).to_bytes(4, "little"),
    ("CQ", "CREATE", "INIT_ATTR"): pack_struct("cq_init_attr", log_size=3, cqe=8, base=0x40000),
    ("EQ", "CREATE", "INIT_ATTR"): pack_struct("eq_init_attr", log_size=3, vector=1, event_mask=3,
                                               base=0x50000),
    ("SRQ", "CREATE", "INIT_ATTR"): pack_struct("srq_init_attr", max_wr=4, max_sge=1, srq_limit=1,
                                                log_size=2, log_stride=5, base=0x60000),
    ("SRQ", "MODIFY", "ATTR"): pack_struct("srq_attr", srq_limit=2),
    ("SRQ", "MODIFY", "ATTR_MASK"): (2).to_bytes(4, "little"),
    ("QP", "CREATE", "INIT_ATTR"): pack_struct("qp_init_attr", qp_type=2, log_sq_size=2, log_sq_stride=7,
                                               log_rq_size=2, log_rq_stride=5, max_send_wr=4,
                                               max_recv_wr=4, max_send_sge=1, max_recv_sge=1,
                                               sq_base=0x70000, rq_base=0x80000),
    ("QP", "MODIFY", "ATTR"): qp_attr(1),
    ("QP", "MODIFY", "ATTR_MASK"): (A("STATE") | A("PKEY_INDEX") | A("PORT") | A("ACCESS_FLAGS")).to_bytes(4, "little"),
}


class Input:
    """Header, event list, command table, then command buffers and payloads."""

    def __init__(self, events=()):
        self.events = list(events)
        self.cmds = []      # (bytes of buffer with IOVAs resolved later)

    def add(self, obj, method, attrs, context=None, driver_id=0, hdr_patch=None):
        self.cmds.append((obj, method, attrs, context, driver_id, hdr_patch))
        return self

    def build(self):
        n = len(self.cmds)
        head = bytes([n - 1, len(self.events)])
        for t, el in self.events:
            head += bytes([t]) + el.to_bytes(4, "little")
        table_off = len(head)
        pos = (table_off + 4 * n + 7) & ~7
        body = bytearray()
        table = b""
        scratch = 0x800
        for obj, method, attrs, context, driver_id, hdr_patch in self.cmds:
            start = pos + len(body)
            nat = len(attrs)
            length = 24 + 16 * nat
            payloads = bytearray()
            pay_base = start + length
            recs = b""
            for (aid, kind, val, flags, attr_data) in attrs:
                if kind in ("PTR_IN", "ENUM") and len(val) > 8:
                    data = MEM_IOVA + pay_base + len(payloads)
                    payloads += val + bytes((-len(val)) % 8)
                    ln = len(val)
                elif kind in ("PTR_IN", "ENUM"):
                    data = int.from_bytes(val, "little")
                    ln = len(val)
                elif kind == "PTR_OUT":
                    data = MEM_IOVA + 0x4000 + scratch
                    scratch += (val + 7) & ~7
                    ln = val
                else:  # IDR: val is the handle
                    data = val
                    ln = 0
                recs += struct.pack("<HHHHQ", aid, ln, flags, attr_data, data)
            hdr = struct.pack("<HHHHIIQ", length, obj, method, nat, context or 0, driver_id, 0)
            if hdr_patch:
                hdr = hdr_patch(hdr)
            buf = hdr + recs + payloads
            buf += bytes((-len(buf)) % 8)
            body += buf
            table += struct.pack("<HH", start, length)
        head += table
        head += bytes(pos - len(head))
        return bytes(head + body)


def method_cmd(obj, m, optional=True):
    ob = next(o for o in SPEC["object"] if o["name"] == obj)
    me = next(x for x in ob["methods"] if x["name"] == m)
    attrs = []
    for a in me["attrs"]:
        k = a["kind"]
        if not a.get("mandatory") and not optional:
            continue
        if k == "IDR":
            val = 0 if a["access"] == "NEW" else H[a["obj"]]
        elif k == "PTR_OUT":
            t = a["type"]
            val = structs[t[7:]]["size"] if t.startswith("struct:") else {"u32": 4, "u64": 8}[t]
        else:
            val = PAYLOAD[(obj, m, a["name"])]
        attr_data = 0
        if k == "ENUM":
            attr_data = a["elems"][0]["id"]
        attrs.append((a["id"], k, val, MANDATORY, attr_data))
    ctx = None if obj == "DEVICE" or (obj, m) == ("CONTEXT", "ALLOC") else H["CONTEXT"]
    return ob["id"], me["id"], attrs, ctx


def seeds():
    out = {}
    # One valid command per method, with and without its optional attributes.
    for ob in SPEC["object"]:
        for me in ob["methods"]:
            name = f"{ob['name'].lower()}_{me['name'].lower()}"
            o, m, attrs, ctx = method_cmd(ob["name"], me["name"], optional=False)
            out[name] = Input().add(o, m, attrs, ctx)
            o, m, attrs2, ctx = method_cmd(ob["name"], me["name"])
            if len(attrs2) != len(attrs):
                out[name + "_opt"] = Input().add(o, m, attrs2, ctx)
    # A QP walk on the prologue QP: GID, INIT, RTR, RTS, SQD, query, to ERR.
    o, m, attrs, ctx = method_cmd("DEVICE", "SET_GID")
    walk = Input().add(o, m, attrs, ctx)
    qpo = next(x for x in SPEC["object"] if x["name"] == "QP")["id"]
    modify = consts["HCA_METHOD_QP_MODIFY"]
    steps = [
        (qp_attr(1), A("STATE") | A("PKEY_INDEX") | A("PORT") | A("ACCESS_FLAGS")),
        (qp_attr(2), A("STATE") | A("AV") | A("PATH_MTU") | A("DEST_QPN") | A("RQ_PSN") |
         A("MAX_DEST_RD_ATOMIC") | A("MIN_RNR_TIMER")),
        (qp_attr(3), A("STATE") | A("SQ_PSN") | A("TIMEOUT") | A("RETRY_CNT") | A("RNR_RETRY") |
         A("MAX_QP_RD_ATOMIC")),
        (qp_attr(4, en_sqd_async_notify=1), A("STATE") | A("EN_SQD_ASYNC_NOTIFY")),
        (qp_attr(6), A("STATE")),
    ]
    for at, mask in steps:
        walk.add(qpo, modify, [(0, "IDR", H["QP"], MANDATORY, 0), (1, "PTR_IN", at, MANDATORY, 0),
                               (2, "PTR_IN", mask.to_bytes(4, "little"), MANDATORY, 0)], H["CONTEXT"])
    o, m, attrs, ctx = method_cmd("QP", "QUERY")
    walk.add(o, m, attrs, ctx)
    out["qp_walk"] = walk
    # Destroy everything in order, then free the context.
    teardown = Input()
    for obj, meth in (("QP", "DESTROY"), ("SRQ", "DESTROY"), ("MR", "DEREG"), ("CQ", "DESTROY"),
                      ("EQ", "DESTROY"), ("PD", "FREE"), ("CONTEXT", "FREE")):
        o, m, attrs, ctx = method_cmd(obj, meth)
        teardown.add(o, m, attrs, ctx)
    out["teardown"] = teardown
    # Driver namespace.
    dev = consts["HCA_OBJ_DEVICE"]
    ns = consts["HCA_ID_DRIVER_NS"]
    out["drv_query_fw"] = Input().add(dev, consts["HCA_HCASIM_METHOD_DEVICE_QUERY_FW"],
                                      [(consts["HCA_HCASIM_ATTR_DEVICE_QUERY_FW_RESP"], "PTR_OUT",
                                        structs["fw_info"]["size"], MANDATORY, 0)], None, driver_id=1)
    o, m, attrs, ctx = method_cmd("QP", "QUERY")
    out["drv_qp_query_engine"] = Input().add(o, m, attrs + [(consts["HCA_HCASIM_ATTR_QP_QUERY_ENGINE"], "PTR_OUT",
                                                              structs["qp_engine_state"]["size"], MANDATORY, 0)],
                                              ctx, driver_id=1)
    # Engine events, then a command.
    ev = lambda n: consts["HCA_EVENT_" + n]
    o, m, attrs, ctx = method_cmd("SRQ", "QUERY")
    out["events"] = Input(events=[(ev("QP_FATAL"), QPN), (ev("SRQ_LIMIT_REACHED"), SRQN), (ev("CQ_ERR"), CQN),
                                  (ev("PORT_ACTIVE"), 1), (ev("SQ_DRAINED"), QPN), (ev("DEVICE_FATAL"), 0),
                                  (99, 7)]).add(o, m, attrs, ctx)
    # One input per validation rule (starting from PD.ALLOC).
    o, m, attrs, ctx = method_cmd("PD", "ALLOC")
    bad = {
        "bad_header_length": Input().add(o, m, attrs, ctx, hdr_patch=lambda h: struct.pack("<H", 200) + h[2:]),
        "bad_header_reserved": Input().add(o, m, attrs, ctx, hdr_patch=lambda h: h[:16] + b"\x01" + h[17:]),
        "bad_driver_id": Input().add(o, m, attrs, ctx, driver_id=9),
        "unknown_object": Input().add(42, 0, attrs, ctx),
        "unknown_method": Input().add(o, 9, attrs, ctx),
        "bad_context": Input().add(o, m, attrs, 0x00990000),
        "unknown_attr": Input().add(o, m, attrs + [(77, "PTR_IN", b"\0\0\0\0", MANDATORY, 0)], ctx),
        "unknown_attr_optional": Input().add(o, m, attrs + [(77, "PTR_IN", b"\1\2", 0, 0)], ctx),
        "dup_attr": Input().add(o, m, attrs + [attrs[1]], ctx),
        "reserved_flags": Input().add(o, m, [attrs[0], (attrs[1][0], "PTR_OUT", 4, 3, 0)], ctx),
        "bad_len": Input().add(o, m, [attrs[0], (attrs[1][0], "PTR_OUT", 2, MANDATORY, 0)], ctx),
        "missing_attr": Input().add(o, m, attrs[:1], ctx),
        "bad_handle": Input().add(consts["HCA_OBJ_PD"], consts["HCA_METHOD_PD_FREE"],
                                  [(0, "IDR", H["CQ"], MANDATORY, 0)], ctx),
        "ebusy_pd": Input().add(consts["HCA_OBJ_PD"], consts["HCA_METHOD_PD_FREE"],
                                [(0, "IDR", H["PD"], MANDATORY, 0)], ctx),
    }
    o, m, attrs, ctx = method_cmd("CQ", "CREATE")
    longer = pack_struct("cq_init_attr", log_size=3, cqe=8, base=0x40000) + bytes(7) + b"\x01"
    bad["nonzero_trailing"] = Input().add(o, m, [attrs[0], (attrs[1][0], "PTR_IN", longer, MANDATORY, 0)] + attrs[2:], ctx)
    rsvd = bytearray(pack_struct("cq_init_attr", log_size=3, cqe=8, base=0x40000))
    rsvd[2] = 1
    bad["nonzero_reserved"] = Input().add(o, m, [attrs[0], (attrs[1][0], "PTR_IN", bytes(rsvd), MANDATORY, 0)] + attrs[2:], ctx)
    o, m, attrs, ctx = method_cmd("DEVICE", "SET_GID")
    bad["bad_enum"] = Input().add(o, m, attrs[:2] + [(attrs[2][0], "ENUM", bytes(4), MANDATORY, 5)], ctx)
    out.update(bad)
    return out


def main():
    outdir = sys.argv[1]
    os.makedirs(outdir, exist_ok=True)
    for f in os.listdir(outdir):
        os.unlink(os.path.join(outdir, f))
    for name, inp in sorted(seeds().items()):
        data = inp.build()
        assert len(data) <= 4096, name
        open(os.path.join(outdir, name), "wb").write(data)
    print(f"{len(os.listdir(outdir))} seeds in {outdir}")


if __name__ == "__main__":
    main()
