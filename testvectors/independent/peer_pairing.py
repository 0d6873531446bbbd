#!/usr/bin/env python3
"""An independent implementation of SECURITY.md §9 (PeerChannel cryptography), written from that
section, draft-irtf-cfrg-cpace-21 and the Noise Protocol Framework (revision 34) alone. It shares no
code with the Swift implementation. ristretto255 comes from libsodium through ctypes (PyNaCl 1.5 does
not bind it); X25519 and ChaCha20-Poly1305 from PyNaCl; SHA-512, BLAKE2b and HMAC from hashlib/hmac.

    /usr/bin/python3 testvectors/independent/peer_pairing.py            # write testvectors/peer/pairing.json
    /usr/bin/python3 testvectors/independent/peer_pairing.py --check    # exit 1 if the file differs
    /usr/bin/python3 testvectors/independent/peer_pairing.py --self-test SHARED_VECTORS_DIR

--self-test first checks this code against the published CPace and cacophony vectors, so that the
file it writes rests on an implementation that passes them too.
"""

import ctypes
import ctypes.util
import hashlib
import hmac
import json
import os
import sys

from known_answer_file import write_or_check

import nacl.bindings as nb

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "..", "peer", "pairing.json")

sodium = ctypes.CDLL(ctypes.util.find_library("sodium") or "libsodium.so.23")
assert sodium.sodium_init() >= 0

VERSION = b"\x01"


# --- encodings (§9 notation) --------------------------------------------------------------------

def leb128(n):
    out = bytearray()
    while True:
        byte, n = n & 0x7F, n >> 7
        out.append(byte | (0x80 if n else 0))
        if not n:
            return bytes(out)


def prepend_len(data):
    return leb128(len(data)) + data


def lv_cat(*fields):
    return b"".join(prepend_len(f) for f in fields)


# --- CPace (§9.2) -------------------------------------------------------------------------------

DSI = b"CPaceRistretto255"
CI = lv_cat(b"SealedVault PeerChannel pairing", VERSION)


def generator_string(prs, ci, sid):
    zpad = max(0, 128 - 1 - len(prepend_len(prs)) - len(prepend_len(DSI)))
    return lv_cat(DSI, prs, b"\x00" * zpad, ci, sid)


def ristretto_from_hash(h64):
    out = ctypes.create_string_buffer(32)
    assert sodium.crypto_core_ristretto255_from_hash(out, h64) == 0
    return out.raw


def scalar_mult(y, point):
    """Returns None where scalar_mult_vfy must abort (no decoding, or the identity)."""
    if sodium.crypto_core_ristretto255_is_valid_point(point) != 1:
        return None
    out = ctypes.create_string_buffer(32)
    if sodium.crypto_scalarmult_ristretto255(out, y, point) != 0:
        return None
    return out.raw


def calculate_generator(prs, ci, sid):
    return ristretto_from_hash(hashlib.sha512(generator_string(prs, ci, sid)).digest())


def cpace_isk(sid, k, ya_pub, ada, yb_pub, adb):
    transcript = lv_cat(ya_pub, ada) + lv_cat(yb_pub, adb)
    isk = hashlib.sha512(lv_cat(DSI + b"_ISK", sid, k) + transcript).digest()
    sid_output = hashlib.sha512(b"CPaceSidOutput" + transcript).digest()
    return isk, sid_output


def cpace_isk_symmetric(sid, k, ya_pub, ada, yb_pub, adb):
    a, b = lv_cat(ya_pub, ada), lv_cat(yb_pub, adb)
    transcript = b"oc" + (a + b if a > b else b + a)
    return hashlib.sha512(lv_cat(DSI + b"_ISK", sid, k) + transcript).digest()


def associated_data(role, device_id):
    return lv_cat(b"SealedVault PeerChannel", VERSION, bytes([role]), device_id)


def psk_from_isk(isk):
    return hashlib.blake2b(b"SealedVault PeerChannel Noise PSK v1", digest_size=32, key=isk).digest()


# --- Noise (§9.5) -------------------------------------------------------------------------------

PAIRING_PROLOGUE = lv_cat(b"SealedVault PeerChannel pairing Noise", VERSION)
CHANNEL_PROLOGUE = lv_cat(b"SealedVault PeerChannel channel Noise", VERSION)
PATTERNS = {
    "Noise_XX_25519_ChaChaPoly_BLAKE2b": [["e"], ["e", "ee", "s", "es"], ["s", "se"]],
    "Noise_XXpsk3_25519_ChaChaPoly_BLAKE2b": [["e"], ["e", "ee", "s", "es"], ["s", "se", "psk"]],
}
REKEY_INTERVAL = 65536


