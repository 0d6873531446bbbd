#!/usr/bin/env python3
"""An independent verifier of vaultctl audit exports, written from SECURITY.md §8 alone.

    audit_verifier.py --key VKEY EXPORT                         verify EXPORT from the genesis vkey
    audit_verifier.py --key VKEY EXPORT --vault DIR --passphrase-file FILE [--details]
                                                                 ... and unseal and check every entry's details

It shares no code with the Swift implementation. It needs Python 3 and python3-nacl (Ed25519 and
XChaCha20-Poly1305 from libsodium); --vault also uses vault_reader.py (python3-argon2) to unlock.

On success it prints a JSON report (origin, entries, checkpoints, epochs, unsigned_entries,
latest_checkpoint) and exits 0. On the first failure it prints
    audit_verifier: FAILED (KIND[, entry N]): message
to standard error and exits 1, where KIND is one of the kinds of SECURITY.md §8.7 / §8.8:
malformed-export, genesis, key-chain, checkpoint, checkpoint-order, transition, entry-malformed,
entry-sequence, entry-chain, checkpoint-root, entries-missing (and, with --vault, details).
A vkey that does not parse exits 64; a file that cannot be read exits 66.

The module's functions (entry encoding, details, the RFC 9162 tree and proofs, signed notes,
checkpoints, key transitions, cosignatures, the export format) are what testvectors/generate.py
uses to write testvectors/audit/.
"""

import argparse
import base64
import binascii
import hashlib
import hmac
import json
import os
import re
import sys

sys.dont_write_bytecode = True

# ---------------------------------------------------------------------------------------------
# Encodings (§8 conventions)
# ---------------------------------------------------------------------------------------------

MAX_I63 = (1 << 63) - 1


class Failure(Exception):
    """A verification failure: kind (§8.7), the entry it names (or None), and a message."""

    def __init__(self, kind, message, entry=None):
        super().__init__(message)
        self.kind = kind
        self.entry = entry


class Malformed(Exception):
    """A value that does not parse (turned into a Failure of the right kind by the caller)."""


def b64encode(data):
    return base64.b64encode(bytes(data)).decode("ascii")


