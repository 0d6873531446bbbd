#!/usr/bin/env python3
"""Writes the known-answer files in testvectors/vault/ from fixed inputs, using only the
independent implementation in testvectors/independent/vault_reader.py (never the Swift code).

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

OUT = os.path.join(HERE, "vault")


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


def render(content):
    return json.dumps(content, indent=2, ensure_ascii=False) + "\n"


def main():
    check = "--check" in sys.argv[1:]
    os.makedirs(OUT, exist_ok=True)
    differ = []
    for filename, build in FILES.items():
        text = render(build())
        path = os.path.join(OUT, filename)
        if check:
            existing = open(path, encoding="utf-8").read() if os.path.exists(path) else None
            if existing != text:
                differ.append(filename)
        else:
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(text)
        print("%s: %d cases" % (filename, len(json.loads(text)["cases"])))
    if differ:
        print("differs from what generate.py writes: %s" % ", ".join(differ), file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