def blake2b(data):
    return hashlib.blake2b(data, digest_size=64).digest()


def noise_hkdf(ck, ikm, n):
    temp = hmac.new(ck, ikm, hashlib.blake2b).digest()
    outputs, previous = [], b""
    for i in range(1, n + 1):
        previous = hmac.new(temp, previous + bytes([i]), hashlib.blake2b).digest()
        outputs.append(previous)
    return outputs


def nonce_bytes(n):
    return b"\x00" * 4 + n.to_bytes(8, "little")


class Cipher:
    def __init__(self, key=None):
        self.k, self.n = key, 0

    def encrypt(self, ad, plaintext):
        if self.k is None:
            return plaintext
        out = nb.crypto_aead_chacha20poly1305_ietf_encrypt(plaintext, ad, nonce_bytes(self.n), self.k)
        self.n += 1
        return out

    def decrypt(self, ad, ciphertext):
        if self.k is None:
            return ciphertext
        out = nb.crypto_aead_chacha20poly1305_ietf_decrypt(ciphertext, ad, nonce_bytes(self.n), self.k)
        self.n += 1
        return out

    def rekey(self):
        self.k = nb.crypto_aead_chacha20poly1305_ietf_encrypt(b"\x00" * 32, b"", nonce_bytes(2**64 - 1), self.k)[:32]


class Transport:
    def __init__(self, send, receive):
        self.send, self.receive = send, receive

    def seal(self, plaintext):
        out = self.send.encrypt(b"", plaintext)
        if self.send.n % REKEY_INTERVAL == 0:
            self.send.rekey()
        return out

    def open(self, message):
        out = self.receive.decrypt(b"", message)
        if self.receive.n % REKEY_INTERVAL == 0:
            self.receive.rekey()
        return out


class Handshake:
    def __init__(self, name, initiator, prologue, s, e, psk=None):
        self.tokens, self.initiator, self.s, self.e, self.psk = PATTERNS[name], initiator, s, e, psk
        self.h = name.encode().ljust(64, b"\x00")
        self.ck, self.cipher, self.re, self.rs, self.index = self.h, Cipher(), None, None, 0
        self.mix_hash(prologue)

    def mix_hash(self, data):
        self.h = blake2b(self.h + data)

    def mix_key(self, ikm):
        self.ck, k = noise_hkdf(self.ck, ikm, 2)
        self.cipher = Cipher(k[:32])

    def mix_key_and_hash(self, ikm):
        self.ck, th, k = noise_hkdf(self.ck, ikm, 3)
        self.mix_hash(th)
        self.cipher = Cipher(k[:32])

    def encrypt_and_hash(self, plaintext):
        c = self.cipher.encrypt(self.h, plaintext)
        self.mix_hash(c)
        return c

    def decrypt_and_hash(self, c):
        p = self.cipher.decrypt(self.h, c)
        self.mix_hash(c)
        return p

    @staticmethod
    def public(private):
        return nb.crypto_scalarmult_base(private)

    def dh_token(self, token):
        e_priv, s_priv = self.e, self.s
        pairs = {"ee": (e_priv, self.re), "es": (e_priv, self.rs) if self.initiator else (s_priv, self.re),
                 "se": (s_priv, self.re) if self.initiator else (e_priv, self.rs)}
        private, public = pairs[token]
        self.mix_key(nb.crypto_scalarmult(private, public))

    def write(self, payload):
        out = b""
        for token in self.tokens[self.index]:
            if token == "e":
                out += self.public(self.e)
                self.mix_hash(self.public(self.e))
                if self.psk is not None:
                    self.mix_key(self.public(self.e))
            elif token == "s":
                out += self.encrypt_and_hash(self.public(self.s))
            elif token == "psk":
                self.mix_key_and_hash(self.psk)
            else:
                self.dh_token(token)
        self.index += 1
        return out + self.encrypt_and_hash(payload)

    def read(self, message):
        for token in self.tokens[self.index]:
            if token == "e":
                self.re, message = message[:32], message[32:]
                self.mix_hash(self.re)
                if self.psk is not None:
                    self.mix_key(self.re)
            elif token == "s":
                size = 48 if self.cipher.k is not None else 32
                self.rs, message = self.decrypt_and_hash(message[:size]), message[size:]
            elif token == "psk":
                self.mix_key_and_hash(self.psk)
            else:
                self.dh_token(token)
        self.index += 1
        return self.decrypt_and_hash(message)

    def split(self):
        k1, k2 = noise_hkdf(self.ck, b"", 2)
        c1, c2 = Cipher(k1[:32]), Cipher(k2[:32])
        return Transport(c1, c2) if self.initiator else Transport(c2, c1)


