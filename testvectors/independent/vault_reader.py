#!/usr/bin/env python3
"""An independent reader of vaultctl vaults, written from SECURITY.md (sections 2-4) alone.

It shares no code with the Swift implementation. It needs Python 3 and two Debian packages:
python3-nacl (XChaCha20-Poly1305 from libsodium) and python3-argon2 (libargon2, used through
argon2_ctx so that Argon2's associated data X can be given). Everything else is the standard
library: hashlib (SHA-256, scrypt), hmac, sqlite3.

    vault_reader.py --vault DIR --passphrase-file FILE
    vault_reader.py --vault DIR --recovery-key-file FILE
    vault_reader.py --vault DIR --share-file A --share-file B [...]
        [--compartment-key NAME:VERSION]

It opens vault.db read-only, unlocks the master key with the given credential and prints, as JSON,
the vault id, the slot that opened and the live compartments (name, register, privileged, key
versions), plus the hex of one compartment key when asked. It never writes to the vault.

Exit codes follow vaultctl's: 2 authentication failed, 65 bad data, 66 not found, 64 usage.

The functions below are also the building blocks of testvectors/generate.py.
"""

import argparse
import ctypes
import ctypes.util
import hashlib
import hmac
import json
import os
import re
import sqlite3
import sys
import urllib.parse

# ---------------------------------------------------------------------------------------------
# Errors
# ---------------------------------------------------------------------------------------------


class FormatError(Exception):
    """Bad data: the input does not follow the format (exit 65). `reason` is a short stable tag."""

    def __init__(self, reason, message, position=None):
        super().__init__(message)
        self.reason = reason
        self.position = position


class AuthenticationError(Exception):
    """The credential did not open any slot (exit 2)."""


class NotFoundError(Exception):
    """Not a vault, missing file, no such compartment (exit 66)."""


# ---------------------------------------------------------------------------------------------
# Primitives (SECURITY.md §2)
# ---------------------------------------------------------------------------------------------


def hkdf_sha256(ikm, salt, info, length):
    """RFC 5869 with HMAC-SHA-256."""
    if length > 255 * 32:
        raise ValueError("HKDF output too long")
    prk = hmac.new(salt if salt else b"\x00" * 32, ikm, hashlib.sha256).digest()
    okm, block, counter = b"", b"", 1
    while len(okm) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        okm += block
        counter += 1
    return okm[:length]


def hmac_sha256(key, message):
    return hmac.new(key, message, hashlib.sha256).digest()


def _nacl():
    try:
        import nacl.bindings as bindings
    except ImportError as error:  # pragma: no cover - reported to the caller
        raise ImportError("python3-nacl is needed (apt-get install python3-nacl): %s" % error)
    return bindings


def xchacha_encrypt(key, nonce, plaintext, ad):
    """XChaCha20-Poly1305 (IETF): ciphertext || 16-byte tag."""
    assert len(key) == 32 and len(nonce) == 24
    return _nacl().crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, nonce, key)


def xchacha_decrypt(key, nonce, ciphertext, ad):
    """Returns the plaintext, or None when authentication fails."""
    assert len(key) == 32 and len(nonce) == 24
    bindings = _nacl()
    try:
        return bindings.crypto_aead_xchacha20poly1305_ietf_decrypt(ciphertext, ad, nonce, key)
    except Exception:  # nacl.exceptions.CryptoError
        return None


ARGON2_VERSION_13 = 0x13
ARGON2_TYPE_ID = 2


def _argon2id_cffi(password, salt, t, m, p, ad, outlen, secret=b""):
    """Argon2id through argon2-cffi's binding to argon2_ctx (it accepts associated data)."""
    from argon2 import low_level

    ffi = low_level.ffi
    out = ffi.new("uint8_t[]", outlen)
    keep = [ffi.new("uint8_t[]", password or b"\x00"), ffi.new("uint8_t[]", salt),
            ffi.new("uint8_t[]", ad or b"\x00"), ffi.new("uint8_t[]", secret or b"\x00")]
    context = ffi.new("argon2_context *", dict(
        out=out, outlen=outlen,
        pwd=keep[0], pwdlen=len(password),
        salt=keep[1], saltlen=len(salt),
        secret=keep[3] if secret else ffi.NULL, secretlen=len(secret),
        ad=keep[2] if ad else ffi.NULL, adlen=len(ad),
        t_cost=t, m_cost=m, lanes=p, threads=p,
        version=ARGON2_VERSION_13,
        allocate_cbk=ffi.NULL, free_cbk=ffi.NULL,
        flags=0,  # ARGON2_DEFAULT_FLAGS: do not wipe the caller's buffers
    ))
    result = low_level.core(context, ARGON2_TYPE_ID)
    if result != 0:
        raise ValueError("argon2_ctx failed: %s" % low_level.error_to_str(result))
    return bytes(ffi.buffer(out, outlen))


