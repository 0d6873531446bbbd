#!/usr/bin/env python3
"""An independent implementation of the change record of SECURITY.md §19.2 (sync between one owner's
devices), written from that section and §14.4 alone; it shares no code with the Swift implementation.
Ed25519 comes from libsodium through PyNaCl; SHA-256 from hashlib.

    /usr/bin/python3 testvectors/independent/change_record.py           # write testvectors/sync/change-records.json
    /usr/bin/python3 testvectors/independent/change_record.py --check   # exit 1 if the file differs

Both modes parse every record they make with their own strict parser, check its signature, and check
that each refused variant is refused for the reason the file states, so the file rests on records
this code can read back.
"""

import hashlib
import os
import struct
import sys
import unicodedata

from known_answer_file import write_or_check
import snapshot_delta as sd

import nacl.signing
import nacl.exceptions

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "sync", "change-records.json")

MAGIC = b"SVCR"
VERSION = 1          # a record's body version when its fields name none (the earlier merge rule)
VERSIONS = (1, 2)    # §19.2: 2 under §19.3's rule of block conflicts, 1 before it; both read
SIGNING_LABEL = b"SealedVault change record v1\x00"
CONFLICT_LABEL = b"SealedVault sync conflict v1\x00"
BLOCK_CONFLICT_LABEL = b"SealedVault block conflict v2\x00"  # §19.2/§19.3: a block conflict, named in version-2 records
REMOVAL_CONFLICT_LABEL = b"SealedVault removal conflict v1\x00"
DEVICE_ID_LABEL = b"SealedVault device id v1"
MAX_SIZE = 4 * 1024 * 1024 - 64 * 1024  # a record leaves a 4 MiB sync message room for its other fields (§19.2)
MAX_PARENTS = 64
MAX_OPERATIONS = 4096
# Counters and Lamport times fit a signed 64-bit integer (the vault stores them so), and a
# device's next Lamport time never overflows.
MAXIMUM_TIME = 2**63 - 1
MAX_TEXT_EDITS = 4096
MAX_BLOCK_TEXT = 983040
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
FIELD_SLOTS = ["personRole", "personIdentification", "personRelationship", "personBackground", "personArc",
               "placeDescription", "documentDate", "documentReference", "documentAuthor"]
ORIGINS = ["automatic", "titled", "restore", "adopt", "revert", "discard"]
BRANCH_KINDS = ["ai-suggestion", "research-insert", "sync-conflict", "manual"]
DECISIONS = ["adopt", "discard", "revert"]
MAX_TIME = 2 ** 63 - 1
MAX_EVENT_DOCUMENTS = 4096
NONE16 = bytes(16)
ENTRY_KINDS = ["character", "place", "plot-beat", "snippet"]
MAX_PART = 3 * 1024 * 1024          # a snapshot part (0x0C) holds 1 to 3 MiB
MAX_PARTS = 64                      # a snapshot in parts names 1 to 64 of them,
MAX_PARTS_LENGTH = 64 * 1024 * 1024  # 64 MiB in all
PROJECT_SNAPSHOT_ORIGINS = ["automatic", "titled", "restore"]
ENTRY_SLOTS = {"character": FIELD_SLOTS[:5], "place": ["placeDescription"], "plot-beat": [], "snippet": []}
KINDS = ["paragraph", "list-item", "quote", "table"] + ["heading-%d" % n for n in range(1, 7)] + ["field-" + s for s in FIELD_SLOTS]


class Refused(Exception):
    def __init__(self, code, why=""):
        super().__init__("%s: %s" % (code, why))
        self.code = code


def fixed(label, n):
    out, counter = b"", 0
    while len(out) < n:
        out += hashlib.sha256(b"vaultctl test vector " + label.encode() + (b"#%d" % counter if counter else b"")).digest()
        counter += 1
    return out[:n]


# --- §14.2 order keys -------------------------------------------------------------------------

def order_key_valid(key):
    if not 1 <= len(key) <= 255 or any(c not in DIGITS for c in key):
        return False
    head = DIGITS.index(key[0])
    if len(key) <= head:
        return False
    fraction = key[head + 1:]
    if fraction.endswith("0"):
        return False
    return head > 0 or fraction != ""


# --- §14.4 block encoding ---------------------------------------------------------------------

def encode_block(block):
    kind = block["kind"].encode()
    out = bytes([1, len(kind)]) + kind
    text = block["text"].encode()
    out += struct.pack(">I", len(text)) + text + struct.pack(">I", len(block["rows"]))
    for row in block["rows"]:
        out += struct.pack(">I", len(row))
        for cell in row:
            cell = cell.encode()
            out += struct.pack(">I", len(cell)) + cell
    return out


class Reader:
    def __init__(self, data):
        self.data, self.at = data, 0

    def take(self, n):
        if n < 0 or self.at + n > len(self.data):
            raise Refused("malformedRecord", "a length runs past the end")
        piece = self.data[self.at:self.at + n]
        self.at += n
        return piece

    def int(self, n):
        return int.from_bytes(self.take(n), "big")

    def text(self, length_size, maximum):
        n = self.int(length_size)
        if n > maximum:
            raise Refused("malformedRecord", "a string over its bound")
        try:
            return self.take(n).decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("malformedRecord", "text that is not UTF-8")

    def done(self):
        return self.at == len(self.data)


def parse_block(data):
    r = Reader(data)
    if r.int(1) != 1:
        raise Refused("malformedRecord", "an unknown block encoding version")
    kind = r.take(r.int(1)).decode("ascii", "replace")
    if kind not in KINDS:
        raise Refused("malformedRecord", "an unknown block kind")
    text = r.text(4, MAX_SIZE)
    rows = []
    for _ in range(r.int(4)):
        rows.append([r.text(4, MAX_SIZE) for _ in range(r.int(4))])
    if not r.done():
        raise Refused("malformedRecord", "bytes after the last row")
    if len(text.encode()) + sum(len(c.encode()) for row in rows for c in row) > MAX_BLOCK_TEXT:
        raise Refused("malformedRecord", "a block over its bound")
    if kind != "table" and rows:
        raise Refused("malformedRecord", "cells in a block that is not a table")
    return {"kind": kind, "text": text, "rows": rows}


# --- §19.2 the change record ------------------------------------------------------------------

def encode_block_value(value):
    if value is None:
        return b"\x00"
    key = value["order_key"].encode()
    block = encode_block(value)
    return b"\x01" + bytes([len(key)]) + key + struct.pack(">I", len(block)) + block


def encode_operation(op):
    if op["op"] == "node":
        out = b"\x01" + bytes.fromhex(op["node"])
        value = op["value"]
        if value is None:
            return out + b"\x00"
        key, title = value["order_key"].encode(), value["title"].encode()
        parent = bytes.fromhex(value["parent"]) if value["parent"] else bytes(16)
        return (out + b"\x01" + bytes([1 if value["kind"] == "folder" else 2]) + parent
                + bytes([len(key)]) + key + struct.pack(">H", len(title)) + title)
    if op["op"] == "block":
        return b"\x02" + bytes.fromhex(op["document"]) + bytes.fromhex(op["block"]) + encode_block_value(op["value"])
    if op["op"] in ("snapshot", "branch", "decision", "edit-event", "snapshot-part"):
        return encode_version_operation(op)
    if op["op"] in ("entry", "project-name", "project-archived", "project-snapshot"):
        return encode_project_operation(op)
    if op["op"] == "text":
        return (b"\x04" + bytes.fromhex(op["document"]) + bytes.fromhex(op["block"]) + struct.pack(">H", len(op["edits"]))
                + b"".join(encode_text_edit(edit) for edit in op["edits"]))
    return (b"\x03" + bytes.fromhex(op["branch"]) + bytes.fromhex(op["document"]) + bytes.fromhex(op["block"])
            + encode_block_value(op["losing"]) + encode_block_value(op["winning"]))


def encode_character(character):
    return bytes.fromhex(character["device"]) + struct.pack(">QI", character["counter"], character["offset"])


def encode_text_edit(edit):
    if edit["edit"] == "insert":
        anchor = b"\x00" if edit["after"] is None else b"\x01" + encode_character(edit["after"])
        text = edit["text"].encode()
        return b"\x01" + anchor + struct.pack(">I", len(text)) + text
    return b"\x02" + encode_character(edit["first"]) + encode_character(edit["last"])


def encode_body(fields):
    parents = sorted(bytes.fromhex(p) for p in fields["parents"])
    out = MAGIC + bytes([fields.get("version", VERSION)]) + bytes.fromhex(fields["project"]) + bytes.fromhex(fields["device"])
    out += struct.pack(">QQ", fields["counter"], fields["lamport"]) + bytes([len(parents)]) + b"".join(parents)
    out += struct.pack(">H", len(fields["operations"])) + b"".join(encode_operation(op) for op in fields["operations"])
    return out


def sign(seed, body):
    return body + nacl.signing.SigningKey(seed).sign(SIGNING_LABEL + body).signature


