#!/usr/bin/env python3
"""Writes the known-answer files in testvectors/vault/, testvectors/bundle/ and testvectors/audit/
from fixed inputs, using only the independent implementation in testvectors/independent/
(vault_reader.py, bundle_opener.py and audit_verifier.py; never the Swift code). Ed25519 signatures
come from PyNaCl (nacl.signing.SigningKey), which is deterministic.

    python3 testvectors/generate.py           # (re)write the files
    python3 testvectors/generate.py --check   # exit 1 if a file differs from what it would write

Every "fixed" input is either written out literally or is fixed(label, n): the first n bytes of
SHA-256("vaultctl test vector " || label), repeated hashing for longer outputs. The output is
deterministic: running it twice writes the same bytes.
"""

import hashlib
import json
import os
import struct
import sys
import zlib

sys.dont_write_bytecode = True  # no __pycache__ in the repository (.gitignore does not cover it)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "independent"))

import vault_reader as vr  # noqa: E402
import bundle_opener as bo  # noqa: E402
import audit_verifier as av  # noqa: E402
import sealed_record as sr  # noqa: E402
import backup_container as bc  # noqa: E402
import writing_reader as wr  # noqa: E402
import snapshot_delta as sd  # noqa: E402

OUT = os.path.join(HERE, "vault")
BUNDLE_OUT = os.path.join(HERE, "bundle")
AUDIT_OUT = os.path.join(HERE, "audit")
RECORD_OUT = os.path.join(HERE, "record")
BACKUP_OUT = os.path.join(HERE, "backup")
WRITING_OUT = os.path.join(HERE, "writing")


def fixed(label, n):
    out, counter = b"", 0
    while len(out) < n:
        out += hashlib.sha256(b"vaultctl test vector " + label.encode() + (b"#%d" % counter if counter else b"")).digest()
        counter += 1
    return out[:n]


def h(data):
    return data.hex()


VAULT_ID = bytes.fromhex("5a1ed0c0ffee4badbeef0123456789ab")
VAULT_ID_2 = fixed("second vault id", 16)
MASTER_KEY = fixed("master key", 32)
MASTER_KEY_2 = fixed("second master key", 32)


def flip(data, index=0):
    b = bytearray(data)
    b[index] ^= 0x01
    return bytes(b)


# ---------------------------------------------------------------------------------------------


def keyslot_case(name, kind, kdf, salt, nonce, uuid, master_key, vault_id, credential):
    ad = vr.keyslot_ad(vault_id, uuid, kind, kdf)
    case = {"name": name, "kind": kind, "kdf": kdf, "vault_id": h(vault_id), "uuid": h(uuid),
            "salt": h(salt), "nonce": h(nonce), "master_key": h(master_key)}
    if kind == "passphrase":
        case["passphrase"] = credential.decode("utf-8")
        case["passphrase_utf8"] = h(credential)
        params = vr.parse_kdf(kdf)
        if params["algorithm"] == "argon2id":
            case["argon2_associated_data"] = h(vr.passphrase_ad(vault_id))
        kek = vr.passphrase_kek(credential, salt, kdf, vault_id)
    elif kind == "recovery-key":
        case["recovery_key"] = h(credential)
        case["recovery_key_display"] = vr.recovery_key_display(credential)
        case["hkdf_info"] = h(vr.recovery_key_info(vault_id))
        kek = vr.recovery_key_kek(credential, salt, vault_id)
    else:
        case["secret"] = h(credential)
        case["hkdf_info"] = h(vr.recovery_shares_info(vault_id))
        kek = vr.recovery_shares_kek(credential, salt, vault_id)
    wrapped = vr.wrap_master_key(kek, nonce, master_key, ad)
    assert vr.unwrap_master_key(kek, nonce, wrapped, ad) == master_key
    case.update({"kek": h(kek), "ad": h(ad), "wrapped_key": h(wrapped)})
    # Each of these associated data differs from the right one in one field; none may open.
    other_kind = "recovery-key" if kind != "recovery-key" else "passphrase"
    tampered = [
        ("vault_id changed", vr.keyslot_ad(flip(vault_id), uuid, kind, kdf)),
        ("uuid changed", vr.keyslot_ad(vault_id, flip(uuid, 15), kind, kdf)),
        ("kind changed", vr.keyslot_ad(vault_id, uuid, other_kind, kdf)),
        ("kdf text changed", vr.keyslot_ad(vault_id, uuid, kind, kdf.replace("2", "3", 1) if "2" in kdf else kdf + " ")),
        ("separator missing", b"vaultctl keyslot v1" + vault_id + uuid + kind.encode() + kdf.encode()),
    ]
    case["must_not_open"] = []
    for description, bad_ad in tampered:
        assert vr.unwrap_master_key(kek, nonce, wrapped, bad_ad) is None
        case["must_not_open"].append({"change": description, "ad": h(bad_ad)})
    return case


def keyslot_passphrase():
    cases = [
        keyslot_case("argon2id at the floor (m=19456, t=2, p=1)", "passphrase",
                     '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":1}',
                     fixed("passphrase slot 1 salt", 16), fixed("passphrase slot 1 nonce", 24),
                     fixed("passphrase slot 1 uuid", 16), MASTER_KEY, VAULT_ID,
                     b"correct horse battery staple"),
        keyslot_case("argon2id m=19456, t=3, p=2, non-ASCII passphrase (UTF-8, NFC)", "passphrase",
                     '{"algorithm":"argon2id","iterations":3,"memoryKiB":19456,"parallelism":2}',
                     fixed("passphrase slot 2 salt", 16), fixed("passphrase slot 2 nonce", 24),
                     fixed("passphrase slot 2 uuid", 16), MASTER_KEY, VAULT_ID,
                     "Grüße aus Zürich – 秘密".encode("utf-8")),
        keyslot_case("argon2id at the floor, another vault and master key", "passphrase",
                     '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":1}',
                     fixed("passphrase slot 3 salt", 16), fixed("passphrase slot 3 nonce", 24),
                     fixed("passphrase slot 3 uuid", 16), MASTER_KEY_2, VAULT_ID_2,
                     b"correct horse battery staple"),
        keyslot_case("scrypt (compatibility) log2N=15, r=8, p=1", "passphrase",
                     '{"algorithm":"scrypt","log2N":15,"p":1,"r":8}',
                     fixed("passphrase slot 4 salt", 16), fixed("passphrase slot 4 nonce", 24),
                     fixed("passphrase slot 4 uuid", 16), MASTER_KEY, VAULT_ID,
                     b"correct horse battery staple"),
    ]
    return {"description": "Passphrase keyslots: passphrase -> KEK (Argon2id with X = \"vaultctl passphrase v1\" || vault_id, "
                           "or scrypt), keyslot associated data, and the wrapped master key. Each must_not_open AD "
                           "must fail to authenticate wrapped_key under kek and nonce.",
            "spec": "SECURITY.md §4.3 (KDF parameters §4.2)", "cases": cases}


def keyslot_recovery():
    cases = [
        keyslot_case("recovery-key slot", "recovery-key", vr.HKDF_KDF_TEXT,
                     fixed("recovery-key slot salt", 16), fixed("recovery-key slot nonce", 24),
                     fixed("recovery-key slot uuid", 16), MASTER_KEY, VAULT_ID, fixed("recovery key", 20)),
        keyslot_case("recovery-key slot, another vault", "recovery-key", vr.HKDF_KDF_TEXT,
                     fixed("recovery-key slot 2 salt", 16), fixed("recovery-key slot 2 nonce", 24),
                     fixed("recovery-key slot 2 uuid", 16), MASTER_KEY_2, VAULT_ID_2, fixed("recovery key 2", 20)),
        keyslot_case("recovery-shares slot", "recovery-shares", vr.HKDF_KDF_TEXT,
                     fixed("recovery-shares slot salt", 16), fixed("recovery-shares slot nonce", 24),
                     fixed("recovery-shares slot uuid", 16), MASTER_KEY, VAULT_ID, fixed("split secret", 32)),
        keyslot_case("recovery-shares slot, another vault", "recovery-shares", vr.HKDF_KDF_TEXT,
                     fixed("recovery-shares slot 2 salt", 16), fixed("recovery-shares slot 2 nonce", 24),
                     fixed("recovery-shares slot 2 uuid", 16), MASTER_KEY_2, VAULT_ID_2, fixed("split secret 2", 32)),
    ]
    return {"description": "Recovery keyslots: HKDF-SHA-256 KEKs from the 20 recovery-key bytes or the 32-byte split "
                           "secret, keyslot associated data, and the wrapped master key.",
            "spec": "SECURITY.md §4.3", "cases": cases}


# ---------------------------------------------------------------------------------------------


