#!/usr/bin/env python3
"""An independent reader of the writing model (SECURITY.md §14, and §15.2-15.3 for versions), written
from those sections alone; it shares no code with the Swift implementation. Unlocking uses
vault_reader.py (§2-4), opening sealed records sealed_record.py (§4.8) and applying snapshot deltas
snapshot_delta.py (§15.1).

    writing_reader.py --vault DIR --passphrase-file FILE
        lists the vault's writing projects: id, register, kind, name (privileged ones too: the
        passphrase opens every compartment)
    writing_reader.py --vault DIR --passphrase-file FILE --project ID|NAME
        lists the project's folders and documents in reading order: id, kind, indented title
    writing_reader.py --vault DIR --passphrase-file FILE --project ID|NAME --document ID|TITLE
        prints the document as text (§14.7), as 'vaultctl doc show' does
    writing_reader.py ... --project P --document D --snapshots
        lists the document's snapshots, oldest first: id, sequence, form, origin, title (§15.2)
    writing_reader.py ... --project P --document D --snapshot ID|SEQUENCE
        prints that version of the document as text, rebuilt from its keyframe and deltas (own or grouped,
        groups of version 3 or 4)
    writing_reader.py ... --project P --document D --branches
        lists the document's branches, oldest first: id, kind, state, base snapshot id, provenance (§15.3)
    writing_reader.py ... --project P --document D --branch ID
        prints the content the branch proposes as text
    writing_reader.py --check
        decodes every case of testvectors/writing/model.json and re-encodes it, and computes each
        project-name-lookup case's hash (exit 1 on a difference)

Listing projects checks each row's name_lookup (§14.1), when it has one, against the hash of the
name it opens: a hash that is not its name's is damage.

Exit status 65 (with "writing_reader: REASON: message") for a damaged record or row, 66 for a
project or document that is not there, 2 for a wrong passphrase.
Its functions are what testvectors/generate.py uses to write testvectors/writing/.
"""

import argparse
import hashlib
import json
import os
import sys
import unicodedata
import zlib

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import vault_reader as vr  # noqa: E402
import sealed_record as sr  # noqa: E402
import snapshot_delta as sd  # noqa: E402

MODULE = "writing"
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
FIELD_SLOTS = ["personRole", "personIdentification", "personRelationship", "personBackground", "personArc",
               "placeDescription", "documentDate", "documentReference", "documentAuthor"]
ENTRY_SLOTS = {"character": FIELD_SLOTS[:5], "place": ["placeDescription"], "plot-beat": [], "snippet": []}
MAX_NESTING = 32
CHAIN_LIMIT = 1024  # a keyframe and at most 1023 deltas (SECURITY.md §15.2)
NO_BASE = bytes(16)


class Damaged(Exception):
    pass


# --- §14.4 and §14.5: the encodings --------------------------------------------------------------

def valid_kind(name):
    if name in ("paragraph", "list-item", "quote", "table"):
        return True
    if name.startswith("heading-"):
        return name in ["heading-%d" % level for level in range(1, 7)]
    return name.startswith("field-") and name[6:] in FIELD_SLOTS


def u32(value):
    return value.to_bytes(4, "big")


def string(text):
    raw = text.encode("utf-8")
    return u32(len(raw)) + raw


def encode_block(kind, text, rows):
    assert valid_kind(kind)
    out = bytes([1, len(kind)]) + kind.encode("ascii") + string(text) + u32(len(rows))
    for row in rows:
        out += u32(len(row)) + b"".join(string(cell) for cell in row)
    return out


def encode_entry(name, body, fields):
    out = bytes([1]) + string(name) + string(body)
    slots = [slot for slot in FIELD_SLOTS if slot in fields]
    out += u32(len(slots))
    for slot in slots:
        out += bytes([len(slot)]) + slot.encode("ascii") + string(fields[slot])
    return out