# --- §19.2 operations 0x06 to 0x08: versions ----------------------------------------------------

def u8(value):
    return bytes([value])


def str16(text):
    data = text.encode()
    return struct.pack(">H", len(data)) + data


def blob32(data):
    return struct.pack(">I", len(data)) + data


def encode_version_operation(op):
    """Encodes a version operation; `*_code` keys override a field's code (for refused variants)."""
    if op["op"] == "snapshot":
        out = (b"\x06" + bytes.fromhex(op["snapshot"]) + bytes.fromhex(op["document"])
               + u8(op.get("origin_code", ORIGINS.index(op["origin"]) + 1)) + str16(op["title"] or "")
               + bytes.fromhex(op["device"]) + struct.pack(">Q", op["created_at"]) + bytes.fromhex(op["digest"]))
        if "content" in op:
            return out + u8(op.get("form_code", 1)) + blob32(bytes.fromhex(op["content"]))
        if "parts" in op:
            parts = op["parts"]
            out += u8(op.get("form_code", 3)) + u8(parts.get("inner_code", 2 if parts["base"] else 1))
            out += bytes.fromhex(parts["base"]) if parts["base"] else b""
            out += struct.pack(">IH", parts["length"], parts.get("count", len(parts["digests"])))
            return out + b"".join(bytes.fromhex(d) for d in parts["digests"])
        return out + u8(op.get("form_code", 2)) + bytes.fromhex(op["base"]) + blob32(bytes.fromhex(op["delta"]))
    if op["op"] == "snapshot-part":
        part = bytes.fromhex(op["part"])
        return b"\x0c" + bytes.fromhex(op["snapshot"]) + struct.pack(">I", op.get("length_code", len(part))) + part
    if op["op"] == "branch":
        return (b"\x07" + bytes.fromhex(op["branch"]) + bytes.fromhex(op["document"]) + u8(op.get("change_code", 1))
                + u8(op.get("kind_code", BRANCH_KINDS.index(op["kind"]) + 1)) + bytes.fromhex(op["base"]) + str16(op["provenance"])
                + struct.pack(">Q", op["created_at"]) + blob32(bytes.fromhex(op["delta"])))
    if op["op"] == "decision":
        return (b"\x07" + bytes.fromhex(op["branch"]) + bytes.fromhex(op["document"]) + b"\x02"
                + u8(op.get("decision_code", DECISIONS.index(op["decision"]) + 1)) + struct.pack(">Q", op["decided_at"])
                + (bytes.fromhex(op["before"]) if op["before"] else NONE16) + (bytes.fromhex(op["version"]) if op["version"] else NONE16))
    out = (b"\x08" + bytes.fromhex(op["event"]) + bytes.fromhex(op["device"]) + struct.pack(">QQ", op["started_at"], op["last_edit_at"])
           + u8(op.get("ended_code", 1 if op["ended"] else 0)) + struct.pack(">II", op["edits"], len(op["documents"])))
    for document in op["documents"]:
        out += bytes.fromhex(document["document"]) + struct.pack(">i", document["words"])
    return out


def decode_content(data):
    """§15.2: version:u8 (1) count:u32 (id:16 length:u32 block)*, nothing after the last block."""
    r = Reader(data)
    if r.int(1) != 1:
        raise Refused("malformedRecord", "an unknown snapshot content version")
    blocks = []
    for _ in range(r.int(4)):
        block_id = r.take(16)
        block = parse_block(r.take(r.int(4)))
        block["id"] = block_id.hex()
        blocks.append(block)
    if not r.done():
        raise Refused("malformedRecord", "bytes after the last block of a snapshot content")
    return blocks


def check_name(text, what):
    """As a node's title: 1 to 512 bytes of NFC, no control character, no space (Zs) at either end."""
    if not text or any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in text):
        raise Refused("malformedRecord", "%s that is empty or holds control characters" % what)
    if unicodedata.normalize("NFC", text) != text or unicodedata.category(text[0]) == "Zs" or unicodedata.category(text[-1]) == "Zs":
        raise Refused("malformedRecord", "%s that is not NFC or starts or ends with a space" % what)
    return text


def parse_name(r, what):
    return check_name(r.text(2, 512), what)


def parse_time(r):
    value = r.int(8)
    if value > MAX_TIME:
        raise Refused("malformedRecord", "a time past 2^63 - 1")
    return value


def parse_delta(r):
    delta = r.take(r.int(4))
    try:
        sd.parse(delta)
    except sd.Damaged as damage:
        raise Refused("malformedRecord", "a snapshot delta: %s" % damage)
    return delta.hex()


def parse_snapshot(r):
    op = {"op": "snapshot", "snapshot": r.take(16).hex(), "document": r.take(16).hex()}
    code = r.int(1)
    if not 1 <= code <= len(ORIGINS):
        raise Refused("malformedRecord", "an unknown snapshot origin")
    op["origin"] = ORIGINS[code - 1]
    title = r.text(2, 512)
    if op["origin"] == "titled":
        check_name(title, "a snapshot title")
    elif title:
        raise Refused("malformedRecord", "a title on a snapshot that is not titled")
    op["title"] = title or None
    op["device"], op["created_at"], op["digest"] = r.take(16).hex(), parse_time(r), r.take(32).hex()
    form = r.int(1)
    if form == 1:
        content = r.take(r.int(4))
        decode_content(content)
        if hashlib.sha256(content).hexdigest() != op["digest"]:
            raise Refused("malformedRecord", "a snapshot content that is not its digest's")
        op["content"] = content.hex()
    elif form == 2:
        op["base"] = r.take(16).hex()
        if op["base"] == op["snapshot"]:
            raise Refused("malformedRecord", "a snapshot delta from itself")
        op["delta"] = parse_delta(r)
    elif form == 3:
        op["parts"] = parse_parts(r, op["snapshot"])
    else:
        raise Refused("malformedRecord", "an unknown snapshot content form")
    return op


def parse_parts(r, snapshot):
    """§19.2 content form 0x03: what the parts join to (1 content, 2 a delta from base), its length,
    and the parts' SHA-256 digests in order. What they join to is checked where they are (`join`)."""
    inner = r.int(1)
    if inner not in (1, 2):
        raise Refused("malformedRecord", "an unknown form of a snapshot in parts")
    base = None
    if inner == 2:
        base = r.take(16).hex()
        if base == snapshot:
            raise Refused("malformedRecord", "a snapshot delta from itself")
    length, count = r.int(4), r.int(2)
    if not (1 <= length <= MAX_PARTS_LENGTH and 1 <= count <= MAX_PARTS and count <= length <= count * MAX_PART):
        raise Refused("malformedRecord", "a snapshot in %d parts of %d bytes" % (count, length))
    digests = [r.take(32).hex() for _ in range(count)]
    if len(set(digests)) != count:
        raise Refused("malformedRecord", "a snapshot in parts naming one part twice")
    return {"base": base, "length": length, "digests": digests}


def parse_snapshot_part(r):
    snapshot = r.take(16).hex()
    n = r.int(4)
    if not 1 <= n <= MAX_PART:
        raise Refused("malformedRecord", "a snapshot part of %d bytes (1 to 3 MiB)" % n)
    return {"op": "snapshot-part", "snapshot": snapshot, "part": r.take(n).hex()}


def parse_branch_change(r):
    branch, document = r.take(16).hex(), r.take(16).hex()
    change = r.int(1)
    if change == 1:
        code = r.int(1)
        if not 1 <= code <= len(BRANCH_KINDS):
            raise Refused("malformedRecord", "an unknown branch kind")
        base = r.take(16).hex()
        provenance = parse_name(r, "a provenance")
        created_at = parse_time(r)
        return {"op": "branch", "branch": branch, "document": document, "kind": BRANCH_KINDS[code - 1], "base": base,
                "provenance": provenance, "created_at": created_at, "delta": parse_delta(r)}
    if change == 2:
        code = r.int(1)
        if not 1 <= code <= len(DECISIONS):
            raise Refused("malformedRecord", "an unknown branch decision")
        decided_at = parse_time(r)
        before, version = r.take(16), r.take(16)
        adopt = DECISIONS[code - 1] == "adopt"
        if (before != NONE16, version != NONE16) != (adopt, adopt):
            raise Refused("malformedRecord", "a decision naming the wrong snapshots")
        return {"op": "decision", "branch": branch, "document": document, "decision": DECISIONS[code - 1], "decided_at": decided_at,
                "before": before.hex() if adopt else None, "version": version.hex() if adopt else None}
    raise Refused("malformedRecord", "an unknown branch change")