KDF_VALID = [
    '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":1}',
    '{"algorithm":"argon2id","iterations":3,"memoryKiB":65536,"parallelism":4}',
    '{"algorithm":"argon2id","iterations":8,"memoryKiB":2097152,"parallelism":16}',
    '{"algorithm":"argon2id","iterations":64,"memoryKiB":262144,"parallelism":16}',
    '{"algorithm":"scrypt","log2N":15,"p":1,"r":8}',
    '{"algorithm":"scrypt","log2N":21,"p":8,"r":8}',
    '{"algorithm":"scrypt","log2N":15,"p":1,"r":512}',
]
KDF_INVALID = [
    ("space after a colon", '{"algorithm": "argon2id","iterations":2,"memoryKiB":19456,"parallelism":1}', "not-canonical"),
    ("spaces between members", '{"algorithm":"argon2id", "iterations":2, "memoryKiB":19456, "parallelism":1}', "not-canonical"),
    ("trailing newline", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":1}\n', "not-canonical"),
    ("keys not sorted", '{"algorithm":"argon2id","memoryKiB":19456,"iterations":2,"parallelism":1}', "not-canonical"),
    ("extra key", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":1,"version":19}', "not-canonical"),
    ("missing key", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456}', "not-canonical"),
    ("repeated key", '{"algorithm":"argon2id","iterations":2,"iterations":2,"memoryKiB":19456,"parallelism":1}', "not-canonical"),
    ("leading zero", '{"algorithm":"argon2id","iterations":02,"memoryKiB":19456,"parallelism":1}', "not-canonical"),
    ("fraction", '{"algorithm":"argon2id","iterations":2.0,"memoryKiB":19456,"parallelism":1}', "not-canonical"),
    ("exponent", '{"algorithm":"argon2id","iterations":2,"memoryKiB":1.9456e4,"parallelism":1}', "not-canonical"),
    ("integer as a string", '{"algorithm":"argon2id","iterations":"2","memoryKiB":19456,"parallelism":1}', "not-canonical"),
    ("boolean", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":true}', "not-canonical"),
    ("scrypt keys not sorted", '{"algorithm":"scrypt","log2N":15,"r":8,"p":1}', "not-canonical"),
    ("not JSON", 'argon2id,t=2,m=19456,p=1', "not-canonical"),
    ("the recovery slots' text", 'hkdf-sha256', "not-canonical"),
    ("unknown algorithm", '{"algorithm":"argon2i","iterations":2,"memoryKiB":19456,"parallelism":1}', "unknown-algorithm"),
    ("algorithm in another case", '{"algorithm":"Argon2id","iterations":2,"memoryKiB":19456,"parallelism":1}', "unknown-algorithm"),
    ("memory below the floor", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19455,"parallelism":1}', "out-of-bounds"),
    ("memory above the ceiling", '{"algorithm":"argon2id","iterations":2,"memoryKiB":2097153,"parallelism":1}', "out-of-bounds"),
    ("memory 2^32 (overflows 32 bits)", '{"algorithm":"argon2id","iterations":2,"memoryKiB":4294967296,"parallelism":1}', "out-of-bounds"),
    ("iterations below the floor", '{"algorithm":"argon2id","iterations":1,"memoryKiB":19456,"parallelism":1}', "out-of-bounds"),
    ("iterations above the ceiling", '{"algorithm":"argon2id","iterations":65,"memoryKiB":19456,"parallelism":1}', "out-of-bounds"),
    ("parallelism 0", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":0}', "out-of-bounds"),
    ("parallelism above the ceiling", '{"algorithm":"argon2id","iterations":2,"memoryKiB":19456,"parallelism":17}', "out-of-bounds"),
    ("negative iterations", '{"algorithm":"argon2id","iterations":-2,"memoryKiB":19456,"parallelism":1}', "out-of-bounds"),
    ("scrypt log2N below the floor", '{"algorithm":"scrypt","log2N":14,"p":1,"r":8}', "out-of-bounds"),
    ("scrypt log2N above the ceiling", '{"algorithm":"scrypt","log2N":22,"p":1,"r":8}', "out-of-bounds"),
    ("scrypt r below the floor", '{"algorithm":"scrypt","log2N":15,"p":1,"r":7}', "out-of-bounds"),
    ("scrypt 128·r·N over 2 GiB", '{"algorithm":"scrypt","log2N":21,"p":1,"r":9}', "out-of-bounds"),
    ("Argon2id work M·T just over 16 GiB·passes", '{"algorithm":"argon2id","iterations":9,"memoryKiB":2097152,"parallelism":1}', "out-of-bounds"),
    ("Argon2id work at every single ceiling", '{"algorithm":"argon2id","iterations":64,"memoryKiB":2097152,"parallelism":16}', "out-of-bounds"),
    ("Argon2id work M·T one KiB·pass over", '{"algorithm":"argon2id","iterations":64,"memoryKiB":262145,"parallelism":1}', "out-of-bounds"),
    ("scrypt work 128·r·N·p over 16 GiB", '{"algorithm":"scrypt","log2N":21,"p":9,"r":8}', "out-of-bounds"),
    ("scrypt p 0", '{"algorithm":"scrypt","log2N":15,"p":0,"r":8}', "out-of-bounds"),
    ("scrypt p above the ceiling", '{"algorithm":"scrypt","log2N":15,"p":17,"r":8}', "out-of-bounds"),
]


def kdf_parameters():
    cases = []
    for text in KDF_VALID:
        params = vr.parse_kdf(text)
        cases.append({"name": "valid " + params["algorithm"], "text": text, "valid": True, "parameters": params})
    for name, text, reason in KDF_INVALID:
        try:
            vr.parse_kdf(text)
        except vr.FormatError as error:
            assert error.reason == reason, (name, error.reason, reason)
        else:
            raise AssertionError("accepted: " + name)
        cases.append({"name": name, "text": text, "valid": False, "reason": reason})
    return {"description": "The canonical KDF parameter text of passphrase slots and kdf_policy: valid texts with their "
                           "parameters, and texts that must be refused (reason: not-canonical, unknown-algorithm, "
                           "out-of-bounds).",
            "spec": "SECURITY.md §4.2", "cases": cases}


# ---------------------------------------------------------------------------------------------


def recovery_key():
    cases = []
    samples = [
        ("all zero", bytes(20)),
        ("all 0xff", b"\xff" * 20),
        ("counting bytes", bytes(range(20))),
        ("fixed random 1", fixed("recovery key", 20)),
        ("fixed random 2", fixed("recovery key 2", 20)),
    ]
    for name, key in samples:
        cases.append({"name": "encode " + name, "type": "encode", "bytes": h(key),
                      "display": vr.recovery_key_display(key)})

    def parse_ok(name, text, key):
        assert vr.parse_recovery_key(text) == key, name
        cases.append({"name": name, "type": "parse", "input": text, "valid": True, "bytes": h(key)})

    def parse_bad(name, text, reason, position=None):
        try:
            vr.parse_recovery_key(text)
        except vr.FormatError as error:
            assert error.reason == reason and error.position == position, (name, error.reason, error.position)
        else:
            raise AssertionError("accepted: " + name)
        case = {"name": name, "type": "parse", "input": text, "valid": False, "reason": reason}
        if position is not None:
            case["position"] = position
        cases.append(case)

    key = bytes(range(20))  # its display has several 0 and 1 symbols, for the aliases
    display = vr.recovery_key_display(key)
    assert "0" in display and "1" in display
    plain = display.replace("-", "")
    parse_ok("the display form", display, key)
    parse_ok("lowercase", display.lower(), key)
    parse_ok("one trailing newline", display + "\n", key)
    parse_ok("no dashes", plain, key)
    parse_ok("spaces instead of dashes", display.replace("-", " "), key)
    parse_ok("dashes and spaces anywhere", " " + "-".join(plain[i:i + 4] for i in range(0, 36, 4)) + " - ", key)
    parse_ok("O for 0, I and L for 1", display.replace("0", "O").replace("1", "I", 1).replace("1", "L"), key)
    parse_ok("o, i and l in lowercase", display.lower().replace("0", "o").replace("1", "i", 1).replace("1", "l"), key)
    all_ones = vr.recovery_key_display(b"\xff" * 20)
    parse_ok("all 0xff, lowercase", all_ones.lower(), b"\xff" * 20)

    # position: 1-based index of the offending character in the text as given.
    parse_bad("U is not a Crockford symbol", "U" + display[1:], "bad-character", 1)
    parse_bad("punctuation", display[:7] + "*" + display[8:], "bad-character", 8)
    parse_bad("a non-ASCII letter", display[:3] + "É" + display[4:], "bad-character", 4)
    parse_bad("an underscore instead of a dash", display.replace("-", "_", 1), "bad-character", 7)
    parse_bad("a tab", display + "\t", "bad-character", 42)
    parse_bad("two trailing newlines", display + "\n\n", "bad-character", 42)
    parse_bad("a newline inside", display[:6] + "\n" + display[7:], "bad-character", 7)
    parse_bad("35 symbols", display[:-1], "wrong-length")
    parse_bad("37 symbols", display + "0", "wrong-length")
    parse_bad("the 32 key symbols without checksum", plain[:32], "wrong-length")
    parse_bad("empty", "", "wrong-length")
    typo = display[:3] + ("7" if display[3] != "7" else "8") + display[4:]
    parse_bad("one key symbol changed", typo, "checksum-mismatch")
    last = display[:-1] + ("0" if display[-1] != "0" else "1")
    parse_bad("one checksum symbol changed", last, "checksum-mismatch")
    swapped = display[:7] + display[8] + display[7] + display[9:]
    assert swapped != display
    parse_bad("two adjacent symbols swapped", swapped, "checksum-mismatch")
    return {"description": "Recovery key display form: encode cases (20 bytes -> 36 symbols with checksum) and parse "
                           "cases (valid inputs with the bytes they give; invalid ones with the reason: bad-character, "
                           "wrong-length, checksum-mismatch; position is the 1-based character index in input).",
            "spec": "SECURITY.md §4.4", "cases": cases}


# ---------------------------------------------------------------------------------------------


def split_case(name, vault_id, keyslot, secret, threshold, count, label, combinations):
    coefficients = [fixed("%s coefficient %d" % (label, j), len(secret)) for j in range(1, threshold)]
    shares = vr.shamir_split(secret, threshold, count, coefficients)
    files = {x: vr.serialize_share(vault_id, keyslot, threshold, x, count, shares[x]) for x in shares}
    for x, text in files.items():
        parsed = vr.parse_share(text)
        assert parsed["value"] == shares[x] and parsed["x"] == x
    combos = []
    for xs in combinations:
        parsed = [vr.parse_share(files[x]) for x in xs]
        assert vr.combine_shares(parsed, vault_id) == secret
        combos.append({"shares": xs, "secret": h(secret)})
    return {
        "name": name, "type": "split", "vault_id": h(vault_id), "keyslot": h(keyslot),
        "threshold": threshold, "share_count": count, "secret": h(secret),
        "coefficients": [h(c) for c in coefficients],
        "shares": [{"x": x, "value": h(shares[x]), "file": files[x]} for x in sorted(shares)],
        "combinations": combos,
    }


def rebuild_check(text):
    """Recomputes the check line of a (modified) share text so that only the intended fault remains."""
    body = text[: text.index("check: ")]
    return body + "check: %s\n" % vr.share_check(body.encode("latin-1")).hex()


def recovery_shares():
    keyslot_a = fixed("split A keyslot", 16)
    keyslot_b = fixed("split B keyslot", 16)
    secret_a = fixed("split secret", 32)
    secret_b = fixed("split secret B", 32)
    two_of_three = split_case("2-of-3", VAULT_ID, keyslot_a, secret_a, 2, 3, "split A",
                              [[1, 2], [1, 3], [2, 3], [3, 1], [1, 2, 3]])
    three_of_five = split_case("3-of-5", VAULT_ID, keyslot_b, secret_b, 3, 5, "split B",
                               [[1, 2, 3], [1, 3, 5], [5, 4, 2], [2, 3, 4, 5], [1, 2, 3, 4, 5]])
    other_vault = split_case("2-of-3 of another vault (same keyslot uuid)", VAULT_ID_2, keyslot_a,
                             fixed("split secret C", 32), 2, 3, "split C", [[1, 3]])
    # A full-range example: 255 shares, threshold 2 (the largest n).
    big = split_case("2-of-255 (largest share count)", VAULT_ID, fixed("split D keyslot", 16),
                     fixed("split secret D", 32), 2, 255, "split D", [[1, 255], [128, 7]])
    big["shares"] = [s for s in big["shares"] if s["x"] in (1, 7, 128, 255)]
    cases = [two_of_three, three_of_five, other_vault, big]

    f1 = two_of_three["shares"][0]["file"]

    def reject_file(name, text, reason, recheck=False):
        if recheck:
            text = rebuild_check(text)
        try:
            vr.parse_share(text.encode("latin-1") if isinstance(text, str) else text)
        except vr.FormatError as error:
            assert error.reason == reason, (name, error.reason, reason)
        else:
            raise AssertionError("accepted: " + name)
        cases.append({"name": name, "type": "reject-file", "file": text, "reason": reason})

    lines = f1.split("\n")[:7]
    join = lambda ls: "".join(l + "\n" for l in ls)  # noqa: E731
    reject_file("over 512 bytes (a valid share followed by padding)", f1 + "#" * (513 - len(f1)), "too-large")
    reject_file("CR LF line endings", f1.replace("\n", "\r\n"), "carriage-return")
    reject_file("a CR at the end of the value line", join(lines[:5] + [lines[5] + "\r"] + lines[6:]), "carriage-return", True)
    reject_file("six lines (check line missing)", join(lines[:6]), "line-count")
    reject_file("an empty line after the check line", f1 + "\n", "line-count")
    reject_file("no LF after the check line", f1[:-1], "line-count")
    reject_file("empty file", "", "line-count")
    reject_file("lines 2 and 3 in the other order", join([lines[0], lines[2], lines[1]] + lines[3:]), "bad-line", True)
    reject_file("another format version", join(["vaultctl recovery share v2"] + lines[1:]), "bad-line", True)
    reject_file("uppercase hex in value (check recomputed)", join(lines[:5] + [lines[5].upper().replace("VALUE", "value")] + lines[6:]),
                "uppercase-hex", True)
    reject_file("uppercase hex in vault (check recomputed)", join([lines[0], lines[1].upper().replace("VAULT", "vault")] + lines[2:]),
                "uppercase-hex", True)
    reject_file("uppercase hex in check", join(lines[:6] + [lines[6].upper().replace("CHECK", "check")]), "uppercase-hex")
    reject_file("threshold with a leading zero (check recomputed)", join(lines[:3] + ["threshold: 02"] + lines[4:]), "bad-line", True)
    reject_file("share number with a leading zero (check recomputed)", join(lines[:4] + ["share: 01 of 3"] + lines[5:]), "bad-line", True)
    reject_file("a trailing space (check recomputed)", join(lines[:3] + [lines[3] + " "] + lines[4:]), "bad-line", True)
    reject_file("two spaces after a colon (check recomputed)", join(lines[:1] + [lines[1].replace(": ", ":  ")] + lines[2:]), "bad-line", True)
    reject_file("value one digit short (check recomputed)", join(lines[:5] + [lines[5][:-1]] + lines[6:]), "bad-line", True)
    reject_file("share number 0 (check recomputed)", join(lines[:4] + ["share: 0 of 3"] + lines[5:]), "bad-line", True)
    reject_file("share number above the count (check recomputed)", join(lines[:4] + ["share: 4 of 3"] + lines[5:]), "out-of-range", True)
    reject_file("threshold above the count (check recomputed)", join(lines[:3] + ["threshold: 4"] + lines[4:]), "out-of-range", True)
    reject_file("threshold 1 (check recomputed)", join(lines[:3] + ["threshold: 1"] + lines[4:]), "out-of-range", True)
    reject_file("share count 256 (check recomputed)", join(lines[:4] + ["share: 1 of 256"] + lines[5:]), "out-of-range", True)
    value = lines[5]
    damaged = value[:-1] + ("0" if value[-1] != "0" else "1")
    reject_file("value changed, check not updated", join(lines[:5] + [damaged] + lines[6:]), "check-mismatch")
    reject_file("check changed", join(lines[:6] + [lines[6][:-1] + ("0" if lines[6][-1] != "0" else "1")]), "check-mismatch")

    def reject_combine(name, files, reason, vault_id=VAULT_ID):
        parsed = [vr.parse_share(f) for f in files]
        try:
            vr.combine_shares(parsed, bytes.fromhex(vault_id) if isinstance(vault_id, str) else vault_id)
        except vr.FormatError as error:
            assert error.reason == reason, (name, error.reason, reason)
        else:
            raise AssertionError("accepted: " + name)
        cases.append({"name": name, "type": "reject-combine", "vault_id": h(vault_id), "files": files, "reason": reason})

    a = [s["file"] for s in two_of_three["shares"]]
    b = [s["file"] for s in three_of_five["shares"]]
    c = [s["file"] for s in other_vault["shares"]]
    reject_combine("one share of a 2-of-3", a[:1], "too-few-shares")
    reject_combine("two shares of a 3-of-5", [b[0], b[4]], "too-few-shares")
    reject_combine("the same share twice", [a[1], a[1]], "duplicate-share")
    reject_combine("shares of two splits of one vault", [a[0], b[1]], "different-splits")
    reject_combine("shares of two vaults", [a[0], c[1]], "wrong-vault")
    reject_combine("a valid pair, but for another vault", [c[0], c[2]], "wrong-vault")
    # Same vault, same keyslot and x values, but a different threshold: not the same split.
    forged = rebuild_check(a[1].replace("threshold: 2", "threshold: 3"))
    reject_combine("same keyslot, different threshold", [a[0], forged], "different-splits")
    return {"description": "Recovery shares: Shamir splits over GF(2^8) (0x11b) with their polynomial coefficients, every "
                           "share file's exact text, combinations that reconstruct the secret; share files that must "
                           "be refused when parsed (reject-file) and sets of valid files that must be refused when "
                           "combined for vault_id (reject-combine), each with a reason.",
            "spec": "SECURITY.md §4.5", "cases": cases}


# ---------------------------------------------------------------------------------------------


NAMES = [
    "Session notes",
    "Müller v. Müller – Case 2024/117",
    "Café",          # NFC: U+00E9
    "Cafe\u0301",    # NFD: e + U+0301; a different name, byte for byte
    "患者 田中花子",
    "🔒 Privileged",
    "x",
    "N" * 128,
]


def compartment_case(name, master_key, vault_id, label):
    lookup, sealing = vr.name_keys(master_key, vault_id)
    names = []
    for index, text in enumerate(NAMES):
        uuid = fixed("%s compartment uuid %d" % (label, index), 16)
        nonce = fixed("%s name nonce %d" % (label, index), 24)
        sealed = vr.seal_name(sealing, nonce, text, vault_id, uuid)
        assert vr.open_name(sealing, sealed, vault_id, uuid) == text.encode("utf-8")
        assert vr.open_name(sealing, sealed, vault_id, flip(uuid)) is None
        names.append({"name": text, "name_utf8": h(text.encode("utf-8")), "uuid": h(uuid), "nonce": h(nonce),
                      "name_hash": h(vr.name_hash(lookup, text)), "sealed_name": h(sealed),
                      "must_not_open_with_uuid": h(flip(uuid))})
    keys = []
    for index, version in enumerate([1, 2, 3, 256, 65537, 4294967295]):
        uuid = fixed("%s compartment uuid %d" % (label, index % 2), 16)
        salt = fixed("%s version salt %d" % (label, index), 32)
        keys.append({"uuid": h(uuid), "version": version, "salt": h(salt),
                     "hkdf_info": h(vr.compartment_key_info(vault_id, uuid, version)),
                     "key": h(vr.compartment_key(master_key, vault_id, uuid, version, salt))})
    return {"name": name, "master_key": h(master_key), "vault_id": h(vault_id),
            "names_hkdf_output": h(lookup + sealing), "lookup_key": h(lookup), "sealing_key": h(sealing),
            "names": names, "compartment_keys": keys}


def compartment():
    cases = [compartment_case("vault 1", MASTER_KEY, VAULT_ID, "vault 1"),
             compartment_case("vault 2", MASTER_KEY_2, VAULT_ID_2, "vault 2")]
    return {"description": "Compartment names and keys: the names HKDF (lookup key || sealing key), name_hash and "
                           "sealed_name of names (non-ASCII, NFC and NFD forms kept distinct, 128 bytes), and "
                           "compartment keys for uuid/version/salt triples (version up to 2^32-1).",
            "spec": "SECURITY.md §4.6", "cases": cases}


FILES = {
    "keyslot-passphrase.json": keyslot_passphrase,
    "keyslot-recovery.json": keyslot_recovery,
    "kdf-parameters.json": kdf_parameters,
    "recovery-key.json": recovery_key,
    "recovery-shares.json": recovery_shares,
    "compartment.json": compartment,
}


# ---------------------------------------------------------------------------------------------
# EncryptedBundle (SECURITY.md §6): testvectors/bundle/
# ---------------------------------------------------------------------------------------------


def pattern(length, seed):
    """The plaintexts of the bundle vectors: byte i = (31·i + seed + ⌊i / 256⌋) mod 256."""
    return bytes((31 * i + seed + (i >> 8)) & 0xFF for i in range(length))


def sha(data):
    return hashlib.sha256(data).hexdigest()


def bundle_keys_case(name, data_key, bundle_id, vault_id, compartment_id, key_version, compartment_key, wrap_nonce):
    keys = bo.bundle_keys(data_key, bundle_id)
    ad = bo.wrap_ad(vault_id, compartment_id, key_version, bundle_id)
    wrapped = bo.wrap_data_key(compartment_key, wrap_nonce, data_key, ad)
    assert bo.unwrap_data_key(compartment_key, wrap_nonce, wrapped, ad) == data_key
    tampered = [
        ("vault_id changed", bo.wrap_ad(flip(vault_id), compartment_id, key_version, bundle_id)),
        ("compartment_id changed", bo.wrap_ad(vault_id, flip(compartment_id, 15), key_version, bundle_id)),
        ("key_version changed", bo.wrap_ad(vault_id, compartment_id, key_version ^ 1, bundle_id)),
        ("bundle_id changed", bo.wrap_ad(vault_id, compartment_id, key_version, flip(bundle_id))),
        ("label 'keys' (the HKDF info) instead of 'key'",
         b"vaultctl bundle keys v1" + vault_id + compartment_id + key_version.to_bytes(4, "big") + bundle_id),
        ("key version little-endian",
         bo.WRAP_AD_LABEL + vault_id + compartment_id + key_version.to_bytes(4, "little") + bundle_id),
    ]
    must_not = []
    for change, bad in tampered:
        if bad == ad:  # a palindromic key version reads the same in either byte order
            continue
        assert bo.unwrap_data_key(compartment_key, wrap_nonce, wrapped, bad) is None
        must_not.append({"change": change, "ad": h(bad)})
    return {"name": name, "data_key": h(data_key), "bundle_id": h(bundle_id), "hkdf_info": h(bo.KEYS_INFO),
            "hkdf_output": h(keys["hkdf_output"]), "payload_key": h(keys["payload_key"]),
            "metadata_key": h(keys["metadata_key"]), "header_key": h(keys["header_key"]),
            "key_commitment": h(keys["key_commitment"]),
            "wrap": {"vault_id": h(vault_id), "compartment_id": h(compartment_id), "key_version": key_version,
                     "compartment_key": h(compartment_key), "wrap_nonce": h(wrap_nonce), "wrap_ad": h(ad),
                     "wrapped_data_key": h(wrapped), "must_not_unwrap": must_not}}


def bundle_keys_file():
    cases = [
        bundle_keys_case("random-looking data key", fixed("keys case 1 data key", 32), fixed("keys case 1 bundle id", 16),
                         VAULT_ID, fixed("keys case 1 compartment", 16), 1, fixed("keys case 1 compartment key", 32),
                         fixed("keys case 1 wrap nonce", 24)),
        bundle_keys_case("all-zero data key and bundle id, key version 2^32-1", bytes(32), bytes(16),
                         VAULT_ID_2, fixed("keys case 2 compartment", 16), 0xFFFFFFFF, fixed("keys case 2 compartment key", 32),
                         fixed("keys case 2 wrap nonce", 24)),
        bundle_keys_case("key version 256 (byte order matters)", fixed("keys case 3 data key", 32),
                         fixed("keys case 3 bundle id", 16), VAULT_ID, fixed("keys case 3 compartment", 16), 256,
                         fixed("keys case 3 compartment key", 32), fixed("keys case 3 wrap nonce", 24)),
    ]
    return {"description": "Bundle keys: HKDF-SHA-256(IKM = data key, salt = bundle id, info = \"vaultctl bundle keys v1\", "
                           "L = 128) = payload key || metadata key || header key || key commitment; the wrap AD and the "
                           "data key wrapped with XChaCha20-Poly1305 under a compartment key. Each must_not_unwrap AD "
                           "must fail to authenticate wrapped_data_key.",
            "spec": "SECURITY.md §6.1", "cases": cases}


METADATA_KEY = fixed("metadata key", 32)


def bundle_metadata_file():
    cases = []
    encodes = [
        ("plain ASCII", "Patient notes.txt", "text/plain", 1700000000),
        ("non-ASCII name (UTF-8, NFC as given)", "Müller – Befund 2024 患者.pdf", "application/pdf", 1714000000),
        ("NFD name is kept as given", "Cafe\u0301.txt", "text/plain", 0),
        ("empty name and empty content type", "", "", 0),
        ("negative time (before 1970)", "old.txt", "text/plain", -86400),
        ("time -2^63", "min", "x/y", -(1 << 63)),
        ("time 2^63-1", "max", "x/y", (1 << 63) - 1),
        ("a name with '/', '..', a NUL and a control character is accepted as it is",
         "../../etc/passwd\u0000\u0007.txt", "application/octet-stream", 1),
        ("name of 1024 bytes and content type of 255 bytes (the maxima)", "é" * 512, "t" * 255, 1700000000),
    ]
    for name, text, ctype, time in encodes:
        encoded = bo.encode_metadata(text, ctype, time)
        assert bo.decode_metadata(encoded) == {"name": text, "content_type": ctype, "modification_time": time}
        sealed = bo.seal_metadata(METADATA_KEY, encoded)
        cases.append({"name": name, "type": "encode", "file_name": text, "file_name_utf8": h(text.encode("utf-8")),
                      "content_type": ctype, "modification_time": time, "encoded": h(encoded),
                      "metadata_key": h(METADATA_KEY), "nonce": h(bo.METADATA_NONCE), "sealed": h(sealed)})
    good = bo.encode_metadata("a.txt", "text/plain", 5)
    u16 = lambda n: n.to_bytes(2, "big")  # noqa: E731
    t8 = (5).to_bytes(8, "big")
    rejects = [
        ("empty", b""),
        ("one byte", b"\x00"),
        ("ends inside the name", u16(5) + b"a.t"),
        ("ends inside the type length", u16(1) + b"a" + b"\x00"),
        ("ends inside the time", good[:-1]),
        ("a byte after the time", good + b"\x00"),
        ("name length 1025", u16(1025) + b"a" * 1025 + u16(0) + t8),
        ("name not UTF-8 (lone continuation byte)", u16(1) + b"\x80" + u16(0) + t8),
        ("name not UTF-8 (overlong '/')", u16(2) + b"\xc0\xaf" + u16(0) + t8),
        ("name not UTF-8 (UTF-16 surrogate)", u16(3) + b"\xed\xa0\x80" + u16(0) + t8),
        ("name not UTF-8 (truncated sequence)", u16(2) + b"a\xc3" + u16(0) + t8),
        ("content type length 256", u16(0) + u16(256) + b"t" * 256 + t8),
        ("content type with a DEL (0x7f)", u16(0) + u16(1) + b"\x7f" + t8),
        ("content type with a non-ASCII byte", u16(0) + u16(2) + b"\xc3\xa9" + t8),
        ("content type with a TAB", u16(0) + u16(1) + b"\t" + t8),
    ]
    for name, data in rejects:
        try:
            bo.decode_metadata(data)
        except bo.BundleError as error:
            assert error.reason == "metadata"
        else:
            raise AssertionError("accepted: " + name)
        cases.append({"name": name, "type": "reject-decode", "encoded": h(data),
                      "sealed": h(bo.seal_metadata(METADATA_KEY, data)), "metadata_key": h(METADATA_KEY)})
    for name, text, ctype in [("name of 1025 bytes", "n" * 1025, "text/plain"),
                              ("content type of 256 bytes", "a", "t" * 256),
                              ("content type with a non-ASCII character", "a", "tëxt/plain"),
                              ("content type with a newline", "a", "text/plain\n")]:
        cases.append({"name": name, "type": "reject-encode", "file_name": text, "content_type": ctype,
                      "modification_time": 0})
    return {"description": "Bundle metadata: the encoding u16be(n) || name || u16be(t) || content type || u64be(time), "
                           "sealed with ChaCha20-Poly1305 under the metadata key with a 12-byte zero nonce and no AD; "
                           "encodings a decoder must refuse after opening (reject-decode, also given sealed), and "
                           "metadata a sealer must refuse to encode (reject-encode).",
            "spec": "SECURITY.md §6.3", "cases": cases}


# The vault the bundles live in: master key and vault id of the vault/*.json vectors, compartments
# A (version 1 retired, 2 and 3 active), B (1, 2, 3 active), C (destroyed), and an id D that is not
# in the vault. A bundle of another vault uses vault 2 with the same compartment uuid as A.
BUNDLE_COMPARTMENTS = {
    "A": {"uuid": fixed("bundle compartment A uuid", 16), "destroyed": False, "versions": {1: False, 2: True, 3: True}},
    "B": {"uuid": fixed("bundle compartment B uuid", 16), "destroyed": False, "versions": {1: True, 2: True, 3: True}},
    "C": {"uuid": fixed("bundle compartment C uuid", 16), "destroyed": True, "versions": {1: False}},
}
UNKNOWN_COMPARTMENT = fixed("bundle compartment D uuid", 16)


def version_salt(label, version, vault="vault 1"):
    return fixed("bundle %s compartment %s version %d salt" % (vault, label, version), 32)


def bundle_compartment_key(label, version, vault="vault 1"):
    master_key, vault_id = (MASTER_KEY, VAULT_ID) if vault == "vault 1" else (MASTER_KEY_2, VAULT_ID_2)
    uuid = BUNDLE_COMPARTMENTS[label]["uuid"]
    return vr.compartment_key(master_key, vault_id, uuid, version, version_salt(label, version, vault))


def bundle_keyring():
    entries = {}
    for label, c in BUNDLE_COMPARTMENTS.items():
        entries[c["uuid"]] = {"destroyed": c["destroyed"],
                              "keys": {v: bundle_compartment_key(label, v) for v, active in c["versions"].items() if active}}
    return bo.DictKeyring(entries)


def bundle_vault_description():
    compartments = []
    for label, c in BUNDLE_COMPARTMENTS.items():
        versions = []
        for version, active in c["versions"].items():
            salt = version_salt(label, version)
            versions.append({"version": version, "active": active and not c["destroyed"],
                             "salt": h(salt) if active and not c["destroyed"] else None,
                             "former_salt": None if active and not c["destroyed"] else h(salt),
                             "key": h(bundle_compartment_key(label, version))})
        compartments.append({"label": label, "name": "Bundles " + label, "uuid": h(c["uuid"]),
                             "destroyed": c["destroyed"], "versions": versions})
    return {"master_key": h(MASTER_KEY), "vault_id": h(VAULT_ID), "compartments": compartments,
            "unknown_compartment_uuid": h(UNKNOWN_COMPARTMENT)}


def ranges_for(length, chunk_size):
    candidates = [(0, 1), (0, length), (chunk_size - 1, chunk_size + 1), (chunk_size, 2 * chunk_size),
                  (max(0, length - 1), length), (length // 2, length + 5000), (17, 17), (length, length + 100),
                  (length + 5000, length + 6000)]
    result, seen = [], set()
    for start, end in candidates:
        if (start, end) in seen or end < start:
            continue
        seen.add((start, end))
        clamped = min(end, length)
        chunks = None if start >= clamped else [start // chunk_size, (clamped - 1) // chunk_size]
        result.append({"start": start, "end": end, "chunks": chunks})
    return result


class BundleMaker:
    """Seals the bundle cases and keeps their bytes for the edited (negative) cases."""

    def __init__(self):
        self.files = {}
        self.sealed = {}
        self.cases = []
        self.keyring = bundle_keyring()

    def bundle(self, name, label, version, chunk_size, length, seed, metadata=("Patient notes.txt", "text/plain", 1700000000),
               unknown_length=False, vault="vault 1", refused=None):
        vault_id = VAULT_ID if vault == "vault 1" else VAULT_ID_2
        compartment_id = BUNDLE_COMPARTMENTS[label]["uuid"] if label != "D" else UNKNOWN_COMPARTMENT
        compartment_key = (bundle_compartment_key(label, version, vault) if label != "D"
                           else fixed("bundle unknown compartment key", 32))
        data_key = fixed("bundle %s data key" % name, 32)
        bundle_id = fixed("bundle %s bundle id" % name, 16)
        wrap_nonce = fixed("bundle %s wrap nonce" % name, 24)
        plaintext = pattern(length, seed)
        sealed = bo.seal_bundle(vault_id, compartment_id, version, compartment_key, data_key, bundle_id, wrap_nonce,
                                chunk_size, plaintext, metadata, unknown_length)
        data = sealed["file"]
        header = sealed["header"]
        n = len(sealed["chunks"])
        chunks, offset = [], len(header)
        for index, chunk in enumerate(sealed["chunks"]):
            chunks.append({"index": index, "offset": offset, "plaintext_offset": index * chunk_size,
                           "plaintext_length": len(chunk) - 16, "last": index == n - 1,
                           "nonce": h(bo.chunk_nonce(index, index == n - 1)), "tag": h(chunk[-16:]),
                           "sealed_sha256": sha(chunk)})
            offset += len(chunk)
        assert offset == len(data) == len(header) + length + 16 * n
        keys = sealed["keys"]
        case = {"name": name, "type": "bundle", "vault": vault, "compartment": label,
                "vault_id": h(vault_id), "compartment_id": h(compartment_id), "key_version": version,
                "compartment_key": h(compartment_key), "data_key": h(data_key), "bundle_id": h(bundle_id),
                "wrap_nonce": h(wrap_nonce), "chunk_size": chunk_size, "unknown_length": unknown_length,
                "plaintext_length": length, "plaintext_seed": seed, "plaintext_sha256": sha(plaintext),
                "metadata": {"name": metadata[0], "content_type": metadata[1], "modification_time": metadata[2]},
                "encoded_metadata": h(sealed["encoded_metadata"]),
                "keys": {"hkdf_output": h(keys["hkdf_output"]), "payload_key": h(keys["payload_key"]),
                         "metadata_key": h(keys["metadata_key"]), "header_key": h(keys["header_key"]),
                         "key_commitment": h(keys["key_commitment"])},
                "wrap_ad": h(sealed["wrap_ad"]), "wrapped_data_key": h(sealed["wrapped_data_key"]),
                "sealed_metadata": h(sealed["sealed_metadata"]), "header_size": len(header),
                "header_mac": h(header[-32:]), "header": h(header), "chunk_count": n, "chunks": chunks,
                "file_size": len(data), "file_sha256": sha(data)}
        if length <= 4096:
            case["plaintext"] = h(plaintext)
        if len(data) <= 8192:
            case["file"] = h(data)
        self.check_opening(case, data, plaintext, refused)
        if refused is None:
            case["opens"] = True
            case["ranges"] = ranges_for(length, chunk_size)
            for r in case["ranges"]:
                got, _, _ = bo.open_bytes(data, VAULT_ID, self.keyring, r["start"], r["end"])
                assert got == plaintext[r["start"]:r["end"]], (name, r)
        else:
            case["opens"] = False
            case.update(refused)
        self.files[name] = data
        self.sealed[name] = sealed
        self.cases.append(case)
        return data

    def check_opening(self, case, data, plaintext, refused):
        try:
            got, _, metadata = bo.open_bytes(data, VAULT_ID, self.keyring)
        except bo.BundleError as error:
            outcome = {"kind": error.kind, "reason": error.reason}
            if error.chunk is not None:
                outcome["chunk"] = error.chunk
            assert refused == outcome, (case["name"], refused, outcome, str(error))
            return
        assert refused is None, (case["name"], "opened, expected", refused)
        assert got == plaintext, case["name"]
        assert metadata == case["metadata"], case["name"]

    def rewrap(self, name, source, version, label="A"):
        sealed = self.sealed[source]
        data = self.files[source]
        header = sealed["header"]
        data_key = bytes.fromhex(next(c for c in self.cases if c["name"] == source)["data_key"])
        nonce = fixed("rewrap %s wrap nonce" % name, 24)
        compartment_key = bundle_compartment_key(label, version)
        new_header = bo.rewrap_header(header, data_key, version, compartment_key, nonce)
        new = new_header + data[len(header):]
        size = len(header)
        m = size - bo.FIXED_HEADER_SIZE
        changed = [[44, 48], [76, 148], [182 + m, 214 + m]]
        differs = [i for i in range(size) if header[i] != new_header[i]]
        assert all(any(a <= i < b for a, b in changed) for i in differs)
        got, parsed, _ = bo.open_bytes(new, VAULT_ID, self.keyring)
        assert parsed["key_version"] == version
        ad = bo.wrap_ad(parsed["vault_id"], parsed["compartment_id"], version, parsed["bundle_id"])
        self.files[name] = new
        self.cases.append({"name": name, "type": "rewrap", "from": source, "key_version": version,
                           "compartment_key": h(compartment_key), "wrap_nonce": h(nonce), "wrap_ad": h(ad),
                           "wrapped_data_key": h(parsed["wrapped_data_key"]), "header": h(new_header),
                           "header_mac": h(new_header[-32:]), "changed_ranges": changed,
                           "file_size": len(new), "file_sha256": sha(new), "plaintext_sha256": sha(got)})

    def edited(self, name, source, edits, refused, forged=False):
        """A byte-level edit of a sealed bundle: edits are applied in order, each replacing `delete`
        bytes at `offset` with `insert`."""
        data = self.files[source]
        for edit in edits:
            offset, delete, insert = edit["offset"], edit["delete"], bytes.fromhex(edit["insert"])
            assert 0 <= offset <= len(data) and offset + delete <= len(data)
            data = data[:offset] + insert + data[offset + delete:]
        assert data != self.files[source] or not edits
        case = {"name": name, "type": "edited", "from": source, "edits": edits, "file_size": len(data),
                "file_sha256": sha(data), "forged": forged}
        self.check_opening(case, data, None, refused)
        case.update(refused)
        self.cases.append(case)


def replace(offset, delete, insert):
    return {"offset": offset, "delete": delete, "insert": h(insert)}


def flip_at(data, offset, mask=0x01):
    return replace(offset, 1, bytes([data[offset] ^ mask]))


def bundles_file():
    make = BundleMaker()
    corrupt = lambda reason, **extra: dict({"kind": "corrupt", "reason": reason}, **extra)  # noqa: E731
    truncated = lambda reason: {"kind": "truncated", "reason": reason}  # noqa: E731
    foreign = lambda reason: {"kind": "foreign", "reason": reason}  # noqa: E731

    # Valid bundles: chunk size 1024 and the default 65536, around the chunk boundaries.
    for chunk_size in (1024, 65536):
        for length in (0, 1, 1024, 1025, 3000):
            make.bundle("C%d L%d" % (chunk_size, length), "A", 3, chunk_size, length, seed=length % 251)
    make.bundle("C65536 L131172", "A", 3, 65536, 2 * 65536 + 100, seed=7)
    make.bundle("C16777216 L1 (the largest chunk size)", "A", 3, 16 << 20, 1, seed=12)
    for length in (0, 2048, 2500):
        make.bundle("C1024 L%d unknown length" % length, "A", 3, 1024, length, seed=length % 251 + 1,
                    unknown_length=True)
    make.bundle("C1024 L3000 second bundle", "A", 3, 1024, 3000, seed=99)
    make.bundle("C1024 L3000 version 2", "A", 2, 1024, 3000, seed=3)
    make.bundle("compartment B", "B", 1, 1024, 100, seed=4, metadata=("Contract draft.docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 1690000000))
    make.bundle("largest header (name 1024 bytes, type 255)", "B", 2, 1024, 1, seed=5,
                metadata=("é" * 512, "t" * 255, -1))
    make.bundle("empty name and type", "B", 3, 2048, 5000, seed=6, metadata=("", "", 0))
    make.rewrap("C1024 L3000 version 2 rewrapped to 3", "C1024 L3000 version 2", 3)

    # Sealed correctly, but this vault cannot open them.
    make.bundle("key version 1 (retired)", "A", 1, 1024, 10, seed=8, refused=foreign("inactive-key-version"))
    make.bundle("destroyed compartment C", "C", 1, 1024, 10, seed=9, refused=foreign("destroyed-compartment"))
    make.bundle("compartment not in this vault", "D", 1, 1024, 10, seed=10, refused=foreign("unknown-compartment"))
    make.bundle("another vault, same compartment uuid as A", "A", 3, 1024, 10, seed=11, vault="vault 2",
                refused=foreign("wrong-vault"))

    # Edits of "C1024 L3000": header H = 214 + m, chunks of 1040, 1040 and 968 sealed bytes.
    base = "C1024 L3000"
    data = make.files[base]
    sealed = make.sealed[base]
    H = len(sealed["header"])
    m = H - 214
    c0, c1, c2 = sealed["chunks"]
    other = make.sealed["C1024 L3000 second bundle"]
    header = bo.parse_header(data)
    edit = lambda name, edits, refused, forged=False: make.edited(name, base, edits, refused, forged)  # noqa: E731

    edit("magic: first byte changed", [flip_at(data, 0)], corrupt("header-structure"))
    edit("magic: CR LF turned into LF (text-mode transfer)", [replace(5, 2, b"\n")], corrupt("header-structure"))
    edit("format version 2", [replace(8, 2, (2).to_bytes(2, "big"))], corrupt("header-structure"))
    edit("header length field + 1", [replace(10, 2, (H + 1).to_bytes(2, "big"))], corrupt("header-structure"))
    edit("sealed metadata length + 1 (header length field now inconsistent)",
         [replace(148, 2, (m + 1).to_bytes(2, "big"))], corrupt("header-structure"))
    edit("sealed metadata length 15 (below the tag size)", [replace(148, 2, (15).to_bytes(2, "big"))],
         corrupt("header-structure"))
    edit("sealed metadata length 1308 (above the maximum)", [replace(148, 2, (1308).to_bytes(2, "big"))],
         corrupt("header-structure"))
    edit("key version 0", [replace(44, 4, bytes(4))], corrupt("header-structure"))
    edit("chunk size 1000 (not a power of two)", [replace(64, 4, (1000).to_bytes(4, "big"))], corrupt("header-structure"))
    edit("chunk size 512 (below 1 KiB)", [replace(64, 4, (512).to_bytes(4, "big"))], corrupt("header-structure"))
    edit("chunk size 32 MiB (above 16 MiB)", [replace(64, 4, (32 << 20).to_bytes(4, "big"))], corrupt("header-structure"))
    edit("plaintext length 2^50 + 1", [replace(68, 8, ((1 << 50) + 1).to_bytes(8, "big"))], corrupt("header-structure"))
    edit("chunk size 2048 (valid value, MAC fails)", [replace(64, 4, (2048).to_bytes(4, "big"))], corrupt("mac"))
    edit("plaintext length 2999 (MAC fails)", [replace(68, 8, (2999).to_bytes(8, "big"))], corrupt("mac"))
    edit("plaintext length set to unknown (MAC fails)", [replace(68, 8, b"\xff" * 8)], corrupt("mac"))
    edit("sealed metadata byte changed (the MAC is checked before the metadata)", [flip_at(data, 150 + 3)],
         corrupt("mac"))
    edit("header MAC byte changed", [flip_at(data, H - 1)], corrupt("mac"))
    edit("key commitment byte changed", [flip_at(data, 150 + m)], corrupt("commitment"))
    edit("vault id changed", [flip_at(data, 12)], foreign("wrong-vault"))
    edit("moved to compartment B (exists, has version 3)", [replace(28, 16, BUNDLE_COMPARTMENTS["B"]["uuid"])],
         corrupt("unwrap"))
    edit("moved to compartment C (destroyed)", [replace(28, 16, BUNDLE_COMPARTMENTS["C"]["uuid"])],
         foreign("destroyed-compartment"))
    edit("moved to a compartment this vault does not have", [replace(28, 16, UNKNOWN_COMPARTMENT)],
         foreign("unknown-compartment"))
    edit("key version 3 -> 2 (active: unwrap fails)", [replace(44, 4, (2).to_bytes(4, "big"))], corrupt("unwrap"))
    edit("key version 3 -> 1 (retired)", [replace(44, 4, (1).to_bytes(4, "big"))], foreign("inactive-key-version"))
    edit("key version 3 -> 4 (does not exist)", [replace(44, 4, (4).to_bytes(4, "big"))], foreign("inactive-key-version"))
    edit("bundle id changed", [flip_at(data, 48)], corrupt("unwrap"))
    edit("wrap nonce changed", [flip_at(data, 76)], corrupt("unwrap"))
    edit("wrapped data key: ciphertext byte changed", [flip_at(data, 100)], corrupt("unwrap"))
    edit("wrapped data key: tag byte changed", [flip_at(data, 147)], corrupt("unwrap"))
    edit("header of another bundle of the same size (splice)", [replace(0, H, other["header"])], corrupt("chunk", chunk=0))
    edit("header cut: file of 0 bytes", [replace(0, len(data), b"")], truncated("header-truncated"))
    edit("header cut: file of 5 bytes", [replace(5, len(data) - 5, b"")], truncated("header-truncated"))
    edit("header cut: file of 100 bytes", [replace(100, len(data) - 100, b"")], truncated("header-truncated"))
    edit("header cut: one byte short of the header", [replace(H - 1, len(data) - H + 1, b"")],
         truncated("header-truncated"))
    edit("header only, no chunk", [replace(H, len(data) - H, b"")], truncated("truncated"))
    # Payload edits.
    edit("chunk 0: ciphertext byte changed", [flip_at(data, H + 10)], corrupt("chunk", chunk=0))
    edit("chunk 1: tag byte changed", [flip_at(data, H + 2 * 1040 - 1)], corrupt("chunk", chunk=1))
    edit("chunk 2 (final): last byte changed", [flip_at(data, len(data) - 1)], corrupt("chunk", chunk=2))
    edit("chunks 0 and 1 swapped (reorder)", [replace(H, 2080, c1 + c0)], corrupt("chunk", chunk=0))
    edit("chunk 0 duplicated over chunk 1", [replace(H + 1040, 1040, c0)], corrupt("chunk", chunk=1))
    edit("chunk 0 of another bundle (splice)", [replace(H, 1040, other["chunks"][0])], corrupt("chunk", chunk=0))
    edit("middle chunk dropped", [replace(H + 1040, 1040, b"")], truncated("truncated"))
    edit("truncated at a chunk boundary (final chunk dropped)", [replace(H + 2080, len(c2), b"")], truncated("truncated"))
    edit("truncated mid-chunk (100 bytes cut)", [replace(len(data) - 100, 100, b"")], truncated("truncated"))
    edit("truncated by one byte", [replace(len(data) - 1, 1, b"")], truncated("truncated"))
    edit("trailing data: one zero byte appended", [replace(len(data), 0, b"\x00")], truncated("trailing-data"))
    edit("two final chunks (the final chunk appended again)", [replace(len(data), 0, c2)], truncated("trailing-data"))

    # Forged by someone holding the data key: the header MAC is recomputed, so the checks after it run.
    keys = sealed["keys"]

    def forged_header(**overrides):
        fields = dict(vault_id=header["vault_id"], compartment_id=header["compartment_id"],
                      key_version=header["key_version"], bundle_id=header["bundle_id"], chunk_size=header["chunk_size"],
                      plaintext_length=header["plaintext_length"], wrap_nonce=header["wrap_nonce"],
                      wrapped_data_key=header["wrapped_data_key"], sealed_metadata=header["sealed_metadata"],
                      key_commitment=header["key_commitment"])
        fields.update(overrides)
        prefix = bo.header_prefix(**fields)
        return prefix + bo.header_mac(keys["header_key"], prefix)

    def forge(name, refused, **overrides):
        edit(name, [replace(0, H, forged_header(**overrides))], refused, forged=True)

    bad_tag = bytearray(header["sealed_metadata"])
    bad_tag[-1] ^= 1
    forge("forged: sealed metadata tag changed, MAC recomputed", corrupt("metadata"), sealed_metadata=bytes(bad_tag))
    encoded = sealed["encoded_metadata"]
    forge("forged: metadata with a byte after the time, sealed and MACed", corrupt("metadata"),
          sealed_metadata=bo.seal_metadata(keys["metadata_key"], encoded + b"\x00"))
    forge("forged: metadata name not UTF-8, sealed and MACed", corrupt("metadata"),
          sealed_metadata=bo.seal_metadata(keys["metadata_key"], b"\x00\x01\xff\x00\x00" + bytes(8)))
    forge("forged: metadata of 12 zero bytes less one (11 bytes, sealed m = 27)", corrupt("metadata"),
          sealed_metadata=bo.seal_metadata(keys["metadata_key"], bytes(11)))
    forge("forged: commitment changed, MAC recomputed", corrupt("commitment"),
          key_commitment=flip(keys["key_commitment"]))
    forge("forged: plaintext length 2999, MAC recomputed", truncated("trailing-data"), plaintext_length=2999)
    forge("forged: plaintext length 3001, MAC recomputed", truncated("truncated"), plaintext_length=3001)
    forge("forged: chunk size 2048, MAC recomputed", truncated("trailing-data"), chunk_size=2048)

    # Edits of the unknown-length "C1024 L2500": chunks of 1040, 1040 and 468 sealed bytes.
    ubase = "C1024 L2500 unknown length"
    udata = make.files[ubase]
    usealed = make.sealed[ubase]
    UH = len(usealed["header"])
    u0, u1, u2 = usealed["chunks"]
    uedit = lambda name, edits, refused: make.edited(name, ubase, edits, refused)  # noqa: E731
    uedit("unknown length: final chunk dropped (cut at a chunk boundary)", [replace(UH + 2080, len(u2), b"")],
          corrupt("chunk", chunk=1))
    uedit("unknown length: cut inside the final chunk (100 bytes)", [replace(len(udata) - 100, 100, b"")],
          corrupt("chunk", chunk=2))
    uedit("unknown length: 10 bytes of the final chunk left", [replace(UH + 2090, len(udata) - UH - 2090, b"")],
          truncated("truncated"))
    uedit("unknown length: exactly 16 bytes of the final chunk left", [replace(UH + 2096, len(udata) - UH - 2096, b"")],
          truncated("truncated"))
    uedit("unknown length: 10 payload bytes (no final chunk)", [replace(UH + 10, len(udata) - UH - 10, b"")],
          truncated("truncated"))
    uedit("unknown length: header only", [replace(UH, len(udata) - UH, b"")], truncated("truncated"))
    uedit("unknown length: two final chunks", [replace(len(udata), 0, u2)], corrupt("chunk", chunk=2))
    uedit("unknown length: chunks 0 and 1 swapped", [replace(UH, 2080, u1 + u0)], corrupt("chunk", chunk=0))
    uedit("unknown length: middle chunk dropped", [replace(UH + 1040, 1040, b"")], corrupt("chunk", chunk=1))
    uedit("unknown length: one byte appended", [replace(len(udata), 0, b"\x00")], corrupt("chunk", chunk=2))
    uedit("unknown length: chunk 0 appended after the final chunk", [replace(len(udata), 0, u0)],
          corrupt("chunk", chunk=2))
    uedit("unknown length: plaintext length set to 2500 (MAC fails)", [replace(68, 8, (2500).to_bytes(8, "big"))],
          corrupt("mac"))
    e0 = "C1024 L0 unknown length"
    make.edited("unknown length, empty: the empty final chunk appended again (read as one 16-byte chunk)",
                e0, [replace(len(make.files[e0]), 0, make.sealed[e0]["chunks"][0])], corrupt("chunk", chunk=0))
    f2 = "C1024 L2048 unknown length"
    make.edited("unknown length, two full chunks: 16 bytes appended (an empty chunk after others)",
                f2, [replace(len(make.files[f2]), 0, make.sealed[e0]["chunks"][0])], truncated("truncated"))
    k0 = "C1024 L0"
    make.edited("known length 0: 16 bytes appended", k0, [replace(len(make.files[k0]), 0, bytes(16))],
                truncated("trailing-data"))
    vb = "another vault, same compartment uuid as A"
    make.edited("another vault's bundle with its vault id rewritten to this vault", vb,
                [replace(12, 16, VAULT_ID)], corrupt("unwrap"))
    make.edited("known length: header of the unknown-length twin (other bundle, other keys)", "C1024 L2500 unknown length",
                [replace(0, UH, make.sealed["C1024 L3000 second bundle"]["header"])], truncated("truncated"))
    return {"description": "EncryptedBundle files, all in one vault (vault): valid bundles with every derived value, "
                           "their header and chunks (file hex when small, else SHA-256); bundles this vault must refuse "
                           "(opens false); a rewrap; and byte-level edits of valid bundles (edited), each with the "
                           "refusal an opener following SECURITY.md §6.6 must give: kind (corrupt, truncated, foreign), "
                           "reason and, for a chunk, its index.",
            "spec": "SECURITY.md §6", "vault": bundle_vault_description(), "cases": make.cases}


BUNDLE_FILES = {
    "keys.json": bundle_keys_file,
    "metadata.json": bundle_metadata_file,
    "bundles.json": bundles_file,
}


# ---------------------------------------------------------------------------------------------
# The audit log (SECURITY.md §8)
# ---------------------------------------------------------------------------------------------

AUDIT_ORIGIN = av.origin_of(VAULT_ID)
AUDIT_DEVICE_ID = fixed("audit device id", 16)
AUDIT_T0 = 1767225600  # 2026-01-01T00:00:00Z
AUDIT_COMPARTMENT = fixed("audit compartment uuid", 16)
AUDIT_BUNDLE = fixed("audit bundle id", 16)
AUDIT_SLOT = fixed("passphrase slot 1 uuid", 16)
AUDIT_EPOCHS = 6  # epochs 0 (genesis) to 5 (current)
AUDIT_SEEDS = [fixed("audit epoch %d seed" % epoch, 32) for epoch in range(AUDIT_EPOCHS)]
ALICE = "alice (uid 1000)"


def ed25519_public(seed):
    from nacl.signing import SigningKey
    return SigningKey(seed).verify_key.encode()


def ed25519_sign(seed, message):
    from nacl.signing import SigningKey
    return SigningKey(seed).sign(message).signature


def sign_note(text, seed, name=AUDIT_ORIGIN):
    """A signed note of `text` (bytes) by the Ed25519 key of `seed` under key name `name`."""
    public = ed25519_public(seed)
    return text + b"\n" + av.note_signature_line(name, av.key_id(name, av.TYPE_ED25519, public), ed25519_sign(seed, text))


def vkey_of(seed, name=AUDIT_ORIGIN):
    return av.VerifierKey(name, ed25519_public(seed)).vkey


# The log: eight entries of five commands, each command ending in a checkpoint and a new epoch.
#   init                      -> entry 0                          checkpoint of epoch 0 at size 1
#   compartment create        -> entries 1 (unlock), 2 (create)   checkpoint of epoch 1 at size 3
#   put                       -> entries 3 (unlock), 4 (put)      checkpoint of epoch 2 at size 5
#   a failed unlock           -> entry 5                          checkpoint of epoch 3 at size 6
#   get                       -> entries 6 (unlock), 7 (get)      checkpoint of epoch 4 at size 8
# Epoch 5 is current (its seed would be the one in the database); it has signed nothing.
AUDIT_LOG_EVENTS = [
    dict(time=AUDIT_T0, actor=ALICE, action="vault.init"),
    dict(time=AUDIT_T0 + 30, actor=ALICE, action="vault.unlock", subject=AUDIT_SLOT),
    dict(time=AUDIT_T0 + 31, actor=ALICE, action="compartment.create", compartment=AUDIT_COMPARTMENT,
         details=[("register", "legal"), ("name", "Müller v. Müller – 患者 田中")]),
    dict(time=AUDIT_T0 + 90, actor=ALICE, action="vault.unlock", subject=AUDIT_SLOT),
    dict(time=AUDIT_T0 + 92, actor=ALICE, action="bundle.put", compartment=AUDIT_COMPARTMENT, subject=AUDIT_BUNDLE,
         details=[("file", "Befund 2026-01 (Müller).pdf")]),
    dict(time=AUDIT_T0 + 3600, actor="mallory (uid 1001)", action="vault.unlock-failed"),
    dict(time=AUDIT_T0 + 3660, actor=ALICE, action="vault.unlock", subject=AUDIT_SLOT),
    dict(time=AUDIT_T0 + 3661, actor=ALICE, action="bundle.get", compartment=AUDIT_COMPARTMENT, subject=AUDIT_BUNDLE),
]
AUDIT_CHECKPOINT_SIZES = [1, 3, 5, 6, 8]  # checkpoint of epoch i at AUDIT_CHECKPOINT_SIZES[i]


def audit_entry_fields(seq, previous_hash, event, vault_id=VAULT_ID, master_key=MASTER_KEY, nonce_label="log"):
    """The entry fields of an event (details sealed with a fixed nonce), as av.encode_entry takes them."""
    details = [(n.encode(), v.encode("utf-8")) for n, v in event.get("details", [])]
    hashes, sealed, nonce = [], b"", None
    if details:
        sealing_key, hashing_key = av.audit_keys(master_key, vault_id)
        ordered = av.sorted_details(details)
        hashes = [(n, av.detail_hash(hashing_key, n, v)) for n, v in ordered]
        nonce = fixed("audit details nonce %s %d" % (nonce_label, seq), 24)
        sealed = av.seal_details(sealing_key, nonce, ordered, vault_id, seq)
    return {"seq": seq, "time": event["time"], "device_id": event.get("device_id", AUDIT_DEVICE_ID),
            "actor": event["actor"].encode("utf-8") if isinstance(event["actor"], str) else event["actor"],
            "action": event["action"].encode("ascii"), "compartment_id": event.get("compartment", b""),
            "subject_id": event.get("subject", b""), "detail_hashes": hashes, "sealed_details": sealed,
            "previous_hash": previous_hash, "_details": details, "_nonce": nonce}


def audit_log_entries():
    """The encoded entries of the log, chained."""
    entries, previous = [], bytes(32)
    for seq, event in enumerate(AUDIT_LOG_EVENTS):
        fields = audit_entry_fields(seq, previous, event)
        encoded = av.encode_entry(fields)
        entries.append((fields, encoded))
        previous = av.leaf_hash(encoded)
    return entries


def entry_json(name, fields, encoded, kind="entry", **extra):
    case = {"name": name, "type": kind}
    case.update(extra)
    case.update({
        "seq": fields["seq"], "time": fields["time"], "device_id": h(fields["device_id"]),
        "actor_utf8": h(fields["actor"]), "action": fields["action"].decode("ascii"),
        "compartment_id": h(fields["compartment_id"]), "subject_id": h(fields["subject_id"]),
        "detail_hashes": [{"name": n.decode("ascii"), "hash": h(d)} for n, d in fields["detail_hashes"]],
        "sealed_details": h(fields["sealed_details"]), "previous_hash": h(fields["previous_hash"]),
        "encoded": h(encoded), "encoded_size": len(encoded), "leaf_hash": h(av.leaf_hash(encoded)),
    })
    if av.is_utf8(fields["actor"]):
        case["actor"] = fields["actor"].decode("utf-8")
    if fields.get("_details"):
        case["details"] = [{"name": n.decode(), "value": v.decode("utf-8")} for n, v in fields["_details"]]
        case["details_nonce"] = h(fields["_nonce"])
    assert av.decode_entry(encoded) == {k: v for k, v in fields.items() if not k.startswith("_")}
    return case


def audit_entries_file():
    cases = []
    for fields, encoded in audit_log_entries():
        cases.append(entry_json("log entry %d: %s" % (fields["seq"], fields["action"].decode()), fields, encoded, kind="log"))

    def standalone(name, written=True, **event):
        seq = event.pop("seq")
        previous = event.pop("previous", fixed("audit previous hash " + name, 32))
        fields = audit_entry_fields(seq, previous, event, nonce_label="standalone")
        for key in ("detail_hashes", "sealed_details"):
            if key in event:
                fields[key] = event[key]
        encoded = av.encode_entry(fields)
        cases.append(entry_json(name, fields, encoded, written_by_vaultctl=written))
        return encoded

    standalone("every field at its largest (seq 2^64-1, time 2^63-1, 255-byte actor, 64-byte action and subject)",
               seq=(1 << 64) - 1, time=(1 << 63) - 1, actor="ü" * 127 + "a", action="a.b-c0123456789" + "x" * 49,
               compartment=b"\xff" * 16, subject=b"\xee" * 64, previous=b"\xff" * 32)
    standalone("every field at its smallest (seq 0, time -2^63, empty actor, one-byte action)",
               seq=0, time=-(1 << 63), actor="", action="a", previous=bytes(32))
    standalone("time -1 (before 1970), a keyslot uuid as subject", seq=7, time=-1, actor=ALICE, action="keyslot.passwd",
               subject=fixed("audit other slot", 16))
    standalone("three details, given out of order, sealed and hashed in name order", seq=42, time=AUDIT_T0 + 42,
               actor=ALICE, action="bundle.seal", compartment=AUDIT_COMPARTMENT, subject=fixed("audit seal bundle", 16),
               details=[("register", "healthcare"), ("file", "x-ray 2026.dcm"), ("name", "Patient 0042")])
    standalone("decoder-accepted, never written by vaultctl: an empty action", written=False, seq=3, time=AUDIT_T0,
               actor=ALICE, action="")
    standalone("decoder-accepted, never written by vaultctl: detail hashes without sealed details, names unsorted",
               written=False, seq=4, time=AUDIT_T0, actor=ALICE, action="x",
               detail_hashes=[(b"zz", b"\x01" * 32), (b"", b"\x02" * 32), (b"zz", b"\x03" * 32)], sealed_details=b"")
    overhead = len(av.encode_entry(dict(audit_entry_fields(5, bytes(32), dict(time=AUDIT_T0, actor=ALICE, action="big")))))
    big = standalone("exactly 65536 bytes (the largest entry)", written=False, seq=5, time=AUDIT_T0, actor=ALICE,
                     action="big", sealed_details=b"\x5a" * (65536 - overhead), detail_hashes=[])
    assert len(big) == 65536, len(big)

    base_fields = audit_log_entries()[2][0]
    base = av.encode_entry(base_fields)

    def reject(name, data):
        try:
            av.decode_entry(data)
        except av.Malformed:
            cases.append({"name": name, "type": "reject-decode", "encoded": h(data), "reason": "malformed-entry"})
            return
        raise AssertionError("accepted: " + name)

    def with_fields(**changes):
        fields = dict(base_fields)
        fields.update(changes)
        return av.encode_entry(fields)

    reject("empty", b"")
    reject("version 0", b"\x00" + base[1:])
    reject("version 2", b"\x02" + base[1:])
    reject("one byte over 65536", big + b"\x00")
    reject("the last byte cut off", base[:-1])
    reject("cut inside the device id", base[:20])
    reject("one byte after the previous hash", base + b"\x00")
    reject("a compartment id of 15 bytes", with_fields(compartment_id=AUDIT_COMPARTMENT[:15]))
    reject("a compartment id of 32 bytes", with_fields(compartment_id=AUDIT_COMPARTMENT * 2))
    reject("a subject id of 65 bytes", with_fields(subject_id=b"\x01" * 65))
    reject("an action of 65 bytes", with_fields(action=b"a" * 65))
    reject("an action with an uppercase letter", with_fields(action=b"Compartment.create"))
    reject("an action with an underscore", with_fields(action=b"compartment_create"))
    reject("an action with a space", with_fields(action=b"compartment create"))
    reject("an actor that is not UTF-8 (0xff)", with_fields(actor=b"alice \xff"))
    reject("an actor with an overlong encoding of '/' (c0 af)", with_fields(actor=b"alice \xc0\xaf"))
    reject("an actor with a UTF-16 surrogate (ed a0 80)", with_fields(actor=b"alice \xed\xa0\x80"))
    reject("an actor cut inside a character", with_fields(actor="Müller".encode()[:2]))
    reject("a detail name with a dot", with_fields(detail_hashes=[(b"file.name", b"\x00" * 32)]))
    reject("a detail name of 33 bytes", with_fields(detail_hashes=[(b"n" * 33, b"\x00" * 32)]))
    reject("a detail name with an uppercase letter", with_fields(detail_hashes=[(b"Name", b"\x00" * 32)]))
    reject("sealed details of 39 bytes", with_fields(sealed_details=base_fields["sealed_details"][:39]))
    reject("sealed details of 1 byte", with_fields(sealed_details=b"\x00"))
    length_at = len(base) - 32 - len(base_fields["sealed_details"]) - 4
    reject("a sealed-details length beyond the end", base[:length_at] + (0xFFFFFFFF).to_bytes(4, "big") + base[length_at + 4:])
    reject("a detail count one too high", _bump_detail_count(base, base_fields))
    return {"description": "Audit entries: fields, their canonical encoding (§8.2) and leaf hash SHA-256(0x00 || "
                           "encoding) (§8.4). Cases of type log are the eight chained entries of the log that "
                           "merkle.json, notes.json and exports.json use (entry i's previous_hash is entry i-1's "
                           "leaf_hash); type entry are standalone encodings (written_by_vaultctl false: accepted by "
                           "a decoder, never written); type reject-decode are bytes a decoder must refuse as a "
                           "malformed entry.",
            "spec": "SECURITY.md §8.2", "cases": cases}


def _bump_detail_count(encoded, fields):
    offset = 1 + 8 + 8 + 16
    for field in ("actor", "action", "compartment_id", "subject_id"):
        offset += 1 + len(fields[field])
    data = bytearray(encoded)
    data[offset] += 1
    return bytes(data)


def audit_details_file():
    cases = []
    for label, master_key, vault_id in (("vault 1", MASTER_KEY, VAULT_ID), ("vault 2", MASTER_KEY_2, VAULT_ID_2)):
        output = av.hkdf_sha256(master_key, vault_id, av.AUDIT_KEYS_INFO, 64)
        sealing_key, hashing_key = av.audit_keys(master_key, vault_id)
        assert output == sealing_key + hashing_key
        cases.append({"name": "audit keys of %s" % label, "type": "keys", "master_key": h(master_key),
                      "vault_id": h(vault_id), "hkdf_info": h(av.AUDIT_KEYS_INFO), "hkdf_output": h(output),
                      "sealing_key": h(sealing_key), "hashing_key": h(hashing_key)})

    def seal_case(name, details, seq, vault_id=VAULT_ID, master_key=MASTER_KEY):
        sealing_key, hashing_key = av.audit_keys(master_key, vault_id)
        raw = [(n.encode(), v.encode("utf-8")) for n, v in details]
        ordered = av.sorted_details(raw)
        nonce = fixed("audit details case " + name, 24)
        plaintext = av.encode_details(ordered)
        ad = av.details_ad(vault_id, seq)
        sealed = av.seal_details(sealing_key, nonce, ordered, vault_id, seq)
        assert av.open_details(sealing_key, sealed, vault_id, seq) == ordered
        tampered = [
            ("seq + 1 in the AD (moved to the next entry)", av.details_ad(vault_id, seq + 1), sealed)
            if seq < (1 << 64) - 1 else ("seq - 1 in the AD (moved to the entry before)", av.details_ad(vault_id, seq - 1), sealed),
            ("another vault id in the AD", av.details_ad(flip(vault_id), seq), sealed),
            ("the tag's last byte flipped", ad, flip(sealed, len(sealed) - 1)),
            ("the nonce's first byte flipped", ad, flip(sealed, 0)),
        ]
        must_not_open = []
        for change, bad_ad, bad_sealed in tampered:
            assert av.xchacha_decrypt(sealing_key, bad_sealed[:24], bad_sealed[24:], bad_ad) is None
            must_not_open.append({"change": change, "ad": h(bad_ad), "sealed_details": h(bad_sealed)})
        cases.append({
            "name": name, "type": "seal", "vault_id": h(vault_id), "seq": seq,
            "sealing_key": h(sealing_key), "hashing_key": h(hashing_key),
            "details": [{"name": n, "value": v, "value_utf8": h(v.encode("utf-8"))} for n, v in details],
            "sorted_names": [n.decode() for n, _ in ordered],
            "detail_hashes": [{"name": n.decode(), "hash": h(av.detail_hash(hashing_key, n, v))} for n, v in ordered],
            "plaintext": h(plaintext), "ad": h(ad), "nonce": h(nonce), "sealed_details": h(sealed),
            "must_not_open": must_not_open})

    seal_case("compartment.create: name and register, given register first", [("register", "legal"),
              ("name", "Müller v. Müller – 患者 田中")], 2)
    seal_case("bundle.put: a file name", [("file", "Befund 2026-01 (Müller).pdf")], 4)
    seal_case("one empty value", [("file", "")], 0)
    seal_case("seq 2^64-1", [("name", "Café")], (1 << 64) - 1)
    seal_case("a 4096-byte value and names sorting by bytes ('-' < '0' < '_' < 'a')",
              [("a", "x" * 4096), ("_z", "u"), ("0", "digit"), ("-", "dash")], 9)
    seal_case("another vault", [("name", "Müller v. Müller – 患者 田中")], 2, VAULT_ID_2, MASTER_KEY_2)

    _, hashing_key = av.audit_keys(MASTER_KEY, VAULT_ID)
    for name, value in (("register", "legal"), ("register", "healthcare"), ("name", "Caf\u00e9"), ("name", "Cafe\u0301"),
                        ("file", ""), ("name", "a\u0000b")):
        message = name.encode() + b"\x00" + value.encode("utf-8")
        cases.append({"name": "hash of %s = %r" % (name, value), "type": "hash", "hashing_key": h(hashing_key),
                      "field": name, "value": value, "value_utf8": h(value.encode("utf-8")), "message": h(message),
                      "hash": h(av.detail_hash(hashing_key, name.encode(), value.encode("utf-8")))})
    return {"description": "Audit details (§8.3): the audit keys HKDF(MK, salt = vault_id, \"vaultctl audit keys v1\", "
                           "64) = sealing key || hashing key; sealed details = nonce || XChaCha20-Poly1305(sealing "
                           "key, nonce, plaintext, AD = \"vaultctl audit details v1\" || vault_id || u64be(seq)) over "
                           "the details sorted by name; detail hash = HMAC-SHA-256(hashing key, name || 0x00 || "
                           "value). Every must_not_open (ad, sealed_details) must fail to open.",
            "spec": "SECURITY.md §8.3", "cases": cases}


def audit_merkle_file():
    leaves = [av.leaf_hash(encoded) for _, encoded in audit_log_entries()]
    b = av.b64encode
    cases = [{"name": "root of size 0", "type": "root", "size": 0, "root": h(av.EMPTY_ROOT), "root_base64": b(av.EMPTY_ROOT)}]
    for size in range(1, 9):
        root = av.mth(leaves[:size])
        assert root == _frontier_root(leaves[:size])
        cases.append({"name": "root of size %d" % size, "type": "root", "size": size, "root": h(root), "root_base64": b(root)})
    for size in range(1, 9):
        root = av.mth(leaves[:size])
        for index in range(size):
            proof = av.inclusion_path(index, leaves[:size])
            assert av.verify_inclusion(leaves[index], index, size, proof, root) is None
            cases.append({"name": "inclusion of %d in %d" % (index, size), "type": "inclusion", "index": index,
                          "size": size, "leaf_hash": h(leaves[index]), "root": h(root), "proof": [h(p) for p in proof]})
    for size2 in range(0, 9):
        for size1 in range(0, size2 + 1):
            root1, root2 = av.mth(leaves[:size1]), av.mth(leaves[:size2])
            proof = av.consistency_proof(size1, leaves[:size2])
            assert av.verify_consistency(size1, size2, root1, root2, proof) is None
            cases.append({"name": "consistency of %d with %d" % (size1, size2), "type": "consistency", "size1": size1,
                          "size2": size2, "root1": h(root1), "root2": h(root2), "proof": [h(p) for p in proof]})

    def reject_inclusion(name, index, size, proof, root, reason, leaf=None):
        leaf = leaves[index] if leaf is None else leaf
        assert av.verify_inclusion(leaf, index, size, proof, root) == reason, name
        cases.append({"name": name, "type": "reject-inclusion", "index": index, "size": size, "leaf_hash": h(leaf),
                      "root": h(root), "proof": [h(p) for p in proof], "reason": reason})

    def reject_consistency(name, size1, size2, root1, root2, proof, reason):
        assert av.verify_consistency(size1, size2, root1, root2, proof) == reason, name
        cases.append({"name": name, "type": "reject-consistency", "size1": size1, "size2": size2, "root1": h(root1),
                      "root2": h(root2), "proof": [h(p) for p in proof], "reason": reason})

    r = lambda n: av.mth(leaves[:n])  # noqa: E731
    p5 = av.inclusion_path(2, leaves[:5])
    reject_inclusion("index equal to the size", 5, 5, [], r(5), "index", leaf=leaves[5])
    reject_inclusion("a proof with one hash too many", 2, 5, p5 + [leaves[0]], r(5), "length")
    reject_inclusion("a proof with one hash too few", 2, 5, p5[:-1], r(5), "length")
    reject_inclusion("a non-empty proof for a tree of one leaf", 0, 1, [leaves[1]], r(1), "length")
    reject_inclusion("the right proof, the wrong index", 3, 5, p5, r(5), "root", leaf=leaves[2])
    reject_inclusion("the right proof, the root of another size", 2, 5, p5, r(6), "root")
    reject_inclusion("a proof hash altered", 2, 5, [flip(p5[0])] + p5[1:], r(5), "root")
    c37 = av.consistency_proof(3, leaves[:7])
    reject_consistency("size1 above size2", 5, 4, r(5), r(4), [], "size")
    reject_consistency("size1 0 with a non-empty proof", 0, 4, av.EMPTY_ROOT, r(4), [leaves[0]], "length")
    reject_consistency("size1 0 with root1 not the empty root", 0, 4, r(1), r(4), [], "root")
    reject_consistency("size1 = size2 = 0 with root2 not the empty root", 0, 0, av.EMPTY_ROOT, r(1), [], "root")
    reject_consistency("equal sizes, different roots", 4, 4, r(4), r(5), [], "root")
    reject_consistency("equal sizes with a non-empty proof", 4, 4, r(4), r(4), [leaves[0]], "length")
    reject_consistency("an empty proof for 3 to 7", 3, 7, r(3), r(7), [], "length")
    reject_consistency("a proof with one hash too many", 3, 7, r(3), r(7), c37 + [leaves[0]], "length")
    reject_consistency("a proof with one hash too few", 3, 7, r(3), r(7), c37[:-1], "length")
    reject_consistency("a forked second tree (root2 of another log)", 3, 7, r(3), flip(r(7)), c37, "root")
    reject_consistency("a proof hash altered", 3, 7, r(3), r(7), [flip(c37[0])] + c37[1:], "root")
    return {"description": "The RFC 9162 tree of the eight log entries of entries.json (leaves = their leaf hashes): "
                           "MTH at every size 0-8, every inclusion proof PATH(index, size), every consistency proof "
                           "PROOF(size1, size2) with 0 <= size1 <= size2 <= 8 (empty for size1 = 0 and size1 = size2, "
                           "§8.9), and proofs a verifier must refuse, with the reason: index (index >= size), size "
                           "(size1 > size2), length (more or fewer hashes than the tree shape needs), root (the "
                           "hashes lead elsewhere).",
            "spec": "SECURITY.md §8.4, §8.9", "leaves": [h(x) for x in leaves], "cases": cases}


def _frontier_root(leaves):
    frontier = av.Frontier()
    for leaf in leaves:
        frontier.append(leaf)
    return frontier.root()


class AuditLog:
    """The log's key chain, checkpoints and entries, as the vault would have made them."""

    def __init__(self):
        self.entries = [encoded for _, encoded in audit_log_entries()]
        self.leaves = [av.leaf_hash(e) for e in self.entries]
        self.public = [ed25519_public(seed) for seed in AUDIT_SEEDS]
        self.checkpoint_notes, self.introductions = [], [None]
        for epoch, size in enumerate(AUDIT_CHECKPOINT_SIZES):
            root = av.mth(self.leaves[:size])
            self.checkpoint_notes.append(sign_note(av.checkpoint_body(AUDIT_ORIGIN, size, root), AUDIT_SEEDS[epoch]))
            text = av.transition_text(AUDIT_ORIGIN, epoch + 1, self.public[epoch + 1], size, root)
            self.introductions.append(sign_note(text, AUDIT_SEEDS[epoch]))
        self.genesis_vkey = vkey_of(AUDIT_SEEDS[0])

    def parts(self):
        keys = [(epoch, self.public[epoch], self.introductions[epoch]) for epoch in range(AUDIT_EPOCHS)]
        checkpoints = list(enumerate(self.checkpoint_notes))
        return [list(keys), list(checkpoints), list(self.entries)]

    def root(self, size):
        return av.mth(self.leaves[:size])


def audit_notes_file():
    log = AuditLog()
    cases = []
    for epoch, seed in enumerate(AUDIT_SEEDS):
        public = log.public[epoch]
        cases.append({"name": "key of epoch %d" % epoch, "type": "key", "epoch": epoch, "key_name": AUDIT_ORIGIN,
                      "seed": h(seed), "public_key": h(public),
                      "key_id_input": h(AUDIT_ORIGIN.encode() + b"\x0a\x01" + public),
                      "key_id": "%08x" % av.key_id(AUDIT_ORIGIN, av.TYPE_ED25519, public), "vkey": vkey_of(seed)})
    for epoch, size in enumerate(AUDIT_CHECKPOINT_SIZES):
        root = log.root(size)
        body = av.checkpoint_body(AUDIT_ORIGIN, size, root)
        signature = ed25519_sign(AUDIT_SEEDS[epoch], body)
        note = log.checkpoint_notes[epoch]
        assert av.verify_note(note, av.VerifierKey.parse(vkey_of(AUDIT_SEEDS[epoch]))) == body
        cases.append({"name": "checkpoint of epoch %d at size %d" % (epoch, size), "type": "checkpoint", "epoch": epoch,
                      "vkey": vkey_of(AUDIT_SEEDS[epoch]), "origin": AUDIT_ORIGIN, "size": size, "root": h(root),
                      "body": body.decode(), "signature": h(signature), "note": note.decode()})
        text = av.transition_text(AUDIT_ORIGIN, epoch + 1, log.public[epoch + 1], size, root)
        introduction = log.introductions[epoch + 1]
        assert av.parse_transition(av.verify_note(introduction, av.VerifierKey.parse(vkey_of(AUDIT_SEEDS[epoch])))) == (
            AUDIT_ORIGIN, epoch + 1, log.public[epoch + 1], size, root)
        cases.append({"name": "transition from epoch %d to %d after size %d" % (epoch, epoch + 1, size),
                      "type": "transition", "epoch": epoch + 1, "vkey": vkey_of(AUDIT_SEEDS[epoch]),
                      "origin": AUDIT_ORIGIN, "public_key": h(log.public[epoch + 1]), "after_size": size,
                      "after_root": h(root), "text": text.decode(),
                      "signature": h(ed25519_sign(AUDIT_SEEDS[epoch], text)), "note": introduction.decode()})

    # A witness cosignature (§8.10) on the last checkpoint.
    witness_name, witness_seed, timestamp = "witness.example/w1", fixed("audit witness seed", 32), 1767229262
    witness = av.VerifierKey(witness_name, ed25519_public(witness_seed), av.TYPE_COSIGNATURE)
    last = log.checkpoint_notes[-1]
    body = av.parse_note(last)[0]
    message = av.cosignature_message(timestamp, body)
    line = av.note_signature_line(witness_name, witness.key_id, u64(timestamp) + ed25519_sign(witness_seed, message))
    cosigned = last + line
    assert av.verify_cosignature(cosigned, witness) == timestamp
    assert av.verify_note(cosigned, av.VerifierKey.parse(vkey_of(AUDIT_SEEDS[4]))) == body
    cases.append({"name": "a witness cosignature (cosignature/v1) on the checkpoint of epoch 4", "type": "cosignature",
                  "witness_name": witness_name, "witness_seed": h(witness_seed),
                  "witness_public_key": h(witness.public_key), "witness_key_id": "%08x" % witness.key_id,
                  "witness_vkey": witness.vkey, "log_vkey": vkey_of(AUDIT_SEEDS[4]), "timestamp": timestamp,
                  "message": h(message), "cosignature_line": line.decode(), "note": cosigned.decode()})

    def reject(name, note, vkey, reason):
        key = av.VerifierKey.parse(vkey)
        try:
            av.verify_note(note, key)
        except av.Malformed:
            cases.append({"name": name, "type": "reject-note", "note": note.decode("utf-8"), "vkey": vkey,
                          "reason": reason})
            return
        raise AssertionError(name)

    note0 = log.checkpoint_notes[0]
    vkey0 = vkey_of(AUDIT_SEEDS[0])
    text0, _ = av.parse_note(note0)
    reject("the checkpoint's size changed (signature no longer verifies)", note0.replace(b"\n1\n", b"\n2\n", 1), vkey0,
           "signature-invalid")
    reject("a signature byte flipped", _flip_note_signature(note0), vkey0, "signature-invalid")
    reject("verified with the key of epoch 1 (no line claims it)", note0, vkey_of(AUDIT_SEEDS[1]), "no-verified-signature")
    reject("signed under another key name", sign_note(text0, AUDIT_SEEDS[0], name="vaultctl/other"), vkey0,
           "no-verified-signature")
    reject("no blank line before the signature", note0.replace(b"\n\n", b"\n", 1), vkey0, "malformed")
    reject("CR LF line ends", note0.replace(b"\n", b"\r\n"), vkey0, "malformed")
    reject("a hyphen instead of the em dash", note0.replace("\u2014".encode(), b"-"), vkey0, "malformed")
    reject("signature base64 without its padding", note0[:-2] + b"\n" if note0.endswith(b"=\n") else note0 + b"x",
           vkey0, "malformed")
    reject("a good signature followed by a bad one by the same key",
           note0 + _flip_note_signature(note0)[len(text0) + 1:], vkey0, "signature-invalid")

    def reject_transition(name, text):
        try:
            av.parse_transition(text)
        except av.Malformed:
            cases.append({"name": name, "type": "reject-transition", "text": text.decode("utf-8")})
            return
        raise AssertionError(name)

    good = av.transition_text(AUDIT_ORIGIN, 1, log.public[1], 1, log.root(1))
    reject_transition("epoch with a leading zero", good.replace(b"\nepoch 1\n", b"\nepoch 01\n"))
    reject_transition("size with a plus sign", good.replace(b"\nafter 1 ", b"\nafter +1 "))
    reject_transition("two spaces after 'after 1'", good.replace(b"\nafter 1 ", b"\nafter 1  "))
    reject_transition("a sixth line", good + b"extra\n")
    reject_transition("no final newline", good[:-1])
    reject_transition("a 31-byte key", good.replace(av.b64encode(log.public[1]).encode(), av.b64encode(log.public[1][:31]).encode()))
    reject_transition("another first line", good.replace(b"transition v1", b"transition v2"))
    reject_transition("key base64 without padding", good.replace(av.b64encode(log.public[1]).encode(),
                                                                 av.b64encode(log.public[1]).rstrip("=").encode()))
    return {"description": "Signed notes of the log (§8.5, §8.6, §8.10): the epoch keys from fixed seeds (key ID = "
                           "SHA-256(key name || 0x0A || 0x01 || public key)[:4]; vkey), the checkpoint each epoch "
                           "signed and the key transition by which it introduced the next (Ed25519 signatures are "
                           "deterministic), a witness cosignature, and notes a verifier must refuse under the given "
                           "vkey (reason: malformed, signature-invalid, no-verified-signature) and transition texts "
                           "it must refuse.",
            "spec": "SECURITY.md §8.5, §8.6, §8.10", "origin": AUDIT_ORIGIN, "cases": cases}


def _swap(items, i, j):
    items[i], items[j] = items[j], items[i]


def u64(n):
    return n.to_bytes(8, "big")


def _flip_note_signature(note):
    """The note with one byte of its (first) signature flipped, re-encoded canonically."""
    text, block = note[:note.rfind(b"\n\n") + 2], note[note.rfind(b"\n\n") + 2:]
    line = block.split(b"\n")[0]
    prefix, encoded = line.rsplit(b" ", 1)
    blob = bytearray(av.b64decode(encoded))
    blob[10] ^= 0x01
    return text + prefix + b" " + av.b64encode(bytes(blob)).encode() + b"\n"


def audit_exports_file():
    log = AuditLog()
    vkey = log.genesis_vkey
    trusted = av.VerifierKey.parse(vkey)
    complete = av.write_export(AUDIT_ORIGIN, *log.parts())
    cases = []

    def valid(name, data, expected, key=vkey, note=None):
        report = av.verify_export(data, av.VerifierKey.parse(key))
        summary = {k: report[k] for k in ("entries", "checkpoints", "epochs", "unsigned_entries")}
        assert summary == expected, (name, summary)
        case = {"name": name, "type": "valid", "vkey": key, "export": data.decode("utf-8"),
                "export_sha256": h(av.sha256(data)), "report": summary}
        if note:
            case["note"] = note
        cases.append(case)

    def invalid(name, data, kind, entry=None, key=vkey):
        try:
            av.verify_export(data, av.VerifierKey.parse(key))
        except av.Failure as failure:
            assert (failure.kind, failure.entry) == (kind, entry), (name, failure.kind, failure.entry, str(failure))
            case = {"name": name, "type": "invalid", "vkey": key, "export": data.decode("utf-8"), "kind": kind}
            if entry is not None:
                case["entry"] = entry
            cases.append(case)
            return
        raise AssertionError("accepted: " + name)

    def edited(edit, name, kind, entry=None, key=vkey):
        keys, checkpoints, entries = log.parts()
        edit(keys, checkpoints, entries)
        invalid(name, av.write_export(AUDIT_ORIGIN, keys, checkpoints, entries), kind, entry, key)

    def entry_edit(index, change):
        def apply(keys, checkpoints, entries):
            fields = av.decode_entry(entries[index])
            change(fields)
            entries[index] = av.encode_entry(fields)
        return apply

    # Valid logs.
    valid("the complete log: 8 entries, 5 checkpoints, 6 epochs", complete,
          {"entries": 8, "checkpoints": 5, "epochs": 6, "unsigned_entries": 0})
    valid("a log with only its genesis key", av.write_export(AUDIT_ORIGIN, [(0, log.public[0], None)], [], []),
          {"entries": 0, "checkpoints": 0, "epochs": 1, "unsigned_entries": 0})
    keys, checkpoints, entries = log.parts()
    cut = av.write_export(AUDIT_ORIGIN, keys[:4], checkpoints[:3], entries[:6])
    valid("cut back to an earlier state: epochs 0-3, checkpoints 0-2, entries 0-5", cut,
          {"entries": 6, "checkpoints": 3, "epochs": 4, "unsigned_entries": 1},
          note="verifies: an export alone cannot show it was cut back (§8.6); entry 5 is unsigned")
    rewritten = list(entries[:6])
    fields = av.decode_entry(rewritten[5])
    fields["actor"] = ALICE.encode()
    rewritten[5] = av.encode_entry(fields)
    valid("cut back, and the unsigned entry 5 rewritten (another actor)",
          av.write_export(AUDIT_ORIGIN, keys[:4], checkpoints[:3], rewritten),
          {"entries": 6, "checkpoints": 3, "epochs": 4, "unsigned_entries": 1},
          note="verifies: entries after the last checkpoint are not authenticated (§8.7)")
    witness_seed = fixed("audit witness seed", 32)
    witness_key = av.key_id("witness.example/w1", av.TYPE_COSIGNATURE, ed25519_public(witness_seed))
    body = av.parse_note(checkpoints[4][1])[0]
    cosignature = u64(1767229262) + ed25519_sign(witness_seed, av.cosignature_message(1767229262, body))
    stranger = av.note_signature_line("someone.example", 0x01020304, bytes(64))
    with_cosignature = list(checkpoints)
    with_cosignature[4] = (4, checkpoints[4][1] + av.note_signature_line("witness.example/w1", witness_key, cosignature)
                           + stranger)
    valid("the last checkpoint also carries a witness cosignature and an unknown key's line",
          av.write_export(AUDIT_ORIGIN, keys, with_cosignature, entries),
          {"entries": 8, "checkpoints": 5, "epochs": 6, "unsigned_entries": 0})
    with_intro = list(keys)
    with_intro[0] = (0, log.public[0], log.introductions[1])
    valid("an introduction given with the genesis key (ignored)", av.write_export(AUDIT_ORIGIN, with_intro, checkpoints, entries),
          {"entries": 8, "checkpoints": 5, "epochs": 6, "unsigned_entries": 0},
          note="vaultctl never writes it; §8.7 step 2 ignores it")

    # malformed-export: the file itself.
    lines = complete.split(b"\n")
    entry4_line = [i for i, line in enumerate(lines) if line.startswith(b"entry ")][4]
    flipped = av.b64encode(flip(av.b64decode(lines[entry4_line][6:]), 40)).encode()
    invalid("one byte of entry 4 changed, the end line left as it was",
            b"\n".join(lines[:entry4_line] + [b"entry " + flipped] + lines[entry4_line + 1:]), "malformed-export")
    end = lines[-2].split(b" ")
    invalid("the end line's count one too high", b"\n".join(lines[:-2] + [b"end 9 " + end[2], b""]), "malformed-export")
    invalid("a byte after the end line", complete + b"\n", "malformed-export")
    invalid("the end line missing", b"\n".join(lines[:-2]) + b"\n", "malformed-export")
    invalid("cut inside the last entry line", complete[:complete.rfind(b"\nend ") - 10], "malformed-export")
    invalid("CR LF line ends", complete.replace(b"\n", b"\r\n"), "malformed-export")
    body_lines = lines[:-2]

    def reend(lines_):
        data = b"".join(line + b"\n" for line in lines_)
        count = sum(1 for line in lines_ if line.startswith(b"entry "))
        return data + b"end %d %s\n" % (count, av.b64encode(av.sha256(data)).encode())

    invalid("first line 'vaultctl audit export v2'", reend([b"vaultctl audit export v2"] + body_lines[1:]), "malformed-export")
    noncanonical = bytearray(lines[entry4_line])
    assert noncanonical.endswith(b"=") and not noncanonical.endswith(b"==")
    last = av.b64encode(av.b64decode(bytes(noncanonical[6:])))[-2]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    noncanonical[-2] = ord(alphabet[alphabet.index(last) + 1])
    invalid("an entry's base64 with non-zero pad bits (end line recomputed)",
            reend(body_lines[:entry4_line] + [bytes(noncanonical)] + body_lines[entry4_line + 1:]), "malformed-export")
    key1 = [i for i, line in enumerate(body_lines) if line.startswith(b"key 1 ")][0]
    invalid("an epoch with a leading zero ('key 01', end line recomputed)",
            reend(body_lines[:key1] + [body_lines[key1].replace(b"key 1 ", b"key 01 ")] + body_lines[key1 + 1:]),
            "malformed-export")
    invalid("two spaces in a key line (end line recomputed)",
            reend(body_lines[:key1] + [body_lines[key1].replace(b"key 1 ", b"key 1  ")] + body_lines[key1 + 1:]),
            "malformed-export")
    first_checkpoint = [i for i, line in enumerate(body_lines) if line.startswith(b"checkpoint ")][0]
    moved = body_lines[:first_checkpoint] + body_lines[first_checkpoint + 1:] + [body_lines[first_checkpoint]]
    invalid("a checkpoint line after the entry lines (end line recomputed)", reend(moved), "malformed-export")
    invalid("an unknown line before the end (end line recomputed)", reend(body_lines + [b"comment hello"]), "malformed-export")
    invalid("no origin line (end line recomputed)", reend(body_lines[:1] + body_lines[2:]), "malformed-export")
    invalid("an origin with a space (end line recomputed)", reend(body_lines[:1] + [body_lines[1] + b" x"] + body_lines[2:]),
            "malformed-export")

    # genesis
    other_vkey = vkey_of(fixed("audit other genesis seed", 32))
    invalid("verified with another key of the same name", complete, "genesis", key=other_vkey)
    invalid("verified with the right key under another name (another vault's origin)", complete, "genesis",
            key=av.VerifierKey(av.origin_of(VAULT_ID_2), log.public[0]).vkey)
    edited(lambda k, c, e: k.clear(), "no key lines", "genesis")
    edited(lambda k, c, e: k.__setitem__(0, (0, log.public[1], None)), "the genesis key line holds epoch 1's key", "genesis")
    edited(lambda k, c, e: k.__setitem__(0, (1, log.public[0], None)), "the first key line says epoch 1", "genesis")

    # key-chain
    edited(lambda k, c, e: k.pop(2), "key epoch 2 removed", "key-chain")
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], None)), "the introduction of epoch 2 removed", "key-chain")
    edited(lambda k, c, e: k.__setitem__(3, (3, ed25519_public(fixed("audit intruder seed", 32)), log.introductions[3])),
           "epoch 3's public key replaced (its introduction names the original)", "key-chain")
    self_signed = sign_note(av.transition_text(AUDIT_ORIGIN, 2, log.public[2], 3, log.root(3)), AUDIT_SEEDS[2])
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], self_signed)),
           "the introduction of epoch 2 signed by epoch 2's own key", "key-chain")
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], _flip_note_signature(log.introductions[2]))),
           "a byte of the introduction's signature flipped", "key-chain")
    non_canonical = sign_note(av.transition_text(AUDIT_ORIGIN, 2, log.public[2], 3, log.root(3)).replace(
        b"\nepoch 2\n", b"\nepoch 02\n"), AUDIT_SEEDS[1])
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], non_canonical)),
           "a non-canonical transition ('epoch 02') signed by epoch 1", "key-chain")
    other_origin = sign_note(av.transition_text(av.origin_of(VAULT_ID_2), 2, log.public[2], 3, log.root(3)), AUDIT_SEEDS[1])
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], other_origin)),
           "a transition naming another log, signed by epoch 1", "key-chain")
    wrong_epoch = sign_note(av.transition_text(AUDIT_ORIGIN, 3, log.public[2], 3, log.root(3)), AUDIT_SEEDS[1])
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], wrong_epoch)),
           "a transition naming epoch 3 for the key of epoch 2, signed by epoch 1", "key-chain")
    edited(lambda k, c, e: k.__setitem__(2, (2, log.public[2], log.checkpoint_notes[1])),
           "epoch 2 introduced by epoch 1's checkpoint note instead of a transition", "key-chain")

    # checkpoint, checkpoint-order
    edited(lambda k, c, e: c.__setitem__(1, (2, c[1][1])), "checkpoint 1's line says epoch 2", "checkpoint")
    edited(lambda k, c, e: c.__setitem__(1, (9, c[1][1])), "checkpoint 1 names epoch 9 (there are 6)", "checkpoint")
    edited(lambda k, c, e: c.__setitem__(2, (2, _flip_note_signature(c[2][1]))), "a byte of checkpoint 2's signature flipped",
           "checkpoint")
    foreign = sign_note(av.checkpoint_body(av.origin_of(VAULT_ID_2), 5, log.root(5)), AUDIT_SEEDS[2])
    edited(lambda k, c, e: c.__setitem__(2, (2, foreign)), "checkpoint 2 for another origin, signed by epoch 2", "checkpoint")
    leading_zero = sign_note(av.checkpoint_body(AUDIT_ORIGIN, 5, log.root(5)).replace(b"\n5\n", b"\n05\n"), AUDIT_SEEDS[2])
    edited(lambda k, c, e: c.__setitem__(2, (2, leading_zero)), "checkpoint 2's size written '05', signed by epoch 2",
           "checkpoint")
    edited(lambda k, c, e: c.__setitem__(2, (2, c[2][1].replace(b"\n\n", b"\n", 1))),
           "checkpoint 2 without the blank line before its signature", "checkpoint")
    edited(lambda k, c, e: c.__setitem__(2, (2, log.introductions[3])),
           "checkpoint 2 replaced by the transition epoch 2 signed", "checkpoint")
    edited(lambda k, c, e: _swap(c, 1, 2), "checkpoints 1 and 2 swapped", "checkpoint-order")

    # transition
    at_two = sign_note(av.checkpoint_body(AUDIT_ORIGIN, 2, log.root(2)), AUDIT_SEEDS[1])
    edited(lambda k, c, e: c.__setitem__(1, (1, at_two)),
           "epoch 1's checkpoint replaced by one at size 2 (valid, signed by epoch 1)", "transition")
    edited(lambda k, c, e: c.pop(2), "epoch 2's checkpoint removed", "transition")
    extra = sign_note(av.checkpoint_body(AUDIT_ORIGIN, 7, log.root(7)), AUDIT_SEEDS[3])
    edited(lambda k, c, e: c.insert(4, (3, extra)),
           "an extra checkpoint of epoch 3 (size 7) after its last: epoch 4 no longer follows it", "transition")

    # The thief of epoch 5's seed (the current key): entries 0-7 are covered by epoch 4's checkpoint.
    def thief(replace_last):
        def apply(keys, checkpoints, entries):
            fields = av.decode_entry(entries[7])
            fields["action"] = b"bundle.open"
            entries[7] = av.encode_entry(fields)
            leaves = [av.leaf_hash(x) for x in entries]
            note = sign_note(av.checkpoint_body(AUDIT_ORIGIN, 8, av.mth(leaves)), AUDIT_SEEDS[5])
            if replace_last:
                checkpoints.pop()
            checkpoints.append((5, note))
        return apply
    edited(thief(True), "the current key (epoch 5) rewrites entry 7, drops epoch 4's checkpoint and signs its own",
           "transition")
    edited(thief(False), "the current key (epoch 5) rewrites entry 7 and signs a checkpoint of it after epoch 4's",
           "checkpoint-root", 7)

    # entries
    def set_field(name, value):
        return lambda fields: fields.__setitem__(name, value)

    edited(lambda k, c, e: e.__setitem__(3, b"\x02" + e[3][1:]), "entry 3's version byte set to 2", "entry-malformed", 3)
    edited(lambda k, c, e: e.__setitem__(6, e[6] + b"\x00"), "a byte appended to entry 6", "entry-malformed", 6)
    edited(lambda k, c, e: e.__setitem__(0, e[0][:-1]), "entry 0's last byte removed", "entry-malformed", 0)
    edited(lambda k, c, e: _swap(e, 3, 4), "entries 3 and 4 swapped", "entry-sequence", 3)
    edited(lambda k, c, e: e.pop(6), "entry 6 removed", "entry-sequence", 6)
    edited(entry_edit(6, set_field("actor", b"alicf (uid 1000)")), "entry 6's actor changed", "entry-chain", 6)
    edited(entry_edit(3, set_field("time", AUDIT_T0 + 91)), "entry 3's time changed", "entry-chain", 3)
    edited(entry_edit(0, set_field("previous_hash", b"\x01" + bytes(31))), "entry 0's previous hash not zero",
           "entry-chain", 0)
    edited(entry_edit(2, lambda f: f.__setitem__("detail_hashes", [(f["detail_hashes"][0][0], flip(f["detail_hashes"][0][1]))]
                                                 + f["detail_hashes"][1:])),
           "entry 2's first detail hash changed", "checkpoint-root", 2)
    edited(entry_edit(7, set_field("time", AUDIT_T0 + 3662)), "entry 7's time changed", "checkpoint-root", 7)
    edited(entry_edit(4, set_field("sealed_details", b"")), "entry 4's sealed details removed", "checkpoint-root", 4)
    edited(lambda k, c, e: e.pop(), "entry 7 removed", "entries-missing", 7)
    edited(lambda k, c, e: e.clear(), "every entry removed", "entries-missing", 0)
    return {"description": "Audit export files (§8.8) of the log of entries.json and notes.json, each with the genesis "
                           "vkey to verify it with (§8.7). valid: the verifier must accept it and report these "
                           "counts (some show the limits of §8.6: a cut-back log, a rewritten unsigned entry); "
                           "invalid: it must refuse it with this kind (malformed-export, genesis, key-chain, "
                           "checkpoint, checkpoint-order, transition, entry-malformed, entry-sequence, entry-chain, "
                           "checkpoint-root, entries-missing) and, for the entry kinds, naming this entry. Edits "
                           "below the file level rewrite the end line, so that the checks after parsing are reached.",
            "spec": "SECURITY.md §8.7, §8.8", "genesis_vkey": vkey, "cases": cases}


