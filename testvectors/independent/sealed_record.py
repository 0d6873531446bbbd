#!/usr/bin/env python3
"""An independent reader of sealed records (SECURITY.md §4.8), written from that section alone; it
shares no code with the Swift implementation. XChaCha20-Poly1305 comes from libsodium (python3-nacl),
SHA-256 and HKDF from hashlib and hmac; unlocking a vault uses vault_reader.py (§2-4).

    sealed_record.py --check
        opens every record of testvectors/record/records.json with the identity it was sealed for,
        and refuses every moved or altered one with the reason the file gives (exit 1 otherwise)
    sealed_record.py --vault DIR --passphrase-file FILE --module M --table T --record HEX --field F
        reads that row of the vault's sealed_records table, opens it under its compartment's key
        and writes the plaintext to standard output; a refusal prints
        "sealed_record: REASON: message" and exits 65 (REASON as in records.json)

Its functions are what testvectors/generate.py uses to write testvectors/record/.
"""

import argparse
import hashlib
import hmac
import json
import os
import sys

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import vault_reader as vr  # noqa: E402

VERSION = 1
HEADER_SIZE = 21
NONCE_SIZE = 24
TAG_SIZE = 16
OVERHEAD = HEADER_SIZE + NONCE_SIZE + TAG_SIZE
MAX_PLAINTEXT = 1 << 20
AD_LABEL = b"vaultctl sealed record v1"
TAG_LABEL = b"vaultctl sealed record tag v1"
KEY_INFO = b"vaultctl sealed record key v1"
DIGEST_KEY_INFO = b"vaultctl sealed record digest key v1"
DIGEST_SIZE = 16
NAME_BYTES = set(b"abcdefghijklmnopqrstuvwxyz0123456789_-")


class Refused(Exception):
    """A record that must not open; `reason` is one of records.json's reasons."""

    def __init__(self, reason, message):
        super().__init__(message)
        self.reason = reason


def check_name(name):
    raw = name.encode("ascii")
    if not 1 <= len(raw) <= 64 or not set(raw) <= NAME_BYTES:
        raise Refused("invalid-location", "bad name %r" % name)
    return raw


def lp(data):
    assert len(data) <= 255
    return bytes([len(data)]) + data


def record_key(compartment_key):
    return vr.hkdf_sha256(compartment_key, b"", KEY_INFO, 32)


def digest_key(compartment_key):
    return vr.hkdf_sha256(compartment_key, b"", DIGEST_KEY_INFO, 32)


def digest(key, plaintext, module, table, record_id, field):
    """The row's keyed digest of its plaintext (sealed_records.digest)."""
    location = lp(check_name(module)) + lp(check_name(table)) + lp(record_id) + lp(check_name(field))
    return hmac.new(key, location + plaintext, hashlib.sha256).digest()[:DIGEST_SIZE]


def tag(kind, data):
    return hashlib.sha256(TAG_LABEL + b"\x00" + bytes([kind]) + data).digest()[:4]


def tags(vault_id, compartment_id, module, table, record_id, field):
    if not 1 <= len(record_id) <= 64:
        raise Refused("invalid-location", "a record id is 1 to 64 bytes")
    row = lp(check_name(module)) + lp(check_name(table)) + lp(record_id)
    return tag(1, vault_id) + tag(2, compartment_id) + tag(3, row) + tag(4, lp(check_name(field)))


def header(key_version, vault_id, compartment_id, module, table, record_id, field):
    return bytes([VERSION]) + key_version.to_bytes(4, "big") + tags(vault_id, compartment_id, module, table, record_id, field)


def associated_data(head, vault_id, compartment_id, module, table, record_id, field):
    return (AD_LABEL + b"\x00" + head + vault_id + compartment_id + lp(check_name(module)) + lp(check_name(table))
            + lp(record_id) + lp(check_name(field)))


def seal(key, nonce, plaintext, key_version, vault_id, compartment_id, module, table, record_id, field):
    assert len(plaintext) <= MAX_PLAINTEXT and 1 <= key_version <= 0xFFFFFFFF
    head = header(key_version, vault_id, compartment_id, module, table, record_id, field)
    ad = associated_data(head, vault_id, compartment_id, module, table, record_id, field)
    return head + nonce + vr.xchacha_encrypt(key, nonce, plaintext, ad)


def parse(sealed):
    """(key version, tags, nonce, ciphertext || tag); refuses sizes, versions and key version 0."""
    if not OVERHEAD <= len(sealed) <= OVERHEAD + MAX_PLAINTEXT:
        raise Refused("malformed", "a sealed record is %d to %d bytes, not %d" % (OVERHEAD, OVERHEAD + MAX_PLAINTEXT, len(sealed)))
    if sealed[0] != VERSION:
        raise Refused("malformed", "unknown version %d" % sealed[0])
    key_version = int.from_bytes(sealed[1:5], "big")
    if key_version == 0:
        raise Refused("malformed", "key version 0")
    return key_version, sealed[5:HEADER_SIZE], sealed[HEADER_SIZE:HEADER_SIZE + NONCE_SIZE], sealed[HEADER_SIZE + NONCE_SIZE:]


def open_record(sealed, key_for_version, vault_id, compartment_id, module, table, record_id, field):
    """Opens `sealed` expected at this identity. key_for_version(v) gives the record key of version v."""
    key_version, found, nonce, body = parse(sealed)
    key = key_for_version(key_version)
    if key is None:
        raise Refused("inactive-key-version", "key version %d is not active" % key_version)
    ad = associated_data(sealed[:HEADER_SIZE], vault_id, compartment_id, module, table, record_id, field)
    plaintext = vr.xchacha_decrypt(key, nonce, body, ad)
    if plaintext is not None:
        return plaintext
    expected = tags(vault_id, compartment_id, module, table, record_id, field)
    for index, reason in enumerate(("another-vault", "another-compartment", "another-row", "another-field")):
        if found[4 * index:4 * index + 4] != expected[4 * index:4 * index + 4]:
            raise Refused(reason, "sealed for %s" % reason.replace("-", " "))
    raise Refused("corrupt", "fails authentication")