def parse_edit_event(r):
    op = {"op": "edit-event", "event": r.take(16).hex(), "device": r.take(16).hex()}
    op["started_at"], op["last_edit_at"] = parse_time(r), parse_time(r)
    if op["started_at"] > op["last_edit_at"]:
        raise Refused("malformedRecord", "an edit event whose first edit is after its last")
    ended = r.int(1)
    if ended > 1:
        raise Refused("malformedRecord", "an edit event neither open nor ended")
    op["ended"] = ended == 1
    op["edits"] = r.int(4)
    if op["edits"] < 1:
        raise Refused("malformedRecord", "an edit event of no edits")
    count = r.int(4)
    if not 1 <= count <= MAX_EVENT_DOCUMENTS:
        raise Refused("malformedRecord", "an edit event of 1 to 4096 documents")
    documents = []
    for _ in range(count):
        document = r.take(16).hex()
        if any(d["document"] == document for d in documents):
            raise Refused("malformedRecord", "an edit event listing a document twice")
        documents.append({"document": document, "words": int.from_bytes(r.take(4), "big", signed=True)})
    op["documents"] = documents
    return op


# --- §19.2 operations 0x09 and 0x0A: entries, the project's name and archived flag ---------------

def str32(data):
    return struct.pack(">I", len(data)) + data


def encode_entry_value(value):
    """§14.5's sealed entry value: version 1, name, body, the fields in FIELD_SLOTS order."""
    out = b"\x01" + str32(value["name"].encode()) + str32(value["body"].encode())
    slots = [slot for slot in FIELD_SLOTS if slot in value["fields"]] + value.get("extra_slots", [])
    out += struct.pack(">I", len(slots))
    for slot in slots:
        out += u8(len(slot)) + slot.encode() + str32(value["fields"].get(slot, "x").encode())
    return out


def encode_project_operation(op):
    """Encodes 0x09 or 0x0A; `*_code` keys override a field's code (for refused variants)."""
    if op["op"] == "entry":
        out = b"\x09" + bytes.fromhex(op["entry"])
        value = op["value"]
        if value is None:
            return out + u8(op.get("value_code", 0))
        key = value["order_key"].encode()
        return (out + u8(op.get("value_code", 1)) + u8(op.get("kind_code", ENTRY_KINDS.index(value["kind"]) + 1))
                + u8(len(key)) + key + str32(encode_entry_value(value)))
    if op["op"] == "project-name":
        return b"\x0a" + u8(op.get("field_code", 1)) + str16(op["name"])
    if op["op"] == "project-snapshot":
        out = (b"\x0b" + bytes.fromhex(op["snapshot"]) + u8(op.get("origin_code", PROJECT_SNAPSHOT_ORIGINS.index(op["origin"]) + 1))
               + str16(op["title"] or "") + bytes.fromhex(op["device"]) + struct.pack(">QI", op["created_at"], len(op["nodes"])))
        for node in op["nodes"]:
            key = node["order_key"].encode()
            out += (bytes.fromhex(node["node"]) + u8(1 if node["kind"] == "folder" else 2)
                    + (bytes.fromhex(node["parent"]) if node["parent"] else NONE16) + u8(len(key)) + key + str16(node["title"])
                    + (bytes.fromhex(node["version"]) if node["version"] else NONE16))
        return out
    return b"\x0a" + u8(op.get("field_code", 2)) + struct.pack(">Q", op["archived_at"] or 0)


def parse_entry_value(data, kind):
    r = Reader(data)
    if r.int(1) != 1:
        raise Refused("malformedRecord", "an entry value of an unknown version")
    name = check_name(r.text(4, 512), "an entry's name")
    body = r.text(4, MAX_BLOCK_TEXT)
    fields, previous = {}, -1
    for _ in range(r.int(4)):
        slot = r.take(r.int(1)).decode("ascii", "replace")
        if slot not in FIELD_SLOTS or FIELD_SLOTS.index(slot) <= previous or slot not in ENTRY_SLOTS[kind]:
            raise Refused("malformedRecord", "a field slot out of order or not its kind's")
        previous = FIELD_SLOTS.index(slot)
        fields[slot] = r.text(4, MAX_BLOCK_TEXT)
    if not r.done():
        raise Refused("malformedRecord", "bytes after an entry's last field")
    return name, body, fields


def parse_entry(r):
    entry = r.take(16).hex()
    tag = r.int(1)
    if tag == 0:
        return {"op": "entry", "entry": entry, "value": None}
    if tag != 1:
        raise Refused("malformedRecord", "an unknown entry value")
    code = r.int(1)
    if not 1 <= code <= len(ENTRY_KINDS):
        raise Refused("malformedRecord", "an unknown entry kind")
    kind = ENTRY_KINDS[code - 1]
    key = r.text(1, 255)
    if not order_key_valid(key):
        raise Refused("malformedRecord", "an order key outside its grammar")
    n = r.int(4)
    if n > MAX_BLOCK_TEXT:
        raise Refused("malformedRecord", "an entry over 983,040 bytes")
    name, body, fields = parse_entry_value(r.take(n), kind)
    return {"op": "entry", "entry": entry, "value": {"kind": kind, "order_key": key, "name": name, "body": body, "fields": fields}}


def nodes_overstated(fields, op):
    """The record `fields` (whose one operation is the project snapshot `op`) with its node count 1000."""
    body, encoded = encode_body(fields), encode_operation(op)
    at = body.index(encoded) + 1 + 16 + 1 + 2 + len((op["title"] or "").encode()) + 16 + 8
    return body[:at] + struct.pack(">I", 1000) + body[at + 4:]


def parse_project_snapshot(r):
    """0x0B: a project snapshot (§15.2) naming its documents' versions (document snapshots)."""
    snapshot = r.take(16).hex()
    code = r.int(1)
    if not 1 <= code <= len(PROJECT_SNAPSHOT_ORIGINS):
        raise Refused("malformedRecord", "an unknown project snapshot origin")
    origin = PROJECT_SNAPSHOT_ORIGINS[code - 1]
    title = r.text(2, 512)
    if origin == "titled":
        check_name(title, "a project snapshot title")
    elif title:
        raise Refused("malformedRecord", "a title on a project snapshot that is not titled")
    device, created_at, count = r.take(16).hex(), parse_time(r), r.int(4)
    if count > (len(r.data) - r.at) // 54:
        raise Refused("malformedRecord", "more nodes than the bytes left can hold")
    nodes, seen, folders = [], set(), set()
    for _ in range(count):
        node, kind = r.take(16).hex(), r.int(1)
        if kind not in (1, 2):
            raise Refused("malformedRecord", "an unknown node kind")
        parent = r.take(16)
        key = r.text(1, 255)
        if not order_key_valid(key):
            raise Refused("malformedRecord", "an order key outside its grammar")
        node_title = check_name(r.text(2, 512), "a title")
        version = r.take(16)
        if (kind == 2) != (version != NONE16):
            raise Refused("malformedRecord", "a document without a version, or a folder with one")
        parent = None if parent == NONE16 else parent.hex()
        if node in seen or (parent is not None and parent not in folders):
            raise Refused("malformedRecord", "a node listed twice or before its folder")
        seen.add(node)
        if kind == 1:
            folders.add(node)
        nodes.append({"node": node, "kind": "folder" if kind == 1 else "document", "parent": parent, "order_key": key,
                      "title": node_title, "version": version.hex() if kind == 2 else None})
    return {"op": "project-snapshot", "snapshot": snapshot, "origin": origin, "title": title or None, "device": device,
            "created_at": created_at, "nodes": nodes}


def parse_project_field(r):
    tag = r.int(1)
    if tag == 1:
        return {"op": "project-name", "name": parse_name(r, "a project name")}
    if tag == 2:
        time = parse_time(r)
        return {"op": "project-archived", "archived_at": time or None}
    raise Refused("malformedRecord", "an unknown project field")


def parse_block_value(r):
    tag = r.int(1)
    if tag == 0:
        return None
    if tag != 1:
        raise Refused("malformedRecord", "an unknown block value")
    key = r.text(1, 255)
    if not order_key_valid(key):
        raise Refused("malformedRecord", "an order key outside its grammar")
    value = parse_block(r.take(r.int(4)))
    value["order_key"] = key
    return value