def b64decode(text):
    """Canonical standard padded base64: refuses anything encoding would not give back."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("ascii")
        except UnicodeDecodeError:
            raise Malformed("base64 is not ASCII")
    if len(text) % 4 != 0 or not re.fullmatch(r"[A-Za-z0-9+/]*={0,2}", text):
        raise Malformed("not canonical base64")
    try:
        data = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        raise Malformed("not canonical base64")
    if b64encode(data) != text:
        raise Malformed("not canonical base64")
    return data


def decimal(n):
    return "%d" % n


def parse_decimal(text, maximum=MAX_I63):
    """ASCII decimal without sign or leading zero, at most `maximum`."""
    if not re.fullmatch(r"0|[1-9][0-9]*", text):
        raise Malformed("%r is not a canonical decimal" % text[:24])
    value = int(text)
    if value > maximum:
        raise Malformed("%s is too large" % text[:24])
    return value


def u8(n):
    return bytes([n])


def u16be(n):
    return n.to_bytes(2, "big")


def u32be(n):
    return n.to_bytes(4, "big")


def u64be(n):
    return n.to_bytes(8, "big")


def i64be(n):
    return n.to_bytes(8, "big", signed=True)


def sha256(data):
    return hashlib.sha256(data).digest()


def hmac_sha256(key, message):
    return hmac.new(key, message, hashlib.sha256).digest()


def hkdf_sha256(ikm, salt, info, length):
    """RFC 5869 with HMAC-SHA-256."""
    prk = hmac_sha256(salt if salt else b"\x00" * 32, ikm)
    okm, block, counter = b"", b"", 1
    while len(okm) < length:
        block = hmac_sha256(prk, block + info + bytes([counter]))
        okm += block
        counter += 1
    return okm[:length]


def _nacl():
    try:
        import nacl.bindings as bindings
    except ImportError as error:  # pragma: no cover
        raise ImportError("python3-nacl is needed (apt-get install python3-nacl): %s" % error)
    return bindings


def ed25519_verify(public_key, signature, message):
    """libsodium crypto_sign_verify_detached (through crypto_sign_open), lengths checked first."""
    if len(public_key) != 32 or len(signature) != 64:
        return False
    bindings = _nacl()
    try:
        bindings.crypto_sign_open(bytes(signature) + bytes(message), bytes(public_key))
        return True
    except Exception:  # nacl.exceptions.BadSignatureError and friends
        return False


def xchacha_encrypt(key, nonce, plaintext, ad):
    return _nacl().crypto_aead_xchacha20poly1305_ietf_encrypt(plaintext, ad, nonce, key)


def xchacha_decrypt(key, nonce, ciphertext, ad):
    try:
        return _nacl().crypto_aead_xchacha20poly1305_ietf_decrypt(ciphertext, ad, nonce, key)
    except Exception:
        return None


def is_utf8(data):
    try:
        bytes(data).decode("utf-8", errors="strict")
        return True
    except UnicodeDecodeError:
        return False


# ---------------------------------------------------------------------------------------------
# §8.2 Entries
# ---------------------------------------------------------------------------------------------

ENTRY_VERSION = 1
ENTRY_MAX = 65536
ACTION_BYTES = set(b"abcdefghijklmnopqrstuvwxyz0123456789.-")
DETAIL_NAME_BYTES = set(b"abcdefghijklmnopqrstuvwxyz0123456789_-")


def encode_entry(e):
    """e: dict seq, time, device_id, actor (bytes), action (bytes), compartment_id, subject_id,
    detail_hashes [(name bytes, hash)], sealed_details, previous_hash."""
    out = u8(ENTRY_VERSION) + u64be(e["seq"]) + i64be(e["time"]) + e["device_id"]
    for field in (e["actor"], e["action"], e["compartment_id"], e["subject_id"]):
        out += u8(len(field)) + field
    out += u8(len(e["detail_hashes"]))
    for name, digest in e["detail_hashes"]:
        out += u8(len(name)) + name + digest
    out += u32be(len(e["sealed_details"])) + e["sealed_details"] + e["previous_hash"]
    return out


class _Reader:
    def __init__(self, data):
        self.data, self.offset = bytes(data), 0

    def take(self, n):
        if n < 0 or n > len(self.data) - self.offset:
            raise Malformed("the entry ends inside a field")
        part = self.data[self.offset:self.offset + n]
        self.offset += n
        return part

    def byte(self):
        return self.take(1)[0]

    def integer(self, width):
        return int.from_bytes(self.take(width), "big")


def decode_entry(data):
    """§8.2 decoding; raises Malformed."""
    data = bytes(data)
    if len(data) > ENTRY_MAX:
        raise Malformed("the entry has %d bytes, more than %d" % (len(data), ENTRY_MAX))
    r = _Reader(data)
    if r.byte() != ENTRY_VERSION:
        raise Malformed("the entry's version is not 1")
    e = {"seq": r.integer(8), "time": int.from_bytes(r.take(8), "big", signed=True), "device_id": r.take(16)}
    e["actor"] = r.take(r.byte())
    if not is_utf8(e["actor"]):
        raise Malformed("the actor is not UTF-8")
    e["action"] = r.take(r.byte())
    if len(e["action"]) > 64 or any(b not in ACTION_BYTES for b in e["action"]):
        raise Malformed("the action is not 0-64 bytes of [a-z0-9.-]")
    c = r.byte()
    if c not in (0, 16):
        raise Malformed("the compartment id has %d bytes" % c)
    e["compartment_id"] = r.take(c)
    s = r.byte()
    if s > 64:
        raise Malformed("the subject id has %d bytes" % s)
    e["subject_id"] = r.take(s)
    e["detail_hashes"] = []
    for _ in range(r.byte()):
        name = r.take(r.byte())
        if len(name) > 32 or any(b not in DETAIL_NAME_BYTES for b in name):
            raise Malformed("a detail name is not 0-32 bytes of [a-z0-9_-]")
        e["detail_hashes"].append((name, r.take(32)))
    e["sealed_details"] = r.take(r.integer(4))
    e["previous_hash"] = r.take(32)
    if r.offset != len(data):
        raise Malformed("the entry has %d bytes after its previous hash" % (len(data) - r.offset))
    if 0 < len(e["sealed_details"]) < 40:
        raise Malformed("the sealed details have %d bytes (0 or at least 40)" % len(e["sealed_details"]))
    return e


# ---------------------------------------------------------------------------------------------
# §8.3 Details
# ---------------------------------------------------------------------------------------------

AUDIT_KEYS_INFO = b"vaultctl audit keys v1"
DETAILS_AD_LABEL = b"vaultctl audit details v1"


def audit_keys(master_key, vault_id):
    both = hkdf_sha256(master_key, vault_id, AUDIT_KEYS_INFO, 64)
    return both[:32], both[32:]


def detail_hash(hashing_key, name, value):
    return hmac_sha256(hashing_key, name + b"\x00" + value)


def sorted_details(details):
    return sorted(details, key=lambda d: d[0])


def encode_details(details):
    """details: [(name bytes, value bytes)], already sorted."""
    out = u8(len(details))
    for name, value in details:
        out += u8(len(name)) + name + u16be(len(value)) + value
    return out


def decode_details(data):
    r = _Reader(data)
    details = []
    for _ in range(r.byte()):
        name = r.take(r.byte())
        value = r.take(r.integer(2))
        details.append((name, value))
    if r.offset != len(data):
        raise Malformed("the details plaintext has trailing bytes")
    return details


def details_ad(vault_id, seq):
    return DETAILS_AD_LABEL + vault_id + u64be(seq)


def seal_details(sealing_key, nonce, details, vault_id, seq):
    return nonce + xchacha_encrypt(sealing_key, nonce, encode_details(details), details_ad(vault_id, seq))


def open_details(sealing_key, sealed, vault_id, seq):
    """Returns the details, or None if they fail authentication."""
    plaintext = xchacha_decrypt(sealing_key, sealed[:24], sealed[24:], details_ad(vault_id, seq))
    return None if plaintext is None else decode_details(plaintext)


def check_details(entry, keys, vault_id):
    """§8.3's reader checks; returns [(name, value)] or raises Malformed."""
    sealing_key, hashing_key = keys
    if not entry["sealed_details"]:
        if entry["detail_hashes"]:
            raise Malformed("detail hashes without sealed details")
        return []
    details = open_details(sealing_key, entry["sealed_details"], vault_id, entry["seq"])
    if details is None:
        raise Malformed("the sealed details fail authentication")
    if [n for n, _ in details] != [n for n, _ in entry["detail_hashes"]]:
        raise Malformed("the sealed details' names differ from the listed ones")
    if [n for n, _ in details] != sorted(set(n for n, _ in details)):
        raise Malformed("detail names are repeated or out of order")
    for (name, value), (_, listed) in zip(details, entry["detail_hashes"]):
        if not is_utf8(value):
            raise Malformed("detail %s is not UTF-8" % name.decode("ascii", "replace"))
        if not hmac.compare_digest(detail_hash(hashing_key, name, value), listed):
            raise Malformed("detail %s does not match its hash" % name.decode("ascii", "replace"))
    return details