# --- the known-answer file ----------------------------------------------------------------------

def fixed(label, n):
    """n fixed bytes named by label: SHAKE256("peer test vector " || label)."""
    return hashlib.shake_256(b"peer test vector " + label.encode()).digest(n)


def fixed_scalar(label):
    """A scalar below the group order: 64 fixed bytes reduced mod L."""
    out = ctypes.create_string_buffer(32)
    sodium.crypto_core_ristretto255_scalar_reduce(out, fixed(label, 64))
    return out.raw


def run_noise(name, prologue, init_s, init_e, resp_s, resp_e, psk, payloads):
    initiator = Handshake(name, True, prologue, init_s, init_e, psk)
    responder = Handshake(name, False, prologue, resp_s, resp_e, psk)
    messages = []
    for i, payload in enumerate(payloads[:3]):
        sender, receiver = (initiator, responder) if i % 2 == 0 else (responder, initiator)
        m = sender.write(payload)
        assert receiver.read(m) == payload
        messages.append({"payload": payload.hex(), "message": m.hex()})
    assert initiator.h == responder.h
    ti, tr = initiator.split(), responder.split()
    for i, payload in enumerate(payloads[3:], start=3):
        sender, receiver = (ti, tr) if i % 2 == 0 else (tr, ti)
        m = sender.seal(payload)
        assert receiver.open(m) == payload
        messages.append({"payload": payload.hex(), "message": m.hex()})
    return initiator.h, messages, ti, tr


def rekey_case(init_s, init_e, resp_s, resp_e):
    """The channel's messages 65534 to 65537 from the initiator: the last two under the key from
    Split() and the first two under the key after the first rekey."""
    _, _, ti, tr = run_noise("Noise_XX_25519_ChaChaPoly_BLAKE2b", CHANNEL_PROLOGUE, init_s, init_e, resp_s, resp_e,
                             None, [b"", b"", b""])
    recorded = []
    for n in range(REKEY_INTERVAL + 2):
        payload = n.to_bytes(4, "big")
        m = ti.seal(payload)
        assert tr.open(m) == payload
        if n >= REKEY_INTERVAL - 2:
            recorded.append({"nonce": n, "payload": payload.hex(), "message": m.hex()})
    return {"description": "initiator to responder on the channel; payload i is i as 4 bytes big-endian",
            "messages": recorded}


def build():
    code = b"4817-2209-5531"
    sid = fixed("pairing sid", 16)
    joiner_id, host_id = fixed("joiner device id", 32), fixed("host device id", 32)
    ya, yb = fixed_scalar("pairing ya"), fixed_scalar("pairing yb")
    keys = {name: fixed(name, 32) for name in ["joiner static", "joiner ephemeral", "host static", "host ephemeral",
                                               "joiner channel ephemeral", "host channel ephemeral"]}

    ada, adb = associated_data(1, joiner_id), associated_data(2, host_id)
    g = calculate_generator(code, CI, sid)
    ya_pub, yb_pub = scalar_mult(ya, g), scalar_mult(yb, g)
    k = scalar_mult(yb, ya_pub)
    assert k == scalar_mult(ya, yb_pub)
    isk, sid_output = cpace_isk(sid, k, ya_pub, ada, yb_pub, adb)
    psk = psk_from_isk(isk)
    payloads = [b"", b"", b"", b"first from host", b"first from joiner", b"second from host"]
    pairing_hash, pairing_messages, _, _ = run_noise(
        "Noise_XXpsk3_25519_ChaChaPoly_BLAKE2b", PAIRING_PROLOGUE, keys["joiner static"], keys["joiner ephemeral"],
        keys["host static"], keys["host ephemeral"], psk, payloads)
    channel_hash, channel_messages, _, _ = run_noise(
        "Noise_XX_25519_ChaChaPoly_BLAKE2b", CHANNEL_PROLOGUE, keys["joiner static"], keys["joiner channel ephemeral"],
        keys["host static"], keys["host channel ephemeral"], None, payloads)
    return {
        "description": "SECURITY.md §9: one pairing (CPace, then Noise_XXpsk3 with the PSK from ISK) and one "
                       "channel handshake (Noise_XX) between the same devices, written by "
                       "testvectors/independent/peer_pairing.py",
        "version": 1,
        "cpace": {
            "code_utf8": code.decode(), "channel_identifier": CI.hex(), "sid": sid.hex(),
            "initiator_device_id": joiner_id.hex(), "responder_device_id": host_id.hex(),
            "ADa": ada.hex(), "ADb": adb.hex(), "ya": ya.hex(), "yb": yb.hex(), "g": g.hex(),
            "MSGa": lv_cat(ya_pub, ada).hex(), "MSGb": lv_cat(yb_pub, adb).hex(), "K": k.hex(),
            "ISK": isk.hex(), "sid_output": sid_output.hex(), "PSK": psk.hex(),
        },
        "pairing": {
            "protocol_name": "Noise_XXpsk3_25519_ChaChaPoly_BLAKE2b", "prologue": PAIRING_PROLOGUE.hex(),
            "initiator_static": keys["joiner static"].hex(), "initiator_ephemeral": keys["joiner ephemeral"].hex(),
            "responder_static": keys["host static"].hex(), "responder_ephemeral": keys["host ephemeral"].hex(),
            "handshake_hash": pairing_hash.hex(), "messages": pairing_messages,
        },
        "channel": {
            "protocol_name": "Noise_XX_25519_ChaChaPoly_BLAKE2b", "prologue": CHANNEL_PROLOGUE.hex(),
            "initiator_static": keys["joiner static"].hex(), "initiator_ephemeral": keys["joiner channel ephemeral"].hex(),
            "responder_static": keys["host static"].hex(), "responder_ephemeral": keys["host channel ephemeral"].hex(),
            "handshake_hash": channel_hash.hex(), "messages": channel_messages,
            "rekey": rekey_case(keys["joiner static"], keys["joiner channel ephemeral"],
                                keys["host static"], keys["host channel ephemeral"]),
        },
    }