def parse_operation(r):
    tag = r.int(1)
    if tag == 1:
        node = r.take(16).hex()
        kind = r.int(1)
        if kind == 0:
            return {"op": "node", "node": node, "value": None}
        if kind != 1:
            raise Refused("malformedRecord", "an unknown node value")
        node_kind = r.int(1)
        if node_kind not in (1, 2):
            raise Refused("malformedRecord", "an unknown node kind")
        parent = r.take(16)
        key = r.text(1, 255)
        if not order_key_valid(key):
            raise Refused("malformedRecord", "an order key outside its grammar")
        title = r.text(2, 512)
        if not title or any(ord(c) < 0x20 or 0x7F <= ord(c) < 0xA0 for c in title):
            raise Refused("malformedRecord", "a title that is empty or holds control characters")
        # As the writing store keeps titles: NFC, and no space (Unicode Zs) at either end.
        if unicodedata.normalize("NFC", title) != title or unicodedata.category(title[0]) == "Zs" \
                or unicodedata.category(title[-1]) == "Zs":
            raise Refused("malformedRecord", "a title that is not NFC or starts or ends with a space")
        return {"op": "node", "node": node, "value": {"kind": "folder" if node_kind == 1 else "document",
                                                      "parent": None if parent == bytes(16) else parent.hex(),
                                                      "order_key": key, "title": title}}
    if tag == 2:
        document, block = r.take(16).hex(), r.take(16).hex()
        value = parse_block_value(r)
        if value is not None and value["text"]:
            raise Refused("malformedRecord", "a block value that carries text (a block's text is its characters)")
        return {"op": "block", "document": document, "block": block, "value": value}
    if tag == 3:
        branch, document, block = r.take(16).hex(), r.take(16).hex(), r.take(16).hex()
        return {"op": "conflict", "branch": branch, "document": document, "block": block,
                "losing": parse_block_value(r), "winning": parse_block_value(r)}
    if tag == 4:
        document, block = r.take(16).hex(), r.take(16).hex()
        count = r.int(2)
        if not 1 <= count <= MAX_TEXT_EDITS:
            raise Refused("malformedRecord", "1 to 4096 text edits")
        return {"op": "text", "document": document, "block": block, "edits": [parse_text_edit(r) for _ in range(count)]}
    if tag == 6:
        return parse_snapshot(r)
    if tag == 7:
        return parse_branch_change(r)
    if tag == 8:
        return parse_edit_event(r)
    if tag == 9:
        return parse_entry(r)
    if tag == 10:
        return parse_project_field(r)
    if tag == 11:
        return parse_project_snapshot(r)
    if tag == 12:
        return parse_snapshot_part(r)
    raise Refused("malformedRecord", "an unknown operation")


def parse_character(r):
    character = {"device": r.take(16).hex(), "counter": r.int(8), "offset": r.int(4)}
    if character["counter"] < 1 or character["counter"] > MAXIMUM_TIME:
        raise Refused("malformedRecord", "a character of record 0 or over 2^63 - 1")
    return character


def parse_text_edit(r):
    tag = r.int(1)
    if tag == 1:
        anchor = r.int(1)
        if anchor not in (0, 1):
            raise Refused("malformedRecord", "an unknown anchor")
        after = parse_character(r) if anchor == 1 else None
        text = r.text(4, MAX_BLOCK_TEXT)
        if not text:
            raise Refused("malformedRecord", "an insert of no text")
        return {"edit": "insert", "after": after, "text": text}
    if tag == 2:
        return {"edit": "delete", "first": parse_character(r), "last": parse_character(r)}
    raise Refused("malformedRecord", "an unknown text edit")


def parse(record):
    """The record's fields, or Refused("malformedRecord"). The signature is not checked here."""
    if len(record) > MAX_SIZE:
        raise Refused("malformedRecord", "over 4 MiB - 64 KiB")
    if len(record) < 4 + 1 + 32 + 16 + 1 + 2 + 64:
        raise Refused("malformedRecord", "too short")
    r = Reader(record[:-64])
    if r.take(4) != MAGIC:
        raise Refused("malformedRecord", "not a change record")
    version = r.int(1)
    if version not in VERSIONS:
        raise Refused("malformedRecord", "not a version 1 or 2 change record")
    # A version-1 record's fields name no version (the file's records before version 2 are unchanged).
    fields = {"version": version} if version != VERSION else {}
    fields.update({"project": r.take(16).hex(), "device": r.take(16).hex(), "counter": r.int(8), "lamport": r.int(8)})
    if fields["counter"] < 1 or fields["lamport"] < 1:
        raise Refused("malformedRecord", "a counter or Lamport time of 0")
    if fields["counter"] > MAXIMUM_TIME or fields["lamport"] > MAXIMUM_TIME:
        raise Refused("malformedRecord", "a counter or Lamport time over 2^63 - 1")
    count = r.int(1)
    if count > MAX_PARENTS:
        raise Refused("malformedRecord", "too many parents")
    parents = [r.take(32) for _ in range(count)]
    if any(a >= b for a, b in zip(parents, parents[1:])):
        raise Refused("malformedRecord", "parents not strictly ascending")
    fields["parents"] = [p.hex() for p in parents]
    count = r.int(2)
    if not 1 <= count <= MAX_OPERATIONS:
        raise Refused("malformedRecord", "1 to 4096 operations")
    fields["operations"] = [parse_operation(r) for _ in range(count)]
    if not r.done():
        raise Refused("malformedRecord", "bytes after the last operation")
    return fields


def verify(record, public_key):
    try:
        nacl.signing.VerifyKey(public_key).verify(SIGNING_LABEL + record[:-64], record[-64:])
        return True
    except nacl.exceptions.BadSignatureError:
        return False


def read(record, keys):
    """Parses and verifies: the fields, or Refused with §19.4's code."""
    fields = parse(record)
    if fields["device"] not in keys:
        raise Refused("unknownDevice")
    if not verify(record, keys[fields["device"]]):
        raise Refused("badSignature")
    return fields


# --- the vectors ------------------------------------------------------------------------------

def device(name):
    seed = fixed("sync device " + name, 32)
    public = bytes(nacl.signing.SigningKey(seed).verify_key)
    noise = fixed("sync noise key " + name, 32)
    return {"seed": seed.hex(), "signing_public_key": public.hex(), "noise_public_key": noise.hex(),
            "device_id": hashlib.sha256(DEVICE_ID_LABEL + public + noise).digest()[:16].hex()}


def content(blocks):
    """§15.2 content of (id hex, block) pairs."""
    out = b"\x01" + struct.pack(">I", len(blocks))
    for block_id, value in blocks:
        encoded = encode_block(value)
        out += bytes.fromhex(block_id) + struct.pack(">I", len(encoded)) + encoded
    return out


def block(key, kind, text, rows=None):
    return {"order_key": key, "kind": kind, "text": text, "rows": rows or []}


def removal_scenario(a, b, keys):
    """§19.3's removal conflict: A removes a document while B, not having seen the removal, types in
    its block. The document stays, and the block is a conflict whose losing side is the block deleted
    and whose winning side is B's write with the text B saw, named by the block and A's removal."""
    project = fixed("sync removal project", 16).hex()
    doc, blk = fixed("sync removal document", 16).hex(), fixed("sync removal block", 16).hex()
    made = {"project": project, "device": a["device_id"], "counter": 1, "lamport": 1, "parents": [], "operations": [
        {"op": "node", "node": doc, "value": {"kind": "document", "parent": None, "order_key": "1i", "title": "Intake"}},
        {"op": "block", "document": doc, "block": blk, "value": block("1i", "paragraph", "")},
        {"op": "text", "document": doc, "block": blk, "edits": [{"edit": "insert", "after": None, "text": "Intake notes."}]},
    ]}
    r1 = sign(bytes.fromhex(a["seed"]), encode_body(made))
    h1 = hashlib.sha256(r1).hexdigest()
    removed = {"project": project, "device": a["device_id"], "counter": 2, "lamport": 2, "parents": [h1], "operations": [
        {"op": "node", "node": doc, "value": None},
    ]}
    r2 = sign(bytes.fromhex(a["seed"]), encode_body(removed))
    h2 = hashlib.sha256(r2).hexdigest()
    # B types " And the plan." after A's "." (A's character 12).
    edited = {"project": project, "device": b["device_id"], "counter": 1, "lamport": 2, "parents": [h1], "operations": [
        {"op": "block", "document": doc, "block": blk, "value": block("1i", "paragraph", "")},
        {"op": "text", "document": doc, "block": blk, "edits": [
            {"edit": "insert", "after": {"device": a["device_id"], "counter": 1, "offset": 12}, "text": " And the plan."}]},
    ]}
    r3 = sign(bytes.fromhex(b["seed"]), encode_body(edited))
    records = []
    for name, raw, fields in (("made", r1, made), ("removed", r2, removed), ("edited unseen", r3, edited)):
        assert read(raw, keys) == fields, name
        records.append({"name": name, "record": raw.hex(), "hash": hashlib.sha256(raw).hexdigest()})
    branch = hashlib.sha256(REMOVAL_CONFLICT_LABEL + bytes.fromhex(blk) + bytes.fromhex(h2)).digest()[:16].hex()
    return {
        "description": "§19.3's removal conflict: the three records, in any order, show the document (its last present "
                       "value) holding `text`, and exactly this conflict (`losing` null: the block deleted).",
        "records": records,
        "document": doc,
        "text": "Intake notes. And the plan.",
        "conflict": {"branch": branch, "document": doc, "block": blk, "losing": None,
                     "winning": block("1i", "paragraph", "Intake notes. And the plan.")},
    }