class Reader:
    def __init__(self, data):
        self.data, self.offset = data, 0

    def take(self, count):
        if count > len(self.data) - self.offset:
            raise Damaged("a length runs past the end")
        piece = self.data[self.offset:self.offset + count]
        self.offset += count
        return piece

    def u8(self):
        return self.take(1)[0]

    def u32(self):
        return int.from_bytes(self.take(4), "big")

    def string(self):
        raw = self.take(self.u32())
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Damaged("text that is not UTF-8")

    def end(self):
        if self.offset != len(self.data):
            raise Damaged("bytes after the end")


def decode_block(data):
    reader = Reader(data)
    if reader.u8() != 1:
        raise Damaged("unknown block encoding version")
    kind = reader.take(reader.u8()).decode("ascii", "replace")
    if not valid_kind(kind):
        raise Damaged("unknown block kind")
    text = reader.string()
    rows = [[reader.string() for _ in range(reader.u32())] for _ in range(reader.u32())]
    reader.end()
    return {"kind": kind, "text": text, "rows": rows}


def decode_entry(data, kind):
    reader = Reader(data)
    if reader.u8() != 1:
        raise Damaged("unknown entry encoding version")
    name, body = reader.string(), reader.string()
    fields, previous = {}, -1
    for _ in range(reader.u32()):
        slot = reader.take(reader.u8()).decode("ascii", "replace")
        if slot not in ENTRY_SLOTS[kind] or FIELD_SLOTS.index(slot) <= previous:
            raise Damaged("a field slot out of order or not this kind's")
        previous = FIELD_SLOTS.index(slot)
        fields[slot] = reader.string()
    reader.end()
    return {"name": name, "body": body, "fields": fields}


def decode_content(data):
    """§15.2: version:u8 (1) count:u32 (id:16 length:u32 block)*, nothing after the last block."""
    reader = Reader(data)
    if reader.u8() != 1:
        raise Damaged("unknown content version")
    blocks = []
    for _ in range(reader.u32()):
        block_id = reader.take(16)
        block = decode_block(reader.take(reader.u32()))
        block["id"] = block_id
        blocks.append(block)
    reader.end()
    return blocks


def parse_snapshot_record(data):
    """§15.2: version:u8 (2) form:u8 document:16 sequence:u32 base:16 digest:32 size:u32 packed, the
    payload packed with raw DEFLATE; version 1 has the payload itself after the digest."""
    reader = Reader(data)
    version = reader.u8()
    if version not in (1, 2):
        raise Damaged("unknown snapshot record version")
    form = {1: "keyframe", 2: "delta"}.get(reader.u8())
    if form is None:
        raise Damaged("unknown snapshot form")
    record = {"form": form, "document": reader.take(16), "sequence": reader.u32(), "base": reader.take(16),
              "digest": reader.take(32)}
    if record["sequence"] == 0:
        raise Damaged("sequence 0")
    if version == 1:
        record["payload"] = data[reader.offset:]
    else:
        size = reader.u32()
        record["payload"] = unpack(data[reader.offset:], size)
    return record


