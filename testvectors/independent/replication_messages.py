#!/usr/bin/env python3
"""An independent encoder and strict parser of the replication messages of SECURITY.md §9.13 and the
whole-vault copy messages of §13.6 (vaultcopy.offer, vaultcopy.chunk, the handover header), written
from that section alone; it shares no code with the Swift implementation and needs only the standard
library. It writes testvectors/peer/replication.json: for each message, encodings of fixed fields
(which the Swift code must produce and parse back to the same fields) and malformed bodies (which
both must refuse). Before writing, every case is run through this file's own parsers.

    /usr/bin/python3 testvectors/independent/replication_messages.py            # write the file
    /usr/bin/python3 testvectors/independent/replication_messages.py --check    # exit 1 if it differs
"""

import hashlib
import os
import struct
import sys

from known_answer_file import write_or_check

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "peer", "replication.json")

MAX_BODY = 4 * 1024 * 1024
CHUNK_HEADER = 16 + 8
PAGE_SIZE = 16384
ENTRY_SIZE = 16 + 8 + 8 + 32
OFFER_SIZE = 16 + 8 + 32 + 8 + 32
BACKUP_HEADER_SIZE = 48
VAULT_COPY_CHUNK_HEADER = 8
HANDOVER_HEADER_SIZE = 16 + OFFER_SIZE


class Malformed(Exception):
    pass


def fixed(label, n):
    """n deterministic bytes named by label."""
    out = b""
    counter = 0
    while len(out) < n:
        out += hashlib.sha256(("replication vectors %s %d" % (label, counter)).encode()).digest()
        counter += 1
    return out[:n]


def u32(n):
    return struct.pack(">I", n)


def u64(n):
    return struct.pack(">Q", n)


# --- encoders (§9.13 "Messages") ---

def inventory_request(vault_id, first):
    return vault_id + first


def inventory_page(entries):
    return u32(len(entries)) + b"".join(e["bundle_id"] + u64(e["length"]) + u64(e["received"]) + e["sha256"] for e in entries)


def announcement(vault_id, bundle_id, length, sha256):
    return vault_id + bundle_id + u64(length) + sha256


def chunk(bundle_id, offset, data):
    return bundle_id + u64(offset) + data


def fetch(vault_id, bundle_id, offset, count):
    return vault_id + bundle_id + u64(offset) + u32(count)


def vault_copy_offer(vault_id, entries, last_leaf, length, sha256):
    return vault_id + u64(entries) + last_leaf + u64(length) + sha256


def vault_copy_chunk(offset, data):
    return u64(offset) + data


def handover_header(source_device_id, offer):
    return source_device_id + offer


def next_first(last):
    value = int.from_bytes(last, "big") + 1
    return None if value == 1 << 128 else value.to_bytes(16, "big")


# --- strict parsers ---

def parse_inventory_request(body):
    if len(body) != 32:
        raise Malformed("length")
    return body[:16], body[16:]


def parse_page(body, first):
    if len(body) < 4:
        raise Malformed("length")
    count = struct.unpack(">I", body[:4])[0]
    if count > PAGE_SIZE or len(body) != 4 + ENTRY_SIZE * count:
        raise Malformed("count")
    entries, previous = [], first
    for i in range(count):
        e = body[4 + ENTRY_SIZE * i: 4 + ENTRY_SIZE * (i + 1)]
        bundle_id, length, received, sha = e[:16], struct.unpack(">Q", e[16:24])[0], struct.unpack(">Q", e[24:32])[0], e[32:]
        if length < 1 or received > length:
            raise Malformed("entry")
        if (i == 0 and bundle_id < previous) or (i > 0 and bundle_id <= previous):
            raise Malformed("order")
        previous = bundle_id
        entries.append({"bundle_id": bundle_id, "length": length, "received": received, "sha256": sha})
    return entries


def parse_announcement(body):
    if len(body) != 72:
        raise Malformed("length")
    length = struct.unpack(">Q", body[32:40])[0]
    if length < 1:
        raise Malformed("empty")
    return body[:16], body[16:32], length, body[40:]