def settled_branches(records):
    """§19.3: every decided branch's state, its decisions replayed in rank order (Lamport time, device,
    hash; a record's own in their order): an adopt applies to an open branch, or to a discarded one
    whose applied discard is not in its past (overruling it); a discard to an open one; a revert to
    an adopted one with an adopt in its past or earlier in its record; anything else is overruled."""
    by_hash = {r["hash"]: r for r in records}
    past = {}

    def past_of(h):
        if h not in past:
            seen, stack = set(), [h]
            while stack:
                for parent in by_hash[stack.pop()]["fields"]["parents"]:
                    if parent not in seen:
                        seen.add(parent)
                        stack.append(parent)
            past[h] = seen
        return past[h]

    def in_past(a, b):  # record a in record b's past, or b itself
        return a == b or a in past_of(b)

    decisions = {}
    for r in records:
        for index, op in enumerate(r["fields"]["operations"]):
            if op["op"] == "decision":
                rank = (r["fields"]["lamport"], bytes.fromhex(r["fields"]["device"]), bytes.fromhex(r["hash"]), index)
                decisions.setdefault(op["branch"], []).append((rank, r, op))
    settled = {}
    for branch, writes in sorted(decisions.items()):
        writes.sort(key=lambda w: w[0])
        state, decided_at, adopt, discard, out = "open", None, None, None, []
        for position, (_, r, op) in enumerate(writes):
            applied = False
            if op["decision"] == "adopt" and state == "open":
                applied = True
            elif op["decision"] == "adopt" and state == "discarded" and not in_past(writes[discard][1]["hash"], r["hash"]):
                applied = True
                out[discard]["applied"] = False
            elif op["decision"] == "discard" and state == "open":
                applied, discard = True, position
            elif op["decision"] == "revert" and state == "adopted":
                applied = any(w[2]["decision"] == "adopt" and in_past(w[1]["hash"], r["hash"]) for w in writes[:position])
            if applied:
                state = {"adopt": "adopted", "discard": "discarded", "revert": "reverted"}[op["decision"]]
                decided_at = op["decided_at"]
                if op["decision"] == "adopt":
                    adopt = op
            out.append({"decision": op["decision"], "device": r["fields"]["device"], "counter": r["fields"]["counter"], "applied": applied})
        settled[branch] = {"state": state, "decided_at": decided_at, "before": adopt["before"] if adopt else None,
                           "adoption": adopt["version"] if adopt else None, "decisions": out}
    return settled


def join(records):
    """§19.2's snapshots in parts: each joined from the parts (0x0C, by snapshot and SHA-256) written in
    its record's past or earlier in its record (else causalityViolation), then checked: exactly `length`
    bytes, a content that decodes and hashes to the digest, or a canonical delta (else malformedRecord).
    Returns {snapshot: SHA-256 of the joined payload}; raises Refused for the first that fails."""
    by_hash = {r["hash"]: r for r in records}

    def past_of(h):
        seen, stack = set(), [h]
        while stack:
            for parent in by_hash[stack.pop()]["fields"]["parents"]:
                if parent not in seen:
                    seen.add(parent)
                    stack.append(parent)
        return seen

    def unnamed_part_bytes(r):
        # The parts r's device wrote and none of its snapshots named, over its own records up to r
        # (its chain: those in r's past, then r), at most one snapshot's largest payload.
        own = [by_hash[h] for h in past_of(r["hash"]) if by_hash[h]["fields"]["device"] == r["fields"]["device"]]
        unnamed, named = {}, set()
        for mine in sorted(own, key=lambda x: x["fields"]["counter"]) + [r]:
            for op in mine["fields"]["operations"]:
                if op["op"] == "snapshot-part":
                    key = (op["snapshot"], hashlib.sha256(bytes.fromhex(op["part"])).hexdigest())
                    if key not in named:
                        unnamed[key] = len(op["part"]) // 2
                elif op["op"] == "snapshot" and "parts" in op:
                    for d in op["parts"]["digests"]:
                        named.add((op["snapshot"], d))
                        unnamed.pop((op["snapshot"], d), None)
        return sum(unnamed.values())

    joined = {}
    for r in records:
        if unnamed_part_bytes(r) > MAX_PARTS_LENGTH:
            raise Refused("malformedRecord", "a device's snapshot parts that none of its snapshots names, over 64 MiB")
        held = {}
        for earlier in past_of(r["hash"]):
            for op in by_hash[earlier]["fields"]["operations"]:
                if op["op"] == "snapshot-part":
                    held[(op["snapshot"], hashlib.sha256(bytes.fromhex(op["part"])).hexdigest())] = bytes.fromhex(op["part"])
        for op in r["fields"]["operations"]:
            if op["op"] == "snapshot-part":
                key = (op["snapshot"], hashlib.sha256(bytes.fromhex(op["part"])).hexdigest())
                held[key] = bytes.fromhex(op["part"])
            if op["op"] != "snapshot" or "parts" not in op:
                continue
            pieces = [held.get((op["snapshot"], d)) for d in op["parts"]["digests"]]
            if any(p is None for p in pieces):
                raise Refused("causalityViolation", "a part of snapshot %s its record has not seen" % op["snapshot"])
            payload = b"".join(pieces)
            if len(payload) != op["parts"]["length"]:
                raise Refused("malformedRecord", "parts that are not the snapshot's length")
            if op["parts"]["base"] is None:
                decode_content(payload)
                if hashlib.sha256(payload).hexdigest() != op["digest"]:
                    raise Refused("malformedRecord", "parts that join to a content that is not the digest's")
            else:
                try:
                    sd.parse(payload)
                except sd.Damaged as damage:
                    raise Refused("malformedRecord", "a snapshot delta in parts: %s" % damage)
            joined[op["snapshot"]] = hashlib.sha256(payload).hexdigest()
    return joined