class _Argon2Context(ctypes.Structure):
    # struct Argon2_Context from argon2.h (libargon2 20171227 and later).
    _fields_ = [
        ("out", ctypes.c_void_p), ("outlen", ctypes.c_uint32),
        ("pwd", ctypes.c_void_p), ("pwdlen", ctypes.c_uint32),
        ("salt", ctypes.c_void_p), ("saltlen", ctypes.c_uint32),
        ("secret", ctypes.c_void_p), ("secretlen", ctypes.c_uint32),
        ("ad", ctypes.c_void_p), ("adlen", ctypes.c_uint32),
        ("t_cost", ctypes.c_uint32), ("m_cost", ctypes.c_uint32),
        ("lanes", ctypes.c_uint32), ("threads", ctypes.c_uint32),
        ("version", ctypes.c_uint32),
        ("allocate_cbk", ctypes.c_void_p), ("free_cbk", ctypes.c_void_p),
        ("flags", ctypes.c_uint32),
    ]


def _argon2id_ctypes(password, salt, t, m, p, ad, outlen, secret=b""):
    """Argon2id through libargon2.so.1's argon2_ctx, for systems without argon2-cffi."""
    name = ctypes.util.find_library("argon2") or "libargon2.so.1"
    library = ctypes.CDLL(name)
    library.argon2_ctx.argtypes = [ctypes.POINTER(_Argon2Context), ctypes.c_int]
    library.argon2_ctx.restype = ctypes.c_int
    out = ctypes.create_string_buffer(outlen)
    buffers = [ctypes.create_string_buffer(bytes(x), max(len(x), 1)) for x in (password, salt, ad, secret)]
    context = _Argon2Context(
        ctypes.cast(out, ctypes.c_void_p), outlen,
        ctypes.cast(buffers[0], ctypes.c_void_p), len(password),
        ctypes.cast(buffers[1], ctypes.c_void_p), len(salt),
        ctypes.cast(buffers[3], ctypes.c_void_p) if secret else None, len(secret),
        ctypes.cast(buffers[2], ctypes.c_void_p) if ad else None, len(ad),
        t, m, p, p, ARGON2_VERSION_13, None, None, 0)
    result = library.argon2_ctx(ctypes.byref(context), ARGON2_TYPE_ID)
    if result != 0:
        raise ValueError("argon2_ctx failed with code %d" % result)
    return out.raw[:outlen]


def argon2id(password, salt, t, m, p, ad=b"", outlen=32):
    """Argon2id v1.3, secret empty, associated data X = ad, tag length outlen."""
    try:
        import argon2.low_level  # noqa: F401
    except ImportError:
        return _argon2id_ctypes(password, salt, t, m, p, ad, outlen)
    return _argon2id_cffi(password, salt, t, m, p, ad, outlen)


# ---------------------------------------------------------------------------------------------
# KDF parameters (§4.2)
# ---------------------------------------------------------------------------------------------

HKDF_KDF_TEXT = "hkdf-sha256"
ARGON2_BOUNDS = {"memoryKiB": (19456, 2097152), "iterations": (2, 64), "parallelism": (1, 16)}
SCRYPT_BOUNDS = {"log2N": (15, 21), "p": (1, 16)}
SCRYPT_MEMORY_CEILING = 2 * 1024 * 1024 * 1024  # 128·r·2^log2N ≤ 2 GiB
ARGON2_WORK_CEILING = 16777216  # M·T ≤ 16777216 KiB·passes (16 GiB·passes)
SCRYPT_WORK_CEILING = 16 * 1024 * 1024 * 1024  # 128·r·2^log2N·p ≤ 16 GiB


def encode_kdf(params):
    """The canonical JSON text of a parameter dict (sorted keys, no whitespace)."""
    if params["algorithm"] == "argon2id":
        keys = ["algorithm", "iterations", "memoryKiB", "parallelism"]
    elif params["algorithm"] == "scrypt":
        keys = ["algorithm", "log2N", "p", "r"]
    else:
        raise ValueError("unknown algorithm")
    return "{" + ",".join(
        '"%s":%s' % (k, '"%s"' % params[k] if k == "algorithm" else str(int(params[k]))) for k in keys
    ) + "}"