def parse_chunk(body):
    if not CHUNK_HEADER < len(body) <= MAX_BODY:
        raise Malformed("length")
    offset = struct.unpack(">Q", body[16:24])[0]
    if offset + len(body) - CHUNK_HEADER > (1 << 64) - 1:
        raise Malformed("overflow")
    return body[:16], offset, body[CHUNK_HEADER:]


def parse_fetch(body):
    if len(body) != 44:
        raise Malformed("length")
    count = struct.unpack(">I", body[40:])[0]
    if not 1 <= count <= MAX_BODY:
        raise Malformed("count")
    return body[:16], body[16:32], struct.unpack(">Q", body[32:40])[0], count


def parse_received(body, length):
    if len(body) != 8:
        raise Malformed("length")
    received = struct.unpack(">Q", body)[0]
    if received > length:
        raise Malformed("range")
    return received


def parse_vault_copy_offer(body):
    if len(body) != OFFER_SIZE:
        raise Malformed("length")
    entries, length = struct.unpack(">Q", body[16:24])[0], struct.unpack(">Q", body[56:64])[0]
    if entries < 1 or length < BACKUP_HEADER_SIZE:
        raise Malformed("range")
    return body[:16], entries, body[24:56], length, body[64:]


def parse_vault_copy_chunk(body):
    if not VAULT_COPY_CHUNK_HEADER < len(body) <= MAX_BODY:
        raise Malformed("length")
    offset = struct.unpack(">Q", body[:8])[0]
    if offset + len(body) - VAULT_COPY_CHUNK_HEADER > (1 << 64) - 1:
        raise Malformed("overflow")
    return offset, body[VAULT_COPY_CHUNK_HEADER:]


def parse_handover_header(body):
    if len(body) != HANDOVER_HEADER_SIZE:
        raise Malformed("length")
    return (body[:16],) + parse_vault_copy_offer(body[16:])


def refused(parse, *args):
    try:
        parse(*args)
    except Malformed:
        return True
    return False


# --- the cases ---