def build():
    a, b = device("A"), device("B")
    keys = {d["device_id"]: bytes.fromhex(d["signing_public_key"]) for d in (a, b)}
    project = fixed("sync project", 16).hex()
    doc, b1, b2, b3 = (fixed("sync id " + n, 16).hex() for n in ("document", "block 1", "block 2", "block 3"))
    # A character is named by its record (device, counter) and its place among the scalars that
    # record inserted: "Intake" is A's 0 to 5, the paragraph's text A's 6 onwards.
    first_text = "Naïve résumé, e\u0301 and 🙂."

    def character(of, counter, offset):
        return {"device": of["device_id"], "counter": counter, "offset": offset}

    first = {"project": project, "device": a["device_id"], "counter": 1, "lamport": 1, "parents": [], "operations": [
        {"op": "node", "node": doc, "value": {"kind": "document", "parent": None, "order_key": "1i", "title": "Session 1 — intake"}},
        {"op": "block", "document": doc, "block": b1, "value": block("1i", "heading-2", "")},
        {"op": "text", "document": doc, "block": b1, "edits": [{"edit": "insert", "after": None, "text": "Intake"}]},
        {"op": "block", "document": doc, "block": b2, "value": block("1j", "paragraph", "")},
        {"op": "text", "document": doc, "block": b2, "edits": [{"edit": "insert", "after": None, "text": first_text}]},
    ]}
    r1 = sign(bytes.fromhex(a["seed"]), encode_body(first))
    h1 = hashlib.sha256(r1).hexdigest()
    second = {"project": project, "device": b["device_id"], "counter": 1, "lamport": 2, "parents": [h1], "operations": [
        {"op": "block", "document": doc, "block": b2, "value": block("1j", "paragraph", "")},
        # "Naïve résumé, " deleted, "Edited at the desk." typed at the start, the rest deleted.
        {"op": "text", "document": doc, "block": b2, "edits": [
            {"edit": "delete", "first": character(a, 1, 6), "last": character(a, 1, 6 + 13)},
            {"edit": "insert", "after": None, "text": "Edited at the desk."},
            {"edit": "delete", "first": character(a, 1, 6 + 14), "last": character(a, 1, 6 + len(first_text) - 1)},
        ]},
        {"op": "block", "document": doc, "block": b3, "value": block("1k", "table", "", [["Drug", "Dose"], ["x", "5 mg"]])},
        {"op": "block", "document": doc, "block": b1, "value": None},
    ]}
    r2 = sign(bytes.fromhex(b["seed"]), encode_body(second))
    h2 = hashlib.sha256(r2).hexdigest()
    losing = block("1j", "paragraph", "Edited on the laptop.")
    winning = block("1j", "paragraph", "Edited at the desk.")
    branch = hashlib.sha256(CONFLICT_LABEL + bytes.fromhex(b2) + bytes.fromhex(h1)).digest()[:16].hex()
    third = {"project": project, "device": a["device_id"], "counter": 2, "lamport": 3, "parents": [h2, h1], "operations": [
        {"op": "conflict", "branch": branch, "document": doc, "block": b2, "losing": losing, "winning": winning},
        {"op": "node", "node": doc, "value": {"kind": "document", "parent": None, "order_key": "1i", "title": "Session 1"}},
        {"op": "node", "node": fixed("sync id folder", 16).hex(), "value": None},
        # The desk's "." (B's character 18) made "!", typed after B's "k" (its 17).
        {"op": "block", "document": doc, "block": b2, "value": block("1j", "paragraph", "")},
        {"op": "text", "document": doc, "block": b2, "edits": [
            {"edit": "delete", "first": character(b, 1, 18), "last": character(b, 1, 18)},
            {"edit": "insert", "after": character(b, 1, 17), "text": "!"},
        ]},
    ]}
    r3 = sign(bytes.fromhex(a["seed"]), encode_body(third))
    h3 = hashlib.sha256(r3).hexdigest()
    # Versions (0x06 to 0x08): a titled snapshot whole, an automatic one as a delta from it, a branch
    # against the first, its adoption (before: the first, version: the second) and A's writing session.
    s1, s2, branch_id, event_a, event_b = (fixed("sync id " + n, 16).hex() for n in ("snapshot 1", "snapshot 2", "branch", "event A", "event B"))
    audit_a, audit_b = fixed("sync audit device A", 16).hex(), fixed("sync audit device B", 16).hex()
    c1 = content([(b2, {"kind": "paragraph", "text": "Edited at the desk!", "rows": []})])
    c2 = content([(b2, {"kind": "paragraph", "text": "Edited at the desk! Plan: rest.", "rows": []})])
    prefix = len(os.path.commonprefix([c1, c2]))
    d12 = b"\x01" + sd.copy(0, prefix) + sd.insert(c2[prefix:])
    assert sd.apply(d12, c1) == c2
    proposal = content([(b2, {"kind": "paragraph", "text": "Edited at the desk! Plan: rest, fluids.", "rows": []})])
    d1p = b"\x01" + sd.copy(0, prefix) + sd.insert(proposal[prefix:])
    assert sd.apply(d1p, c1) == proposal
    snapshot_1 = {"op": "snapshot", "snapshot": s1, "document": doc, "origin": "titled", "title": "Before the visit", "device": audit_a,
                  "created_at": 1780000000, "digest": hashlib.sha256(c1).hexdigest(), "content": c1.hex()}
    snapshot_2 = {"op": "snapshot", "snapshot": s2, "document": doc, "origin": "automatic", "title": None, "device": audit_a,
                  "created_at": 1780000060, "digest": hashlib.sha256(c2).hexdigest(), "base": s1, "delta": d12.hex()}
    made = {"op": "branch", "branch": branch_id, "document": doc, "kind": "ai-suggestion", "base": s1, "provenance": "assistant: a fuller plan",
            "created_at": 1780000070, "delta": d1p.hex()}
    adopt = {"op": "decision", "branch": branch_id, "document": doc, "decision": "adopt", "decided_at": 1780000080, "before": s1, "version": s2}
    session_a = {"op": "edit-event", "event": event_a, "device": audit_a, "started_at": 1780000000, "last_edit_at": 1780000080,
                 "ended": False, "edits": 3, "documents": [{"document": doc, "words": -2}]}
    fourth = {"project": project, "device": a["device_id"], "counter": 3, "lamport": 4, "parents": [h3],
              "operations": [snapshot_1, snapshot_2, made, adopt, session_a]}
    r4 = sign(bytes.fromhex(a["seed"]), encode_body(fourth))
    h4 = hashlib.sha256(r4).hexdigest()
    fifth = {"project": project, "device": b["device_id"], "counter": 2, "lamport": 5, "parents": [h4], "operations": [
        {"op": "decision", "branch": branch_id, "document": doc, "decision": "revert", "decided_at": 1780000200, "before": None, "version": None},
        {"op": "decision", "branch": fixed("sync id other branch", 16).hex(), "document": doc, "decision": "discard", "decided_at": 1780000210,
         "before": None, "version": None},
        {"op": "edit-event", "event": event_b, "device": audit_b, "started_at": 1780000100, "last_edit_at": 1780000200, "ended": True,
         "edits": 1, "documents": [{"document": doc, "words": 7}, {"document": fixed("sync id document 2", 16).hex(), "words": 0}]},
    ]}
    r5 = sign(bytes.fromhex(b["seed"]), encode_body(fifth))
    h5 = hashlib.sha256(r5).hexdigest()
    # A second branch (against the second snapshot), then an adoption by A and a discard by B that
    # neither device saw: §19.3 settles it adopted on both, the discard kept, overruled.
    second_branch = fixed("sync id branch 2", 16).hex()
    d2p = b"\x01" + sd.copy(0, prefix) + sd.insert(proposal[prefix:])
    sixth = {"project": project, "device": a["device_id"], "counter": 4, "lamport": 6, "parents": [h5], "operations": [
        {"op": "branch", "branch": second_branch, "document": doc, "kind": "manual", "base": s2, "provenance": "j.okafor",
         "created_at": 1780000300, "delta": d2p.hex()}]}
    r6 = sign(bytes.fromhex(a["seed"]), encode_body(sixth))
    h6 = hashlib.sha256(r6).hexdigest()
    seventh = {"project": project, "device": a["device_id"], "counter": 5, "lamport": 7, "parents": [h6], "operations": [
        {"op": "decision", "branch": second_branch, "document": doc, "decision": "adopt", "decided_at": 1780000400, "before": s2, "version": s1}]}
    eighth = {"project": project, "device": b["device_id"], "counter": 3, "lamport": 7, "parents": [h6], "operations": [
        {"op": "decision", "branch": second_branch, "document": doc, "decision": "discard", "decided_at": 1780000390, "before": None, "version": None}]}
    r7, r8 = sign(bytes.fromhex(a["seed"]), encode_body(seventh)), sign(bytes.fromhex(b["seed"]), encode_body(eighth))
    h7, h8 = hashlib.sha256(r7).hexdigest(), hashlib.sha256(r8).hexdigest()
    # Entries (0x09), the project's name and archived flag (0x0A), after both concurrent heads.
    person, place, gone = (fixed("sync id entry " + n, 16).hex() for n in ("person", "place", "gone"))
    lead = {"op": "entry", "entry": person, "value": {"kind": "character", "order_key": "1i", "name": "Ada Okafor", "body": "Claimant; é ß 日本.",
                                                      "fields": {"personRole": "claimant", "personArc": "settles"}}}
    office = {"op": "entry", "entry": place, "value": {"kind": "place", "order_key": "1j", "name": "Harbour office", "body": "",
                                                       "fields": {"placeDescription": "Second floor"}}}
    renamed = {"op": "project-name", "name": "Case file — Okafor"}
    archived = {"op": "project-archived", "archived_at": 1780000500}
    ninth = {"project": project, "device": a["device_id"], "counter": 6, "lamport": 8, "parents": sorted([h7, h8]), "operations": [
        lead, office, {"op": "entry", "entry": gone, "value": None}, renamed, archived]}
    r9 = sign(bytes.fromhex(a["seed"]), encode_body(ninth))
    h9 = hashlib.sha256(r9).hexdigest()
    # A project snapshot (0x0B): a folder, and the document in it at its second snapshot.
    folder = fixed("sync id folder", 16).hex()
    taken = {"op": "project-snapshot", "snapshot": fixed("sync id project snapshot", 16).hex(), "origin": "titled",
             "title": "Before the hearing", "device": audit_a, "created_at": 1780000600, "nodes": [
                 {"node": folder, "kind": "folder", "parent": None, "order_key": "1h", "title": "Sessions", "version": None},
                 {"node": doc, "kind": "document", "parent": folder, "order_key": "1i", "title": "Session 1 — intake", "version": s2}]}
    tenth = {"project": project, "device": a["device_id"], "counter": 7, "lamport": 9, "parents": [h9], "operations": [taken]}
    r10 = sign(bytes.fromhex(a["seed"]), encode_body(tenth))
    h10 = hashlib.sha256(r10).hexdigest()
    # Snapshots in parts (0x0C, content form 0x03): the third snapshot's content in two parts, each
    # in record `eleventh`; `twelfth` names them, and carries a fourth snapshot as a delta from the
    # third in one part written earlier in the same record. (A writer uses parts only past 3 MiB; the
    # format holds at any size, so the known answers stay small.)
    s3, s4 = fixed("sync id snapshot 3", 16).hex(), fixed("sync id snapshot 4", 16).hex()
    c3 = content([(b2, {"kind": "paragraph", "text": "Edited at the desk! Plan: rest, fluids, and a call on Friday.", "rows": []}),
                  (b3, {"kind": "table", "text": "", "rows": [["Drug", "Dose"], ["x", "5 mg"]]})])
    c4 = content([(b2, {"kind": "paragraph", "text": "Edited at the desk! Plan: rest, fluids, and a call on Monday.", "rows": []}),
                  (b3, {"kind": "table", "text": "", "rows": [["Drug", "Dose"], ["x", "5 mg"]]})])
    cut = len(c3) // 2
    part_1, part_2 = c3[:cut], c3[cut:]
    common = len(os.path.commonprefix([c3, c4]))
    d34 = b"\x01" + sd.copy(0, common) + sd.insert(c4[common:])
    assert sd.apply(d34, c3) == c4
    eleventh = {"project": project, "device": a["device_id"], "counter": 8, "lamport": 10, "parents": [h10], "operations": [
        {"op": "snapshot-part", "snapshot": s3, "part": part_1.hex()},
        {"op": "snapshot-part", "snapshot": s3, "part": part_2.hex()}]}
    r11 = sign(bytes.fromhex(a["seed"]), encode_body(eleventh))
    h11 = hashlib.sha256(r11).hexdigest()
    in_parts = {"op": "snapshot", "snapshot": s3, "document": doc, "origin": "automatic", "title": None, "device": audit_a,
                "created_at": 1780000700, "digest": hashlib.sha256(c3).hexdigest(),
                "parts": {"base": None, "length": len(c3), "digests": [hashlib.sha256(part_1).hexdigest(), hashlib.sha256(part_2).hexdigest()]}}
    delta_part = {"op": "snapshot-part", "snapshot": s4, "part": d34.hex()}
    delta_in_parts = {"op": "snapshot", "snapshot": s4, "document": doc, "origin": "automatic", "title": None, "device": audit_a,
                      "created_at": 1780000760, "digest": hashlib.sha256(c4).hexdigest(),
                      "parts": {"base": s3, "length": len(d34), "digests": [hashlib.sha256(d34).hexdigest()]}}
    twelfth = {"project": project, "device": a["device_id"], "counter": 9, "lamport": 11, "parents": [h11], "operations": [
        in_parts, delta_part, delta_in_parts]}
    r12 = sign(bytes.fromhex(a["seed"]), encode_body(twelfth))
    h12 = hashlib.sha256(r12).hexdigest()
    # A record of body version 2 (§19.2, §19.3's rule of block conflicts): the same grammar; its 0x03
    # names a block conflict by the v2 label (the block and the losing write's record hash, here the
    # first record's write of block 2), and it types at the block's start.
    block_conflict = hashlib.sha256(BLOCK_CONFLICT_LABEL + bytes.fromhex(b2) + bytes.fromhex(h1)).digest()[:16].hex()
    thirteenth = {"version": 2, "project": project, "device": b["device_id"], "counter": 4, "lamport": 12, "parents": [h12], "operations": [
        {"op": "conflict", "branch": block_conflict, "document": doc, "block": b2,
         "losing": block("1j", "paragraph", first_text), "winning": block("1j", "paragraph", "Edited at the desk!")},
        {"op": "block", "document": doc, "block": b2, "value": block("1j", "paragraph", "")},
        {"op": "text", "document": doc, "block": b2, "edits": [{"edit": "insert", "after": None, "text": "Seen. "}]},
    ]}
    r13 = sign(bytes.fromhex(b["seed"]), encode_body(thirteenth))
    records = []
    for name, raw, fields in (("first", r1, first), ("second", r2, second), ("third", r3, third), ("fourth", r4, fourth), ("fifth", r5, fifth),
                              ("sixth", r6, sixth), ("seventh", r7, seventh), ("eighth", r8, eighth),
                              ("ninth", r9, ninth), ("tenth", r10, tenth), ("eleventh", r11, eleventh), ("twelfth", r12, twelfth),
                              ("thirteenth", r13, thirteenth)):
        parsed = read(raw, keys)
        fields = dict(fields, parents=sorted(fields["parents"]))
        assert parsed == fields, name
        records.append({"name": name, "record": raw.hex(), "hash": hashlib.sha256(raw).hexdigest(), "fields": parsed})

    def body_variant(fields, **change):
        return encode_body(dict(fields, **change))

    variants = [
        ("trailing byte", r1 + b"\x00", "malformedRecord"),
        ("truncated", r1[:-1], "malformedRecord"),
        ("wrong magic", b"SVCX" + r1[4:], "malformedRecord"),
        ("version 3", r1[:4] + b"\x03" + r1[5:], "malformedRecord"),
        ("version 0", r1[:4] + b"\x00" + r1[5:], "malformedRecord"),
        ("counter 0", sign(bytes.fromhex(a["seed"]), body_variant(first, counter=0)), "malformedRecord"),
        ("counter 2^63", sign(bytes.fromhex(a["seed"]), body_variant(first, counter=2**63)), "malformedRecord"),
        ("Lamport time 2^63", sign(bytes.fromhex(a["seed"]), body_variant(first, lamport=2**63)), "malformedRecord"),
        ("Lamport time 2^64 - 1", sign(bytes.fromhex(a["seed"]), body_variant(first, lamport=2**64 - 1)), "malformedRecord"),
        ("no operations", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[])), "malformedRecord"),
        # The parent count is at byte 53 (after magic, version, project, device, counter and Lamport time).
        ("parents not ascending", sign(bytes.fromhex(b["seed"]), encode_body(second)[:53] + b"\x02"
                                       + bytes.fromhex(h1) + bytes.fromhex(h1) + encode_body(second)[54 + 32:]), "malformedRecord"),
        ("order key with a trailing 0", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "block", "document": doc, "block": b1, "value": block("1i0", "paragraph", "")}])), "malformedRecord"),
        ("a block value that carries text", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "block", "document": doc, "block": b1, "value": block("1i", "paragraph", "x")}])), "malformedRecord"),
        ("cells in a paragraph", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "block", "document": doc, "block": b1, "value": block("1i", "paragraph", "", [["a"]])}])), "malformedRecord"),
        ("heading-7", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "block", "document": doc, "block": b1, "value": block("1i", "heading-7", "")}])), "malformedRecord"),
        ("unknown operation 5", sign(bytes.fromhex(a["seed"]), encode_body(dict(first, operations=[]))[:-2] + b"\x00\x01\x05"),
         "malformedRecord"),
        ("an insert of no text", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "text", "document": doc, "block": b1, "edits": [{"edit": "insert", "after": None, "text": ""}]}])), "malformedRecord"),
        ("unknown text edit 3", sign(bytes.fromhex(a["seed"]), encode_body(dict(first, operations=[
            {"op": "text", "document": doc, "block": b1, "edits": [{"edit": "insert", "after": None, "text": "x"}]}]))[:-(1 + 1 + 4 + 1)]
            + b"\x03"), "malformedRecord"),
        ("no text edits", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "text", "document": doc, "block": b1, "edits": []}])), "malformedRecord"),
        ("a title ending with a space", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "node", "node": doc, "value": {"kind": "document", "parent": None, "order_key": "1i", "title": "Session 1 "}}])),
         "malformedRecord"),
        ("a title starting with a no-break space", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "node", "node": doc, "value": {"kind": "document", "parent": None, "order_key": "1i", "title": "\u00a0Session 1"}}])),
         "malformedRecord"),
        ("a title not in NFC", sign(bytes.fromhex(a["seed"]), body_variant(first, operations=[
            {"op": "node", "node": doc, "value": {"kind": "document", "parent": None, "order_key": "1i", "title": "Cafe\u0301"}}])),
         "malformedRecord"),
        ("operation 9 cut short", sign(bytes.fromhex(a["seed"]), encode_body(dict(first, operations=[]))[:-2] + b"\x00\x01\x09"),
         "malformedRecord"),
        ("operation 12 cut short", sign(bytes.fromhex(a["seed"]), encode_body(dict(first, operations=[]))[:-2] + b"\x00\x01\x0c"),
         "malformedRecord"),
        ("unknown operation 13", sign(bytes.fromhex(a["seed"]), encode_body(dict(first, operations=[]))[:-2] + b"\x00\x01\x0d"),
         "malformedRecord"),
        ("an empty snapshot part", sign(bytes.fromhex(a["seed"]), body_variant(eleventh, operations=[
            {"op": "snapshot-part", "snapshot": s3, "part": ""}])), "malformedRecord"),
        ("a snapshot part said to be over 3 MiB", sign(bytes.fromhex(a["seed"]), body_variant(eleventh, operations=[
            {"op": "snapshot-part", "snapshot": s3, "part": "00", "length_code": MAX_PART + 1}])), "malformedRecord"),
    ] + [
        (name, sign(bytes.fromhex(a["seed"]), body_variant(fourth, operations=[dict(op, **change)])), "malformedRecord")
        for name, op, change in (
            ("snapshot origin 7", snapshot_1, {"origin_code": 7}),
            ("a title on an automatic snapshot", snapshot_2, {"title": "Automatic"}),
            ("a titled snapshot without a title", snapshot_1, {"title": None}),
            ("a snapshot title with a control character", snapshot_1, {"title": "Before\u0007"}),
            ("a snapshot title not in NFC", snapshot_1, {"title": "Cafe\u0301"}),
            ("a provenance ending with a space", made, {"provenance": "assistant "}),
            ("a snapshot content that is not its digest's", snapshot_1, {"digest": hashlib.sha256(c2).hexdigest()}),
            ("a snapshot content with a byte after its last block", snapshot_1, {"content": (c1 + b"\x00").hex(),
                                                                                  "digest": hashlib.sha256(c1 + b"\x00").hexdigest()}),
            ("snapshot content form 3", snapshot_1, {"form_code": 3}),
            ("a snapshot delta not in canonical form", snapshot_2, {"delta": (b"\x01" + sd.copy(0, 4) + sd.copy(4, prefix - 4) + sd.insert(c2[prefix:])).hex()}),
            ("a snapshot delta from itself", snapshot_2, {"base": s2}),
            ("a time past 2^63 - 1", snapshot_1, {"created_at": 2 ** 63}),
            ("branch kind 5", made, {"kind_code": 5}),
            ("an empty provenance", made, {"provenance": ""}),
            ("branch change 3", made, {"change_code": 3}),
            ("a branch delta of version 2", made, {"delta": "02" + d1p.hex()[2:]}),
            ("branch decision 4", adopt, {"decision_code": 4}),
            ("an adoption naming no version", adopt, {"version": None}),
            ("a discard naming snapshots", adopt, {"decision": "discard"}),
            ("an edit event ended 2", session_a, {"ended_code": 2}),
            ("an edit event whose first edit is after its last", session_a, {"started_at": 1780000081}),
            ("an edit event of no edits", session_a, {"edits": 0}),
            ("an edit event of no documents", session_a, {"documents": []}),
            ("an edit event listing a document twice", session_a, {"documents": [{"document": doc, "words": 1}, {"document": doc, "words": 2}]}),
        )
    ] + [
        (name, sign(bytes.fromhex(a["seed"]), body_variant(ninth, operations=[dict(op, **change)])), "malformedRecord")
        for name, op, change in (
            ("entry kind 5", lead, {"kind_code": 5}),
            ("entry value 2", lead, {"value_code": 2}),
            ("a person's slot on a place", office, {"value": dict(office["value"], extra_slots=["personArc"])}),
            ("an entry's slots out of order", lead, {"value": dict(lead["value"], fields={"personRole": "claimant"}, extra_slots=["personRole"])}),
            ("an entry name ending with a space", lead, {"value": dict(lead["value"], name="Ada ")}),
            ("an entry name not in NFC", lead, {"value": dict(lead["value"], name="Cafe\u0301")}),
            ("an entry order key with a trailing 0", lead, {"value": dict(lead["value"], order_key="1i0")}),
            ("project field 3", renamed, {"field_code": 3}),
            ("a project name with a control character", renamed, {"name": "Case\u0007"}),
            ("an archived time past 2^63 - 1", archived, {"archived_at": 2 ** 63}),
        )
    ] + [
        (name, sign(bytes.fromhex(a["seed"]), body_variant(tenth, operations=[dict(taken, **change)])), "malformedRecord")
        for name, change in (
            ("project snapshot origin 4", {"origin_code": 4}),
            ("a title on an automatic project snapshot", {"origin": "automatic"}),
            ("a titled project snapshot without a title", {"title": None}),
            ("a document of a project snapshot without a version", {"nodes": [taken["nodes"][0], dict(taken["nodes"][1], version=None)]}),
            ("a folder of a project snapshot with a version", {"nodes": [dict(taken["nodes"][0], version=s1), taken["nodes"][1]]}),
            ("a project snapshot node before its folder", {"nodes": [taken["nodes"][1], taken["nodes"][0]]}),
            ("a project snapshot node listed twice", {"nodes": [taken["nodes"][0], taken["nodes"][0], taken["nodes"][1]]}),
            ("a project snapshot node title ending with a space", {"nodes": [taken["nodes"][0], dict(taken["nodes"][1], title="Session ")]}),
        )
    ] + [
        (name, sign(bytes.fromhex(a["seed"]), body_variant(twelfth, operations=[dict(in_parts, parts=dict(in_parts["parts"], **change))])),
         "malformedRecord")
        for name, change in (
            ("a snapshot in 0 parts", {"count": 0, "digests": []}),
            ("a snapshot in 65 parts", {"count": 65, "digests": in_parts["parts"]["digests"] * 33, "length": 65}),
            ("a snapshot in parts longer than its parts can hold", {"length": 2 * MAX_PART + 1}),
            ("a snapshot in parts of no bytes", {"length": 0}),
            ("a snapshot in parts of form 3", {"inner_code": 3}),
            ("a snapshot in parts, a delta from itself", {"base": s3}),
            ("a snapshot in parts naming one part twice", {"digests": [in_parts["parts"]["digests"][0]] * 2}),
        )
    ] + [
        ("more project snapshot nodes than its bytes hold", sign(bytes.fromhex(a["seed"]), nodes_overstated(tenth, taken)), "malformedRecord"),
    ] + [
        ("signature altered", r1[:-1] + bytes([r1[-1] ^ 1]), "badSignature"),
        ("signed by B, names A", sign(bytes.fromhex(b["seed"]), encode_body(first)), "badSignature"),
        ("unknown device", sign(fixed("sync device C", 32), body_variant(first, device=fixed("sync device C id", 16).hex())), "unknownDevice"),
        ("version 2, signature altered", r13[:-1] + bytes([r13[-1] ^ 1]), "badSignature"),
        ("version 2 signed as version 1", r13[:4] + b"\x01" + r13[5:], "badSignature"),
    ]
    # The size bound, checked here rather than as a vector (a record over it is 4 MB of hex): the
    # largest record a sync message carries beside its other fields, and one byte more is refused.
    for size, refused_as in ((MAX_SIZE + 1, "malformedRecord"),):
        try:
            parse(bytes(size))
            raise AssertionError("a record of %d bytes was not refused" % size)
        except Refused as refusal:
            assert refusal.code == refused_as and "64 KiB" in str(refusal), str(refusal)
    refused = []
    for name, raw, reason in variants:
        try:
            read(raw, keys)
            raise AssertionError("variant %r was not refused" % name)
        except Refused as refusal:
            assert refusal.code == reason, (name, str(refusal))
        refused.append({"name": name, "record": raw.hex(), "reason": reason})
    return {
        "description": "Change records (SECURITY.md §19.2), written by testvectors/independent/change_record.py. "
                       "Each record parses to `fields` (`version` given only for body version 2: a record "
                       "without it is version 1) and verifies under its device's key; each refused one "
                       "is refused for `reason` (§19.4). Device ids are SHA-256(\"SealedVault device id v1\" || "
                       "signing key || noise key)[:16].",
        "devices": {"A": a, "B": b},
        "records": records,
        "refused": refused,
        "removal": removal_scenario(a, b, keys),
        "settled": settled_branches(records),
        "joined": join(records),
        "joined_refused": joined_refused(records, a, project, doc, audit_a, s3, c3, part_1, part_2),
    }