# ---------------------------------------------------------------------------------------------
# §8.4 The tree (RFC 9162 §2.1)
# ---------------------------------------------------------------------------------------------

EMPTY_ROOT = sha256(b"")


def leaf_hash(entry_bytes):
    return sha256(b"\x00" + entry_bytes)


def node_hash(left, right):
    return sha256(b"\x01" + left + right)


def _split(n):
    k = 1
    while k * 2 < n:
        k *= 2
    return k


def mth(leaves):
    if not leaves:
        return EMPTY_ROOT
    if len(leaves) == 1:
        return leaves[0]
    k = _split(len(leaves))
    return node_hash(mth(leaves[:k]), mth(leaves[k:]))


def inclusion_path(m, leaves):
    """PATH(m, D[n]) of RFC 9162 §2.1.3.1."""
    n = len(leaves)
    if n <= 1:
        return []
    k = _split(n)
    if m < k:
        return inclusion_path(m, leaves[:k]) + [mth(leaves[k:])]
    return inclusion_path(m - k, leaves[k:]) + [mth(leaves[:k])]


def _subproof(m, leaves, whole):
    n = len(leaves)
    if m == n:
        return [] if whole else [mth(leaves)]
    k = _split(n)
    if m <= k:
        return _subproof(m, leaves[:k], whole) + [mth(leaves[k:])]
    return _subproof(m - k, leaves[k:], False) + [mth(leaves[:k])]


def consistency_proof(m, leaves):
    """PROOF(m, D[n]) of RFC 9162 §2.1.4.1; empty for m = 0 and m = n (§8.9)."""
    if m == 0 or m == len(leaves):
        return []
    return _subproof(m, leaves, True)