# --- self-test against the published vectors ---------------------------------------------------

def self_test(directory):
    with open(os.path.join(directory, "cpace", "ristretto255-sha512-draft21.json")) as f:
        v = json.load(f)
    x = bytes.fromhex
    g = calculate_generator(v["PRS_utf8"].encode(), x(v["CI_hex"]), x(v["sid_hex"]))
    assert generator_string(v["PRS_utf8"].encode(), x(v["CI_hex"]), x(v["sid_hex"])) == x(v["generator_string_hex"])
    assert g == x(v["g_hex"])
    ya_pub, yb_pub = scalar_mult(x(v["ya_hex"]), g), scalar_mult(x(v["yb_hex"]), g)
    assert ya_pub == x(v["Ya_hex"]) and yb_pub == x(v["Yb_hex"])
    k = scalar_mult(x(v["yb_hex"]), ya_pub)
    assert k == x(v["K_hex"])
    ada, adb = v["ADa_utf8"].encode(), v["ADb_utf8"].encode()
    isk, sid_output = cpace_isk(x(v["sid_hex"]), k, ya_pub, ada, yb_pub, adb)
    assert isk == x(v["ISK_IR_hex"]) and sid_output == x(v["sid_output_ir_hex"])
    assert cpace_isk_symmetric(x(v["sid_hex"]), k, ya_pub, ada, yb_pub, adb) == x(v["ISK_SY_hex"])
    vfy = v["scalar_mult_vfy"]
    assert scalar_mult(x(vfy["s_hex"]), x(vfy["valid_X_hex"])) == x(vfy["valid_result_hex"])
    assert scalar_mult(x(vfy["s_hex"]), x(vfy["invalid_Y1_hex"])) is None
    assert scalar_mult(x(vfy["s_hex"]), x(vfy["invalid_Y2_hex"])) is None

    with open(os.path.join(directory, "noise", "cacophony-25519-chachapoly.json")) as f:
        vectors = [c for c in json.load(f)["vectors"] if c["protocol_name"] in PATTERNS]
    assert len(vectors) == 2
    for c in vectors:
        psk = x(c["init_psks"][0]) if "init_psks" in c else None
        payloads = [x(m["payload"]) for m in c["messages"]]
        h, messages, _, _ = run_noise(c["protocol_name"], x(c["init_prologue"]), x(c["init_static"]),
                                      x(c["init_ephemeral"]), x(c["resp_static"]), x(c["resp_ephemeral"]), psk, payloads)
        assert h == x(c["handshake_hash"]), c["protocol_name"]
        assert [m["message"] for m in messages] == [m["ciphertext"] for m in c["messages"]], c["protocol_name"]
    print("self-test: CPace draft-21 vectors and %d cacophony XX vectors pass" % len(vectors))


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--self-test":
        self_test(sys.argv[2])
        return 0
    return write_or_check(OUT, build())


if __name__ == "__main__":
    sys.exit(main())