def parse_snapshot_group(data):
    """§15.2: version:u8 (4) form:u8 (3) document:16 sequence:u32 base:16 count:u32 check:16*count size:u32
    packed, packed the raw DEFLATE of (varint(2*length) compact | varint(2*sequence+1))*count (a delta, or a
    reference to an earlier snapshot's content, returned as the int sequence); or version 3: (id:16 digest:32)*count
    after the count and (length:u32 delta)*count packed. Each member's delta is returned as a version-1
    delta (§15.1); a version-4 member has no id (its check is SHA-256(id || content)[0..16])."""
    reader = Reader(data)
    version = reader.u8()
    if version not in (3, 4):
        raise Damaged("unknown snapshot record version")
    if reader.u8() != 3:
        raise Damaged("unknown snapshot form")
    group = {"version": version, "document": reader.take(16), "sequence": reader.u32(), "base": reader.take(16)}
    count = reader.u32()
    if group["sequence"] == 0:
        raise Damaged("sequence 0")
    size_each = 48 if version == 3 else 16
    if count == 0 or count * size_each > len(data) - reader.offset:
        raise Damaged("a member count past the end")
    if version == 3:
        members = [{"id": reader.take(16), "digest": reader.take(32)} for _ in range(count)]
    else:
        members = [{"id": None, "check": reader.take(16)} for _ in range(count)]
    size = reader.u32()
    unpacked = unpack(data[reader.offset:], size)
    if version == 3:
        deltas = Reader(unpacked)
        for member in members:
            member["delta"] = deltas.take(deltas.u32())
        deltas.end()
    else:
        at = 0
        for index, member in enumerate(members):
            head, at = varint(unpacked, at)
            if head & 1:
                # A reference: the member's content is snapshot head >> 1's, an earlier one.
                member["delta"] = head >> 1
                if member["delta"] == 0 or member["delta"] >= group["sequence"] + index:
                    raise Damaged("a reference to a snapshot not before the member")
                continue
            length = head >> 1
            if length > len(unpacked) - at:
                raise Damaged("a delta runs past the end")
            member["delta"] = compact_to_delta(unpacked[at:at + length])
            at += length
        if at != len(unpacked):
            raise Damaged("bytes after the last delta")
    group["members"] = members
    return group


def varint(data, at):
    """§15.1: an unsigned LEB128 number of 1 to 5 bytes, in its shortest form, under 2^32."""
    value = 0
    for index in range(5):
        if at >= len(data):
            raise Damaged("a number runs past the end")
        byte = data[at]
        at += 1
        value |= (byte & 0x7F) << (7 * index)
        if byte < 0x80:
            if (byte == 0 and index > 0) or value >= 1 << 32:
                raise Damaged("a number not in its shortest form or past 2^32")
            return value, at
    raise Damaged("a number longer than 5 bytes")


def compact_to_delta(data):
    """§15.1 compact form -> the same ops as a version-1 delta (whose parser checks the canonical rules):
    an odd head 2*length+1 is an insert of length bytes, an even head 2*zigzag(offset - cursor) a copy
    from offset, its length next, cursor the end of the last copy."""
    out, at, cursor = bytearray(b"\x01"), 0, 0
    while at < len(data):
        head, at = varint(data, at)
        if head & 1:
            length = head >> 1
            if length > len(data) - at:
                raise Damaged("an insert runs past the end")
            out += sd.insert(data[at:at + length])
            at += length
        else:
            zigzag = head >> 1
            offset = cursor + (zigzag >> 1 if zigzag % 2 == 0 else -((zigzag + 1) >> 1))
            length, at = varint(data, at)
            if offset < 0:
                raise Damaged("a copy before the start of the base")
            out += sd.copy(offset, length)
            cursor = offset + length
    try:
        sd.parse(bytes(out))
    except sd.Damaged as error:
        raise Damaged("a compact delta: %s" % error)
    return bytes(out)


def unpack(packed, size):
    """The size bytes a raw DEFLATE stream (RFC 1951) gives: no more, no fewer, no input left over."""
    if size > sd.MAX_DOCUMENT:
        raise Damaged("a packed payload past the document bound")
    inflater = zlib.decompressobj(-15)
    try:
        payload = inflater.decompress(packed, size + 1)
    except zlib.error:
        raise Damaged("a packed payload that is not DEFLATE")
    if len(payload) != size or not inflater.eof or inflater.unused_data or inflater.unconsumed_tail:
        raise Damaged("a packed payload that is not exactly its size")
    return payload