def verify_inclusion(leaf, index, size, proof, root):
    """RFC 9162 §2.1.3.2. Returns None when valid, else a reason: index, length, root."""
    if index >= size:
        return "index"
    fn, sn, r = index, size - 1, leaf
    for p in proof:
        if sn == 0:
            return "length"
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return "length"
    return None if r == root else "root"


def verify_consistency(size1, size2, root1, root2, proof):
    """RFC 9162 §2.1.4.2 with §8.9's conventions. Returns None when valid, else a reason."""
    if size1 > size2:
        return "size"
    if size1 == 0:
        if proof:
            return "length"
        if root1 != EMPTY_ROOT:
            return "root"
        if size2 == 0 and root2 != EMPTY_ROOT:
            return "root"
        return None
    if size1 == size2:
        if proof:
            return "length"
        return None if root1 == root2 else "root"
    if not proof:
        return "length"
    path = list(proof)
    if size1 & (size1 - 1) == 0:
        path = [root1] + path
    fn, sn = size1 - 1, size2 - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return "length"
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    if sn != 0:
        return "length"
    return None if fr == root1 and sr == root2 else "root"


class Frontier:
    """The right edge of the tree: enough for MTH at the current size in O(log n) memory."""

    def __init__(self):
        self.subtrees, self.size = [], 0  # (height, hash), largest first

    def append(self, leaf):
        height, digest = 0, leaf
        while self.subtrees and self.subtrees[-1][0] == height:
            _, left = self.subtrees.pop()
            height, digest = height + 1, node_hash(left, digest)
        self.subtrees.append((height, digest))
        self.size += 1

    def root(self):
        if not self.subtrees:
            return EMPTY_ROOT
        digest = self.subtrees[-1][1]
        for _, left in reversed(self.subtrees[:-1]):
            digest = node_hash(left, digest)
        return digest


# ---------------------------------------------------------------------------------------------
# §8.5 Signed notes, vkeys, checkpoints
# ---------------------------------------------------------------------------------------------

EM_DASH = "\u2014 ".encode("utf-8")  # e2 80 94 20
NOTE_MAX = 1 << 20
SIGNATURES_MAX = 100
TYPE_ED25519 = 0x01
TYPE_COSIGNATURE = 0x04
# Unicode White_Space.
WHITE_SPACE = set([0x09, 0x0A, 0x0B, 0x0C, 0x0D, 0x20, 0x85, 0xA0, 0x1680, 0x2028, 0x2029, 0x202F, 0x205F, 0x3000]
                  + list(range(0x2000, 0x200B)))


def origin_of(vault_id):
    return "vaultctl/" + vault_id.hex()


def check_key_name(name):
    """name: str. Non-empty, no '+', no White_Space, no control character."""
    if not name:
        raise Malformed("a key name is empty")
    for ch in name:
        if ch == "+" or ord(ch) in WHITE_SPACE or ord(ch) < 0x20:
            raise Malformed("the key name %r has a '+', a space or a control character" % name)


def key_id(name, key_type, public_key):
    return int.from_bytes(sha256(name.encode("utf-8") + b"\x0a" + bytes([key_type]) + public_key)[:4], "big")


class VerifierKey:
    def __init__(self, name, public_key, key_type=TYPE_ED25519):
        check_key_name(name)
        if len(public_key) != 32:
            raise Malformed("a public key has %d bytes" % len(public_key))
        self.name, self.public_key, self.type = name, bytes(public_key), key_type
        self.key_id = key_id(name, key_type, self.public_key)

    @property
    def vkey(self):
        return "%s+%08x+%s" % (self.name, self.key_id, b64encode(bytes([self.type]) + self.public_key))

    @classmethod
    def parse(cls, text, key_type=TYPE_ED25519):
        if len(text.encode("utf-8")) > 4096:
            raise Malformed("the vkey is longer than 4096 bytes")
        parts = text.split("+", 2)
        if len(parts) != 3:
            raise Malformed("a vkey is <name>+<key ID>+<base64 key>")
        name, hex_id, material = parts
        if not re.fullmatch(r"[0-9a-f]{8}", hex_id):
            raise Malformed("the key ID is not 8 lowercase hex digits")
        data = b64decode(material)
        if len(data) != 33 or data[0] != key_type:
            raise Malformed("the vkey is not of type 0x%02x with a 32-byte key" % key_type)
        key = cls(name, data[1:], key_type)
        if key.key_id != int(hex_id, 16):
            raise Malformed("the vkey's key ID is not the one its key derives")
        return key