AUDIT_FILES = {
    "entries.json": audit_entries_file,
    "details.json": audit_details_file,
    "merkle.json": audit_merkle_file,
    "notes.json": audit_notes_file,
    "exports.json": audit_exports_file,
}

# ---------------------------------------------------------------------------------------------
# Backup container, version 2 (SECURITY.md §13.2): testvectors/backup/
# ---------------------------------------------------------------------------------------------


def backup_v2_file():
    vault_id = VAULT_ID
    backup_private = fixed("backup private key", 32)
    backup_public = bc.x25519_public(backup_private)
    sealed_key = bc.seal_backup_key(backup_private, MASTER_KEY, vault_id, fixed("backup key nonce", 24))
    ephemeral_private = fixed("backup ephemeral key", 32)
    ephemeral_public = bc.x25519_public(ephemeral_private)
    key = bc.file_key(ephemeral_private, ephemeral_public, backup_public, vault_id)
    # The container does not look inside its records: the public record here is bytes standing for
    # one (a real one is an SQLite file, whose bytes depend on the SQLite version that wrote it).
    public_record = b"a public record (SECURITY.md 13.2) stands here"
    database = pattern(100, 7)
    sealed = bc.seal_database(database, backup_public, ephemeral_private, vault_id)
    bundles = [(bytes.fromhex("00" * 15 + "01"), pattern(60, 1)), (bytes.fromhex("7f" + "00" * 15), pattern(33, 2))]
    records = [(bc.KIND_PUBLIC, bytes(16), public_record), (bc.KIND_SEALED, bytes(16), sealed)] + \
              [(bc.KIND_BUNDLE, i, d) for i, d in bundles]
    created_at = 1764547200
    data = bc.encode(2, vault_id, created_at, records)
    assert bc.parse(data)["records"][1][2] == sealed
    assert bc.open_database(sealed, backup_private, vault_id) == database
    assert bc.open_backup_key(sealed_key, backup_public, MASTER_KEY, vault_id) == backup_private

    cases = []

    def refused(name, damaged, reason):
        try:
            bc.parse(damaged)
        except bc.Refused as refusal:
            assert refusal.reason == reason, (name, refusal.reason, reason)
            cases.append({"name": name, "file": h(damaged), "reason": reason})
            return
        raise AssertionError("accepted: " + name)

    def rebuilt(version=2, edit=lambda r: r):
        return bc.encode(version, vault_id, created_at, edit([list(r) for r in records]))

    refused("empty file", b"", "truncated")
    refused("magic changed", flip(data, 3), "magic")
    refused("version 3", data[:16] + bc.be(3, 4) + data[20:], "version")
    refused("record count 1 in a version 2 file", data[:44] + bc.be(1, 4) + data[48:], "count")
    refused("record count above the cap", data[:44] + bc.be(10_000_001, 4) + data[48:], "count")
    refused("the public record's data changed", flip(data, 48 + 25 + 3), "digest")
    refused("a byte of the sealed database's digest changed", flip(data, 48 + 25 + len(public_record) + 32 + 25 + len(sealed)), "digest")
    refused("the trailer changed", flip(data, len(data) - 1), "trailer")
    refused("a byte after the trailer", data + b"\x00", "trailing")
    refused("cut inside the trailer", data[:-1], "truncated")
    refused("cut inside a record", data[:48 + 25 + 10], "truncated")
    refused("records 0 and 1 swapped (digests recomputed)", rebuilt(edit=lambda r: [r[1], r[0]] + r[2:]), "place")
    refused("a version 1 file whose record 0 is a public record", rebuilt(version=1), "place")
    refused("a second sealed database after the first (digests recomputed)", rebuilt(edit=lambda r: r[:2] + [r[1]] + r[2:]), "place")
    refused("bundles out of order (digests recomputed)", rebuilt(edit=lambda r: r[:2] + [r[3], r[2]]), "order")
    refused("a bundle repeated (digests recomputed)", rebuilt(edit=lambda r: r[:3] + [r[2]]), "order")
    refused("the public record with a non-zero id (digests recomputed)",
            rebuilt(edit=lambda r: [[r[0][0], b"\x01" + bytes(15), r[0][2]]] + r[1:]), "place")
    refused("an unknown kind 5 (digests recomputed)", rebuilt(edit=lambda r: r[:2] + [[5, r[2][1], r[2][2]]] + r[3:]), "kind")
    refused("a bundle length over the cap", data[:48 + 25 + len(public_record) + 32 + 25 + len(sealed) + 32 + 17] + bc.be(1 << 51, 8)
            + data[48 + 25 + len(public_record) + 32 + 25 + len(sealed) + 32 + 25:], "cap")

    # The sealed database on its own: a plaintext of two chunks (the second short), its layout
    # rules, and damaged copies (each would be caught by its record digest first; these are what a
    # reader that got past the digest must still refuse).
    large = pattern(bc.CHUNK + 100, 9)
    large_sealed = bc.seal_database(large, backup_public, ephemeral_private, vault_id)
    assert bc.open_database(large_sealed, backup_private, vault_id) == large
    empty_sealed = bc.seal_database(b"", backup_public, ephemeral_private, vault_id)
    sealed_cases = [
        {"name": "two chunks, the last of 100 bytes", "sealed": h(large_sealed), "plaintext_length": len(large),
         "plaintext_sha256": h(hashlib.sha256(large).digest())},
        {"name": "an empty snapshot: one empty last chunk", "sealed": h(empty_sealed), "plaintext_length": 0,
         "plaintext_sha256": h(hashlib.sha256(b"").digest())},
    ]

    def sealed_refused(name, base, reason, flip_at=None, cut_to=None):
        """A damaged copy of sealed_databases[base]: one byte flipped (xor 0x01) at flip_at, or cut to cut_to bytes."""
        damaged = bytes.fromhex(sealed_cases[base]["sealed"])
        damaged = flip(damaged, flip_at) if flip_at is not None else damaged[:cut_to]
        try:
            bc.open_database(damaged, backup_private, vault_id)
        except bc.Refused as refusal:
            assert refusal.reason == reason, (name, refusal.reason)
            case = {"name": name, "base": base, "reason": reason}
            case.update({"flip": flip_at} if flip_at is not None else {"cut_to": cut_to})
            sealed_cases.append(case)
            return
        raise AssertionError("accepted: " + name)

    sealed_refused("the last chunk dropped (the first is not marked last)", 0, "chunk", cut_to=32 + bc.SEALED_CHUNK)
    sealed_refused("a byte of the second chunk changed", 0, "chunk", flip_at=32 + bc.SEALED_CHUNK + 5)
    sealed_refused("the ephemeral key changed", 0, "chunk", flip_at=0)
    sealed_refused("the first chunk's tag changed", 0, "chunk", flip_at=32 + bc.SEALED_CHUNK - 1)
    sealed_refused("shorter than a key and a tag", 1, "sealed-length", cut_to=47)
    layouts = [{"length": n, "chunks": bc.chunk_count(n)} for n in
               (0, 47, 48, 49, 32 + bc.SEALED_CHUNK, 32 + bc.SEALED_CHUNK + 16, 32 + bc.SEALED_CHUNK + 17, 32 + 2 * bc.SEALED_CHUNK)]

    return {"description": "A version 2 backup container (SECURITY.md 13.2) made from fixed keys: the vault's backup key "
                           "(private, public, sealed under master_key), the ephemeral key and file key of its sealed "
                           "database, the database plaintext, and the whole file. A reader must accept file, find these "
                           "records, open backup_sealed_key under master_key to backup_private_key, derive file_key from "
                           "it and ephemeral_public_key, and open the sealed database to database_plaintext. cases: damaged "
                           "files a reader must refuse, with the first check of 13.2 that fails (truncated, magic, version, "
                           "count, kind, place, order, cap, digest, trailer, trailing). sealed_databases: sealed database "
                           "records alone, to open (to plaintext_length bytes with plaintext_sha256) or, made from the "
                           "case at index base by flipping bit 0 of byte flip or cutting to cut_to bytes, to refuse "
                           "(chunk, sealed-length); layouts: the chunk count a record length gives (null: no plaintext gives it).",
            "spec": "SECURITY.md §13.2",
            "vault_id": h(vault_id), "created_at": created_at, "master_key": h(MASTER_KEY),
            "backup_private_key": h(backup_private), "backup_public_key": h(backup_public), "backup_sealed_key": h(sealed_key),
            "ephemeral_private_key": h(ephemeral_private), "ephemeral_public_key": h(ephemeral_public), "file_key": h(key),
            "public_record": h(public_record), "database_plaintext": h(database), "sealed_database": h(sealed),
            "bundles": [{"id": h(i), "data": h(d)} for i, d in bundles],
            "file": h(data), "file_sha256": h(hashlib.sha256(data).digest()),
            "cases": cases, "sealed_databases": sealed_cases, "layouts": layouts}