def parse_branch_record(data):
    """§15.3: version:u8 (1) document:16 base:16 content, or version:u8 (2) document:16 base:16
    block:16 delta (a sync conflict's branch of one block: the proposal is the §15.1 delta applied
    to the base's content, and changes that block only; see one_block_proposal)."""
    reader = Reader(data)
    version = reader.u8()
    if version not in (1, 2):
        raise Damaged("unknown branch record version")
    document, base = reader.take(16), reader.take(16)
    if version == 2:
        return {"document": document, "base": base, "block": reader.take(16), "delta": data[reader.offset:]}
    return {"document": document, "base": base, "blocks": decode_content(data[reader.offset:])}


def one_block_proposal(record, base_content):
    """A version-2 branch's proposal: its delta applied to the base's content bytes. Without its
    block, the proposal must be the base's blocks in the base's order; anything else is damage."""
    try:
        blocks = decode_content(sd.apply(record["delta"], base_content))
    except (sd.Damaged, ValueError) as error:
        raise Damaged("a branch's delta: %s" % error)
    others = lambda content: [b for b in content if b["id"] != record["block"]]
    if others(blocks) != others(decode_content(base_content)):
        raise Damaged("a branch's proposal changes more than its block")
    return blocks


def valid_order_key(key):
    """head (one digit h) || h integer digits || fraction (empty or not ending in 0; not empty when h is 0)."""
    if not 1 <= len(key) <= 255 or not all(c in DIGITS for c in key):
        return False
    head = DIGITS.index(key[0])
    fraction = key[head + 1:]
    return len(key) > head and not fraction.endswith("0") and (head > 0 or fraction != "")


# --- §14.7: the text form --------------------------------------------------------------------------

def needs_escape(line):
    """Whether a paragraph's (or a field's later) line would read as another kind (§14.7)."""
    if line.strip(" \t") == "" or line.startswith(("\\", "- ", "> ", "|")) or line == ">":
        return True
    hashes = len(line) - len(line.lstrip("#"))
    if 1 <= hashes <= 6 and line[hashes:hashes + 1] == " ":
        return True
    return any(line == slot + ":" or line.startswith(slot + ": ") for slot in FIELD_SLOTS)


def escaped(line):
    return "\\" + line if needs_escape(line) else line


def table_row(cells):
    def cell(text):
        return text.replace("\\", "\\\\").replace("|", "\\|").replace("\n", "\\n")
    return "|" + "".join(" " + cell(text) + " |" for text in cells)


def render(blocks):
    out, previous = [], None
    for block in blocks:
        kind, text = block["kind"], block["text"]
        if previous is not None:
            adjacent = (previous == kind == "list-item") or (previous.startswith("field-") and kind.startswith("field-"))
            out.append("\n" if adjacent else "\n\n")
        lines = text.split("\n")
        if kind == "paragraph":
            out.append("\n".join(escaped(line) for line in lines))
        elif kind.startswith("heading-") or kind == "list-item":
            lead = "#" * int(kind[8:]) + " " if kind.startswith("heading-") else "- "
            out.append(lead + "\n".join([lines[0]] + ["\\" + line for line in lines[1:]]))
        elif kind == "quote":
            out.append("\n".join("> " + line if line else ">" for line in lines))
        elif kind == "table":
            out.append("\n".join(table_row(row) for row in block["rows"]) if block["rows"] else "|")
        else:
            first = " " + lines[0] if lines[0] else ""
            out.append("\n".join([kind[6:] + ":" + first] + [escaped(line) for line in lines[1:]]))
        previous = kind
    return "".join(out) + "\n" if out else ""


# --- §14.1: a project's name lookup ------------------------------------------------------------

NAME_LOOKUP_INFO = b"vaultctl name lookup v1\x00writing project name"


def name_lookup(master_key, vault_id, project_id, name):
    """name_lookup = HMAC-SHA-256(HKDF(MK, vault_id, "vaultctl name lookup v1" || 0x00 || domain, 32),
    project id || NFC name)[0..16]."""
    key = vr.hkdf_sha256(master_key, vault_id, NAME_LOOKUP_INFO, 32)
    return vr.hmac_sha256(key, project_id + unicodedata.normalize("NFC", name).encode("utf-8"))[:16]