def build():
    vault = fixed("vault id", 16)
    ids = sorted(fixed("bundle %d" % i, 16) for i in range(3))
    zero = bytes(16)

    inv_requests = [{"vault_id": vault.hex(), "first_bundle_id": f.hex(), "encoded": inventory_request(vault, f).hex()}
                    for f in (zero, ids[1])]
    for case in inv_requests:
        assert parse_inventory_request(bytes.fromhex(case["encoded"])) == (vault, bytes.fromhex(case["first_bundle_id"]))
    next_cases = [{"last": last.hex(), "next": None if next_first(last) is None else next_first(last).hex()}
                  for last in (ids[0], bytes.fromhex("00" * 15 + "ff"), bytes.fromhex("12" + "ff" * 15), b"\xff" * 16)]

    entries = [{"bundle_id": ids[0], "length": 70_123, "received": 70_123, "sha256": fixed("sha 0", 32)},
               {"bundle_id": ids[1], "length": 9_437_600, "received": 4_194_280, "sha256": fixed("sha 1", 32)},
               {"bundle_id": ids[2], "length": 1, "received": 0, "sha256": fixed("sha 2", 32)}]
    pages = []
    for first, listed in ((zero, entries), (zero, []), (ids[0], entries[:1])):
        body = inventory_page(listed)
        assert parse_page(body, first) == listed
        pages.append({"first_bundle_id": first.hex(), "entries": [
            {"bundle_id": e["bundle_id"].hex(), "length": e["length"], "received": e["received"], "sha256": e["sha256"].hex()}
            for e in listed], "encoded": body.hex()})
    good = inventory_page(entries)
    bad_pages = [
        ("empty body", zero, b""),
        ("count larger than the entries", zero, u32(4) + good[4:]),
        ("trailing byte", zero, good + b"\x00"),
        ("count over the page size", zero, u32(PAGE_SIZE + 1)),
        ("ids not ascending", zero, inventory_page([entries[1], entries[0]])),
        ("the same id twice", zero, inventory_page([entries[0], entries[0]])),
        ("first id below the one asked for", ids[1], inventory_page(entries)),
        ("received over length", zero, inventory_page([dict(entries[0], received=70_124)])),
        ("zero length", zero, inventory_page([dict(entries[2], length=0, received=0)])),
    ]

    announcements = []
    for i, (bundle_id, length) in enumerate(((ids[0], 70_123), (ids[2], 1), (ids[1], (1 << 64) - 1))):
        sha = fixed("announce %d" % i, 32)
        body = announcement(vault, bundle_id, length, sha)
        assert parse_announcement(body) == (vault, bundle_id, length, sha)
        announcements.append({"vault_id": vault.hex(), "bundle_id": bundle_id.hex(), "length": length,
                              "sha256": sha.hex(), "encoded": body.hex()})
    a = bytes.fromhex(announcements[0]["encoded"])
    bad_announcements = [("one byte short", a[:-1]), ("one byte over", a + b"\x00"),
                         ("zero length", announcement(vault, ids[0], 0, fixed("x", 32)))]

    chunks = []
    for bundle_id, offset, data in ((ids[0], 0, fixed("chunk 0", 40)), (ids[1], 4_194_280, b"\x5a"),
                                    (ids[2], (1 << 64) - 4, b"\x01\x02\x03")):
        body = chunk(bundle_id, offset, data)
        assert parse_chunk(body) == (bundle_id, offset, data)
        chunks.append({"bundle_id": bundle_id.hex(), "offset": offset, "data": data.hex(), "encoded": body.hex()})
    bad_chunks = [("no data", chunk(ids[0], 0, b"")), ("shorter than its header", ids[0]),
                  ("offset plus data overflows", chunk(ids[0], (1 << 64) - 2, b"\x00\x00"))]
    # A body one byte over the limit, described rather than spelled out: zero bytes of this length.
    oversized_chunk_length = MAX_BODY + 1
    assert refused(parse_chunk, bytes(oversized_chunk_length)) and not refused(parse_chunk, bytes(MAX_BODY))

    fetches = []
    for bundle_id, offset, count in ((ids[0], 0, MAX_BODY), (ids[1], 4_194_304, 1), (ids[2], (1 << 64) - 1, 65_536)):
        body = fetch(vault, bundle_id, offset, count)
        assert parse_fetch(body) == (vault, bundle_id, offset, count)
        fetches.append({"vault_id": vault.hex(), "bundle_id": bundle_id.hex(), "offset": offset, "count": count,
                        "encoded": body.hex()})
    f = bytes.fromhex(fetches[0]["encoded"])
    bad_fetches = [("count zero", fetch(vault, ids[0], 0, 0)), ("count over the body limit", fetch(vault, ids[0], 0, MAX_BODY + 1)),
                   ("trailing byte", f + b"\x00"), ("one byte short", f[:-1])]

    received = [{"length": length, "value": value, "encoded": u64(value).hex()}
                for length, value in ((70_123, 0), (70_123, 70_123), (9_437_600, 4_194_280))]
    bad_received = [("more than the length", 100, u64(101)), ("seven bytes", 100, u64(5)[1:]), ("nine bytes", 100, u64(5) + b"\x00")]

    offers = []
    for i, (entries, length) in enumerate(((1, BACKUP_HEADER_SIZE), (15, 205_433), ((1 << 64) - 1, (1 << 64) - 1))):
        leaf, sha = fixed("offer leaf %d" % i, 32), fixed("offer sha %d" % i, 32)
        body = vault_copy_offer(vault, entries, leaf, length, sha)
        assert parse_vault_copy_offer(body) == (vault, entries, leaf, length, sha)
        offers.append({"vault_id": vault.hex(), "entries": entries, "last_leaf_hash": leaf.hex(), "length": length,
                       "sha256": sha.hex(), "encoded": body.hex()})
    o = bytes.fromhex(offers[1]["encoded"])
    bad_offers = [("one byte short", o[:-1]), ("one byte over", o + b"\x00"),
                  ("no entries", vault_copy_offer(vault, 0, fixed("x", 32), 205_433, fixed("y", 32))),
                  ("shorter than a backup header", vault_copy_offer(vault, 15, fixed("x", 32), BACKUP_HEADER_SIZE - 1, fixed("y", 32)))]

    copy_chunks = []
    for offset, data in ((0, fixed("copy chunk 0", 40)), (4_194_296, b"\x5a"), ((1 << 64) - 4, b"\x01\x02\x03")):
        body = vault_copy_chunk(offset, data)
        assert parse_vault_copy_chunk(body) == (offset, data)
        copy_chunks.append({"offset": offset, "data": data.hex(), "encoded": body.hex()})
    bad_copy_chunks = [("no data", vault_copy_chunk(0, b"")), ("shorter than its header", u64(0)[:7]),
                       ("offset plus data overflows", vault_copy_chunk((1 << 64) - 2, b"\x00\x00"))]
    assert refused(parse_vault_copy_chunk, bytes(MAX_BODY + 1)) and not refused(parse_vault_copy_chunk, bytes(MAX_BODY))

    source = fixed("source device id", 16)
    headers = []
    for offer in offers[:2]:
        body = handover_header(source, bytes.fromhex(offer["encoded"]))
        assert parse_handover_header(body)[0] == source
        headers.append({"source_device_id": source.hex(), "offer": offer["encoded"], "encoded": body.hex()})
    h = bytes.fromhex(headers[1]["encoded"])
    bad_headers = [("one byte short", h[:-1]), ("one byte over", h + b"\x00"),
                   ("an offer with no entries", handover_header(source, bad_offers[2][1]))]

    for reason, body in bad_offers:
        assert refused(parse_vault_copy_offer, body), reason
    for reason, body in bad_copy_chunks:
        assert refused(parse_vault_copy_chunk, body), reason
    for reason, body in bad_headers:
        assert refused(parse_handover_header, body), reason
    for reason, first, body in bad_pages:
        assert refused(parse_page, body, first), reason
    for reason, body in bad_announcements:
        assert refused(parse_announcement, body), reason
    for reason, body in bad_chunks:
        assert refused(parse_chunk, body), reason
    for reason, body in bad_fetches:
        assert refused(parse_fetch, body), reason
    for reason, length, body in bad_received:
        assert refused(parse_received, body, length), reason

    return {
        "description": "Replication messages of SECURITY.md §9.13 and whole-vault copy messages of §13.6, "
                       "from testvectors/independent/replication_messages.py. Every 'invalid' body must be refused as malformedReplicationMessage.",
        "maximum_body_length": MAX_BODY,
        "inventory_page_size": PAGE_SIZE,
        "inventory_requests": inv_requests,
        "inventory_next": next_cases,
        "inventory_pages": {"valid": pages, "invalid": [
            {"reason": r, "first_bundle_id": first.hex(), "encoded": body.hex()} for r, first, body in bad_pages]},
        "announcements": {"valid": announcements, "invalid": [{"reason": r, "encoded": b.hex()} for r, b in bad_announcements]},
        "chunks": {"valid": chunks, "invalid": [{"reason": r, "encoded": b.hex()} for r, b in bad_chunks],
                   "invalid_zero_filled_length": oversized_chunk_length},
        "fetches": {"valid": fetches, "invalid": [{"reason": r, "encoded": b.hex()} for r, b in bad_fetches]},
        "received": {"valid": received, "invalid": [{"reason": r, "length": length, "encoded": b.hex()}
                                                    for r, length, b in bad_received]},
        "vault_copy_offers": {"valid": offers, "invalid": [{"reason": r, "encoded": b.hex()} for r, b in bad_offers]},
        "vault_copy_chunks": {"valid": copy_chunks, "invalid": [{"reason": r, "encoded": b.hex()} for r, b in bad_copy_chunks]},
        "handover_headers": {"valid": headers, "invalid": [{"reason": r, "encoded": b.hex()} for r, b in bad_headers]},
    }


def main():
    return write_or_check(OUT, build())


if __name__ == "__main__":
    sys.exit(main())
