#!/usr/bin/env python3
"""tests/derive-summary.py - the summary numbers of dft(7) for trace files,
from their lines alone (no dft code): the expected values of dft-analyze.bats.

Data events are ph X/1, C/2/3 (C with args.dft_cnt, and 3, are aggregated:
their calls are dft_cnt, their bytes ret_sum), metadata events ph M/4.  A
process is a (host, pid): the host args.hostname or the name of the HH record
of args.hhash, else that of another event of the pid.  I/O is the categories
POSIX, STDIO and MPIIO in any case; bytes are args.ret (a failed call's -1
moves none), times args.size for fread and fwrite; the write sizes go into
the WisIO bins.  A line is read with one trailing comma dropped (dftracer
writes one); a line that is no JSON object is skipped; a gzip stream is read
up to a cut; a corrupt member is skipped for the next one.  Prints one JSON object shaped like the
summary record for the keys it has.
"""
import gzip
import json
import sys
import zlib

READ = {"read", "pread", "pread64", "preadv", "preadv2", "readv", "fread"}
WRITE = {"write", "pwrite", "pwrite64", "pwritev", "pwritev2", "writev", "fwrite"}
BINS = [4096, 16384, 65536, 262144, 1048576, 4194304, 16777216, 67108864]


def text(path):
    """The decompressed bytes of path, as far as gzip can read them."""
    with open(path, "rb") as f:
        raw = f.read()
    if raw[:2] != b"\x1f\x8b":
        return raw
    out = bytearray()
    while raw[:2] == b"\x1f\x8b":
        d = zlib.decompressobj(31)
        try:
            out += d.decompress(raw)
        except zlib.error:
            # a corrupt member: on at the next gzip header
            n = raw.find(b"\x1f\x8b\x08", 1)
            if n < 0:
                break
            raw = raw[n:]
            continue
        raw = d.unused_data
    return bytes(out)


def num(v):
    return float(v) if isinstance(v, str) and "." in v else int(v) if isinstance(v, str) else v


def main(paths):
    ev, meta, hh = [], 0, {}
    for p in paths:
        for line in text(p).decode("utf-8", "replace").splitlines():
            line = line.strip()
            if line.endswith(","):
                line = line[:-1]
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if not isinstance(e, dict):
                continue
            ph = e.get("ph")
            args = e.get("args") or {}
            if ph in ("M", 4):
                meta += 1
                if e.get("name") == "HH":
                    hh[str(args.get("value"))] = args.get("name")
            elif ph in ("X", 1, "C", 2, 3):
                ev.append(e)
    pidhost, s = {}, {"read": [0, 0], "write": [0, 0]}
    for e in ev:
        a = e.get("args") or {}
        e["_h"] = a.get("hostname") or hh.get(str(a.get("hhash")))
        if e["_h"]:
            pidhost.setdefault(num(e["pid"]), e["_h"])
    procs, threads, fns, bins = set(), set(), {}, [0] * 9
    calls = 0
    for e in ev:
        a = e.get("args") or {}
        pid = num(e["pid"])
        h = e["_h"] or pidhost.get(pid, "")
        procs.add((h, pid))
        threads.add((h, pid, num(e.get("tid"))))
        agg = (e["ph"] == "C" and "dft_cnt" in a) or e["ph"] == 3
        n = num(a["dft_cnt"]) if agg else 1
        calls += n
        fns[e["name"]] = fns.get(e["name"], 0) + n
        if str(e.get("cat", "")).lower() not in ("posix", "stdio", "mpiio"):
            continue
        if agg:
            b = num(a.get("ret_sum", 0))
        else:
            b = max(num(a.get("ret", 0)), 0)
            if e["name"] in ("fread", "fwrite"):
                b *= num(a.get("size", 1))
        for cls, names in (("read", READ), ("write", WRITE)):
            if e["name"] in names:
                s[cls][0] += n
                s[cls][1] += b
                if cls == "write":
                    bins[sum(1 for u in BINS if b >= u)] += 1
    json.dump({
        "events": len(ev), "calls": calls, "metadata_events": meta,
        "processes": len(procs), "threads": len(threads),
        "hosts": len({h for h, _ in procs}),
        "io": {c: {"count": v[0], "bytes": v[1]} for c, v in s.items()},
        "functions": [{"name": k, "count": v} for k, v in fns.items()],
        "size_histogram": {"write": bins},
    }, sys.stdout, separators=(",", ":"))
    print()


if __name__ == "__main__":
    main(sys.argv[1:])