BACKUP_FILES = {
    "backup-v2.json": backup_v2_file,
}


# ---------------------------------------------------------------------------------------------
# Sealed records (SECURITY.md §4.8): testvectors/record/
# ---------------------------------------------------------------------------------------------


def record_identity(vault_id, compartment_id, key_version, module, table, record_id, field):
    return {"vault_id": h(vault_id), "compartment_id": h(compartment_id), "key_version": key_version, "module": module,
            "table": table, "record_id": h(record_id), "field": field}


def record_seal_case(name, label, plaintext, key_version, module, table, record_id, field, vault_id=VAULT_ID):
    compartment_id = fixed("%s compartment" % label, 16)
    salt = fixed("%s version salt" % label, 32)
    master_key = MASTER_KEY if vault_id == VAULT_ID else MASTER_KEY_2
    compartment_key = vr.compartment_key(master_key, vault_id, compartment_id, key_version, salt)
    key = sr.record_key(compartment_key)
    nonce = fixed("%s nonce" % label, 24)
    args = (vault_id, compartment_id, module, table, record_id, field)
    sealed = sr.seal(key, nonce, plaintext, key_version, *args)
    head = sealed[:sr.HEADER_SIZE]
    identity = record_identity(vault_id, compartment_id, key_version, module, table, record_id, field)

    def moved(change, reason, **parts):
        ident = dict(identity, **{k: (h(v) if isinstance(v, bytes) else v) for k, v in parts.items()})
        return {"change": change, "identity": ident, "reason": reason}

    def altered(change, data):
        return {"change": change, "identity": identity, "sealed": h(data), "reason": "corrupt"}

    other_id = flip(record_id, len(record_id) - 1)
    must_not = [
        moved("another vault (same compartment uuid)", "another-vault", vault_id=flip(vault_id)),
        moved("another compartment", "another-compartment", compartment_id=flip(compartment_id, 15)),
        moved("another record id", "another-row", record_id=other_id),
        moved("another table", "another-row", table=table + "x" if len(table) < 64 else table[:-1]),
        moved("another module", "another-row", module=module + "x" if len(module) < 64 else module[:-1]),
        moved("another field", "another-field", field=field + "x" if len(field) < 64 else field[:-1]),
        altered("a ciphertext or tag byte flipped", flip(sealed, len(sealed) - 1)),
        altered("a nonce byte flipped", flip(sealed, sr.HEADER_SIZE)),
    ]
    if plaintext:  # an empty value's record is the smallest: cut, it no longer parses (reject-parse covers that)
        must_not.append(altered("the first ciphertext byte flipped", flip(sealed, sr.HEADER_SIZE + sr.NONCE_SIZE)))
        must_not.append(altered("the last byte cut", sealed[:-1]))
    for bad in must_not:
        ident = bad["identity"]
        try:
            sr.open_record(bytes.fromhex(bad.get("sealed", h(sealed))), {key_version: key}.get, bytes.fromhex(ident["vault_id"]),
                           bytes.fromhex(ident["compartment_id"]), ident["module"], ident["table"],
                           bytes.fromhex(ident["record_id"]), ident["field"])
            raise AssertionError("%s / %s opened" % (name, bad["change"]))
        except sr.Refused as refusal:
            assert refusal.reason == bad["reason"], (name, bad["change"], refusal.reason)
    assert sr.open_record(sealed, {key_version: key}.get, *args) == plaintext
    return {"type": "seal", "name": name, "identity": identity, "master_key": h(master_key), "version_salt": h(salt),
            "compartment_key": h(compartment_key), "record_key": h(key), "nonce": h(nonce),
            "plaintext": h(plaintext), "tags": {"vault": h(head[5:9]), "compartment": h(head[9:13]), "row": h(head[13:17]),
                                                "field": h(head[17:21])},
            "header": h(head), "ad": h(sr.associated_data(head, *args)), "sealed": h(sealed), "must_not_open": must_not}


