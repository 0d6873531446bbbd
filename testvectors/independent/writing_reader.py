#!/usr/bin/env python3
"""An independent reader of the writing model (SECURITY.md §14), written from that section alone; it
shares no code with the Swift implementation. Unlocking uses vault_reader.py (§2-4) and opening
sealed records sealed_record.py (§4.8).

    writing_reader.py --vault DIR --passphrase-file FILE
        lists the vault's writing projects: id, register, kind, name (privileged ones too: the
        passphrase opens every compartment)
    writing_reader.py --vault DIR --passphrase-file FILE --project ID|NAME
        lists the project's folders and documents in reading order: id, kind, indented title
    writing_reader.py --vault DIR --passphrase-file FILE --project ID|NAME --document ID|TITLE
        prints the document as text (§14.7), as 'vaultctl doc show' does
    writing_reader.py --check
        decodes every case of testvectors/writing/model.json and re-encodes it (exit 1 on a difference)

Exit status 65 (with "writing_reader: REASON: message") for a damaged record or row, 66 for a
project or document that is not there, 2 for a wrong passphrase.
Its functions are what testvectors/generate.py uses to write testvectors/writing/.
"""

import argparse
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import vault_reader as vr  # noqa: E402
import sealed_record as sr  # noqa: E402

MODULE = "writing"
DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"
FIELD_SLOTS = ["personRole", "personIdentification", "personRelationship", "personBackground", "personArc",
               "placeDescription", "documentDate", "documentReference", "documentAuthor"]
ENTRY_SLOTS = {"character": FIELD_SLOTS[:5], "place": ["placeDescription"], "plot-beat": [], "snippet": []}
MAX_NESTING = 32


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


def valid_order_key(key):
    """head (one digit h) || h integer digits || fraction (empty or not ending in 0; not empty when h is 0)."""
    if not 1 <= len(key) <= 256 or not all(c in DIGITS for c in key):
        return False
    head = DIGITS.index(key[0])
    fraction = key[head + 1:]
    return len(key) > head and not fraction.endswith("0") and (head > 0 or fraction != "")


# --- §14.7: the text form --------------------------------------------------------------------------

def render(blocks):
    out, previous = [], None
    for block in blocks:
        if previous is not None:
            out.append("\n" if previous == "list-item" and block["kind"] == "list-item" else "\n\n")
        kind, text = block["kind"], block["text"]
        if kind == "paragraph":
            out.append(text)
        elif kind.startswith("heading-"):
            out.append("#" * int(kind[8:]) + " " + text)
        elif kind == "list-item":
            out.append("- " + text)
        elif kind == "quote":
            out.append("\n".join("> " + line for line in text.split("\n")))
        elif kind == "table":
            out.append("\n".join("| " + " | ".join(row) + " |" for row in block["rows"]))
        else:
            out.append(kind[6:] + ": " + text)
        previous = kind
    return "".join(out) + "\n" if out else ""


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
        result = []
        for pid, uuid, register, kind, archived in self.db.execute(
                "SELECT id, compartment_uuid, register, kind, archived_at FROM writing_projects ORDER BY created_at, rowid"):
            uuid = bytes(uuid)
            if uuid not in self.compartments:
                raise Damaged("project %s's compartment is not a live compartment" % bytes(pid).hex())
            result.append({"id": bytes(pid).hex(), "register": register, "kind": kind, "archived": archived is not None,
                           "privileged": self.compartments[uuid]["privileged"], "compartment": uuid,
                           "name": self.text(uuid, "writing_projects", bytes(pid), "name")})
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
        matches = [n for n in self.binder(project) if n["kind"] == "scene" and (n["id"].hex() == text.lower() or n["title"] == text)]
        if len(matches) != 1:
            raise LookupError("%d documents match %r" % (len(matches), text))
        blocks = []
        for block_id, kind in self.db.execute("SELECT id, kind FROM writing_blocks WHERE node_id = ? ORDER BY position",
                                              (matches[0]["id"],)):
            block = decode_block(self.open(project["compartment"], "writing_blocks", bytes(block_id), "block"))
            if block["kind"] != kind:
                raise Damaged("a block's clear kind is not the kind sealed in it")
            blocks.append(block)
        return blocks


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


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--vault")
    parser.add_argument("--passphrase-file")
    parser.add_argument("--project")
    parser.add_argument("--document")
    options = parser.parse_args(argv)
    if options.check:
        return check_vectors(os.path.join(HERE, "..", "writing", "model.json"))
    if not (options.vault and options.passphrase_file) or (options.document and not options.project):
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
