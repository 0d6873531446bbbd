#!/usr/bin/env python3
"""An independent reader of snapshot deltas (SECURITY.md §15.1), written from that section alone; it
shares no code with the Swift implementation.

    snapshot_delta.py --write   writes testvectors/writing/snapshot-delta.json (hand-made cases)
    snapshot_delta.py --check   parses and applies every case of that file (exit 1 on a difference)
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
VECTORS = os.path.join(HERE, "..", "writing", "snapshot-delta.json")
MAX_DOCUMENT = 100 * 1024 * 1024


class Damaged(Exception):
    pass


def u32(data, at):
    if at + 4 > len(data):
        raise Damaged("a length runs past the end")
    return int.from_bytes(data[at:at + 4], "big"), at + 4


def parse(delta):
    """The operations of a delta: ('copy', offset, length) or ('insert', bytes); canonical form only."""
    if not delta or delta[0] != 1:
        raise Damaged("an unknown delta version")
    ops, at = [], 1
    while at < len(delta):
        tag, at = delta[at], at + 1
        if tag == 1:
            offset, at = u32(delta, at)
            length, at = u32(delta, at)
            if length == 0 or (ops and ops[-1][0] == "copy" and ops[-1][1] + ops[-1][2] == offset):
                raise Damaged("a delta not in canonical form")
            ops.append(("copy", offset, length))
        elif tag == 2:
            length, at = u32(delta, at)
            if at + length > len(delta):
                raise Damaged("a length runs past the end")
            if length == 0 or (ops and ops[-1][0] == "insert"):
                raise Damaged("a delta not in canonical form")
            ops.append(("insert", delta[at:at + length]))
            at += length
        else:
            raise Damaged("an unknown delta operation")
    return ops


def apply(delta, base):
    out = bytearray()
    for op in parse(delta):
        if op[0] == "copy":
            if op[1] + op[2] > len(base):
                raise ValueError("does-not-apply")
            out += base[op[1]:op[1] + op[2]]
        else:
            out += op[1]
        if len(out) > MAX_DOCUMENT:
            raise ValueError("too-large")
    return bytes(out)


def copy(offset, length):
    return b"\x01" + offset.to_bytes(4, "big") + length.to_bytes(4, "big")


def insert(data):
    return b"\x02" + len(data).to_bytes(4, "big") + data


def cases():
    base = "The client said no, twice.\n".encode()
    valid = [
        ("identity", base, b"\x01" + copy(0, len(base))),
        ("replace a word", base, b"\x01" + copy(0, 16) + insert(b"yes") + copy(18, 9)),
        ("everything new", base, b"\x01" + insert("naïve é 🙂".encode())),
        ("empty target", base, b"\x01"),
        ("from an empty base", b"", b"\x01" + insert(b"first words")),
    ]
    invalid = [
        ("another version", b"\x02", "damaged"),
        ("unknown operation", b"\x01\x03\x00\x00\x00\x01", "damaged"),
        ("copy of nothing", b"\x01" + copy(0, 0), "damaged"),
        ("insert of nothing", b"\x01" + insert(b""), "damaged"),
        ("two inserts", b"\x01" + insert(b"a") + insert(b"b"), "damaged"),
        ("copy continuing a copy", b"\x01" + copy(0, 2) + copy(2, 1), "damaged"),
        ("insert past the end", b"\x01\x02\x00\x00\x00\x05A", "damaged"),
        ("copy outside the base", b"\x01" + copy(20, 10), "does-not-apply"),
    ]
    return {
        "section": "SECURITY.md §15.1",
        "valid": [{"name": n, "base": b.hex(), "delta": d.hex(), "target": apply(d, b).hex()} for n, b, d in valid],
        "invalid": [{"name": n, "base": base.hex(), "delta": d.hex(), "error": e} for n, d, e in invalid],
    }


def check():
    with open(VECTORS) as f:
        vectors = json.load(f)
    failures = 0
    for case in vectors["valid"]:
        if apply(bytes.fromhex(case["delta"]), bytes.fromhex(case["base"])).hex() != case["target"]:
            print("FAIL", case["name"])
            failures += 1
    for case in vectors["invalid"]:
        try:
            apply(bytes.fromhex(case["delta"]), bytes.fromhex(case["base"]))
            got = "accepted"
        except Damaged:
            got = "damaged"
        except ValueError as error:
            got = str(error)
        if got != case["error"]:
            print("FAIL", case["name"], got)
            failures += 1
    print(f"{len(vectors['valid']) + len(vectors['invalid'])} cases, {failures} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    if sys.argv[1:] == ["--write"]:
        with open(VECTORS, "w") as f:
            json.dump(cases(), f, indent=2)
            f.write("\n")
    elif sys.argv[1:] == ["--check"]:
        sys.exit(check())
    else:
        print(__doc__)
        sys.exit(2)