def records_file():
    paragraph = ("The patient reports sleeping better since the last session; we agreed to keep the evening "
                 "routine and to revisit the medication question in two weeks. Next visit: Thursday at 10:00, room 4B, floor 12.").encode("utf-8")
    assert len(paragraph) == 200, len(paragraph)
    cases = [
        record_seal_case("a 200-byte paragraph", "record case 1", paragraph, 1, "writing", "blocks",
                         fixed("record case 1 id", 16), "text"),
        record_seal_case("a non-ASCII title, key version 256, second vault", "record case 2", "Séance 12 — suivi".encode("utf-8"),
                         256, "writing", "documents", fixed("record case 2 id", 16), "title", vault_id=VAULT_ID_2),
        record_seal_case("an empty value, one-byte names and id, key version 2^32-1", "record case 3", b"", 0xFFFFFFFF,
                         "m", "t", b"\x00", "f"),
        record_seal_case("64-byte names and record id", "record case 4", pattern(1024, 7), 2, "m" * 64,
                         "clinical_records-" + "t" * 47, fixed("record case 4 id", 64), "field_" + "9" * 58),
    ]
    for index, label in enumerate(["record key 1", "record key 2"]):
        compartment_key = fixed(label, 32)
        cases.append({"type": "key", "name": "record key from compartment key %d" % (index + 1),
                      "compartment_key": h(compartment_key), "hkdf_salt": "", "hkdf_info": h(sr.KEY_INFO),
                      "record_key": h(sr.record_key(compartment_key))})
    for label, plaintext, module, table, record_id, field in [
            ("record digest 1", paragraph, "writing", "writing_blocks", fixed("record digest 1 id", 16), "block"),
            ("record digest 2", b"", "m" * 64, "t" * 64, fixed("record digest 2 id", 64), "f" * 64)]:
        compartment_key = fixed(label + " compartment key", 32)
        key = sr.digest_key(compartment_key)
        cases.append({"type": "digest", "name": "%s: %d bytes at %s/%s/…/%s" % (label, len(plaintext), module[:8], table[:16], field[:8]),
                      "compartment_key": h(compartment_key), "hkdf_salt": "", "hkdf_info": h(sr.DIGEST_KEY_INFO), "digest_key": h(key),
                      "location": {"module": module, "table": table, "record_id": h(record_id), "field": field},
                      "plaintext": h(plaintext), "digest": h(sr.digest(key, plaintext, module, table, record_id, field))})
    good = bytes.fromhex(cases[0]["sealed"])

    def reject(name, data):
        try:
            sr.parse(data)
            raise AssertionError(name)
        except sr.Refused as refusal:
            assert refusal.reason == "malformed"
        cases.append({"type": "reject-parse", "name": name, "sealed": h(data), "reason": "malformed"})

    reject("empty", b"")
    reject("one byte short of the smallest record (60 bytes)", good[:sr.OVERHEAD - 1])
    reject("version 0", b"\x00" + good[1:])
    reject("version 2", b"\x02" + good[1:])
    reject("key version 0", good[:1] + bytes(4) + good[5:])
    return {"description": "Sealed records: the record key from a compartment key, the four tags, the header, the AD and "
                           "the sealed value of records at fixed identities; digest cases: the digest key from a compartment "
                           "key and the row's keyed digest of a plaintext at a location; each must_not_open entry (the same bytes at "
                           "another identity, or altered bytes at the same one) must be refused for its reason "
                           "(another-vault, another-compartment, another-row, another-field, corrupt); reject-parse "
                           "values must be refused before any key is used (malformed).",
            "spec": "SECURITY.md §4.8", "cases": cases}