def parse_note(data):
    """Returns (text bytes, [(key name str, key ID int, signature bytes)]); raises Malformed."""
    data = bytes(data)
    if len(data) > NOTE_MAX:
        raise Malformed("the note is larger than 1 MiB")
    if not is_utf8(data):
        raise Malformed("the note is not UTF-8")
    if any(b < 0x20 and b != 0x0A for b in data):
        raise Malformed("the note holds a control character")
    separator = data.rfind(b"\n\n")
    if separator < 0:
        raise Malformed("no blank line separates the text from the signatures")
    text, block = data[:separator + 1], data[separator + 2:]
    if not block or not block.endswith(b"\n"):
        raise Malformed("the signature block is empty or does not end in a newline")
    if block.count(b"\n") > SIGNATURES_MAX:
        raise Malformed("more than %d signature lines" % SIGNATURES_MAX)
    signatures = []
    for line in block[:-1].split(b"\n"):
        if not line.startswith(EM_DASH):
            raise Malformed("a signature line does not start with an em dash and a space")
        rest = line[len(EM_DASH):]
        space = rest.find(b" ")
        if space < 0:
            raise Malformed("a signature line has no space after the key name")
        name = rest[:space].decode("utf-8")
        check_key_name(name)
        blob = b64decode(rest[space + 1:])
        if len(blob) < 5:
            raise Malformed("a signature line holds a key ID and no signature")
        signatures.append((name, int.from_bytes(blob[:4], "big"), blob[4:]))
    return text, signatures


def verify_note(data, key):
    """§8.5: returns the text once `key` verified, else raises Malformed."""
    text, signatures = parse_note(data)
    verified = False
    for name, kid, signature in signatures:
        if name.encode("utf-8") != key.name.encode("utf-8") or kid != key.key_id:
            continue
        if not ed25519_verify(key.public_key, signature, text):
            raise Malformed("a signature by %s+%08x does not verify" % (key.name, key.key_id))
        verified = True
    if not verified:
        raise Malformed("no signature by %s+%08x" % (key.name, key.key_id))
    return text


def note_signature_line(name, kid, signature):
    return EM_DASH + name.encode("utf-8") + b" " + b64encode(u32be(kid) + signature).encode("ascii") + b"\n"


def checkpoint_body(origin, size, root):
    return ("%s\n%d\n%s\n" % (origin, size, b64encode(root))).encode("utf-8")


def parse_checkpoint(text):
    """Returns (origin str, size, root, extension lines); raises Malformed."""
    if len(text) > NOTE_MAX or not text.endswith(b"\n") or any(b < 0x20 and b != 0x0A for b in text):
        raise Malformed("the checkpoint is not LF-terminated text without control characters")
    if not is_utf8(text):
        raise Malformed("the checkpoint is not UTF-8")
    lines = text[:-1].split(b"\n")
    if len(lines) < 3:
        raise Malformed("a checkpoint has at least three lines")
    if not lines[0]:
        raise Malformed("the origin is empty")
    size = parse_decimal(lines[1].decode("utf-8"), (1 << 64) - 1)
    root = b64decode(lines[2])
    if len(root) != 32:
        raise Malformed("the root hash is not 32 bytes")
    if any(not line for line in lines[3:]):
        raise Malformed("an extension line is empty")
    return lines[0].decode("utf-8"), size, root, lines[3:]


# ---------------------------------------------------------------------------------------------
# §8.6 Key transitions
# ---------------------------------------------------------------------------------------------

TRANSITION_FIRST_LINE = "vaultctl audit key transition v1"


def transition_text(origin, epoch, public_key, size, root):
    return ("%s\n%s\nepoch %d\nkey %s\nafter %d %s\n" % (
        TRANSITION_FIRST_LINE, origin, epoch, b64encode(public_key), size, b64encode(root))).encode("utf-8")