def parse_kdf(text):
    """Parses and validates the `kdf` text of a passphrase slot, refusing non-canonical forms
    and values outside the bounds. Raises FormatError(reason) with reason one of
    'not-canonical', 'unknown-algorithm', 'out-of-bounds'."""
    if not isinstance(text, str):
        raise FormatError("not-canonical", "KDF parameters are not text")

    def pairs(items):
        keys = [k for k, _ in items]
        if len(set(keys)) != len(keys):
            raise FormatError("not-canonical", "KDF parameters repeat a key")
        return dict(items)

    try:
        value = json.loads(text, object_pairs_hook=pairs)
    except FormatError:
        raise
    except ValueError:
        raise FormatError("not-canonical", "KDF parameters are not JSON")
    if not isinstance(value, dict) or not isinstance(value.get("algorithm"), str):
        raise FormatError("not-canonical", "KDF parameters are not an object with an algorithm")
    algorithm = value["algorithm"]
    if algorithm == "argon2id":
        expected = {"algorithm", "iterations", "memoryKiB", "parallelism"}
    elif algorithm == "scrypt":
        expected = {"algorithm", "log2N", "p", "r"}
    else:
        raise FormatError("unknown-algorithm", "unknown KDF algorithm")
    if set(value) != expected:
        raise FormatError("not-canonical", "KDF parameters have missing or extra keys")
    for key in expected - {"algorithm"}:
        if type(value[key]) is not int:  # refuses floats and booleans
            raise FormatError("not-canonical", "KDF parameter %s is not an integer" % key)
    if encode_kdf(value) != text:
        raise FormatError("not-canonical", "KDF parameters are not in canonical form")
    check_kdf_bounds(value)
    return value


def check_kdf_bounds(params):
    if params["algorithm"] == "argon2id":
        for key, (low, high) in ARGON2_BOUNDS.items():
            if not low <= params[key] <= high:
                raise FormatError("out-of-bounds", "Argon2id %s outside [%d, %d]" % (key, low, high))
        if params["memoryKiB"] * params["iterations"] > ARGON2_WORK_CEILING:
            raise FormatError("out-of-bounds", "Argon2id work M·T over %d KiB·passes" % ARGON2_WORK_CEILING)
    else:
        for key, (low, high) in SCRYPT_BOUNDS.items():
            if not low <= params[key] <= high:
                raise FormatError("out-of-bounds", "scrypt %s outside [%d, %d]" % (key, low, high))
        if params["r"] < 8 or 128 * params["r"] * (1 << params["log2N"]) > SCRYPT_MEMORY_CEILING:
            raise FormatError("out-of-bounds", "scrypt r outside its bounds")
        if 128 * params["r"] * (1 << params["log2N"]) * params["p"] > SCRYPT_WORK_CEILING:
            raise FormatError("out-of-bounds", "scrypt work 128·r·N·p over 16 GiB")


# ---------------------------------------------------------------------------------------------
# Keyslots (§3, §4.3)
# ---------------------------------------------------------------------------------------------

KINDS = ("passphrase", "recovery-key", "recovery-shares")


def passphrase_ad(vault_id):
    """Argon2's associated data X."""
    return b"vaultctl passphrase v1" + vault_id


def passphrase_kek(passphrase, salt, kdf_text, vault_id):
    params = parse_kdf(kdf_text)
    if params["algorithm"] == "argon2id":
        return argon2id(passphrase, salt, params["iterations"], params["memoryKiB"],
                        params["parallelism"], passphrase_ad(vault_id), 32)
    n = 1 << params["log2N"]
    return hashlib.scrypt(passphrase, salt=salt, n=n, r=params["r"], p=params["p"], dklen=32,
                          maxmem=128 * params["r"] * n * 2 + 128 * params["r"] * params["p"] + (1 << 20))


def recovery_key_info(vault_id):
    return b"vaultctl recovery-key keyslot v1" + vault_id


def recovery_shares_info(vault_id):
    return b"vaultctl recovery-shares keyslot v1" + vault_id


def recovery_key_kek(key_bytes, salt, vault_id):
    assert len(key_bytes) == 20
    return hkdf_sha256(key_bytes, salt, recovery_key_info(vault_id), 32)


def recovery_shares_kek(secret, salt, vault_id):
    assert len(secret) == 32
    return hkdf_sha256(secret, salt, recovery_shares_info(vault_id), 32)


