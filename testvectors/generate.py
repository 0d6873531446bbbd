#!/usr/bin/env python3
"""Writes the known-answer files in testvectors/vault/ and testvectors/bundle/ from fixed inputs,
using only the independent implementation in testvectors/independent/ (vault_reader.py and
bundle_opener.py; never the Swift code).

    python3 testvectors/generate.py           # (re)write the files
    python3 testvectors/generate.py --check   # exit 1 if a file differs from what it would write

Every "fixed" input is either written out literally or is fixed(label, n): the first n bytes of
SHA-256("vaultctl test vector " || label), repeated hashing for longer outputs. The output is
deterministic: running it twice writes the same bytes.
"""

import hashlib
import json
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the repository (.gitignore does not cover it)
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "independent"))

import vault_reader as vr  # noqa: E402
import bundle_opener as bo  # noqa: E402

OUT = os.path.join(HERE, "vault")
BUNDLE_OUT = os.path.join(HERE, "bundle")


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


def render(content):
    return json.dumps(content, indent=2, ensure_ascii=False) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    differ = []
    for directory, files in ((OUT, FILES), (BUNDLE_OUT, BUNDLE_FILES)):
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