RECORD_FILES = {
    "records.json": records_file,
}


def render(content):
    return json.dumps(content, indent=2, ensure_ascii=False) + "\n"


def writing_model_file():
    """The writing model's sealed values (SECURITY.md §14.4-14.5): blocks of every kind, entries, and
    damaged block values that must be refused."""
    cases = []

    def block(name, kind, text, rows=()):
        rows = [list(row) for row in rows]
        cases.append({"type": "block", "name": name, "kind": kind, "text": text, "rows": rows,
                      "encoded": h(wr.encode_block(kind, text, rows))})

    block("an empty paragraph", "paragraph", "")
    block("a paragraph with a line break", "paragraph", "The boat came in.\nIt rained.")
    for level in (1, 6):
        block("a heading of level %d" % level, "heading-%d" % level, "Question presented")
    block("a list item", "list-item", "Rope")
    block("a non-ASCII quote", "quote", "Séance 12 — « suivi »")
    block("a table, the first row the header", "table", "", [["Party", "Role"], ["Ada Smith", "Plaintiff"], ["", "Witness"]])
    block("a field block", "field-personRole", "Defendant")

    def entry(name, kind, entry_name, body, fields):
        cases.append({"type": "entry", "name": name, "kind": kind, "entry_name": entry_name, "body": body, "fields": fields,
                      "encoded": h(wr.encode_entry(entry_name, body, fields))})

    entry("a legal party with two slots", "character", "Ada Smith", "The plaintiff.",
          {"personRole": "Plaintiff", "personIdentification": "ID 4471"})
    entry("a place with its one slot", "place", "Harbour", "", {"placeDescription": "Grey water, one crane."})
    entry("a plot beat with no slots", "plot-beat", "Was the clause signed?", "Disputed by both.", {})
    good = bytes.fromhex(cases[1]["encoded"])

    def reject(name, data):
        try:
            wr.decode_block(data)
            raise AssertionError(name)
        except wr.Damaged:
            pass
        cases.append({"type": "reject-block", "name": name, "encoded": h(data)})

    reject("empty", b"")
    reject("version 2", b"\x02" + good[1:])
    reject("an unknown kind", wr.encode_block("paragraph", "x", [])[:2] + b"paragrapx" + wr.encode_block("paragraph", "x", [])[11:])
    reject("heading level 7", bytes([1, 9]) + b"heading-7" + wr.string("x") + wr.u32(0))
    reject("a text length one past the end", good[:11] + (int.from_bytes(good[11:15], "big") + 1).to_bytes(4, "big") + good[15:])
    reject("a trailing byte", good + b"\x00")
    reject("one byte short", good[:-1])
    reject("text that is not UTF-8", bytes([1, 9]) + b"paragraph" + wr.u32(2) + b"\xc3\x28" + wr.u32(0))

    def lookup(name, master_key, vault_id, project_id, project_name):
        cases.append({"type": "project-name-lookup", "name": name, "master_key": h(master_key), "vault_id": h(vault_id),
                      "project_id": h(project_id), "project_name": project_name,
                      "encoded": h(wr.name_lookup(master_key, vault_id, project_id, project_name))})

    master_key, vault_id = bytes(range(32)), bytes(range(0xa0, 0xb0))
    smith, jones = bytes.fromhex("5a11" * 8), bytes.fromhex("0b0e" * 8)
    lookup("a project's name", master_key, vault_id, smith, "Smith, J.")
    lookup("the same name in another project (bound to the id)", master_key, vault_id, jones, "Smith, J.")
    lookup("a name typed decomposed is hashed as NFC", master_key, vault_id, smith, "Se\u0301ance 12")
    lookup("the same name composed", master_key, vault_id, smith, "S\u00e9ance 12")
    lookup("another vault's master key", bytes(range(1, 33)), vault_id, smith, "Smith, J.")
    return {"description": "The writing model's sealed values: block and entry encodings (each must encode to exactly "
                           "these bytes and decode back); reject-block values must be refused as damaged; "
                           "project-name-lookup cases give a project's name lookup hash (encoded) from the master key, "
                           "vault id, project id and name.",
            "spec": "SECURITY.md §14.1, §14.4-14.5", "cases": cases}