def parse_transition(text):
    """Returns (origin, epoch, public key, size, root); raises Malformed."""
    try:
        lines = text.decode("utf-8").split("\n")
    except UnicodeDecodeError:
        raise Malformed("the transition is not UTF-8")
    if len(lines) != 6 or lines[5] != "" or lines[0] != TRANSITION_FIRST_LINE:
        raise Malformed("a key transition has five lines after its first")
    for line, prefix in ((lines[2], "epoch "), (lines[3], "key "), (lines[4], "after ")):
        if not line.startswith(prefix):
            raise Malformed("a key transition line does not start with %r" % prefix)
    epoch = parse_decimal(lines[2][6:])
    public_key = b64decode(lines[3][4:])
    after = lines[4][6:].split(" ")
    if len(after) != 2:
        raise Malformed("the after line is not a size and a root")
    size, root = parse_decimal(after[0]), b64decode(after[1])
    if len(public_key) != 32 or len(root) != 32:
        raise Malformed("a key or root in the transition is not 32 bytes")
    if transition_text(lines[1], epoch, public_key, size, root) != text:
        raise Malformed("the key transition is not in canonical form")
    return lines[1], epoch, public_key, size, root


# ---------------------------------------------------------------------------------------------
# §8.10 Cosignatures
# ---------------------------------------------------------------------------------------------


def cosignature_message(timestamp, body):
    return ("cosignature/v1\ntime %d\n" % timestamp).encode("ascii") + body


def verify_cosignature(note, witness):
    """Returns the latest timestamp of `witness`'s cosignatures; raises Malformed."""
    text, signatures = parse_note(note)
    parse_checkpoint(text)
    latest = None
    for name, kid, blob in signatures:
        if name.encode("utf-8") != witness.name.encode("utf-8") or kid != witness.key_id:
            continue
        if len(blob) != 72:
            raise Malformed("a cosignature is not 8 + 64 bytes")
        timestamp = int.from_bytes(blob[:8], "big")
        if timestamp > MAX_I63:
            raise Malformed("a cosignature timestamp is above 2^63 - 1")
        if not ed25519_verify(witness.public_key, blob[8:], cosignature_message(timestamp, text)):
            raise Malformed("a cosignature does not verify")
        latest = timestamp if latest is None else max(latest, timestamp)
    if latest is None:
        raise Malformed("no cosignature by %s" % witness.name)
    return latest


# ---------------------------------------------------------------------------------------------
# §8.8 Export files
# ---------------------------------------------------------------------------------------------

EXPORT_FIRST_LINE = "vaultctl audit export v1"
LINE_MAX = 4 << 20


def write_export(origin, keys, checkpoints, entries):
    """keys: [(epoch, public key, introduction bytes or None)]; checkpoints: [(epoch, note bytes)];
    entries: [entry bytes]. Returns the file's bytes."""
    lines = [EXPORT_FIRST_LINE, "origin " + origin]
    for epoch, public_key, introduction in keys:
        lines.append("key %d %s%s" % (epoch, b64encode(public_key),
                                       "" if introduction is None else " " + b64encode(introduction)))
    lines += ["checkpoint %d %s" % (epoch, b64encode(note)) for epoch, note in checkpoints]
    lines += ["entry " + b64encode(entry) for entry in entries]
    body = "".join(line + "\n" for line in lines).encode("utf-8")
    return body + ("end %d %s\n" % (len(entries), b64encode(sha256(body)))).encode("ascii")


def parse_export(data):
    """§8.8. Returns (origin, keys, checkpoints, entries) as write_export takes them; raises
    Failure('malformed-export')."""
    data = bytes(data)
    offset = 0

    def bad(message):
        return Failure("malformed-export", "not a valid audit export: " + message)

    def line():
        nonlocal offset
        end = data.find(b"\n", offset, offset + LINE_MAX + 1)
        if end < 0:
            raise bad("a line is unterminated or longer than 4 MiB")
        raw = data[offset:end]
        if not is_utf8(raw) or b"\r" in raw:
            raise bad("a line is not UTF-8 text without CR")
        offset = end + 1
        return raw.decode("utf-8")

    def fields(name, counts):
        parts = line().split(" ")
        if parts[0] != name or len(parts) - 1 not in counts or any(p == "" for p in parts):
            raise bad("expected a '%s' line" % name)
        return parts[1:]

    def starts(prefix):
        return data.startswith(prefix, offset)

    try:
        if line() != EXPORT_FIRST_LINE:
            raise bad("it is not a vaultctl audit export")
        origin = fields("origin", (1,))[0]
        keys, checkpoints, entries = [], [], []
        while starts(b"key "):
            parts = fields("key", (2, 3))
            introduction = b64decode(parts[2]) if len(parts) == 3 else None
            if introduction is not None and not is_utf8(introduction):
                raise bad("a note is not UTF-8")
            keys.append((parse_decimal(parts[0]), b64decode(parts[1]), introduction))
        while starts(b"checkpoint "):
            parts = fields("checkpoint", (2,))
            note = b64decode(parts[1])
            if not is_utf8(note):
                raise bad("a note is not UTF-8")
            checkpoints.append((parse_decimal(parts[0]), note))
        # §8.8: witness cosignatures (base64 public key, base64 cosigned note), checked by vaultctl's
        # verifier (§8.7 step 7); this reader parses them strictly and leaves them out of its result.
        while starts(b"cosignature "):
            parts = fields("cosignature", (2,))
            if len(b64decode(parts[0])) != 32 or not is_utf8(b64decode(parts[1])):
                raise bad("a cosignature line is malformed")
        while starts(b"entry "):
            entries.append(b64decode(fields("entry", (1,))[0]))
        digest = sha256(data[:offset])
        end = fields("end", (2,))
        if parse_decimal(end[0]) != len(entries) or b64decode(end[1]) != digest or offset != len(data):
            raise bad("its end line does not match its contents (the file is truncated or was edited)")
    except Malformed as error:
        raise bad(str(error))
    return origin, keys, checkpoints, entries


