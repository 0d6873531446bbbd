#!/usr/bin/env python3
"""An independent implementation of the share grant of SECURITY.md §9 ("Sharing compartments"),
written from that section alone; it shares no code with the Swift implementation. X25519, Ed25519 and
ChaCha20-Poly1305 (IETF) come from libsodium through PyNaCl's bindings; SHA-256 and HKDF from hashlib
and hmac.

    /usr/bin/python3 testvectors/independent/share_grant.py           # write testvectors/peer/share-grant.json
    /usr/bin/python3 testvectors/independent/share_grant.py --check   # exit 1 if the file differs

Both modes also parse the grant they make with their own strict parser, check its signature and open
its keys, and check that altering any single byte of it is refused, so the file they write rests on a
grant this code can read back.
"""

import hashlib
import hmac
import os
import struct
import sys

from known_answer_file import write_or_check
import unicodedata

import nacl.bindings as nb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "peer", "share-grant.json")

MAGIC = b"VGRNT\r\n\x1a"
VERSION = 1
ROLES = {1: "viewer", 2: "editor"}
KEY_INFO = b"SealedVault share grant key v1"
AD_LABEL = b"SealedVault share grant wrap v1"
SIGNATURE_CONTEXT = b"SealedVault share grant signature v1"
DEVICE_ID_LABEL = b"SealedVault device id v1"
FIXED_SIZE = 8 + 2 + 1 + 8 + 4 * 16 + 1 + 32 + 1 + 64
MAX_SIZE = FIXED_SIZE + 128 + 64 * 52


class Refused(Exception):
    def __init__(self, code):
        super().__init__(code)
        self.code = code


def hkdf_sha256(ikm, salt, info, length):
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, block, counter = b"", b"", 1
    while len(out) < length:
        block = hmac.new(prk, block + info + bytes([counter]), hashlib.sha256).digest()
        out += block
        counter += 1
    return out[:length]


def device_id(signing_public, noise_public):
    return hashlib.sha256(DEVICE_ID_LABEL + signing_public + noise_public).digest()[:16]


def x25519(private, public):
    shared = nb.crypto_scalarmult(private, public)
    if shared == bytes(32):
        raise Refused("shareGrantKeyRejected")
    return shared


def wrap_key(shared, ephemeral_public, recipient_public):
    return hkdf_sha256(shared, ephemeral_public + recipient_public, KEY_INFO, 32)


def nonce(version):
    return bytes(8) + struct.pack(">I", version)


def associated_data(source_vault, compartment, version, role, sender, recipient):
    return AD_LABEL + source_vault + compartment + struct.pack(">I", version) + bytes([role]) + sender + recipient


def unsigned_bytes(g):
    name = g["name"].encode("utf-8")
    out = MAGIC + struct.pack(">HBQ", VERSION, g["role"], g["issued_at"])
    out += g["source_vault"] + g["compartment"] + g["sender"] + g["recipient"]
    out += bytes([len(name)]) + name + g["ephemeral_public"] + bytes([len(g["keys"])])
    for version, sealed in g["keys"]:
        out += struct.pack(">I", version) + sealed
    return out


def make_grant(inputs):
    """The sender's side: wrap each key for the recipient's X25519 key and sign."""
    sender_signing_public, sender_signing_secret = nb.crypto_sign_seed_keypair(inputs["sender_signing_seed"])
    sender = device_id(sender_signing_public, nb.crypto_scalarmult_base(inputs["sender_noise_private"]))
    recipient_noise_public = nb.crypto_scalarmult_base(inputs["recipient_noise_private"])
    recipient_signing_public, _ = nb.crypto_sign_seed_keypair(inputs["recipient_signing_seed"])
    recipient = device_id(recipient_signing_public, recipient_noise_public)
    ephemeral_public = nb.crypto_scalarmult_base(inputs["ephemeral_private"])
    shared = x25519(inputs["ephemeral_private"], recipient_noise_public)
    key = wrap_key(shared, ephemeral_public, recipient_noise_public)
    keys = []
    for version, compartment_key in inputs["compartment_keys"]:
        ad = associated_data(inputs["source_vault"], inputs["compartment"], version, inputs["role"], sender, recipient)
        keys.append((version, nb.crypto_aead_chacha20poly1305_ietf_encrypt(compartment_key, ad, nonce(version), key)))
    grant = {"role": inputs["role"], "issued_at": inputs["issued_at"], "source_vault": inputs["source_vault"],
             "compartment": inputs["compartment"], "sender": sender, "recipient": recipient, "name": inputs["name"],
             "ephemeral_public": ephemeral_public, "keys": keys}
    unsigned = unsigned_bytes(grant)
    signed_message = SIGNATURE_CONTEXT + unsigned
    signature = nb.crypto_sign(signed_message, sender_signing_secret)[:64]
    intermediates = {"sender_device_id": sender, "recipient_device_id": recipient,
                     "sender_signing_public_key": sender_signing_public, "recipient_noise_public_key": recipient_noise_public,
                     "ephemeral_public_key": ephemeral_public, "shared_secret": shared, "wrap_key": key,
                     "associated_data_first_key": associated_data(inputs["source_vault"], inputs["compartment"],
                                                                  inputs["compartment_keys"][0][0], inputs["role"], sender, recipient),
                     "signed_message": signed_message}
    return unsigned + signature, intermediates


