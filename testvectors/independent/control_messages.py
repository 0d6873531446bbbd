#!/usr/bin/env python3
"""An independent implementation of the daemon's control message encoding (SECURITY.md §10.6),
written from the specification alone, and the known-answer file it writes:
testvectors/daemon/control-messages.json.

    python3 testvectors/independent/control_messages.py          # (re)write the file
    python3 testvectors/independent/control_messages.py --check  # exit 1 if it differs
"""

import json
import os
import struct
import sys

from known_answer_file import write_or_check

MAX_FIELDS = 32
MAX_NAME = 32
MAX_SIZE = (1 << 20) + 64
NAME_BYTES = set(b"abcdefghijklmnopqrstuvwxyz0123456789.-_")
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "daemon", "control-messages.json")


class Malformed(Exception):
    pass


def encode(fields):
    out = bytes([len(fields)])
    for name, value in fields:
        out += bytes([len(name)]) + name + struct.pack(">I", len(value)) + value
    return out


def decode(data):
    if len(data) > MAX_SIZE:
        raise Malformed("too large")
    if not data:
        raise Malformed("ends early")
    count, offset, fields, seen = data[0], 1, [], set()
    if count > MAX_FIELDS:
        raise Malformed("too many fields")
    for _ in range(count):
        if offset >= len(data):
            raise Malformed("ends early")
        n = data[offset]
        offset += 1
        if not 1 <= n <= MAX_NAME:
            raise Malformed("bad name length")
        name = data[offset:offset + n]
        if len(name) < n:
            raise Malformed("ends early")
        if not set(name) <= NAME_BYTES:
            raise Malformed("bad name byte")
        if name in seen:
            raise Malformed("repeated name")
        seen.add(name)
        offset += n
        if len(data) - offset < 4:
            raise Malformed("ends early")
        (v,) = struct.unpack(">I", data[offset:offset + 4])
        offset += 4
        if len(data) - offset < v:
            raise Malformed("ends early")
        fields.append((name, data[offset:offset + v]))
        offset += v
    if offset != len(data):
        raise Malformed("trailing bytes")
    return fields


VALID = [
    [],
    [(b"op", b"session.list")],
    [(b"op", b"session.start"), (b"compartment", b"Session notes"), (b"purpose", "referral for J\u00f6rg".encode())],
    [(b"op", b"read"), (b"bundle", b"3fa9c2"), (b"range", b"0:4096"), (b"threads", b"2")],
    [(b"data", bytes(range(256)))],
    [(b"status", b"error"), (b"error", b"noSession"), (b"message", b"no session is open for compartment 'chart'"), (b"exit", b"77")],
    [(b"status", b"ok"), (b"bytes", b"0")],
    [(b"a" * 32, b""), (b"0.-_", b"x")],
]

INVALID = [
    ("", "ends early"),
    ("01", "ends early"),
    ("0102" + b"op".hex() + "00000003" + b"ls".hex(), "ends early"),
    ("0100", "a field name of 0 bytes"),
    ("0121" + "61" * 33 + "00000000", "a field name of 33 bytes"),
    ("0102" + b"OP".hex() + "00000000", "a field name with a character outside a-z 0-9 . - _"),
    ("0103" + b"o p".hex() + "00000000", "a field name with a character outside a-z 0-9 . - _"),
    ("02" + "0161" + "00000000" + "0161" + "00000000", "field 'a' appears twice"),
    ("0000", "bytes after the last field"),
    ("21", "more than 32 fields"),
]


def build():
    valid = []
    for fields in VALID:
        encoded = encode(fields)
        assert decode(encoded) == fields
        valid.append({"fields": [[n.decode(), v.hex()] for n, v in fields], "encoded": encoded.hex()})
    invalid = []
    for encoded, reason in INVALID:
        try:
            decode(bytes.fromhex(encoded))
        except Malformed:
            invalid.append({"encoded": encoded, "reason": reason})
            continue
        raise SystemExit("an invalid vector decoded: " + encoded)
    return {
        "description": "SECURITY.md §10.6 control messages: each valid entry's fields (name, value in hex) "
                       "encode to `encoded` and decode back; each invalid `encoded` must be refused as "
                       "malformedMessage, the Swift message containing `reason`.",
        "maximum_encoded_size": MAX_SIZE,
        "valid": valid,
        "invalid": invalid,
    }


def main():
    return write_or_check(OUT, build())


if __name__ == "__main__":
    sys.exit(main())