# ---------------------------------------------------------------------------------------------
# §8.7 Verification
# ---------------------------------------------------------------------------------------------


def verify_log(origin, keys, checkpoints, entries, trusted):
    """§8.7 steps 1-6 over a parsed export. Returns the report; raises Failure."""
    # 1. genesis
    if not keys or keys[0][0] != 0:
        raise Failure("genesis", "the log has no genesis key")
    if keys[0][1] != trusted.public_key or trusted.name.encode("utf-8") != origin.encode("utf-8"):
        raise Failure("genesis", "the log's genesis key is not the trusted key %s" % trusted.vkey)
    chain, after = [trusted], [None]
    # 2. key chain
    for epoch, public_key, introduction in keys[1:]:
        i = len(chain)
        if epoch != i or introduction is None:
            raise Failure("key-chain", "key epoch %d is out of order or has no introduction" % epoch)
        try:
            text = verify_note(introduction, chain[-1])
        except Malformed as error:
            raise Failure("key-chain", "the introduction of key epoch %d does not verify: %s" % (i, error))
        try:
            t_origin, t_epoch, t_key, t_size, t_root = parse_transition(text)
        except Malformed as error:
            raise Failure("key-chain", "the introduction of key epoch %d is not a key transition: %s" % (i, error))
        if t_origin.encode("utf-8") != origin.encode("utf-8") or t_epoch != i or t_key != public_key:
            raise Failure("key-chain", "the introduction of key epoch %d names another log, epoch or key" % i)
        try:
            chain.append(VerifierKey(origin, public_key))
        except Malformed as error:
            raise Failure("key-chain", "key epoch %d is malformed: %s" % (i, error))
        after.append((t_size, t_root))
    # 3. checkpoints
    verified = []  # (epoch, size, root)
    for j, (epoch, note) in enumerate(checkpoints):
        if epoch >= len(chain):
            raise Failure("checkpoint", "checkpoint %d names an unknown key epoch %d" % (j, epoch))
        try:
            text = verify_note(note, chain[epoch])
        except Malformed as error:
            raise Failure("checkpoint", "checkpoint %d is not signed by its key: %s" % (j, error))
        try:
            c_origin, size, root, _ = parse_checkpoint(text)
        except Malformed as error:
            raise Failure("checkpoint", "checkpoint %d is malformed: %s" % (j, error))
        if c_origin.encode("utf-8") != origin.encode("utf-8"):
            raise Failure("checkpoint", "checkpoint %d is for another log (%s)" % (j, c_origin))
        if size > MAX_I63:
            raise Failure("checkpoint", "checkpoint %d has a size above 2^63 - 1" % j)
        if verified and (size < verified[-1][1] or epoch < verified[-1][0]):
            raise Failure("checkpoint-order", "checkpoint %d goes back in size or epoch" % j)
        verified.append((epoch, size, root))
    # 4. transitions
    for i in range(1, len(chain)):
        size, root = after[i]
        last = [c for c in verified if c[0] == i - 1]
        if not last or last[-1][1] != size or last[-1][2] != root:
            raise Failure("transition", "key epoch %d was introduced after a checkpoint that epoch %d never signed"
                          % (i, i - 1))
        if any(c[0] >= i and c[1] < size for c in verified):
            raise Failure("transition", "a checkpoint of epoch %d or later claims an earlier state than epoch %d began at"
                          % (i, i))
    # 5. entries
    frontier, previous, pending = Frontier(), b"\x00" * 32, list(verified)

    def check_roots():
        while pending and pending[0][1] == frontier.size:
            if pending[0][2] != frontier.root():
                raise Failure("checkpoint-root", "the checkpoint of %d entries does not match them" % frontier.size,
                              max(0, frontier.size - 1))
            pending.pop(0)

    check_roots()
    for i, data in enumerate(entries):
        try:
            entry = decode_entry(data)
        except Malformed as error:
            raise Failure("entry-malformed", "entry %d does not decode: %s" % (i, error), i)
        if entry["seq"] != i:
            raise Failure("entry-sequence", "entry %d carries sequence number %d" % (i, entry["seq"]), i)
        if entry["previous_hash"] != previous:
            raise Failure("entry-chain", "entry %d does not chain to entry %d" % (i, i - 1), max(0, i - 1))
        previous = leaf_hash(data)
        frontier.append(previous)
        check_roots()
    # 6. entries missing
    if pending:
        raise Failure("entries-missing", "a checkpoint covers %d entries but the log has %d" % (pending[0][1], frontier.size),
                      frontier.size)
    latest = None
    if checkpoints:
        epoch, size, root = verified[-1]
        latest = {"epoch": epoch, "size": size, "root": b64encode(root)}
    return {"origin": origin, "entries": frontier.size, "checkpoints": len(verified), "epochs": len(chain),
            "unsigned_entries": frontier.size - (verified[-1][1] if verified else 0), "latest_checkpoint": latest}