# --- §14.2 and §14.3: reading a vault --------------------------------------------------------------

class WritingVault:
    def __init__(self, directory, passphrase):
        self.vault = vr.Vault(directory)
        self.master_key, _ = self.vault.unlock_passphrase(passphrase)
        self.compartments = {bytes.fromhex(c["id"]): c for c in self.vault.compartments(self.master_key)}
        self.db = self.vault.db

    def open(self, compartment_uuid, table, record_id, field):
        row = self.db.execute("SELECT r.sealed, c.uuid FROM sealed_records r JOIN compartments c ON c.id = r.compartment_id "
                              "WHERE r.module = ? AND r.table_name = ? AND r.record_id = ? AND r.field = ?",
                              (MODULE, table, record_id, field)).fetchone()
        if row is None or bytes(row[1]) != compartment_uuid:
            raise Damaged("no sealed record %s/%s/%s in the project's compartment" % (table, record_id.hex(), field))
        salts = self.compartments[compartment_uuid]["_salts"]

        def key_for_version(version):
            if salts.get(version) is None:
                return None
            return sr.record_key(vr.compartment_key(self.master_key, self.vault.vault_id, compartment_uuid, version, salts[version]))

        try:
            return sr.open_record(bytes(row[0]), key_for_version, self.vault.vault_id, compartment_uuid, MODULE, table,
                                  record_id, field)
        except sr.Refused as refusal:
            raise Damaged("%s: %s" % (refusal.reason, refusal))

    def text(self, compartment_uuid, table, record_id, field):
        try:
            return self.open(compartment_uuid, table, record_id, field).decode("utf-8")
        except UnicodeDecodeError:
            raise Damaged("a sealed name or title is not UTF-8")

    def projects(self):
        columns = {row[1] for row in self.db.execute("PRAGMA table_info(writing_projects)")}
        lookup = "name_lookup" if "name_lookup" in columns else "NULL"  # the column since migration model-2
        result = []
        for pid, uuid, register, kind, archived, stored in self.db.execute(
                "SELECT id, compartment_uuid, register, kind, archived_at, %s FROM writing_projects ORDER BY created_at, rowid" % lookup):
            uuid, pid = bytes(uuid), bytes(pid)
            if uuid not in self.compartments:
                raise Damaged("project %s's compartment is not a live compartment" % pid.hex())
            name = self.text(uuid, "writing_projects", pid, "name")
            if stored is not None and bytes(stored) != name_lookup(self.master_key, self.vault.vault_id, pid, name):
                raise Damaged("project %s's name_lookup is not its name's" % pid.hex())
            result.append({"id": pid.hex(), "register": register, "kind": kind, "archived": archived is not None,
                           "privileged": self.compartments[uuid]["privileged"], "compartment": uuid, "name": name,
                           "name_lookup": None if stored is None else bytes(stored)})
        return result

    def project(self, text):
        matches = [p for p in self.projects() if p["id"] == text.lower() or p["name"] == text]
        if len(matches) != 1:
            raise LookupError("%d projects match %r" % (len(matches), text))
        return matches[0]

    def binder(self, project):
        """The nodes in reading order: depth first, siblings by (order key, id)."""
        rows = self.db.execute("SELECT id, parent_id, kind, order_key FROM writing_nodes WHERE project_id = ?",
                               (bytes.fromhex(project["id"]),)).fetchall()
        nodes = {bytes(r[0]): {"id": bytes(r[0]), "parent": None if r[1] is None else bytes(r[1]), "kind": r[2], "order_key": r[3]}
                 for r in rows}
        children = {}
        for node in nodes.values():
            if node["kind"] not in ("chapter", "scene") or not valid_order_key(node["order_key"]):
                raise Damaged("a writing_nodes row has an unknown kind or a malformed order key")
            if node["parent"] is not None and nodes.get(node["parent"], {}).get("kind") != "chapter":
                raise Damaged("a node's parent is not a folder of its project")
            children.setdefault(node["parent"], []).append(node)
        ordered = []

        def visit(parent, depth):
            if depth > MAX_NESTING:
                return
            for child in sorted(children.get(parent, []), key=lambda n: (n["order_key"].encode(), n["id"].hex())):
                child["depth"] = depth
                ordered.append(child)
                visit(child["id"], depth + 1)

        visit(None, 1)
        if len(ordered) != len(nodes):
            raise Damaged("the binder's parent links make a loop or nest too deep")
        for node in ordered:
            node["title"] = self.text(project["compartment"], "writing_nodes", node["id"], "title")
        return ordered

    def document(self, project, text):
        blocks = []
        for block_id, kind in self.db.execute("SELECT id, kind FROM writing_blocks WHERE node_id = ? ORDER BY position",
                                              (self.document_node(project, text)["id"],)):
            block = decode_block(self.open(project["compartment"], "writing_blocks", bytes(block_id), "block"))
            if block["kind"] != kind:
                raise Damaged("a block's clear kind is not the kind sealed in it")
            blocks.append(block)
        return blocks


    def document_node(self, project, text):
        matches = [n for n in self.binder(project) if n["kind"] == "scene" and (n["id"].hex() == text.lower() or n["title"] == text)]
        if len(matches) != 1:
            raise LookupError("%d documents match %r" % (len(matches), text))
        return matches[0]

    def parts(self, project, table, row_id, count):
        """A sealed value split into fields part-0 … part-(count-1), joined (§15.2, §15.3)."""
        return b"".join(self.open(project["compartment"], table, row_id, "part-%d" % index) for index in range(count))

    # --- §15.2: snapshots

    def snapshots(self, project, node):
        rows = self.db.execute("SELECT id, sequence, form, origin, parts, created_at FROM writing_snapshots "
                               "WHERE node_id = ? AND project_id = ? ORDER BY sequence",
                               (node["id"], bytes.fromhex(project["id"]))).fetchall()
        result = []
        for row_id, sequence, form, origin, parts, created in rows:
            title = self.text(project["compartment"], "writing_snapshots", bytes(row_id), "title") if origin == "titled" else None
            result.append({"id": bytes(row_id), "sequence": sequence, "form": form, "origin": origin, "parts": parts,
                           "created_at": created, "title": title})
        return result

    def snapshot_content(self, project, node, text):
        """The version's blocks (see snapshot_bytes)."""
        chain = self.snapshots(project, node)
        wanted = [s for s in chain if s["id"].hex() == text.lower() or str(s["sequence"]) == text]
        if len(wanted) != 1:
            raise LookupError("%d snapshots of the document match %r" % (len(wanted), text))
        return decode_content(self.snapshot_bytes(project, node, chain, wanted[0]))

    def snapshot_bytes(self, project, node, chain, target):
        """The version's content bytes: the last keyframe at or before it, then each delta in order, every
        record checked against its row and its predecessor, each result against its sealed digest or
        check. A version-4 member that references an earlier snapshot takes the content of that one,
        which must be in the same chain (passed on the way); any other reference is damage."""
        upto = [s for s in chain if s["sequence"] <= target["sequence"]]
        keyframes = [index for index, s in enumerate(upto) if s["form"] == "keyframe"]
        if not keyframes:
            raise Damaged("no keyframe before the snapshot")
        links = upto[keyframes[-1]:]
        if len(links) > CHAIN_LIMIT or any(b["sequence"] != a["sequence"] + 1 for a, b in zip(links, links[1:])):
            raise Damaged("the snapshot's chain has no keyframe within %d or a gap" % CHAIN_LIMIT)
        first = links[0]["sequence"]
        previous = [s for s in chain if s["sequence"] == first - 1]
        base = NO_BASE if first == 1 else (previous[0]["id"] if previous else NO_BASE)
        content, group, passed = b"", None, {}
        for link in links:
            if link["form"] in ("keyframe", "delta"):
                group = None
                record = parse_snapshot_record(self.parts(project, "writing_snapshots", link["id"], link["parts"]))
                if (record["document"], record["sequence"], record["form"], record["base"]) != (node["id"], link["sequence"], link["form"], base):
                    raise Damaged("snapshot %s's sealed value is not the one its row names" % link["id"].hex())
                payload, digest, is_delta = record["payload"], record["digest"], record["form"] == "delta"
            elif link["form"] in ("group", "grouped"):
                # A group's first member's row holds the deltas of it and the grouped rows after it.
                if link["form"] == "group":
                    group = parse_snapshot_group(self.parts(project, "writing_snapshots", link["id"], link["parts"]))
                    if (group["document"], group["sequence"], group["base"]) != (node["id"], link["sequence"], base):
                        raise Damaged("snapshot %s's sealed group is not the one its row names" % link["id"].hex())
                index = link["sequence"] - group["sequence"] if group else -1
                if group is None or index >= len(group["members"]) or group["members"][index]["id"] not in (None, link["id"]):
                    raise Damaged("snapshot %s is not the member of its group its row names" % link["id"].hex())
                member = group["members"][index]
                # Version 4 binds the row's id into the member's check instead of storing it.
                payload, is_delta = member["delta"], True
                digest = member["digest"] if group["version"] == 3 else ("check", link["id"], member["check"])
            else:
                raise Damaged("an unknown snapshot form")
            if is_delta and isinstance(payload, int):
                if payload not in passed:
                    raise Damaged("snapshot %s references snapshot %d, outside its chain" % (link["id"].hex(), payload))
                content = passed[payload]
            elif is_delta:
                try:
                    content = sd.apply(payload, content)
                except (sd.Damaged, ValueError) as error:
                    raise Damaged("snapshot %s's delta: %s" % (link["id"].hex(), error))
            else:
                content = payload
            holds = (hashlib.sha256(digest[1] + content).digest()[:16] == digest[2] if isinstance(digest, tuple)
                     else hashlib.sha256(content).digest() == digest)
            if not holds:
                raise Damaged("snapshot %s's content is not the version it sealed" % link["id"].hex())
            base = link["id"]
            passed[link["sequence"]] = content
        return content

    # --- §15.3: branches

    def branches(self, project, node):
        rows = self.db.execute("SELECT id, base_snapshot_id, kind, state, parts FROM writing_branches "
                               "WHERE node_id = ? AND project_id = ? ORDER BY created_at, rowid",
                               (node["id"], bytes.fromhex(project["id"]))).fetchall()
        return [{"id": bytes(r[0]), "base": bytes(r[1]), "kind": r[2], "state": r[3], "parts": r[4],
                 "provenance": self.text(project["compartment"], "writing_branches", bytes(r[0]), "provenance")} for r in rows]

    def branch_content(self, project, node, text):
        matches = [b for b in self.branches(project, node) if b["id"].hex() == text.lower()]
        if len(matches) != 1:
            raise LookupError("%d branches of the document match %r" % (len(matches), text))
        branch = matches[0]
        record = parse_branch_record(self.parts(project, "writing_branches", branch["id"], branch["parts"]))
        if record["document"] != node["id"] or record["base"] != branch["base"]:
            raise Damaged("branch %s's sealed value is not the one its row names" % branch["id"].hex())
        if "delta" in record:
            chain = self.snapshots(project, node)
            base = [link for link in chain if link["id"] == branch["base"]]
            if len(base) != 1:
                raise Damaged("branch %s's base is not a snapshot of its document" % branch["id"].hex())
            return one_block_proposal(record, self.snapshot_bytes(project, node, chain, base[0]))
        return record["blocks"]