# ---------------------------------------------------------------------------------------------


def check_vectors(path):
    with open(path, encoding="utf-8") as handle:
        document = json.load(handle)
    failures, opened, refused, digests = [], 0, 0, 0
    for case in document["cases"]:
        if case["type"] == "key":
            got = record_key(bytes.fromhex(case["compartment_key"]))
            if got.hex() != case["record_key"]:
                failures.append("%s: record key differs" % case["name"])
            continue
        if case["type"] == "digest":
            where = case["location"]
            key = digest_key(bytes.fromhex(case["compartment_key"]))
            got = digest(key, bytes.fromhex(case["plaintext"]), where["module"], where["table"], bytes.fromhex(where["record_id"]),
                         where["field"])
            if key.hex() != case["digest_key"] or got.hex() != case["digest"]:
                failures.append("%s: digest key or digest differs" % case["name"])
            digests += 1
            continue
        if case["type"] == "reject-parse":
            try:
                parse(bytes.fromhex(case["sealed"]))
                failures.append("%s: parsed" % case["name"])
            except Refused as refusal:
                refused += 1
                if refusal.reason != case["reason"]:
                    failures.append("%s: refused as %s, not %s" % (case["name"], refusal.reason, case["reason"]))
            continue
        key = bytes.fromhex(case["record_key"])
        sealed = bytes.fromhex(case["sealed"])
        identity = case["identity"]

        def args(ident):
            return (bytes.fromhex(ident["vault_id"]), bytes.fromhex(ident["compartment_id"]), ident["module"], ident["table"],
                    bytes.fromhex(ident["record_id"]), ident["field"])

        keys = {identity["key_version"]: key}
        try:
            plaintext = open_record(sealed, keys.get, *args(identity))
            opened += 1
            if plaintext.hex() != case["plaintext"]:
                failures.append("%s: wrong plaintext" % case["name"])
        except Refused as refusal:
            failures.append("%s: refused (%s)" % (case["name"], refusal.reason))
        for bad in case["must_not_open"]:
            try:
                open_record(bytes.fromhex(bad.get("sealed", case["sealed"])), keys.get, *args(bad["identity"]))
                failures.append("%s / %s: opened" % (case["name"], bad["change"]))
            except Refused as refusal:
                refused += 1
                if refusal.reason != bad["reason"]:
                    failures.append("%s / %s: refused as %s, not %s" % (case["name"], bad["change"], refusal.reason, bad["reason"]))
    for failure in failures:
        print("sealed_record: FAILED %s" % failure, file=sys.stderr)
    print("sealed_record: %s: %d records opened, %d refused as expected, %d digests agree"
          % (os.path.relpath(path, os.path.join(HERE, "..")), opened, refused, digests))
    return 1 if failures else 0


def read_from_vault(options):
    """Reads one row of sealed_records from a vault unlocked with vault_reader.py's code."""
    try:
        vault = vr.Vault(options.vault)
        master_key, _ = vault.unlock_passphrase(vr.read_passphrase_file(options.passphrase_file))
        compartments = {bytes.fromhex(c["id"]): c for c in vault.compartments(master_key)}
    except vr.AuthenticationError as error:
        print("sealed_record: authentication failed: %s" % error, file=sys.stderr)
        return 2
    except vr.FormatError as error:
        print("sealed_record: bad data (%s): %s" % (error.reason, error), file=sys.stderr)
        return 65
    record_id = bytes.fromhex(options.record)
    row = vault.db.execute("SELECT r.sealed, c.uuid, r.key_version FROM sealed_records r JOIN compartments c ON c.id = r.compartment_id "
                           "WHERE r.module = ? AND r.table_name = ? AND r.record_id = ? AND r.field = ?",
                           (options.module, options.table, record_id, options.field)).fetchone()
    if row is None or bytes(row[1]) not in compartments:
        print("sealed_record: no record %s/%s/%s/%s in a live compartment" % (options.module, options.table, options.record,
                                                                               options.field), file=sys.stderr)
        return 66
    uuid = bytes(row[1])
    salts = compartments[uuid]["_salts"]

    def key_for_version(version):
        if salts.get(version) is None:  # no such version, or retired (its salt shredded)
            return None
        return record_key(vr.compartment_key(master_key, vault.vault_id, uuid, version, salts[version]))

    try:
        if len(row[0]) >= HEADER_SIZE and int.from_bytes(bytes(row[0])[1:5], "big") != row[2]:
            raise Refused("corrupt", "the sealed value's key version is not its row's")
        plaintext = open_record(bytes(row[0]), key_for_version, vault.vault_id, uuid, options.module, options.table, record_id,
                                options.field)
    except Refused as refusal:
        print("sealed_record: %s: %s" % (refusal.reason, refusal), file=sys.stderr)
        return 65
    sys.stdout.buffer.write(plaintext)
    return 0


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true")
    parser.add_argument("--vault")
    parser.add_argument("--passphrase-file")
    parser.add_argument("--module")
    parser.add_argument("--table")
    parser.add_argument("--record")
    parser.add_argument("--field")
    options = parser.parse_args(argv)
    if options.check:
        return check_vectors(os.path.join(HERE, "..", "record", "records.json"))
    if not (options.vault and options.passphrase_file and options.module and options.table and options.record and options.field):
        parser.print_usage(sys.stderr)
        return 64
    return read_from_vault(options)


if __name__ == "__main__":
    sys.exit(main())
