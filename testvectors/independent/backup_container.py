#!/usr/bin/env python3
"""An independent reader (and, for the known-answer file, writer) of the vaultctl backup container,
written from SECURITY.md §13.2 alone: the container's structure and digests, the public record's
exact schema, the backup key and the sealed database. It shares no code with the Swift
implementation; the primitives are vault_reader.py's (HKDF, XChaCha20-Poly1305, the keyslot KEKs)
and PyNaCl's (X25519, ChaCha20-Poly1305).

    /usr/bin/python3 testvectors/independent/backup_container.py FILE
        checks the container and the public record without any key; prints JSON
    /usr/bin/python3 testvectors/independent/backup_container.py FILE --passphrase-file PATH
        also unwraps the master key from the public record's keyslots, opens the backup key and
        the sealed database, and checks that the database is an SQLite vault of the same vault id

Exit 0 when every check holds, 1 with "refused: REASON: message" on stderr otherwise.
"""

import hashlib
import json
import os
import sqlite3
import sys
import tempfile

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vault_reader as vr  # noqa: E402

MAGIC = b"vaultctl-backup\n"
HEADER_SIZE = 48
RECORD_HEADER_SIZE = 25
DIGEST_SIZE = 32
MAX_RECORDS = 10_000_000
MAX_DATABASE = 64 << 30
MAX_BUNDLE = 1 << 50
KIND_DATABASE, KIND_BUNDLE, KIND_PUBLIC, KIND_SEALED = 1, 2, 3, 4
CHUNK = 65536
TAG = 16
SEALED_CHUNK = CHUNK + TAG
BACKUP_KEY_INFO = b"vaultctl backup key v1"
FILE_KEY_INFO = b"vaultctl backup database v2"

PUBLIC_SCHEMA = {
    "backup_meta": "CREATE TABLE backup_meta (key TEXT PRIMARY KEY NOT NULL, value BLOB NOT NULL) STRICT",
    "keyslots": "CREATE TABLE keyslots (id INTEGER PRIMARY KEY, uuid BLOB NOT NULL, kind TEXT NOT NULL, kdf TEXT NOT NULL, "
                "salt BLOB NOT NULL, nonce BLOB NOT NULL, wrapped_key BLOB NOT NULL, threshold INTEGER, share_count INTEGER, "
                "created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL) STRICT",
    "audit_entries": "CREATE TABLE audit_entries (seq INTEGER PRIMARY KEY, entry BLOB NOT NULL, leaf_hash BLOB NOT NULL) STRICT",
    "audit_signing_keys": "CREATE TABLE audit_signing_keys (epoch INTEGER PRIMARY KEY, public_key BLOB NOT NULL, "
                          "introduction TEXT, created_at INTEGER NOT NULL) STRICT",
    "audit_checkpoints": "CREATE TABLE audit_checkpoints (id INTEGER PRIMARY KEY, tree_size INTEGER NOT NULL, "
                         "epoch INTEGER NOT NULL, note TEXT NOT NULL, created_at INTEGER NOT NULL) STRICT",
    "audit_cosignatures": "CREATE TABLE audit_cosignatures (id INTEGER PRIMARY KEY, witness_device_id BLOB NOT NULL, "
                          "witness_public_key BLOB NOT NULL, epoch INTEGER NOT NULL, tree_size INTEGER NOT NULL, "
                          "cosigned_note TEXT NOT NULL, cosigned_at INTEGER NOT NULL) STRICT",
}


class Refused(Exception):
    def __init__(self, reason, message):
        super().__init__("%s: %s" % (reason, message))
        self.reason = reason


def u(data):
    return int.from_bytes(data, "big")


def be(value, width):
    return value.to_bytes(width, "big")


# ---------------------------------------------------------------------------------------------
# The container (§13.2)
# ---------------------------------------------------------------------------------------------


def encode(version, vault_id, created_at, records):
    """records: [(kind, id (16 bytes), data)]. Digests and the trailer are computed here."""
    out = MAGIC + be(version, 4) + vault_id + be(created_at, 8) + be(len(records), 4)
    for kind, record_id, data in records:
        out += bytes([kind]) + record_id + be(len(data), 8) + data + hashlib.sha256(data).digest()
    return out + hashlib.sha256(out).digest()