# --- the known-answer file -------------------------------------------------------------------------

def check_vectors(path):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    failures, count = [], 0
    for case in document["cases"]:
        count += 1
        encoded = bytes.fromhex(case["encoded"])
        if case["type"] == "block":
            if encode_block(case["kind"], case["text"], case["rows"]) != encoded:
                failures.append("%s: encoding differs" % case["name"])
            if decode_block(encoded) != {"kind": case["kind"], "text": case["text"], "rows": case["rows"]}:
                failures.append("%s: decoding differs" % case["name"])
        elif case["type"] == "entry":
            if encode_entry(case["entry_name"], case["body"], case["fields"]) != encoded:
                failures.append("%s: encoding differs" % case["name"])
        elif case["type"] == "project-name-lookup":
            if name_lookup(bytes.fromhex(case["master_key"]), bytes.fromhex(case["vault_id"]), bytes.fromhex(case["project_id"]),
                           case["project_name"]) != encoded:
                failures.append("%s: lookup hash differs" % case["name"])
        elif case["type"] == "reject-block":
            try:
                decode_block(encoded)
                failures.append("%s: decoded" % case["name"])
            except Damaged:
                pass
    for failure in failures:
        print("writing_reader: FAILED %s" % failure, file=sys.stderr)
    print("writing_reader: %s: %d cases" % (os.path.relpath(path, os.path.join(HERE, "..")), count))
    return 1 if failures else 0