def joined_refused(records, a, project, doc, audit_a, s3, c3, part_1, part_2):
    """Records that parse and verify, yet whose snapshot in parts the replica refuses when it joins
    them (§19.2, §19.4): each case is the file's records up to `tenth`, then `records` in order; the
    last is refused for `reason`."""
    h10 = records[9]["hash"]
    digests = [hashlib.sha256(part_1).hexdigest(), hashlib.sha256(part_2).hexdigest()]
    named = {"op": "snapshot", "snapshot": s3, "document": doc, "origin": "automatic", "title": None, "device": audit_a,
             "created_at": 1780000700, "digest": hashlib.sha256(c3).hexdigest(), "parts": {"base": None, "length": len(c3), "digests": digests}}
    cases = []
    for name, first_parts, second_ops, reason in (
            ("a snapshot naming a part no record in its past wrote", [part_1], [named], "causalityViolation"),
            ("parts that join to another digest", [part_2, part_1], [dict(named, parts=dict(named["parts"], digests=digests[::-1]))],
             "malformedRecord"),
            # The first part alone is the whole content: a reader that stops joining at `length`
            # would keep it and never look at the second (nor see that it is one byte too many).
            ("parts that join to more than its length", [c3, b"!"],
             [dict(named, parts=dict(named["parts"], digests=[hashlib.sha256(c3).hexdigest(), hashlib.sha256(b"!").hexdigest()]))],
             "malformedRecord"),
    ):
        parts_record = {"project": project, "device": a["device_id"], "counter": 8, "lamport": 10, "parents": [h10], "operations": [
            {"op": "snapshot-part", "snapshot": s3, "part": p.hex()} for p in first_parts]}
        raw_1 = sign(bytes.fromhex(a["seed"]), encode_body(parts_record))
        h_1 = hashlib.sha256(raw_1).hexdigest()
        naming = {"project": project, "device": a["device_id"], "counter": 9, "lamport": 11, "parents": [h_1], "operations": second_ops}
        raw_2 = sign(bytes.fromhex(a["seed"]), encode_body(naming))
        case = records[:10] + [{"name": "parts", "record": raw_1.hex(), "hash": h_1, "fields": read(raw_1, {a["device_id"]: bytes.fromhex(a["signing_public_key"])})},
                               {"name": "naming", "record": raw_2.hex(), "hash": hashlib.sha256(raw_2).hexdigest(),
                                "fields": read(raw_2, {a["device_id"]: bytes.fromhex(a["signing_public_key"])})}]
        try:
            join(case)
            raise AssertionError("%r was joined" % name)
        except Refused as refusal:
            assert refusal.code == reason, (name, str(refusal))
        cases.append({"name": name, "records": [raw_1.hex(), raw_2.hex()], "reason": reason})
    return cases


if __name__ == "__main__":
    sys.exit(write_or_check(OUT, build()))