def keyslot_ad(vault_id, uuid, kind, kdf_text):
    assert len(vault_id) == 16 and len(uuid) == 16
    return b"vaultctl keyslot v1" + vault_id + uuid + kind.encode("ascii") + b"\x00" + kdf_text.encode("ascii")


def wrap_master_key(kek, nonce, master_key, ad):
    assert len(master_key) == 32
    return xchacha_encrypt(kek, nonce, master_key, ad)


def unwrap_master_key(kek, nonce, wrapped_key, ad):
    if len(wrapped_key) != 48:
        return None
    key = xchacha_decrypt(kek, nonce, wrapped_key, ad)
    return key if key is not None and len(key) == 32 else None


# ---------------------------------------------------------------------------------------------
# Recovery key (§4.4)
# ---------------------------------------------------------------------------------------------

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
RECOVERY_KEY_CHECKSUM_PREFIX = b"vaultctl recovery key v1"


def _base32_bits(value, bits):
    """`bits` (a multiple of 5) bits of the integer `value`, most significant first."""
    return "".join(CROCKFORD[(value >> (bits - 5 * (i + 1))) & 31] for i in range(bits // 5))


def recovery_key_checksum(key_bytes):
    """The first 20 bits of SHA-256("vaultctl recovery key v1" || K), as an integer."""
    digest = hashlib.sha256(RECOVERY_KEY_CHECKSUM_PREFIX + key_bytes).digest()
    return int.from_bytes(digest[:3], "big") >> 4


def recovery_key_display(key_bytes):
    assert len(key_bytes) == 20
    symbols = _base32_bits(int.from_bytes(key_bytes, "big"), 160)
    symbols += _base32_bits(recovery_key_checksum(key_bytes), 20)
    return "-".join(symbols[i:i + 6] for i in range(0, 36, 6))


def parse_recovery_key(text):
    """Returns the 20 key bytes. Raises FormatError with reason 'bad-character' (position is the
    1-based character index in the text as given), 'wrong-length' or 'checksum-mismatch'."""
    if text.endswith("\n"):
        text = text[:-1]
    values = []
    for index, character in enumerate(text):
        if character in "- ":
            continue
        upper = character.upper() if character.isascii() else character
        upper = {"I": "1", "L": "1", "O": "0"}.get(upper, upper)
        if len(upper) != 1 or upper not in CROCKFORD:
            raise FormatError("bad-character",
                              "recovery key: invalid character at position %d" % (index + 1), index + 1)
        values.append(CROCKFORD.index(upper))
    if len(values) != 36:
        raise FormatError("wrong-length", "recovery key: %d symbols, expected 36" % len(values))
    number = 0
    for value in values[:32]:
        number = (number << 5) | value
    checksum = 0
    for value in values[32:]:
        checksum = (checksum << 5) | value
    key_bytes = number.to_bytes(20, "big")
    if recovery_key_checksum(key_bytes) != checksum:
        raise FormatError("checksum-mismatch", "recovery key: checksum mismatch (a mistyped symbol)")
    return key_bytes


# ---------------------------------------------------------------------------------------------
# Shamir over GF(2^8) and share files (§4.5)
# ---------------------------------------------------------------------------------------------


def gf_mul(a, b):
    """Multiplication in GF(2^8) modulo x^8+x^4+x^3+x+1 (0x11b)."""
    result = 0
    while b:
        if b & 1:
            result ^= a
        a <<= 1
        if a & 0x100:
            a ^= 0x11B
        b >>= 1
    return result


def gf_inv(a):
    if a == 0:
        raise ZeroDivisionError("0 has no inverse in GF(256)")
    result, power, exponent = 1, a, 254  # a^254 = a^-1
    while exponent:
        if exponent & 1:
            result = gf_mul(result, power)
        power = gf_mul(power, power)
        exponent >>= 1
    return result


def gf_poly_eval(coefficients, x):
    """coefficients[0] is the constant term."""
    result = 0
    for coefficient in reversed(coefficients):
        result = gf_mul(result, x) ^ coefficient
    return result


def shamir_split(secret, threshold, count, coefficients):
    """Deterministic split for vectors: coefficients[j] (j = 1..k-1) is a byte string as long as
    the secret holding the degree-j coefficient of every byte position's polynomial.
    Returns {x: share bytes}."""
    assert 2 <= threshold <= count <= 255 and len(coefficients) == threshold - 1
    shares = {}
    for x in range(1, count + 1):
        shares[x] = bytes(
            gf_poly_eval([secret[i]] + [c[i] for c in coefficients], x) for i in range(len(secret)))
    return shares


def shamir_combine(points):
    """Lagrange interpolation at 0 from {x: share bytes} (all the given points)."""
    xs = list(points)
    if len(set(xs)) != len(xs) or 0 in xs:
        raise ValueError("share numbers must be distinct and non-zero")
    length = len(points[xs[0]])
    secret = bytearray(length)
    for i in xs:
        # basis_i(0) = prod_{j != i} x_j / (x_j - x_i); subtraction is XOR in GF(2^8)
        basis = 1
        for j in xs:
            if j != i:
                basis = gf_mul(basis, gf_mul(j, gf_inv(j ^ i)))
        for position in range(length):
            secret[position] ^= gf_mul(points[i][position], basis)
    return bytes(secret)


SHARE_HEADER = "vaultctl recovery share v1"
SHARE_MAX_BYTES = 512


def share_check(first_six_lines):
    return hashlib.sha256(first_six_lines).digest()[:8]


def serialize_share(vault_id, keyslot_uuid, threshold, x, count, value):
    body = "%s\nvault: %s\nkeyslot: %s\nthreshold: %d\nshare: %d of %d\nvalue: %s\n" % (
        SHARE_HEADER, vault_id.hex(), keyslot_uuid.hex(), threshold, x, count, value.hex())
    return body + "check: %s\n" % share_check(body.encode("ascii")).hex()


_DECIMAL = r"[1-9][0-9]*"
_SHARE_LINES = [
    re.compile(r"vaultctl recovery share v1"),
    re.compile(r"vault: ([0-9a-f]{32})"),
    re.compile(r"keyslot: ([0-9a-f]{32})"),
    re.compile(r"threshold: (%s)" % _DECIMAL),
    re.compile(r"share: (%s) of (%s)" % (_DECIMAL, _DECIMAL)),
    re.compile(r"value: ([0-9a-f]{64})"),
    re.compile(r"check: ([0-9a-f]{16})"),
]
_SHARE_LINE_NAMES = ["header", "vault", "keyslot", "threshold", "share", "value", "check"]


def parse_share(data):
    """Parses one share file (bytes) strictly. Returns a dict with vault_id, keyslot, threshold,
    x, count, value. Raises FormatError with reason one of 'too-large', 'carriage-return',
    'line-count', 'bad-line' (position = 1-based line), 'uppercase-hex', 'out-of-range',
    'check-mismatch'."""
    if isinstance(data, str):
        data = data.encode("utf-8")
    if len(data) > SHARE_MAX_BYTES:
        raise FormatError("too-large", "share file is over %d bytes" % SHARE_MAX_BYTES)
    if b"\r" in data:
        raise FormatError("carriage-return", "share file contains a CR character")
    if not data.endswith(b"\n") or data.count(b"\n") != 7:
        raise FormatError("line-count", "share file must be exactly 7 lines, each ending in LF")
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise FormatError("bad-line", "share file is not ASCII")
    lines = text.split("\n")[:7]
    fields = []
    for number, (pattern, line) in enumerate(zip(_SHARE_LINES, lines), start=1):
        match = pattern.fullmatch(line)
        if match is None:
            lowered = pattern.fullmatch(line.lower()) if number in (2, 3, 6, 7) else None
            if lowered is not None and line.split(": ", 1)[0] == _SHARE_LINE_NAMES[number - 1]:
                raise FormatError("uppercase-hex", "share file line %d: uppercase hex" % number, number)
            raise FormatError("bad-line", "share file line %d is not '%s: ...'" % (
                number, _SHARE_LINE_NAMES[number - 1]), number)
        fields.append(match.groups())
    threshold = int(fields[3][0])
    x, count = int(fields[4][0]), int(fields[4][1])
    if not (2 <= threshold <= count <= 255 and 1 <= x <= count):
        raise FormatError("out-of-range", "share file: need 2 <= threshold <= shares <= 255 and 1 <= x <= shares")
    check = bytes.fromhex(fields[6][0])
    body = data[: data.index(b"check: ")]
    if not hmac.compare_digest(share_check(body), check):
        raise FormatError("check-mismatch", "share file: check does not match (damaged or mistyped)")
    return {
        "vault_id": bytes.fromhex(fields[1][0]),
        "keyslot": bytes.fromhex(fields[2][0]),
        "threshold": threshold,
        "x": x,
        "count": count,
        "value": bytes.fromhex(fields[5][0]),
    }


def combine_shares(shares, vault_id=None):
    """Combines parsed shares (dicts from parse_share). Refuses, before combining: an empty list
    ('no-shares'), shares of another vault ('wrong-vault'), shares of different splits
    ('different-splits': keyslot, threshold or share count differ), a repeated share number
    ('duplicate-share') and fewer than threshold shares ('too-few-shares')."""
    if not shares:
        raise FormatError("no-shares", "no shares given")
    first = shares[0]
    for share in shares:
        if vault_id is not None and share["vault_id"] != vault_id:
            raise FormatError("wrong-vault", "a share belongs to another vault")
    for share in shares:
        if share["vault_id"] != first["vault_id"]:
            raise FormatError("wrong-vault", "shares belong to different vaults")
        if (share["keyslot"], share["threshold"], share["count"]) != (
                first["keyslot"], first["threshold"], first["count"]):
            raise FormatError("different-splits", "shares come from different splits")
    xs = [share["x"] for share in shares]
    if len(set(xs)) != len(xs):
        raise FormatError("duplicate-share", "share number given twice")
    if len(shares) < first["threshold"]:
        raise FormatError("too-few-shares", "needs %d of %d shares, got %d" % (
            first["threshold"], first["count"], len(shares)))
    return shamir_combine({share["x"]: share["value"] for share in shares})


# ---------------------------------------------------------------------------------------------
# Compartments (§4.6)
# ---------------------------------------------------------------------------------------------

NAMES_INFO = b"vaultctl compartment names v1"
COMPARTMENT_KEY_INFO = b"vaultctl compartment key v1"


def name_keys(master_key, vault_id):
    """(lookup key, sealing key)."""
    okm = hkdf_sha256(master_key, vault_id, NAMES_INFO, 64)
    return okm[:32], okm[32:]


def name_hash(lookup_key, name):
    return hmac_sha256(lookup_key, name.encode("utf-8") if isinstance(name, str) else name)


METADATA_MAC_INFO = b"vaultctl metadata mac v1"
COMPARTMENT_BINDING_LABEL = b"vaultctl compartment binding v1"
KDF_POLICY_LABEL = b"vaultctl kdf policy v1"
METADATA_BOUND_LABEL = b"vaultctl metadata bound v1"


def metadata_key(master_key, vault_id):
    """§4.2: the key of the MACs over clear metadata."""
    return hkdf_sha256(master_key, vault_id, METADATA_MAC_INFO, 32)


def metadata_mac(key, label, fields):
    return hmac_sha256(key, label + b"\x00" + fields)


def compartment_binding(key, uuid, hashed_name, register, privileged):
    """§4.6: uuid || name_hash || u8(len register) || register || u8(privileged)."""
    reg = register.encode("ascii")
    return metadata_mac(key, COMPARTMENT_BINDING_LABEL,
                        uuid + hashed_name + bytes([len(reg)]) + reg + bytes([1 if privileged else 0]))


def kdf_policy_mac(key, policy_text):
    return metadata_mac(key, KDF_POLICY_LABEL, policy_text.encode("utf-8"))


def seal_name(sealing_key, nonce, name, vault_id, uuid):
    plaintext = name.encode("utf-8") if isinstance(name, str) else name
    return nonce + xchacha_encrypt(sealing_key, nonce, plaintext, vault_id + uuid)


def open_name(sealing_key, sealed, vault_id, uuid):
    """Returns the name's bytes or None."""
    if sealed is None or len(sealed) < 24 + 16:
        return None
    return xchacha_decrypt(sealing_key, sealed[:24], sealed[24:], vault_id + uuid)


def compartment_key_info(vault_id, uuid, version):
    return COMPARTMENT_KEY_INFO + vault_id + uuid + version.to_bytes(4, "big")


def compartment_key(master_key, vault_id, uuid, version, salt):
    assert len(salt) == 32 and 1 <= version <= 0xFFFFFFFF
    return hkdf_sha256(master_key, salt, compartment_key_info(vault_id, uuid, version), 32)


# ---------------------------------------------------------------------------------------------
# The vault database (§4, §4.1)
# ---------------------------------------------------------------------------------------------

APPLICATION_ID = 0x564C5431
# Schemas 4 to 11 (§4.1) changed only tables this reader does not use; 13 adds module_migrations
# (§4.1.1), the record of the modules' named migrations, which it does not need either.
SCHEMA_VERSION = 13


class Vault:
    def __init__(self, directory):
        path = os.path.join(directory, "vault.db")
        if not os.path.isfile(path):
            raise NotFoundError("not a vault: %s has no vault.db" % directory)
        if not os.path.isdir(os.path.join(directory, "assets")):
            raise FormatError("missing-assets", "the vault's assets/ folder is missing")
        # Read-only; not immutable=1, which would ignore the write-ahead log and miss committed data.
        self.db = sqlite3.connect("file:%s?mode=ro" % urllib.parse.quote(os.path.abspath(path)), uri=True)
        application_id = self.db.execute("PRAGMA application_id").fetchone()[0]
        if application_id != APPLICATION_ID:
            raise NotFoundError("not a vault: application_id is 0x%08x" % (application_id & 0xFFFFFFFF))
        version = self.db.execute("PRAGMA user_version").fetchone()[0]
        if version > SCHEMA_VERSION:
            raise FormatError("newer-schema", "schema version %d is newer than this reader (%d)" % (
                version, SCHEMA_VERSION))
        if version < SCHEMA_VERSION:
            raise FormatError("older-schema", "schema version %d needs migrating; this reader is read-only" % version)
        row = self.db.execute("SELECT value FROM vault_meta WHERE key = 'vault_id'").fetchone()
        if row is None or not isinstance(row[0], bytes) or len(row[0]) != 16:
            raise FormatError("bad-vault-id", "vault_meta.vault_id is missing or not 16 bytes")
        self.vault_id = row[0]

    def slots(self, kind):
        return self.db.execute(
            "SELECT uuid, kind, kdf, salt, nonce, wrapped_key, threshold, share_count "
            "FROM keyslots WHERE kind = ? ORDER BY id", (kind,)).fetchall()

    def _open_slots(self, kind, kek_for_slot):
        """Tries every slot of the kind (no early exit); returns (master key, uuid)."""
        opened, skipped = None, []
        for uuid, slot_kind, kdf, salt, nonce, wrapped, _, _ in self.slots(kind):
            try:
                kek = kek_for_slot(uuid, kdf, salt)
            except FormatError as error:
                skipped.append(str(error))
                continue
            if kek is None:
                continue
            key = unwrap_master_key(kek, nonce, wrapped, keyslot_ad(self.vault_id, uuid, slot_kind, kdf))
            if key is not None and opened is None:
                opened = (key, uuid)
        if opened is None:
            for message in skipped:
                print("vault_reader: slot refused: %s" % message, file=sys.stderr)
            if skipped and len(skipped) == len(self.slots(kind)):
                raise FormatError("out-of-bounds", skipped[0])
            raise AuthenticationError("no %s slot opened" % kind)
        return opened

    def unlock_passphrase(self, passphrase):
        return self._open_slots("passphrase",
                                lambda uuid, kdf, salt: passphrase_kek(passphrase, salt, kdf, self.vault_id))

    def unlock_recovery_key(self, key_bytes):
        def kek(uuid, kdf, salt):
            if kdf != HKDF_KDF_TEXT:
                raise FormatError("not-canonical", "recovery-key slot kdf is not 'hkdf-sha256'")
            return recovery_key_kek(key_bytes, salt, self.vault_id)
        return self._open_slots("recovery-key", kek)

    def unlock_shares(self, parsed):
        secret = combine_shares(parsed, self.vault_id)
        keyslot = parsed[0]["keyslot"]
        slots = {row[0]: row for row in self.slots("recovery-shares")}
        if keyslot not in slots:
            raise AuthenticationError("the shares belong to a split that this vault no longer has")
        _, _, _, _, _, _, threshold, share_count = slots[keyslot]
        if (threshold, share_count) != (parsed[0]["threshold"], parsed[0]["count"]):
            raise FormatError("different-splits", "the shares' threshold does not match the slot")

        def kek(uuid, kdf, salt):
            if uuid != keyslot:
                return None
            if kdf != HKDF_KDF_TEXT:
                raise FormatError("not-canonical", "recovery-shares slot kdf is not 'hkdf-sha256'")
            return recovery_shares_kek(secret, salt, self.vault_id)
        return self._open_slots("recovery-shares", kek)

    def compartments(self, master_key):
        lookup_key, sealing_key = name_keys(master_key, self.vault_id)
        result = []
        rows = self.db.execute(
            "SELECT id, uuid, name_hash, sealed_name, register, privileged, created_at, binding FROM compartments "
            "WHERE destroyed_at IS NULL ORDER BY id").fetchall()
        mac_key = metadata_key(master_key, self.vault_id)
        for row_id, uuid, hashed, sealed, register, privileged, created_at, binding in rows:
            name = open_name(sealing_key, sealed, self.vault_id, uuid)
            if name is None:
                raise FormatError("bad-name", "compartment %s: sealed name fails authentication" % uuid.hex())
            if not hmac.compare_digest(name_hash(lookup_key, name), hashed or b""):
                raise FormatError("bad-name", "compartment %s: name_hash does not match its name" % uuid.hex())
            expected = compartment_binding(mac_key, uuid, hashed, register, privileged == 1)
            if binding is None or not hmac.compare_digest(expected, binding):
                raise FormatError("bad-binding", "compartment %s fails its binding (privileged, register or name_hash)" % uuid.hex())
            versions = self.db.execute(
                "SELECT version, salt, retired_at FROM compartment_keys WHERE compartment_id = ? "
                "ORDER BY version", (row_id,)).fetchall()
            result.append({
                "name": name.decode("utf-8"),
                "id": uuid.hex(),
                "created_at": _iso8601(created_at),
                "register": register,
                "privileged": bool(privileged),
                "key_versions": [{"version": v, "active": retired is None} for v, _, retired in versions],
                "_salts": {v: s for v, s, _ in versions},
            })
        result.sort(key=lambda c: c["name"].encode("utf-8"))
        return result


def _iso8601(seconds):
    import datetime
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


def read_passphrase_file(path):
    """The passphrase is the first line of the file without its line ending (LF, or CR LF): the
    convention of vaultctl's --passphrase-file. SECURITY.md does not state it; --help says "first
    line". Its bytes are used as they are (UTF-8 as typed, no Unicode normalisation)."""
    data = sys.stdin.buffer.readline() if path == "-" else open(path, "rb").read()
    line = data.split(b"\n", 1)[0]
    return line[:-1] if line.endswith(b"\r") else line


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", required=True)
    credential = parser.add_mutually_exclusive_group(required=True)
    credential.add_argument("--passphrase-file")
    credential.add_argument("--recovery-key-file")
    credential.add_argument("--share-file", action="append")
    parser.add_argument("--compartment-key", metavar="NAME:VERSION")
    arguments = parser.parse_args(argv)
    try:
        vault = Vault(arguments.vault)
        if arguments.passphrase_file:
            master_key, uuid = vault.unlock_passphrase(read_passphrase_file(arguments.passphrase_file))
            kind = "passphrase"
        elif arguments.recovery_key_file:
            with open(arguments.recovery_key_file, "r", encoding="utf-8", newline="") as handle:
                key_bytes = parse_recovery_key(handle.read())
            master_key, uuid = vault.unlock_recovery_key(key_bytes)
            kind = "recovery-key"
        else:
            parsed = []
            for path in arguments.share_file:
                with open(path, "rb") as handle:
                    parsed.append(parse_share(handle.read(SHARE_MAX_BYTES + 1)))
            master_key, uuid = vault.unlock_shares(parsed)
            kind = "recovery-shares"
        compartments = vault.compartments(master_key)
        output = {
            "vault_id": vault.vault_id.hex(),
            "unlocked_with": {"kind": kind, "uuid": uuid.hex()},
            "compartments": [{k: v for k, v in c.items() if not k.startswith("_")} for c in compartments],
        }
        if arguments.compartment_key:
            name, _, version_text = arguments.compartment_key.rpartition(":")
            matches = [c for c in compartments if c["name"] == name]
            if not matches or not version_text.isdigit() or int(version_text) not in matches[0]["_salts"]:
                raise NotFoundError("no compartment key %s" % arguments.compartment_key)
            c, version = matches[0], int(version_text)
            output["compartment_key"] = {
                "name": name, "version": version,
                "key": compartment_key(master_key, vault.vault_id, bytes.fromhex(c["id"]), version,
                                       c["_salts"][version]).hex(),
            }
    except AuthenticationError as error:
        print("vault_reader: authentication failed: %s" % error, file=sys.stderr)
        return 2
    except FormatError as error:
        print("vault_reader: bad data (%s): %s" % (error.reason, error), file=sys.stderr)
        return 65
    except (NotFoundError, FileNotFoundError) as error:
        print("vault_reader: not found: %s" % error, file=sys.stderr)
        return 66
    json.dump(output, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