def parse(data):
    """Checks the container in the order §13.2 gives; returns its header fields and records."""
    if len(data) < HEADER_SIZE:
        raise Refused("truncated", "the file ends inside the header")
    if data[:16] != MAGIC:
        raise Refused("magic", "no backup magic")
    version = u(data[16:20])
    if version not in (1, 2):
        raise Refused("version", "format version %d" % version)
    leading = [KIND_DATABASE] if version == 1 else [KIND_PUBLIC, KIND_SEALED]
    count = u(data[44:48])
    if not len(leading) <= count <= MAX_RECORDS:
        raise Refused("count", "%d records" % count)
    offset, records, previous = HEADER_SIZE, [], None
    for index in range(count):
        if len(data) - offset < RECORD_HEADER_SIZE:
            raise Refused("truncated", "the file ends inside the header of record %d" % index)
        kind, record_id, length = data[offset], data[offset + 1:offset + 17], u(data[offset + 17:offset + 25])
        if kind not in (KIND_DATABASE, KIND_BUNDLE, KIND_PUBLIC, KIND_SEALED):
            raise Refused("kind", "record %d has kind %d" % (index, kind))
        if index < len(leading):
            if kind != leading[index] or record_id != bytes(16):
                raise Refused("place", "record %d must have kind %d and a zero id" % (index, leading[index]))
            if length > MAX_DATABASE:
                raise Refused("cap", "record %d claims %d bytes" % (index, length))
        else:
            if kind != KIND_BUNDLE:
                raise Refused("place", "record %d of kind %d after the leading records" % (index, kind))
            if previous is not None and not previous < record_id:
                raise Refused("order", "record %d is out of order or repeated" % index)
            if length > MAX_BUNDLE:
                raise Refused("cap", "record %d claims %d bytes" % (index, length))
            previous = record_id
        offset += RECORD_HEADER_SIZE
        if length + 2 * DIGEST_SIZE > len(data) - offset:
            raise Refused("truncated", "record %d claims %d bytes but the file ends sooner" % (index, length))
        body = data[offset:offset + length]
        if data[offset + length:offset + length + DIGEST_SIZE] != hashlib.sha256(body).digest():
            raise Refused("digest", "record %d does not match its SHA-256" % index)
        records.append((kind, record_id, body))
        offset += length + DIGEST_SIZE
    if len(data) - offset < DIGEST_SIZE:
        raise Refused("truncated", "the file ends inside the trailer")
    if data[offset:offset + DIGEST_SIZE] != hashlib.sha256(data[:offset]).digest():
        raise Refused("trailer", "the trailer does not match the file")
    if offset + DIGEST_SIZE != len(data):
        raise Refused("trailing", "%d bytes follow the trailer" % (len(data) - offset - DIGEST_SIZE))
    return {"version": version, "vault_id": data[20:36], "created_at": u(data[36:44]), "records": records}


# ---------------------------------------------------------------------------------------------
# The backup key and the sealed database (§13.2)
# ---------------------------------------------------------------------------------------------


def x25519_public(private):
    return vr._nacl().crypto_scalarmult_base(private)


def backup_sealing_key(master_key, vault_id):
    return vr.hkdf_sha256(master_key, vault_id, BACKUP_KEY_INFO, 32)


def seal_backup_key(private, master_key, vault_id, nonce):
    public = x25519_public(private)
    return nonce + vr.xchacha_encrypt(backup_sealing_key(master_key, vault_id), nonce, private, BACKUP_KEY_INFO + vault_id + public)


def open_backup_key(sealed, public, master_key, vault_id):
    if len(sealed) != 72 or len(public) != 32:
        raise Refused("backup-key", "the backup key is not 72 bytes")
    private = vr.xchacha_decrypt(backup_sealing_key(master_key, vault_id), sealed[:24], sealed[24:], BACKUP_KEY_INFO + vault_id + public)
    if private is None:
        raise Refused("backup-key", "the backup key does not open under this master key")
    if x25519_public(private) != public:
        raise Refused("backup-key", "the backup key does not match its public key")
    return private


def file_key(ephemeral_private_or_shared, ephemeral_public, recipient_public, vault_id, shared=None):
    if shared is None:
        shared = vr._nacl().crypto_scalarmult(ephemeral_private_or_shared, recipient_public)
    return vr.hkdf_sha256(shared, ephemeral_public + recipient_public, FILE_KEY_INFO + vault_id, 32)


def stream_nonce(index, last):
    return bytes(3) + be(index, 8) + bytes([1 if last else 0])