def parse(data):
    """The strict parser of the grant table; raises Refused("malformedShareGrant")."""
    def bad():
        raise Refused("malformedShareGrant")
    if len(data) > MAX_SIZE or len(data) < FIXED_SIZE + 1 + 52:
        bad()
    if data[:8] != MAGIC:
        bad()
    version, role, issued_at = struct.unpack(">HBQ", data[8:19])
    if version != VERSION or role not in ROLES or issued_at >= 1 << 63:
        bad()
    ids = [data[19 + 16 * i:35 + 16 * i] for i in range(4)]
    n = data[83]
    if not 1 <= n <= 128 or len(data) < 84 + n + 33:
        bad()
    try:
        name = data[84:84 + n].decode("utf-8")
    except UnicodeDecodeError:
        bad()
    if (unicodedata.normalize("NFC", name) != name or any(unicodedata.category(c) == "Cc" for c in name)
            or name != name.strip()):
        bad()
    position = 84 + n
    ephemeral_public = data[position:position + 32]
    count = data[position + 32]
    position += 33
    if not 1 <= count <= 64 or len(data) != position + 52 * count + 64:
        bad()
    keys, previous = [], 0
    for _ in range(count):
        version = struct.unpack(">I", data[position:position + 4])[0]
        if version <= previous:
            bad()
        keys.append((version, data[position + 4:position + 52]))
        previous, position = version, position + 52
    return {"role": role, "issued_at": issued_at, "source_vault": ids[0], "compartment": ids[1], "sender": ids[2],
            "recipient": ids[3], "name": name, "ephemeral_public": ephemeral_public, "keys": keys,
            "signature": data[position:position + 64], "unsigned": data[:position]}


def accept(data, recipient_noise_private, recipient_id, pinned_signing_keys):
    """The recipient's checks in the order of the section (the channel-peer check is the channel's)."""
    g = parse(data)
    if g["recipient"] != recipient_id:
        raise Refused("shareGrantMisaddressed")
    if g["sender"] not in pinned_signing_keys:
        raise Refused("unpairedDevice")
    try:
        nb.crypto_sign_open(g["signature"] + SIGNATURE_CONTEXT + g["unsigned"], pinned_signing_keys[g["sender"]])
    except Exception:
        raise Refused("shareGrantBadSignature")
    recipient_public = nb.crypto_scalarmult_base(recipient_noise_private)
    key = wrap_key(x25519(recipient_noise_private, g["ephemeral_public"]), g["ephemeral_public"], recipient_public)
    opened = {}
    for version, sealed in g["keys"]:
        ad = associated_data(g["source_vault"], g["compartment"], version, g["role"], g["sender"], g["recipient"])
        try:
            opened[version] = nb.crypto_aead_chacha20poly1305_ietf_decrypt(sealed, ad, nonce(version), key)
        except Exception:
            raise Refused("shareGrantKeyRejected")
    return g, opened


def fixed_inputs():
    return {
        "sender_signing_seed": bytes(range(0x00, 0x20)), "sender_noise_private": bytes(range(0x20, 0x40)),
        "recipient_signing_seed": bytes(range(0x40, 0x60)), "recipient_noise_private": bytes(range(0x60, 0x80)),
        "ephemeral_private": bytes(range(0x80, 0xA0)), "source_vault": bytes(range(0xA0, 0xB0)),
        "compartment": bytes(range(0xB0, 0xC0)), "compartment_keys": [(1, bytes(range(0xC0, 0xE0))), (3, bytes(range(0xE0, 0x100)))],
        "role": 2, "issued_at": 1764460800, "name": "Caf\u00e9 notes",
    }


def self_check(inputs, grant, intermediates):
    recipient_id = intermediates["recipient_device_id"]
    pinned = {intermediates["sender_device_id"]: intermediates["sender_signing_public_key"]}
    g, opened = accept(grant, inputs["recipient_noise_private"], recipient_id, pinned)
    assert opened == dict(inputs["compartment_keys"]) and g["name"] == inputs["name"]
    refused = 0
    for index in range(len(grant)):
        altered = bytearray(grant)
        altered[index] ^= 0x01
        try:
            accept(bytes(altered), inputs["recipient_noise_private"], recipient_id, pinned)
        except Refused:
            refused += 1
    assert refused == len(grant), "an altered byte was accepted"
    for extra in (grant + b"\x00", grant[:-1]):
        try:
            parse(extra)
            raise AssertionError("a grant with a byte more or less parsed")
        except Refused:
            pass


def document():
    inputs = fixed_inputs()
    grant, intermediates = make_grant(inputs)
    self_check(inputs, grant, intermediates)
    hexed = lambda b: b.hex()
    return {
        "description": "A share grant (SECURITY.md §9, 'Sharing compartments') made from fixed keys by "
                       "testvectors/independent/share_grant.py. Role 2 is editor; the name is UTF-8 (NFC).",
        "inputs": {
            "sender_signing_seed": hexed(inputs["sender_signing_seed"]),
            "sender_noise_private_key": hexed(inputs["sender_noise_private"]),
            "recipient_signing_seed": hexed(inputs["recipient_signing_seed"]),
            "recipient_noise_private_key": hexed(inputs["recipient_noise_private"]),
            "ephemeral_private_key": hexed(inputs["ephemeral_private"]),
            "source_vault_id": hexed(inputs["source_vault"]), "compartment_id": hexed(inputs["compartment"]),
            "compartment_keys": [{"version": v, "key": hexed(k)} for v, k in inputs["compartment_keys"]],
            "role": inputs["role"], "issued_at": inputs["issued_at"], "name": inputs["name"],
        },
        "intermediates": {name: hexed(value) for name, value in intermediates.items()},
        "grant": hexed(grant),
        "grant_size": len(grant),
    }


def main():
    return write_or_check(OUT, document())


if __name__ == "__main__":
    sys.exit(main())
