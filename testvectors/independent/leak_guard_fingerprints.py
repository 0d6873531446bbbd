#!/usr/bin/env python3
"""Leak guard fingerprints (SECURITY.md §11), written from the specification alone.

Prints the known answers that Tests/PrivilegedSessionTests/FingerprintIndexTests.swift checks: the key
check, the fingerprint of one shingle and a serialized index of one document, for the key of 32 bytes
0x42. With a file argument, prints the fingerprint index of that file's text (hex) instead.
Needs only the Python 3 standard library (hashlib's BLAKE2b; SipHash-2-4 is written out here).
"""
import hashlib
import struct
import sys
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


def keys(key):
    shingle_key = hashlib.blake2b(b'SealedVault leak guard shingle key v1', key=key, digest_size=16).digest()
    key_check = hashlib.blake2b(b'SealedVault leak guard key check v1', key=key, digest_size=16).digest()[:8]
    return shingle_key, key_check


def index(key, documents):
    shingle_key, key_check = keys(key)
    values = set()
    for document in documents:
        w = words(document)
        for i in range(len(w) - 7):
            values.add(siphash24(shingle_key, b'\0'.join(w[i:i + 8])))
    body = b''.join(struct.pack('>Q', v) for v in sorted(values))
    return b'SVFP' + bytes([1, 8, 1]) + key_check + struct.pack('>I', len(values)) + body


def main():
    assert siphash24(bytes(range(16)), bytes(range(15))) == 0xA129CA6149BE45E5  # SipHash paper, Appendix A
    key = b'\x42' * 32
    if len(sys.argv) > 1:
        print(index(key, [open(sys.argv[1], encoding='utf-8').read()]).hex())
        return
    shingle_key, key_check = keys(key)
    print('key check     ', key_check.hex())
    print('fingerprint   ', '%016x' % siphash24(shingle_key, b'\0'.join(b'one two three four five six seven eight'.split())))
    print('serialized    ', index(key, ['One, two; THREE four\nfive six seven eight.']).hex())


if __name__ == '__main__':
    main()