def seal_database(plaintext, recipient_public, ephemeral_private, vault_id):
    ephemeral_public = x25519_public(ephemeral_private)
    key = file_key(ephemeral_private, ephemeral_public, recipient_public, vault_id)
    n = max(1, -(-len(plaintext) // CHUNK))
    out = ephemeral_public
    for i in range(n):
        out += vr._nacl().crypto_aead_chacha20poly1305_ietf_encrypt(plaintext[i * CHUNK:(i + 1) * CHUNK], b"",
                                                                      stream_nonce(i, i == n - 1), key)
    return out


def chunk_count(length):
    """n for a sealed database of `length` bytes, or None when no plaintext length gives it."""
    if length < 32 + TAG:
        return None
    body = length - 32
    n = -(-body // SEALED_CHUNK)
    last = body - (n - 1) * SEALED_CHUNK
    if last <= TAG and n > 1:
        return None
    return n


def open_database(data, private, vault_id):
    n = chunk_count(len(data))
    if n is None:
        raise Refused("sealed-length", "the sealed database's length fits no plaintext length")
    ephemeral_public, public = data[:32], x25519_public(private)
    shared = vr._nacl().crypto_scalarmult(private, ephemeral_public)
    key = file_key(None, ephemeral_public, public, vault_id, shared=shared)
    out = b""
    for i in range(n):
        chunk = data[32 + i * SEALED_CHUNK:32 + (i + 1) * SEALED_CHUNK]
        try:
            out += vr._nacl().crypto_aead_chacha20poly1305_ietf_decrypt(chunk, b"", stream_nonce(i, i == n - 1), key)
        except Exception:
            raise Refused("chunk", "chunk %d does not open" % i)
    return out


# ---------------------------------------------------------------------------------------------
# The public record (§13.2) and the whole check (§13.3)
# ---------------------------------------------------------------------------------------------


def open_sqlite(data, directory, name):
    path = os.path.join(directory, name)
    with open(path, "wb") as handle:
        handle.write(data)
    return sqlite3.connect("file:%s?mode=ro" % path, uri=True)


def check_public_record(db, vault_id):
    db.execute("PRAGMA trusted_schema = OFF")
    found = set()
    for kind, name, sql in db.execute("SELECT type, name, sql FROM sqlite_master"):
        if kind == "index" and name.startswith("sqlite_autoindex_") and sql is None:
            continue
        if kind != "table" or PUBLIC_SCHEMA.get(name) != sql:
            raise Refused("schema", "the public record holds %s %s" % (kind, name))
        found.add(name)
    if found != set(PUBLIC_SCHEMA):
        raise Refused("schema", "the public record lacks %s" % sorted(set(PUBLIC_SCHEMA) - found))
    meta = dict(db.execute("SELECT key, value FROM backup_meta"))
    if set(meta) != {"vault_id", "backup_public_key", "backup_sealed_key"}:
        raise Refused("meta", "backup_meta has keys %s" % sorted(meta))
    if meta["vault_id"] != vault_id:
        raise Refused("meta", "the public record names another vault")
    columns = [row[1] for row in db.execute("PRAGMA table_info(audit_signing_keys)")]
    if "private_key" in columns:
        raise Refused("schema", "the public record has a private key column")
    return meta


def master_key_from_keyslots(db, passphrase, vault_id):
    for uuid, kind, kdf, salt, nonce, wrapped in db.execute(
            "SELECT uuid, kind, kdf, salt, nonce, wrapped_key FROM keyslots WHERE kind = 'passphrase' ORDER BY id"):
        kek = vr.passphrase_kek(passphrase, salt, kdf, vault_id)
        key = vr.unwrap_master_key(kek, nonce, wrapped, vr.keyslot_ad(vault_id, uuid, kind, kdf))
        if key is not None:
            return key
    raise Refused("credential", "no passphrase slot opens with this passphrase")


def check_file(data, passphrase=None):
    parsed = parse(data)
    summary = {"version": parsed["version"], "vault_id": parsed["vault_id"].hex(),
               "records": [{"kind": k, "length": len(d)} for k, _, d in parsed["records"]]}
    if parsed["version"] == 1:
        return summary
    with tempfile.TemporaryDirectory() as scratch:
        public = open_sqlite(parsed["records"][0][2], scratch, "public.db")
        meta = check_public_record(public, parsed["vault_id"])
        summary["audit_entries"] = public.execute("SELECT count(*) FROM audit_entries").fetchone()[0]
        summary["keyslots"] = public.execute("SELECT count(*) FROM keyslots").fetchone()[0]
        if passphrase is None:
            return summary
        master_key = master_key_from_keyslots(public, passphrase, parsed["vault_id"])
        private = open_backup_key(meta["backup_sealed_key"], meta["backup_public_key"], master_key, parsed["vault_id"])
        database = open_sqlite(open_database(parsed["records"][1][2], private, parsed["vault_id"]), scratch, "vault.db")
        row = database.execute("SELECT value FROM vault_meta WHERE key = 'vault_id'").fetchone()
        if row is None or row[0] != parsed["vault_id"]:
            raise Refused("database", "the sealed database names another vault")
        entries = database.execute("SELECT count(*) FROM audit_entries").fetchone()[0]
        if entries != summary["audit_entries"]:
            raise Refused("agreement", "the database has %d audit entries, the public record %d" % (entries, summary["audit_entries"]))
        summary["database_opened"] = True
    return summary


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 64
    passphrase = None
    if "--passphrase-file" in argv:
        passphrase = vr.read_passphrase_file(argv[argv.index("--passphrase-file") + 1])
    with open(argv[0], "rb") as handle:
        data = handle.read()
    try:
        summary = check_file(data, passphrase)
    except Refused as refusal:
        print("refused: %s" % refusal, file=sys.stderr)
        return 1
    print(json.dumps(summary, indent=2, sort_keys=True))
    return 0


if __name__ == "__main__":
    sys.exit(main())
