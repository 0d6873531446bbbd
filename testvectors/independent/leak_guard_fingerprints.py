#!/usr/bin/env python3
"""Leak guard fingerprints (SECURITY.md §11.2-11.4), written from the specification alone.

    /usr/bin/python3 testvectors/independent/leak_guard_fingerprints.py          # write testvectors/leakguard/fingerprints.json
    /usr/bin/python3 testvectors/independent/leak_guard_fingerprints.py --check  # exit 1 if the file differs
    /usr/bin/python3 testvectors/independent/leak_guard_fingerprints.py FILE     # the index of FILE's text (hex)

The JSON file holds, for three keys and a few texts, the normalised words, the fingerprint of every
shingle in order and the serialized index; Tests/PrivilegedSessionTests/FingerprintVectorTests.swift
checks every case against the Swift code. FILE's index uses the key of 32 bytes 0x42.
Needs only the Python 3 standard library (hashlib's BLAKE2b; SipHash-2-4 is written out here).
"""
import hashlib
import os
import struct
import sys

from known_answer_file import write_or_check
import unicodedata

MASK = 0xFFFFFFFFFFFFFFFF


def rotl(x, b):
    return ((x << b) | (x >> (64 - b))) & MASK


def siphash24(key, message):
    k0, k1 = struct.unpack('<QQ', key)
    v = [k0 ^ 0x736F6D6570736575, k1 ^ 0x646F72616E646F6D, k0 ^ 0x6C7967656E657261, k1 ^ 0x7465646279746573]

    def sipround():
        v[0] = (v[0] + v[1]) & MASK; v[1] = rotl(v[1], 13) ^ v[0]; v[0] = rotl(v[0], 32)
        v[2] = (v[2] + v[3]) & MASK; v[3] = rotl(v[3], 16) ^ v[2]
        v[0] = (v[0] + v[3]) & MASK; v[3] = rotl(v[3], 21) ^ v[0]
        v[2] = (v[2] + v[1]) & MASK; v[1] = rotl(v[1], 17) ^ v[2]; v[2] = rotl(v[2], 32)

    full = len(message) // 8 * 8
    blocks = [struct.unpack('<Q', message[i:i + 8])[0] for i in range(0, full, 8)]
    tail = message[full:] + b'\0' * (8 - (len(message) - full))
    blocks.append(struct.unpack('<Q', tail)[0] | ((len(message) & 0xFF) << 56))
    for block in blocks:
        v[3] ^= block; sipround(); sipround(); v[0] ^= block
    v[2] ^= 0xFF
    for _ in range(4):
        sipround()
    return v[0] ^ v[1] ^ v[2] ^ v[3]


APOSTROPHES = {0x27, 0x2018, 0x2019, 0x02BC, 0xFF07}


def words(text):
    """§11.2, except Default_Ignorable_Code_Point, which Python does not expose: Cf is used instead
    (it covers the zero-width characters, soft hyphen and joiners the tests use)."""
    current = []
    out = []

    def emit():
        if current:
            word = unicodedata.normalize('NFKC', ''.join(current))
            word = ''.join(c.lower() for c in word)
            out.append(unicodedata.normalize('NFKC', word).encode())
            current.clear()

    for c in text:
        if ord(c) in APOSTROPHES or unicodedata.category(c) == 'Cf':
            continue
        if unicodedata.category(c)[0] in 'LMN':
            current.append(c)
            if len(current) == 64:
                emit()
        else:
            emit()
    emit()
    return out


P = (1 << 61) - 1  # the Mersenne prime of the shingle polynomials


def keys(key):
    shingle_key = hashlib.blake2b(b'SealedVault leak guard shingle key v2', key=key, digest_size=16).digest()
    polynomial = hashlib.blake2b(b'SealedVault leak guard polynomial keys v2', key=key, digest_size=32).digest()
    a1, b1, a2, b2 = (v % P for v in struct.unpack('<4Q', polynomial))
    key_check = hashlib.blake2b(b'SealedVault leak guard key check v2', key=key, digest_size=16).digest()[:8]
    return shingle_key, (a1, b1, a2, b2), key_check


def word_value(word, a):
    """g_a(w) = n * a^m + c_1 * a^(m-1) + ... + c_m mod p, over 7-byte little-endian chunks."""
    value = len(word)
    for start in range(0, len(word), 7):
        value = (value * a + int.from_bytes(word[start:start + 7], 'little')) % P
    return value


def fingerprint(shingle_key, polynomial, shingle):
    a1, b1, a2, b2 = polynomial
    sums = []
    for a, b in ((a1, b1), (a2, b2)):
        total = 0
        for word in shingle:
            total = (total * b + word_value(word, a)) % P
        sums.append(total)
    return siphash24(shingle_key, struct.pack('<QQ', *sums))


def index(key, documents):
    shingle_key, polynomial, key_check = keys(key)
    values = set()
    for document in documents:
        w = words(document)
        for i in range(len(w) - 7):
            values.add(fingerprint(shingle_key, polynomial, w[i:i + 8]))
    body = b''.join(struct.pack('>Q', v) for v in sorted(values))
    return b'SVFP' + bytes([2, 8, 1]) + key_check + struct.pack('>I', len(values)) + body


HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, '..', 'leakguard', 'fingerprints.json')

# The known-answer texts: plain ASCII words; every chunk length (words of 1 to 64 bytes, exactly 7 and
# 8 bytes, a non-ASCII word); case, punctuation, apostrophes, full-width letters and invisible
# characters; and enough words that the window slides across many shingles.
TEXTS = [
    'One, two; THREE four\nfive six seven eight.',
    'xxxxxxxxxxxxx caf\u00e9 7 abcdefg abcdefgh ' + 'z' * 64 + ' q w',
    "Counsel\u2019s ADVICE was that the state\u200bment, \uff33\uff28\uff2f\uff35\uff2c\uff24 not be shared "
    "with the insurer's adjusters (2024-05-01); Am\u00c9lie agreed.",
    ' '.join('w%d' % i for i in range(40)),
    'seven words are too few for one',
]
KEYS = [b'\x42' * 32, bytes(range(16)), bytes(range(64))]


def build():
    cases = []
    for key in KEYS:
        shingle_key, polynomial, key_check = keys(key)
        for text in TEXTS:
            w = words(text)
            cases.append({
                'key': key.hex(),
                'text': text,
                'words': [word.decode() for word in w],
                'fingerprints': ['%016x' % fingerprint(shingle_key, polynomial, w[i:i + 8]) for i in range(len(w) - 7)],
                'index': index(key, [text]).hex(),
            })
    return {
        'description': 'Leak guard fingerprints: normalised words, the fingerprint of every shingle in order, '
                       'and the serialized index of each text, under three keys',
        'spec': 'SECURITY.md §11.2-11.4 (fingerprint format version 2)',
        'generator': 'testvectors/independent/leak_guard_fingerprints.py',
        'key_checks': {key.hex(): keys(key)[2].hex() for key in KEYS},
        'cases': cases,
    }


def main():
    assert siphash24(bytes(range(16)), bytes(range(15))) == 0xA129CA6149BE45E5  # SipHash paper, Appendix A
    assert siphash24(bytes(range(16)), bytes(range(16))) == 0x3F2ACC7F57C29BDB  # reference vectors, 16 bytes
    if len(sys.argv) == 2 and sys.argv[1] != '--check':
        print(index(b'\x42' * 32, [open(sys.argv[1], encoding='utf-8').read()]).hex())
        return 0
    return write_or_check(OUT, build())


if __name__ == '__main__':
    sys.exit(main())