def snapshot_content(blocks):
    """A document's content as a snapshot stores it (SECURITY.md §15.2): version 1, u32 count, then
    each block's 16-byte id, u32 length and block encoding (§14.4)."""
    out = b"\x01" + wr.u32(len(blocks))
    for block_id, kind, text, rows in blocks:
        encoded = wr.encode_block(kind, text, rows)
        out += block_id + wr.u32(len(encoded)) + encoded
    return out


def snapshot_record(form, document, sequence, base, content, payload, version=2):
    """A snapshot's sealed value (SECURITY.md §15.2), before it is split into 1 MiB parts: version 2
    packs the payload with raw DEFLATE (level 9) after its u32 size; version 1 has it as it is."""
    header = bytes([version, form]) + document + wr.u32(sequence) + base + hashlib.sha256(content).digest()
    if version == 1:
        return header + payload
    return header + wr.u32(len(payload)) + deflate(payload)


def snapshot_group(document, sequence, base, members, deltas=None):
    """A snapshot group's sealed value (SECURITY.md §15.2, record version 3), before it is split into
    1 MiB parts: the members' ids and content digests, then their deltas packed together."""
    out = bytes([3, 3]) + document + wr.u32(sequence) + base + wr.u32(len(members))
    for member_id, content, _ in members:
        out += member_id + hashlib.sha256(content).digest()
    if deltas is None:
        deltas = b"".join(wr.u32(len(delta)) + delta for _, _, delta in members)
    return out + wr.u32(len(deltas)) + deflate(deltas)


def leb128(value):
    """An unsigned LEB128 number in its shortest form (SECURITY.md §15.1, the compact delta)."""
    out = bytearray()
    while value >= 0x80:
        out.append(value & 0x7F | 0x80)
        value >>= 7
    return bytes(out + bytes([value]))


def compact_delta(delta):
    """A version-1 delta's ops in the compact form of version-4 groups (SECURITY.md §15.1): a copy's head
    2*zigzag(offset - cursor) then its length, an insert's head 2*length+1 then its bytes."""
    out, cursor = b"", 0
    for op in sd.parse(delta):
        if op[0] == "copy":
            move = op[1] - cursor
            out += leb128(2 * (2 * move if move >= 0 else -2 * move - 1)) + leb128(op[2])
            cursor = op[1] + op[2]
        else:
            out += leb128(2 * len(op[1]) + 1) + op[1]
    return out


def group4_entry(delta):
    """A version-4 member's entry: varint(2 * length) and the compact delta, or (an int) varint(2 *
    sequence + 1), a reference to an earlier snapshot's content."""
    if isinstance(delta, int):
        return leb128(2 * delta + 1)
    return leb128(2 * len(compact_delta(delta))) + compact_delta(delta)


def snapshot_group4(document, sequence, base, members, deltas=None):
    """A snapshot group's sealed value (SECURITY.md §15.2, record version 4): each member's check
    SHA-256(id || content)[0..16], then the members' entries (compact deltas or references) packed together."""
    out = bytes([4, 3]) + document + wr.u32(sequence) + base + wr.u32(len(members))
    for member_id, content, _ in members:
        out += hashlib.sha256(member_id + content).digest()[:16]
    if deltas is None:
        deltas = b"".join(group4_entry(delta) for _, _, delta in members)
    return out + wr.u32(len(deltas)) + deflate(deltas)