def print_versions(vault, project, node, options):
    if options.snapshots:
        for snapshot in vault.snapshots(project, node):
            title = "  " + snapshot["title"] if snapshot["title"] is not None else ""
            print("%s  %d  %-8s %s%s" % (snapshot["id"].hex(), snapshot["sequence"], snapshot["form"], snapshot["origin"], title))
    elif options.snapshot:
        sys.stdout.write(render(vault.snapshot_content(project, node, options.snapshot)))
    elif options.branches:
        for branch in vault.branches(project, node):
            print("%s  %s  %s  %s  %s" % (branch["id"].hex(), branch["kind"], branch["state"], branch["base"].hex(), branch["provenance"]))
    else:
        sys.stdout.write(render(vault.branch_content(project, node, options.branch)))
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--vault")
    parser.add_argument("--passphrase-file")
    parser.add_argument("--project")
    parser.add_argument("--document")
    parser.add_argument("--snapshots", action="store_true")
    parser.add_argument("--snapshot")
    parser.add_argument("--branches", action="store_true")
    parser.add_argument("--branch")
    options = parser.parse_args(argv)
    versions = options.snapshots or options.snapshot or options.branches or options.branch
    if options.check:
        return check_vectors(os.path.join(HERE, "..", "writing", "model.json"))
    if not (options.vault and options.passphrase_file) or (options.document and not options.project) \
            or (versions and not options.document):
        parser.print_usage(sys.stderr)
        return 64
    try:
        vault = WritingVault(options.vault, vr.read_passphrase_file(options.passphrase_file))
        if not options.project:
            for p in vault.projects():
                flags = "".join([" privileged" if p["privileged"] else "", " archived" if p["archived"] else ""])
                print("%s  %s  %s  %s%s" % (p["id"], p["register"], p["kind"], p["name"], flags))
            return 0
        project = vault.project(options.project)
        if not options.document:
            for node in vault.binder(project):
                print("%s  %-7s %s%s" % (node["id"].hex(), node["kind"], "  " * (node["depth"] - 1), node["title"]))
            return 0
        if versions:
            return print_versions(vault, project, vault.document_node(project, options.document), options)
        sys.stdout.write(render(vault.document(project, options.document)))
        return 0
    except vr.AuthenticationError as error:
        print("writing_reader: authentication failed: %s" % error, file=sys.stderr)
        return 2
    except (Damaged, vr.FormatError) as error:
        print("writing_reader: damaged: %s" % error, file=sys.stderr)
        return 65
    except LookupError as error:
        print("writing_reader: not found: %s" % error, file=sys.stderr)
        return 66


if __name__ == "__main__":
    sys.exit(main())
