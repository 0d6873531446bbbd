#!/usr/bin/env python3
"""An independent implementation of the channel's message layer (SECURITY.md §9.9), written from that
section alone, sharing no code with the Swift implementation (standard library only). It writes
testvectors/peer/channel-messages.json: encodings and their records, and first records a reader must
refuse with the error code named.

    /usr/bin/python3 testvectors/independent/peer_channel_messages.py           # write the file
    /usr/bin/python3 testvectors/independent/peer_channel_messages.py --check   # exit 1 if it differs
"""

import hashlib
import os
import sys

from known_answer_file import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "peer", "channel-messages.json")

RECORD = 65519            # the largest Noise transport plaintext: 65535 - 16
MAX_BODY = 4 << 20        # ChannelLimits.maximumBodyLength
MAX_REFUSAL = 1024
TYPES = {1: "request", 2: "answer", 3: "refusal", 4: "ready"}
LABEL_LENGTHS = {"request": (1, 64), "refusal": (1, 64), "answer": (0, 0), "ready": (0, 0)}
BODY_LIMITS = {"request": MAX_BODY, "answer": MAX_BODY, "refusal": MAX_REFUSAL, "ready": 0}


def encode(kind, label, body):
    code = {v: k for k, v in TYPES.items()}[kind]
    return bytes([code, len(label)]) + label + len(body).to_bytes(4, "big") + body


def records(encoded, record_length=RECORD):
    return [encoded[i:i + record_length] for i in range(0, len(encoded), record_length)]


class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def read(recs, allowed=("request", "answer", "refusal", "ready"), record_length=RECORD):
    """Reads one message from its records, as §9.9 says a receiver must."""
    first = recs[0]
    if len(first) < 6:
        raise Refused("malformedChannelMessage")
    kind = TYPES.get(first[0])
    if kind is None or kind not in allowed:
        raise Refused("malformedChannelMessage")
    label_length = first[1]
    low, high = LABEL_LENGTHS[kind]
    if not low <= label_length <= high or len(first) < 6 + label_length:
        raise Refused("malformedChannelMessage")
    label = first[2:2 + label_length]
    if any(not 0x21 <= b <= 0x7E for b in label):
        raise Refused("malformedChannelMessage")
    body_length = int.from_bytes(first[2 + label_length:6 + label_length], "big")
    if body_length > BODY_LIMITS[kind]:
        raise Refused("messageTooLarge")
    total = 6 + label_length + body_length
    received = b""
    for rec in recs:
        if len(rec) != min(record_length, total - len(received)):
            raise Refused("malformedChannelMessage")
        received += rec
        if len(received) == total:
            break
    if len(received) != total:
        raise Refused("truncated")
    body = received[6 + label_length:]
    if kind == "refusal":
        try:
            body.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("malformedChannelMessage")
    return kind, label, body


def pattern(n):
    return bytes((i * 7 + 3) % 256 for i in range(n))


def valid_cases():
    messages = [
        ("request", b"ping", bytes.fromhex("aabb")),
        ("request", b"ping", b""),
        ("request", b"replicate.inventory", pattern(300)),
        ("answer", b"", b""),
        ("answer", b"", pattern(RECORD - 6)),        # exactly one full record
        ("answer", b"", pattern(RECORD - 5)),        # one byte into a second record
        ("request", b"x" * 64, pattern(2 * RECORD)),
        ("refusal", b"unknownRequestKind", "no service here answers 'x'".encode()),
        ("ready", b"", b""),
    ]
    out = []
    for kind, label, body in messages:
        encoded = encode(kind, label, body)
        recs = records(encoded)
        assert read(recs) == (kind, label, body)
        case = {"type": kind, "label": label.decode(), "body_length": len(body),
                "body_sha256": hashlib.sha256(body).hexdigest(),
                "record_lengths": [len(r) for r in recs],
                "record_sha256": [hashlib.sha256(r).hexdigest() for r in recs]}
        if len(encoded) <= 400:
            case["body"] = body.hex()
            case["encoding"] = encoded.hex()
        else:
            case["body_pattern"] = "(i * 7 + 3) mod 256"
        out.append(case)
    return out


def invalid_cases():
    firsts = [
        ("unknown type 0x00", "000000000000"),
        ("unknown type 0x05", "050000000000"),
        ("request without a kind", "010000000000"),
        ("kind with a space", "0102612000000000"),
        ("kind with a byte over 0x7e", "0102617f00000000"),
        ("answer with a label", "02016100000000"),
        ("ready with a body", "04000000000100"),
        ("body one byte over 4 MiB", "020000400001"),
        ("refusal text over 1024 bytes", "030161" + "00000401"),
        ("refusal text not UTF-8", "030161" + "00000001" + "ff"),
        ("header cut short", "01046563"),
        ("first record shorter than the message", "020000000001"),
        ("a byte after the message", "02000000000000"),
    ]
    out = []
    for name, hexa in firsts:
        try:
            read([bytes.fromhex(hexa)])
            raise AssertionError("accepted: " + name)
        except Refused as refused:
            out.append({"name": name, "first_record": hexa, "error": refused.code})
    return out


def build():
    return {"record_length": RECORD, "maximum_body_length": MAX_BODY,
            "valid": valid_cases(), "invalid": invalid_cases()}


def main():
    return write_or_check(OUT, build())


if __name__ == "__main__":
    sys.exit(main())