def verify_export(data, trusted):
    return verify_log(*parse_export(data), trusted)


# ---------------------------------------------------------------------------------------------
# Command line
# ---------------------------------------------------------------------------------------------


def _unlock(vault_directory, passphrase_file):
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import vault_reader as vr
    vault = vr.Vault(vault_directory)
    master_key, _ = vault.unlock_passphrase(vr.read_passphrase_file(passphrase_file))
    return vault.vault_id, master_key


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("export")
    parser.add_argument("--key", required=True, help="the genesis vkey (vaultctl audit key)")
    parser.add_argument("--vault", help="the vault, to unseal and check every entry's details")
    parser.add_argument("--passphrase-file")
    parser.add_argument("--details", action="store_true", help="with --vault: print the details")
    arguments = parser.parse_args(argv)
    try:
        trusted = VerifierKey.parse(arguments.key)
    except (Malformed, UnicodeError) as error:
        print("audit_verifier: the key is not a signed-note vkey: %s" % error, file=sys.stderr)
        return 64
    try:
        with open(arguments.export, "rb") as handle:
            data = handle.read()
    except OSError as error:
        print("audit_verifier: cannot read %s: %s" % (arguments.export, error), file=sys.stderr)
        return 66
    try:
        origin, keys, checkpoints, entries = parse_export(data)
        report = verify_log(origin, keys, checkpoints, entries, trusted)
        if arguments.vault:
            if not arguments.passphrase_file:
                print("audit_verifier: --vault needs --passphrase-file", file=sys.stderr)
                return 64
            vault_id, master_key = _unlock(arguments.vault, arguments.passphrase_file)
            if origin_of(vault_id) != origin:
                raise Failure("details", "the export is of %s, the vault is %s" % (origin, origin_of(vault_id)))
            keys_ = audit_keys(master_key, vault_id)
            listed, sealed_count = [], 0
            for i, data_i in enumerate(entries):
                entry = decode_entry(data_i)
                try:
                    details = check_details(entry, keys_, vault_id)
                except Malformed as error:
                    raise Failure("details", "entry %d: %s" % (i, error), i)
                sealed_count += 1 if details else 0
                if details:
                    listed.append({"seq": i, "action": entry["action"].decode("ascii"),
                                   "details": {n.decode("ascii"): v.decode("utf-8") for n, v in details}})
            report["entries_with_details"] = sealed_count
            if arguments.details:
                report["details"] = listed
    except Failure as failure:
        where = "" if failure.entry is None else ", entry %d" % failure.entry
        print("audit_verifier: FAILED (%s%s): %s" % (failure.kind, where, failure), file=sys.stderr)
        return 1
    json.dump(report, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