def deflate(data):
    packer = zlib.compressobj(9, zlib.DEFLATED, -15, 9)
    return packer.compress(data) + packer.flush()


def writing_snapshots_file():
    """Snapshot contents and records (SECURITY.md §15.2): a keyframe and the delta after it, with
    damaged contents and records that must be refused."""
    cases = []
    document = fixed("snapshot document", 16)
    first_id, second_id = fixed("snapshot 1", 16), fixed("snapshot 2", 16)
    b1, b2, b3 = fixed("snapshot block 1", 16), fixed("snapshot block 2", 16), fixed("snapshot block 3", 16)
    v1 = snapshot_content([(b1, "heading-1", "Session 12", []), (b2, "paragraph", "S: slept badly.", [])])
    v2 = snapshot_content([(b1, "heading-1", "Session 12", []), (b2, "paragraph", "S: slept well.", []),
                           (b3, "table", "", [["Dose", "Time"], ["5 mg", "night"]])])
    cases.append({"type": "content", "name": "an empty document", "encoded": h(snapshot_content([])), "blocks": []})
    for name, content, blocks in (("two blocks", v1, [b1, b2]), ("three blocks, a table", v2, [b1, b2, b3])):
        cases.append({"type": "content", "name": name, "encoded": h(content), "blocks": [h(b) for b in blocks]})
    keyframe = snapshot_record(1, document, 1, bytes(16), v1, v1)
    # The delta: v2's new block count, v1's bytes as far as the two agree (up to the paragraph's
    # length), then the rest of v2. Any canonical delta that gives v2 is valid (§15.1).
    same = next(i for i in range(len(v1) - 5) if v1[5 + i] != v2[5 + i])
    delta = b"\x01" + sd.insert(v2[:5]) + sd.copy(5, same) + sd.insert(v2[5 + same:])
    assert sd.apply(delta, v1) == v2
    second = snapshot_record(2, document, 2, first_id, v2, delta)
    cases.append({"type": "record", "name": "a keyframe, sequence 1", "encoded": h(keyframe), "form": "keyframe",
                  "document": h(document), "sequence": 1, "base": h(bytes(16)), "content": h(v1)})
    cases.append({"type": "record", "name": "the delta after it, sequence 2", "encoded": h(second), "form": "delta",
                  "document": h(document), "sequence": 2, "base": h(first_id), "content": h(v2)})
    # Version 1 (the payload unpacked), as vaults written before packing hold: still read.
    cases.append({"type": "record", "name": "a version-1 keyframe, sequence 1", "form": "keyframe",
                  "encoded": h(snapshot_record(1, document, 1, bytes(16), v1, v1, version=1)),
                  "document": h(document), "sequence": 1, "base": h(bytes(16)), "content": h(v1)})
    cases.append({"type": "record", "name": "a version-1 delta after it, sequence 2", "form": "delta",
                  "encoded": h(snapshot_record(2, document, 2, first_id, v2, delta, version=1)),
                  "document": h(document), "sequence": 2, "base": h(first_id), "content": h(v2)})
    for case in cases:
        if case["type"] == "record":
            parsed = wr.parse_snapshot_record(bytes.fromhex(case["encoded"]))
            payload = parsed["payload"] if parsed["form"] == "keyframe" else sd.apply(parsed["payload"], v1)
            assert payload == bytes.fromhex(case["content"]) and parsed["digest"] == hashlib.sha256(payload).digest()
    # A group after the delta: two members, v3 (a block edited) then v4 (a block dropped), each the
    # delta from the version before.
    third_id, fourth_id = fixed("snapshot 3", 16), fixed("snapshot 4", 16)
    v3 = snapshot_content([(b1, "heading-1", "Session 12", []), (b2, "paragraph", "S: slept well. O: calm.", []),
                           (b3, "table", "", [["Dose", "Time"], ["5 mg", "night"]])])
    v4 = snapshot_content([(b1, "heading-1", "Session 12", []), (b2, "paragraph", "S: slept well. O: calm.", [])])
    shared = next(i for i in range(len(v2)) if v2[i] != v3[i])
    d3 = b"\x01" + sd.copy(0, shared) + sd.insert(v3[shared:])
    assert sd.apply(d3, v2) == v3, "the group's first delta"
    d4 = b"\x01" + sd.insert(v4[:5]) + sd.copy(5, len(v4) - 5)
    assert sd.apply(d4, v3) == v4, "the group's second delta"
    members = [(third_id, v3, d3), (fourth_id, v4, d4)]
    group = snapshot_group(document, 3, second_id, members)
    parsed = wr.parse_snapshot_group(group)
    assert [m["id"] for m in parsed["members"]] == [third_id, fourth_id] and parsed["base"] == second_id
    assert sd.apply(parsed["members"][1]["delta"], sd.apply(parsed["members"][0]["delta"], v2)) == v4
    cases.append({"type": "group", "name": "a group of two after the delta, sequences 3 and 4", "encoded": h(group),
                  "document": h(document), "sequence": 3, "base": h(second_id),
                  "members": [{"id": h(m), "content": h(c)} for m, c, _ in members]})
    group_head = group[:2 + 16 + 4 + 16 + 4 + 2 * 48]
    joined = wr.u32(len(d3)) + d3 + wr.u32(len(d4)) + d4
    for name, data in (("version 2 (a group is version 3 or 4)", b"\x02" + group[1:]),
                       ("form 4", group[:1] + b"\x04" + group[2:]),
                       ("sequence 0", group[:18] + wr.u32(0) + group[22:]),
                       ("no members", group[:38] + wr.u32(0) + group[42:]),
                       ("a member count past the end", group[:38] + wr.u32(3) + group[42:]),
                       ("a delta length past the packed bytes", group_head + wr.u32(len(joined) - 1) + deflate(joined[:-1])),
                       ("a byte after the last delta", group_head + wr.u32(len(joined) + 1) + deflate(joined + b"\x00")),
                       ("a stream cut short", group[:-1])):
        try:
            wr.parse_snapshot_group(data)
            raise AssertionError("the independent reader took a damaged snapshot group: " + name)
        except wr.Damaged:
            pass
        cases.append({"type": "reject-group", "name": name, "encoded": h(data)})
    # The same two members as a version-4 group (what is written today): compact deltas, id-bound
    # checks, and a third member, snapshot 5, that restored snapshot 2: a reference, its content not stored again.
    fifth_id = fixed("snapshot 5", 16)
    members4 = members + [(fifth_id, v2, 2)]
    group4 = snapshot_group4(document, 3, second_id, members4)
    parsed = wr.parse_snapshot_group(group4)
    assert parsed["version"] == 4 and [m["check"] for m in parsed["members"]] == [hashlib.sha256(m + c).digest()[:16] for m, c, _ in members4]
    assert sd.apply(parsed["members"][1]["delta"], sd.apply(parsed["members"][0]["delta"], v2)) == v4 and parsed["members"][2]["delta"] == 2
    cases.append({"type": "group", "name": "a version-4 group of the same two and a reference to snapshot 2, sequences 3 to 5", "encoded": h(group4),
                  "document": h(document), "sequence": 3, "base": h(second_id),
                  "members": [{"id": h(m), "content": h(c)} for m, c, _ in members4]})
    head4 = group4[:2 + 16 + 4 + 16 + 4] + b"".join(hashlib.sha256(m + c).digest()[:16] for m, c, _ in members)
    head4 = head4[:38] + wr.u32(2) + head4[42:]
    c3, c4 = compact_delta(d3), compact_delta(d4)
    joined4 = leb128(2 * len(c3)) + c3 + leb128(2 * len(c4)) + c4
    for name, deltas in (("version 4: a delta length past the packed bytes", leb128(2 * len(c3)) + c3 + leb128(2 * len(c4) + 2) + c4),
                         ("version 4: a byte after the last delta", joined4 + b"\x00"),
                         ("version 4: a length not in its shortest form (a final 0x00)",
                          leb128(2 * len(c3))[:-1] + bytes([leb128(2 * len(c3))[-1] | 0x80, 0]) + c3 + leb128(2 * len(c4)) + c4),
                         ("version 4: a copy continuing the copy before it (relative offset 0)",
                          leb128(2 * len(c3)) + c3 + leb128(2 * (len(c4) + 2)) + c4 + b"\x00\x01"),
                         ("version 4: a copy before the start of the base",
                          leb128(8) + b"\x02\x01\x03\x41" + leb128(2 * len(c4)) + c4),
                         ("version 4: a reference to the member itself (snapshot 4)", leb128(2 * len(c3)) + c3 + leb128(2 * 4 + 1)),
                         ("version 4: a reference to snapshot 0", leb128(2 * len(c3)) + c3 + leb128(1))):
        cases.append({"type": "reject-group", "name": name, "encoded": h(head4 + wr.u32(len(deltas)) + deflate(deltas))})
    for name, data in (("version 5", b"\x05" + group4[1:]), ("version 4: a member count past the end", group4[:38] + wr.u32(200) + group4[42:]),
                       ("version 4: a stream cut short", group4[:-1])):
        cases.append({"type": "reject-group", "name": name, "encoded": h(data)})
    for case in cases[-10:]:
        try:
            wr.parse_snapshot_group(bytes.fromhex(case["encoded"]))
            raise AssertionError("the independent reader took a damaged snapshot group: " + case["name"])
        except wr.Damaged:
            pass
    for name, data in (("version 2", b"\x02" + v1[1:]), ("a count past the end", v1[:1] + wr.u32(3) + v1[5:]),
                       ("a trailing byte", v1 + b"\x00"), ("a block length past the end", v1[:-1]),
                       ("a damaged block inside", v1[:21 + 4] + b"\x02" + v1[26:])):
        cases.append({"type": "reject-content", "name": name, "encoded": h(data)})
    header, packed = keyframe[:70], keyframe[74:]
    for name, data in (("version 4", b"\x04" + keyframe[1:]), ("an unknown form (a group's, in a record of its own)", keyframe[:1] + b"\x03" + keyframe[2:]),
                       ("sequence 0", keyframe[:18] + wr.u32(0) + keyframe[22:]),
                       ("a header cut short", keyframe[:2 + 16 + 4 + 16 + 31]),
                       ("no packed size", header + b"\x00\x00"),
                       ("a packed size past the document bound", header + wr.u32(100 * 1024 * 1024 + 1) + packed),
                       ("a stream that gives one byte more than its size", header + wr.u32(len(v1) - 1) + packed),
                       ("a stream that gives one byte fewer than its size", header + wr.u32(len(v1) + 1) + packed),
                       ("a stream cut short", header + wr.u32(len(v1)) + packed[:-1]),
                       ("a byte after the stream", header + wr.u32(len(v1)) + packed + b"\x00"),
                       ("not DEFLATE (a reserved block type)", header + wr.u32(len(v1)) + b"\x07" + packed[1:])):
        try:
            wr.parse_snapshot_record(data)
            raise AssertionError("the independent reader took a damaged snapshot record: " + name)
        except wr.Damaged:
            pass
        cases.append({"type": "reject-record", "name": name, "encoded": h(data)})
    return {"description": "Snapshot contents (each must decode and encode to exactly these bytes, its blocks with these "
                           "ids) and sealed snapshot values, version 2 (the payload packed with raw DEFLATE) and version 1 "
                           "(unpacked, still read) (each must parse to these fields and encode to the same bytes; a "
                           "keyframe's payload is the content, a delta's applied to the previous case's content gives it; "
                           "the digest is SHA-256 of the content), and snapshot groups, version 4 (compact deltas; each "
                           "member's check is SHA-256(id || content)[0..16]) and version 3 (ids and SHA-256 digests, still "
                           "read) (each must parse to these fields, each member's delta applied in turn to the delta "
                           "case's content giving the member's content); reject-content, reject-record and reject-group "
                           "values (including packed payloads that do not unpack to exactly their size) must be refused "
                           "as damaged.",
            "spec": "SECURITY.md §15.2", "cases": cases}


def branch_record(document, base, content):
    """A branch's sealed proposed content (SECURITY.md §15.3), before it is split into 1 MiB parts."""
    return b"\x01" + document + base + content


def writing_branches_file():
    """Branch records (SECURITY.md §15.3): an edit of one block with a new one after it, an empty
    proposal, and damaged records that must be refused."""
    cases = []
    document, base = fixed("branch document", 16), fixed("branch base snapshot", 16)
    b1, b2 = fixed("snapshot block 1", 16), fixed("branch new block", 16)
    proposal = snapshot_content([(b1, "paragraph", "S: slept poorly.", []), (b2, "quote", "Review in a week.", [])])
    record = branch_record(document, base, proposal)
    for name, data, content, blocks in (("an edited block and a new one", record, proposal, [b1, b2]),
                                        ("an empty proposal", branch_record(document, base, snapshot_content([])),
                                         snapshot_content([]), [])):
        cases.append({"type": "record", "name": name, "encoded": h(data), "document": h(document), "base": h(base),
                      "content": h(content), "blocks": [h(b) for b in blocks]})
    for name, data in (("version 2", b"\x02" + record[1:]), ("a header cut short", record[:1 + 16 + 15]),
                       ("no content after the header", record[:33]), ("a trailing byte", record + b"\x00"),
                       ("a damaged block inside", record[:33 + 21 + 4] + b"\x02" + record[33 + 26:])):
        cases.append({"type": "reject-record", "name": name, "encoded": h(data)})
    return {"description": "Sealed branch values (each must parse to these fields, its content decoding to blocks with "
                           "these ids, and encode to exactly these bytes); reject-record values must be refused as damaged.",
            "spec": "SECURITY.md §15.3", "cases": cases}


def edit_event_record(documents):
    """An edit event's sealed documents and word changes (SECURITY.md §15.5)."""
    return b"\x01" + struct.pack(">I", len(documents)) + b"".join(d + struct.pack(">i", w) for d, w in documents)


def writing_edit_events_file():
    """Edit event records (SECURITY.md §15.5): one document, several with a negative change, and
    damaged records that must be refused."""
    cases = []
    d1, d2, d3 = fixed("edit event document 1", 16), fixed("edit event document 2", 16), fixed("edit event document 3", 16)
    for name, documents in (("one document", [(d1, 12)]),
                            ("three documents, one shrunk", [(d1, 40), (d2, -7), (d3, 0)]),
                            ("the extremes of a word change", [(d1, 2**31 - 1), (d2, -2**31)])):
        cases.append({"type": "record", "name": name, "encoded": h(edit_event_record(documents)),
                      "documents": [h(d) for d, _ in documents], "words": [w for _, w in documents]})
    good = edit_event_record([(d1, 1), (d2, 2)])
    for name, data in (("version 2", b"\x02" + good[1:]), ("no documents", edit_event_record([])),
                       ("a count past the end", good[:1] + struct.pack(">I", 3) + good[5:]),
                       ("a trailing byte", good + b"\x00"), ("a document listed twice", edit_event_record([(d1, 1), (d1, 2)])),
                       ("4097 documents", b"\x01" + struct.pack(">I", 4097) + (d1 + b"\x00" * 4) * 4097)):
        cases.append({"type": "reject-record", "name": name, "encoded": h(data)})
    return {"description": "Sealed edit event values (each must parse to these documents and word changes and encode to "
                           "exactly these bytes); reject-record values must be refused as damaged.",
            "spec": "SECURITY.md §15.5", "cases": cases}


def project_snapshot_record(project, nodes):
    """A project snapshot's sealed value (SECURITY.md §15.2), before it is split into 1 MiB parts."""
    def string(text):
        return struct.pack(">I", len(text.encode())) + text.encode()
    none = b"\x00" * 16
    out = b"\x01" + project + struct.pack(">I", len(nodes))
    for node, kind, parent, key, title, snapshot in nodes:
        out += node + bytes([1 if kind == "chapter" else 2]) + (parent or none) + string(key) + string(title) + (snapshot or none)
    return out


def writing_project_snapshots_file():
    """Project snapshot records (SECURITY.md §15.2): a folder holding two documents, an empty project,
    and damaged records that must be refused."""
    project = fixed("project snapshot project", 16)
    folder, d1, d2 = fixed("project snapshot folder", 16), fixed("project snapshot doc 1", 16), fixed("project snapshot doc 2", 16)
    s1, s2 = fixed("project snapshot version 1", 16), fixed("project snapshot version 2", 16)
    nodes = [(folder, "chapter", None, "1i", "Part one", None), (d1, "scene", folder, "1i", "Arrival", s1),
             (d2, "scene", folder, "1j", "Harbour", s2)]
    cases = []
    for name, listed in (("a folder holding two documents", nodes), ("an empty project", [])):
        cases.append({"type": "record", "name": name, "encoded": h(project_snapshot_record(project, listed)), "project": h(project),
                      "nodes": [{"id": h(n), "kind": k, "parent": h(p) if p else None, "order_key": key, "title": t,
                                 "snapshot": h(v) if v else None} for n, k, p, key, t, v in listed]})
    good = project_snapshot_record(project, nodes)
    for name, data in (("version 2", b"\x02" + good[1:]), ("a trailing byte", good + b"\x00"),
                       ("a count past the end", good[:17] + struct.pack(">I", 4) + good[21:]),
                       ("a node before its folder", project_snapshot_record(project, [nodes[1], nodes[0]])),
                       ("a node listed twice", project_snapshot_record(project, [nodes[0], nodes[0]])),
                       ("a folder with a version", project_snapshot_record(project, [(folder, "chapter", None, "1i", "Part one", s1)])),
                       ("a document without one", project_snapshot_record(project, [(d1, "scene", None, "1i", "Arrival", None)])),
                       ("a malformed order key", project_snapshot_record(project, [(folder, "chapter", None, "1I", "Part one", None)]))):
        cases.append({"type": "reject-record", "name": name, "encoded": h(data)})
    return {"description": "Sealed project snapshot values (each must parse to these nodes, in reading order, and encode to "
                           "exactly these bytes); reject-record values must be refused as damaged.",
            "spec": "SECURITY.md §15.2", "cases": cases}


WRITING_FILES = {
    "model.json": writing_model_file,
    "snapshots.json": writing_snapshots_file,
    "branches.json": writing_branches_file,
    "edit-events.json": writing_edit_events_file,
    "project-snapshots.json": writing_project_snapshots_file,
}


def main():
    check = "--check" in sys.argv[1:]
    differ = []
    for directory, files in ((OUT, FILES), (BUNDLE_OUT, BUNDLE_FILES), (AUDIT_OUT, AUDIT_FILES),
                             (RECORD_OUT, RECORD_FILES), (BACKUP_OUT, BACKUP_FILES), (WRITING_OUT, WRITING_FILES)):
        os.makedirs(directory, exist_ok=True)
        for filename, build in files.items():
            text = render(build())
            path = os.path.join(directory, filename)
            shown = os.path.join(os.path.basename(directory), filename)
            if check:
                existing = open(path, encoding="utf-8").read() if os.path.exists(path) else None
                if existing != text:
                    differ.append(shown)
            else:
                with open(path, "w", encoding="utf-8") as handle:
                    handle.write(text)
            print("%s: %d cases" % (shown, len(json.loads(text)["cases"])))
    if differ:
        print("differs from what generate.py writes: %s" % ", ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
