#!/usr/bin/env python3
"""Known answers for witnessing (SECURITY.md §9.11), written from that section, §8.5, §8.6 and §8.10.

    witness_vectors.py            (re)write testvectors/witness/cosignatures.json
    witness_vectors.py --check    exit 1 if the file differs from what this script computes

A paired device's witness name and cosignature key, witness requests (a first one at epoch 0, one
after growth with a key transition and a consistency proof), the cosignature/v1 message, signature,
line and answer bytes, and a conflict answer. It shares no code with the Swift implementation: the
note, checkpoint, transition and Merkle encodings come from audit_verifier.py, and Ed25519 is the
pure-Python code of RFC 8032 §6 below (no libsodium), checked against RFC 8032's test 1 first.
"""

import hashlib
import os
import sys

from known_answer_file import write_or_check

sys.dont_write_bytecode = True
HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import audit_verifier as av  # noqa: E402

OUT = os.path.join(HERE, "..", "witness", "cosignatures.json")

# ---------------------------------------------------------------------------------------------
# Ed25519, RFC 8032 §6 (deterministic signatures; slow and not constant-time: for test vectors only)
# ---------------------------------------------------------------------------------------------

P = 2 ** 255 - 19
Q = 2 ** 252 + 27742317777372353535851937790883648493
D = -121665 * pow(121666, P - 2, P) % P
SQRT_M1 = pow(2, (P - 1) // 4, P)


def _add(a, b):
    x = (a[1] - a[0]) * (b[1] - b[0]) % P
    y = (a[1] + a[0]) * (b[1] + b[0]) % P
    c, d = 2 * a[3] * b[3] * D % P, 2 * a[2] * b[2] % P
    e, f, g, h = y - x, d - c, d + c, y + x
    return (e * f, g * h, f * g, e * h)


def _mul(s, point):
    result = (0, 1, 1, 0)
    while s > 0:
        if s & 1:
            result = _add(result, point)
        point = _add(point, point)
        s >>= 1
    return result


def _equal(a, b):
    return (a[0] * b[2] - b[0] * a[2]) % P == 0 and (a[1] * b[2] - b[1] * a[2]) % P == 0


def _recover_x(y, sign):
    if y >= P:
        return None
    x2 = (y * y - 1) * pow(D * y * y + 1, P - 2, P)
    if x2 == 0:
        return None if sign else 0
    x = pow(x2, (P + 3) // 8, P)
    if (x * x - x2) % P != 0:
        x = x * SQRT_M1 % P
    if (x * x - x2) % P != 0:
        return None
    return P - x if (x & 1) != sign else x


_GY = 4 * pow(5, P - 2, P) % P
_GX = _recover_x(_GY, 0)
G = (_GX, _GY, 1, _GX * _GY % P)


def _compress(point):
    zinv = pow(point[2], P - 2, P)
    x, y = point[0] * zinv % P, point[1] * zinv % P
    return (y | ((x & 1) << 255)).to_bytes(32, "little")


def _decompress(data):
    y = int.from_bytes(data, "little")
    sign, y = y >> 255, y & ((1 << 255) - 1)
    x = _recover_x(y, sign)
    return None if x is None else (x, y, 1, x * y % P)


def _expand(seed):
    digest = hashlib.sha512(seed).digest()
    a = int.from_bytes(digest[:32], "little") & ((1 << 254) - 8) | (1 << 254)
    return a, digest[32:]


def _hash_mod_q(data):
    return int.from_bytes(hashlib.sha512(data).digest(), "little") % Q


def ed25519_public(seed):
    return _compress(_mul(_expand(seed)[0], G))


def ed25519_sign(seed, message):
    a, prefix = _expand(seed)
    public = _compress(_mul(a, G))
    r = _hash_mod_q(prefix + message)
    big_r = _compress(_mul(r, G))
    s = (r + _hash_mod_q(big_r + public + message) * a) % Q
    return big_r + s.to_bytes(32, "little")


def ed25519_verify(public, message, signature):
    a, r = _decompress(public), _decompress(signature[:32])
    s = int.from_bytes(signature[32:], "little")
    if a is None or r is None or s >= Q or len(signature) != 64:
        return False
    h = _hash_mod_q(signature[:32] + public + message)
    return _equal(_mul(s, G), _add(r, _mul(h, a)))


def _rfc8032_test_1():
    seed = bytes.fromhex("9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
    public = bytes.fromhex("d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
    signature = bytes.fromhex("e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e06522490155"
                              "5fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b")
    assert ed25519_public(seed) == public and ed25519_sign(seed, b"") == signature
    assert ed25519_verify(public, b"", signature) and not ed25519_verify(public, b"x", signature)


# ---------------------------------------------------------------------------------------------
# §9.11
# ---------------------------------------------------------------------------------------------


def _have_libsodium():
    try:
        import nacl.bindings  # noqa: F401
        return True
    except ImportError:
        return False


def fixed(label, n):
    """The first n bytes of SHA-256("vaultctl test vector " || label), as testvectors/generate.py."""
    return hashlib.sha256(b"vaultctl test vector " + label.encode()).digest()[:n]


def device_id(signing_public_key, noise_public_key):
    return hashlib.sha256(b"SealedVault device id v1" + signing_public_key + noise_public_key).digest()[:16]


def witness_name(device):
    return "vaultctl-witness/" + device.hex()


def signed_note(text, seed, name):
    public = ed25519_public(seed)
    return text + b"\n" + av.note_signature_line(name, av.key_id(name, av.TYPE_ED25519, public), ed25519_sign(seed, text))


def request_bytes(old_size, genesis_key, proof, transitions, checkpoint_note):
    assert len(proof) <= 64 and len(transitions) <= 1024 and 1 <= len(checkpoint_note) <= 65536
    data = b"\x01" + old_size.to_bytes(8, "big") + genesis_key + bytes([len(proof)]) + b"".join(proof)
    data += len(transitions).to_bytes(2, "big")
    for note in transitions:
        assert 1 <= len(note) <= 2048
        data += len(note).to_bytes(2, "big") + note
    return data + len(checkpoint_note).to_bytes(4, "big") + checkpoint_note


def cosign(seed, name, timestamp, checkpoint_note):
    """(message, blob, line) of a cosignature/v1 by `seed` on the checkpoint in `checkpoint_note`."""
    text, _ = av.parse_note(checkpoint_note)
    av.parse_checkpoint(text)
    message = av.cosignature_message(timestamp, text)
    blob = timestamp.to_bytes(8, "big") + ed25519_sign(seed, message)
    line = av.note_signature_line(name, av.key_id(name, av.TYPE_COSIGNATURE, ed25519_public(seed)), blob)
    return message, blob, line


def vectors():
    _rfc8032_test_1()
    witness_seed = fixed("witness device signing seed", 32)
    witness_public = ed25519_public(witness_seed)
    noise_public = fixed("witness device noise public key", 32)
    device = device_id(witness_public, noise_public)
    name = witness_name(device)
    witness_key = av.VerifierKey(name, witness_public, av.TYPE_COSIGNATURE)

    vault_id = fixed("witnessed log vault id", 16)
    origin = av.origin_of(vault_id)
    seeds = [fixed("witnessed log epoch %d seed" % epoch, 32) for epoch in range(2)]
    publics = [ed25519_public(seed) for seed in seeds]
    leaves = [av.leaf_hash(b"witnessed entry %d" % i) for i in range(7)]
    checkpoints = [signed_note(av.checkpoint_body(origin, size, av.mth(leaves[:size])), seeds[epoch], origin)
                   for epoch, size in ((0, 3), (1, 7))]
    transition = signed_note(av.transition_text(origin, 1, publics[1], 3, av.mth(leaves[:3])), seeds[0], origin)

    cases = []
    for case_name, old_size, transitions, checkpoint, timestamp in (
            ("first contact: the epoch-0 checkpoint of 3 entries, old size 0", 0, [], checkpoints[0], 1767225600),
            ("after growth: from 3 entries (epoch 0) to 7 (epoch 1), one key transition and PROOF(3, 7)", 3,
             [transition], checkpoints[1], 1767229200)):
        size = 3 if checkpoint is checkpoints[0] else 7
        proof = av.consistency_proof(old_size, leaves[:size])
        if old_size:
            assert av.verify_consistency(old_size, size, av.mth(leaves[:old_size]), av.mth(leaves[:size]), proof) is None
        message, blob, line = cosign(witness_seed, name, timestamp, checkpoint)
        assert ed25519_verify(witness_public, message, blob[8:])
        if _have_libsodium():
            # audit_verifier.py's §8.10 check, with libsodium's Ed25519, where python3-nacl is installed.
            assert av.verify_cosignature(checkpoint + line, witness_key) == timestamp
        cases.append({"name": case_name, "old_size": old_size, "old_root": av.mth(leaves[:old_size]).hex(),
                      "tree_size": size, "root": av.mth(leaves[:size]).hex(),
                      "checkpoint_epoch": len(transitions), "checkpoint_note": checkpoint.decode(),
                      "key_transitions": [t.decode() for t in transitions], "consistency_proof": [p.hex() for p in proof],
                      "request": request_bytes(old_size, publics[0], proof, transitions, checkpoint).hex(),
                      "timestamp": timestamp, "message": message.hex(), "cosignature": blob.hex(),
                      "cosignature_line": line.decode(), "answer": (b"\x01" + line).hex(),
                      "cosigned_note": (checkpoint + line).decode()})
    conflicts = [{"name": "conflict: the witness holds 7 entries and the log's old size differs", "known_size": 7,
                  "reason": "old-size-mismatch", "answer": (b"\x02" + (7).to_bytes(8, "big") + b"\x01").hex()},
                 {"name": "conflict: the checkpoint is smaller than the 7 entries cosigned", "known_size": 7,
                  "reason": "rollback", "answer": (b"\x02" + (7).to_bytes(8, "big") + b"\x02").hex()}]
    return {
        "description": "Witnessing (SECURITY.md §9.11): a device's witness name ('vaultctl-witness/' || hex(device id)) "
                       "and cosignature key (type 0x04), two witness requests of a log whose keys come from fixed "
                       "seeds (entries are the leaves SHA-256(0x00 || 'witnessed entry i')), the cosignature/v1 "
                       "message, blob (u64be time || Ed25519 signature), line and answer the witness gives for each, "
                       "and conflict answers. Written by testvectors/independent/witness_vectors.py.",
        "witness": {"signing_seed": witness_seed.hex(), "signing_public_key": witness_public.hex(),
                    "noise_public_key": noise_public.hex(), "device_id": device.hex(), "name": name,
                    "key_id": "%08x" % witness_key.key_id, "vkey": witness_key.vkey},
        "log": {"vault_id": vault_id.hex(), "origin": origin, "genesis_public_key": publics[0].hex(),
                "epoch_1_public_key": publics[1].hex()},
        "cases": cases,
        "conflicts": conflicts,
    }


def main():
    return write_or_check(OUT, vectors())


if __name__ == "__main__":
    sys.exit(main())
