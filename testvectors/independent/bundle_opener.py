#!/usr/bin/env python3
"""An independent opener of vaultctl bundles (sealed files), written from SECURITY.md §6 alone.

It shares no code with the Swift implementation. The vault side (unlocking, compartment keys) is
vault_reader.py's; everything about bundles is here, from the specification's text. Besides the
standard library it needs python3-nacl (ChaCha20-Poly1305 and XChaCha20-Poly1305 from libsodium).

    bundle_opener.py --vault DIR --passphrase-file FILE BUNDLE [-o OUT|-] [--range START:END] [--info]
    (or --recovery-key-file FILE, or --share-file A --share-file B ...)

It verifies BUNDLE's header against the vault in the order of SECURITY.md §6.6 and writes the plaintext
(or the bytes START up to, not including, END) to OUT or standard output. To a file, nothing appears
unless every chunk read verified (a temporary file is renamed into place); to standard output each
chunk is written once it verified, and a later failure says how many bytes were already written.
--info prints the header fields and the metadata as JSON instead of the plaintext.

Every refusal is one line on standard error, "bundle_opener: <kind> (<reason>): <message>", where kind
is corrupt, truncated or foreign (vaultctl's corruptBundle, truncatedBundle, foreignBundle), and exit
status 65. Other exits follow vault_reader.py: 2 authentication failed, 66 not found, 64 usage.

The functions below are also the building blocks of testvectors/generate.py (sealing included, so
that the known answers come from this implementation and not from the Swift one).
"""

import argparse
import hashlib
import hmac
import json
import os
import sys

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import vault_reader as vr  # noqa: E402

# ---------------------------------------------------------------------------------------------
# Constants (§6.1-6.5)
# ---------------------------------------------------------------------------------------------

MAGIC = bytes.fromhex("56424e444c0d0a1a")  # "VBNDL" CR LF 0x1A
FORMAT_VERSION = 1
FIXED_HEADER_SIZE = 214  # H = 214 + m
KEYS_INFO = b"vaultctl bundle keys v1"  # HKDF info (23 bytes)
WRAP_AD_LABEL = b"vaultctl bundle key v1"  # wrap AD prefix (22 bytes)
TAG = 16
MIN_CHUNK, MAX_CHUNK, DEFAULT_CHUNK = 1024, 16 * 1024 * 1024, 65536
UNKNOWN_LENGTH = 0xFFFFFFFFFFFFFFFF
MAX_PLAINTEXT = 1 << 50
MAX_NAME, MAX_TYPE = 1024, 255
MIN_SEALED_METADATA = TAG
MAX_SEALED_METADATA = 2 + MAX_NAME + 2 + MAX_TYPE + 8 + TAG  # 1307
MAX_HEADER_SIZE = FIXED_HEADER_SIZE + MAX_SEALED_METADATA  # 1521
METADATA_NONCE = bytes(12)

# Offsets of the header fields (§6.2 table); m-dependent ones are computed.
OFF_VERSION, OFF_LENGTH, OFF_VAULT, OFF_COMPARTMENT, OFF_KEY_VERSION = 8, 10, 12, 28, 44
OFF_BUNDLE, OFF_CHUNK, OFF_PLAINTEXT, OFF_NONCE, OFF_WRAPPED, OFF_META_LEN, OFF_META = 48, 64, 68, 76, 100, 148, 150


class BundleError(Exception):
    """A refused bundle. kind: 'corrupt', 'truncated' or 'foreign' (§6.2). reason: a short stable tag
    (the `reason` of testvectors/bundle negative cases). chunk: the failing chunk index, if any."""

    def __init__(self, kind, reason, message, chunk=None):
        super().__init__(message)
        self.kind = kind
        self.reason = reason
        self.chunk = chunk


def _corrupt(reason, message, chunk=None):
    return BundleError("corrupt", reason, message, chunk)


def _truncated(reason, message):
    return BundleError("truncated", reason, message)


def _foreign(reason, message):
    return BundleError("foreign", reason, message)


# ---------------------------------------------------------------------------------------------
# Primitives
# ---------------------------------------------------------------------------------------------


def chacha_encrypt(key, nonce, plaintext, ad=b""):
    """ChaCha20-Poly1305 (IETF, RFC 8439): ciphertext || 16-byte tag."""
    assert len(key) == 32 and len(nonce) == 12
    return vr._nacl().crypto_aead_chacha20poly1305_ietf_encrypt(plaintext, ad, nonce, key)


def chacha_decrypt(key, nonce, sealed, ad=b""):
    """The plaintext, or None when authentication fails."""
    assert len(key) == 32 and len(nonce) == 12
    if len(sealed) < TAG:
        return None
    try:
        return vr._nacl().crypto_aead_chacha20poly1305_ietf_decrypt(sealed, ad, nonce, key)
    except Exception:  # nacl.exceptions.CryptoError
        return None


def u16(value):
    return value.to_bytes(2, "big")


def u32(value):
    return value.to_bytes(4, "big")


def u64(value):
    return value.to_bytes(8, "big")


# ---------------------------------------------------------------------------------------------
# Keys (§6.1)
# ---------------------------------------------------------------------------------------------


def bundle_keys(data_key, bundle_id):
    """HKDF-SHA-256(IKM = DK, salt = bundle id, info = "vaultctl bundle keys v1", L = 128), split."""
    assert len(data_key) == 32 and len(bundle_id) == 16
    okm = vr.hkdf_sha256(data_key, bundle_id, KEYS_INFO, 128)
    return {"hkdf_output": okm, "payload_key": okm[0:32], "metadata_key": okm[32:64],
            "header_key": okm[64:96], "key_commitment": okm[96:128]}


def wrap_ad(vault_id, compartment_id, key_version, bundle_id):
    assert len(vault_id) == 16 and len(compartment_id) == 16 and len(bundle_id) == 16
    return WRAP_AD_LABEL + vault_id + compartment_id + u32(key_version) + bundle_id


def wrap_data_key(compartment_key, nonce, data_key, ad):
    return vr.xchacha_encrypt(compartment_key, nonce, data_key, ad)


def unwrap_data_key(compartment_key, nonce, wrapped, ad):
    """DK, or None when authentication fails."""
    return vr.xchacha_decrypt(compartment_key, nonce, wrapped, ad)


# ---------------------------------------------------------------------------------------------
# Metadata (§6.3)
# ---------------------------------------------------------------------------------------------


def encode_metadata(name, content_type, modification_time):
    """name, content_type: str or bytes; modification_time: a signed 64-bit integer."""
    name_bytes = name.encode("utf-8") if isinstance(name, str) else name
    type_bytes = content_type.encode("ascii") if isinstance(content_type, str) else content_type
    assert len(name_bytes) <= MAX_NAME and len(type_bytes) <= MAX_TYPE
    assert all(0x20 <= b <= 0x7E for b in type_bytes)
    assert -(1 << 63) <= modification_time < (1 << 63)
    return (u16(len(name_bytes)) + name_bytes + u16(len(type_bytes)) + type_bytes
            + u64(modification_time & 0xFFFFFFFFFFFFFFFF))


def decode_metadata(data):
    """Returns {name, content_type, modification_time}; raises BundleError('corrupt', 'metadata')."""
    def malformed(why):
        return _corrupt("metadata", "header: the sealed metadata is malformed (%s)" % why)
    if len(data) < 2:
        raise malformed("short")
    n = int.from_bytes(data[0:2], "big")
    if n > MAX_NAME:
        raise malformed("name longer than %d bytes" % MAX_NAME)
    if len(data) < 2 + n:
        raise malformed("short")
    try:
        name = data[2:2 + n].decode("utf-8", errors="strict")  # refuses overlong forms and surrogates
    except UnicodeDecodeError:
        raise malformed("name is not UTF-8")
    at = 2 + n
    if len(data) < at + 2:
        raise malformed("short")
    t = int.from_bytes(data[at:at + 2], "big")
    if t > MAX_TYPE:
        raise malformed("content type longer than %d bytes" % MAX_TYPE)
    at += 2
    if len(data) < at + t:
        raise malformed("short")
    content_type = data[at:at + t]
    if not all(0x20 <= b <= 0x7E for b in content_type):
        raise malformed("content type is not printable ASCII")
    at += t
    if len(data) < at + 8:
        raise malformed("short")
    if len(data) != at + 8:
        raise malformed("bytes after the modification time")
    time = int.from_bytes(data[at:at + 8], "big")
    if time >= 1 << 63:
        time -= 1 << 64
    return {"name": name, "content_type": content_type.decode("ascii"), "modification_time": time}


def seal_metadata(metadata_key, encoded):
    return chacha_encrypt(metadata_key, METADATA_NONCE, encoded)


# ---------------------------------------------------------------------------------------------
# Header (§6.2, §6.4)
# ---------------------------------------------------------------------------------------------


def header_prefix(vault_id, compartment_id, key_version, bundle_id, chunk_size, plaintext_length,
                  wrap_nonce, wrapped_data_key, sealed_metadata, key_commitment, header_length=None,
                  magic=MAGIC, version=FORMAT_VERSION):
    """Every header byte before the MAC (the MAC's message). The optional arguments exist to build
    deliberately wrong headers for negative test vectors."""
    m = len(sealed_metadata)
    return (magic + u16(version) + u16(FIXED_HEADER_SIZE + m if header_length is None else header_length)
            + vault_id + compartment_id + u32(key_version) + bundle_id + u32(chunk_size) + u64(plaintext_length)
            + wrap_nonce + wrapped_data_key + u16(m) + sealed_metadata + key_commitment)


def header_mac(header_key, prefix):
    return vr.hmac_sha256(header_key, prefix)


def parse_header(data):
    """Parses the first bytes of a bundle (§6.2 'Parsing'): structure only, no key. `data` may hold
    more than the header. Returns a dict of the fields plus 'size', 'prefix' (the MAC's message)."""
    def need(end):
        if len(data) < end:
            raise _truncated("header-truncated", "header: the bundle ends inside its header")

    need(8)
    if data[0:8] != MAGIC:
        raise _corrupt("header-structure", "header: this is not a vault bundle (bad magic)")
    need(OFF_LENGTH)
    version = int.from_bytes(data[OFF_VERSION:OFF_LENGTH], "big")
    if version != FORMAT_VERSION:
        raise _corrupt("header-structure", "header: format version %d is not supported (this reader reads 1)" % version)
    need(OFF_META)
    m = int.from_bytes(data[OFF_META_LEN:OFF_META], "big")
    if not MIN_SEALED_METADATA <= m <= MAX_SEALED_METADATA:
        raise _corrupt("header-structure", "header: the sealed metadata length %d is out of range" % m)
    size = FIXED_HEADER_SIZE + m
    need(size)
    declared = int.from_bytes(data[OFF_LENGTH:OFF_VAULT], "big")
    if declared != size:
        raise _corrupt("header-structure", "header: the header length field (%d) is inconsistent (%d)" % (declared, size))
    key_version = int.from_bytes(data[OFF_KEY_VERSION:OFF_BUNDLE], "big")
    chunk_size = int.from_bytes(data[OFF_CHUNK:OFF_PLAINTEXT], "big")
    plaintext_length = int.from_bytes(data[OFF_PLAINTEXT:OFF_NONCE], "big")
    if key_version == 0:
        raise _corrupt("header-structure", "header: key version 0 does not exist")
    if not (MIN_CHUNK <= chunk_size <= MAX_CHUNK and chunk_size & (chunk_size - 1) == 0):
        raise _corrupt("header-structure", "header: chunk size %d is not a power of two from 1 KiB to 16 MiB" % chunk_size)
    if plaintext_length > MAX_PLAINTEXT and plaintext_length != UNKNOWN_LENGTH:
        raise _corrupt("header-structure", "header: plaintext length %d is out of range" % plaintext_length)
    return {
        "size": size,
        "vault_id": data[OFF_VAULT:OFF_COMPARTMENT],
        "compartment_id": data[OFF_COMPARTMENT:OFF_KEY_VERSION],
        "key_version": key_version,
        "bundle_id": data[OFF_BUNDLE:OFF_CHUNK],
        "chunk_size": chunk_size,
        "plaintext_length": plaintext_length,
        "wrap_nonce": data[OFF_NONCE:OFF_WRAPPED],
        "wrapped_data_key": data[OFF_WRAPPED:OFF_META_LEN],
        "sealed_metadata": data[OFF_META:OFF_META + m],
        "key_commitment": data[OFF_META + m:OFF_META + m + 32],
        "mac": data[OFF_META + m + 32:size],
        "prefix": data[0:size - 32],
    }


# ---------------------------------------------------------------------------------------------
# Payload (§6.5)
# ---------------------------------------------------------------------------------------------


def chunk_nonce(index, last):
    """11-byte big-endian index || 0x01 (last) or 0x00."""
    assert 0 <= index < 1 << 88
    return index.to_bytes(11, "big") + (b"\x01" if last else b"\x00")


def chunk_count(plaintext_length, chunk_size):
    return max(1, -(-plaintext_length // chunk_size))


def seal_payload(payload_key, plaintext, chunk_size):
    """The sealed chunks, as a list of bytes."""
    n = chunk_count(len(plaintext), chunk_size)
    return [chacha_encrypt(payload_key, chunk_nonce(i, i == n - 1), plaintext[i * chunk_size:(i + 1) * chunk_size])
            for i in range(n)]


def payload_layout(header, file_size):
    """(L, n) from the header and the file size, refusing a wrong size (§6.5, §6.6 step 10)."""
    size, chunk = header["size"], header["chunk_size"]
    sealed_chunk = chunk + TAG
    if header["plaintext_length"] != UNKNOWN_LENGTH:
        length = header["plaintext_length"]
        n = chunk_count(length, chunk)
    else:
        if file_size < size + TAG:
            raise _truncated("truncated", "truncated: the bundle has no final chunk")
        payload = file_size - size
        n = -(-payload // sealed_chunk)
        last = payload - (n - 1) * sealed_chunk
        if last <= TAG and n > 1:
            raise _truncated("truncated", "truncated: the bundle ends inside chunk %d" % (n - 1))
        length = payload - TAG * n
    expected = size + length + TAG * n
    if file_size < expected:
        ends_in = 0 if file_size <= size else (file_size - size) // sealed_chunk
        raise _truncated("truncated", "truncated: the bundle is %d bytes, its header says %d; it ends in chunk %d"
                         % (file_size, expected, ends_in))
    if file_size > expected:
        raise _truncated("trailing-data", "trailing data: %d bytes after the final chunk" % (file_size - expected))
    return length, n


# ---------------------------------------------------------------------------------------------
# Opening (§6.6)
# ---------------------------------------------------------------------------------------------


class DictKeyring:
    """Compartment keys from a description (used by the generator): {compartment_id: {'destroyed':
    bool, 'keys': {version: key}}}; versions absent from 'keys' are retired or unknown."""

    def __init__(self, compartments):
        self.compartments = compartments

    def compartment_key(self, compartment_id, version):
        entry = self.compartments.get(compartment_id)
        if entry is None:
            raise _foreign("unknown-compartment", "header: its compartment does not exist in this vault")
        if entry.get("destroyed"):
            raise _foreign("destroyed-compartment", "header: its compartment was destroyed; it can never be opened")
        if version not in entry["keys"]:
            raise _foreign("inactive-key-version", "header: key version %d of its compartment is retired or unknown" % version)
        return entry["keys"][version]


class VaultKeyring:
    """Compartment keys from an unlocked vault (SECURITY.md §4.6), by compartment uuid and version."""

    def __init__(self, vault, master_key):
        self.vault = vault
        self.master_key = master_key

    def compartment_key(self, compartment_id, version):
        row = self.vault.db.execute("SELECT id, destroyed_at FROM compartments WHERE uuid = ?",
                                    (compartment_id,)).fetchone()
        if row is None:
            raise _foreign("unknown-compartment", "header: its compartment does not exist in this vault")
        if row[1] is not None:
            raise _foreign("destroyed-compartment", "header: its compartment was destroyed; it can never be opened")
        key_row = self.vault.db.execute(
            "SELECT salt FROM compartment_keys WHERE compartment_id = ? AND version = ? AND retired_at IS NULL",
            (row[0], version)).fetchone()
        if key_row is None or key_row[0] is None:
            raise _foreign("inactive-key-version",
                           "header: key version %d of its compartment is retired or unknown" % version)
        return vr.compartment_key(self.master_key, self.vault.vault_id, compartment_id, version, key_row[0])


def open_header(data, vault_id, keyring):
    """Steps 1-8 of §6.6 on the first bytes of a bundle. Returns (header, keys, metadata)."""
    header = parse_header(data)                                                    # 1
    if header["vault_id"] != vault_id:                                             # 2
        raise _foreign("wrong-vault", "header: this bundle belongs to another vault")
    compartment_key = keyring.compartment_key(header["compartment_id"], header["key_version"])  # 3, 4
    ad = wrap_ad(header["vault_id"], header["compartment_id"], header["key_version"], header["bundle_id"])
    data_key = unwrap_data_key(compartment_key, header["wrap_nonce"], header["wrapped_data_key"], ad)  # 5
    if data_key is None or len(data_key) != 32:
        raise _corrupt("unwrap", "header: the wrapped data key fails authentication "
                                 "(altered, or moved from another compartment)")
    keys = bundle_keys(data_key, header["bundle_id"])                              # 6
    if not hmac.compare_digest(keys["key_commitment"], header["key_commitment"]):
        raise _corrupt("commitment", "header: the key commitment does not match the data key")
    if not hmac.compare_digest(header_mac(keys["header_key"], header["prefix"]), header["mac"]):  # 7
        raise _corrupt("mac", "header: authentication failed (a header field was altered)")
    encoded = chacha_decrypt(keys["metadata_key"], METADATA_NONCE, header["sealed_metadata"])  # 8
    if encoded is None:
        raise _corrupt("metadata", "header: the sealed metadata fails authentication")
    metadata = decode_metadata(encoded)
    keys["data_key"] = data_key
    return header, keys, metadata


class OpenedBundle:
    """A bundle whose header verified and whose size matches it (§6.6 steps 1-10)."""

    def __init__(self, handle, vault_id, keyring):
        handle.seek(0, os.SEEK_END)
        file_size = handle.tell()
        handle.seek(0)
        prefix = handle.read(MAX_HEADER_SIZE)
        self.handle = handle
        self.header, self.keys, self.metadata = open_header(prefix, vault_id, keyring)
        self.plaintext_length, self.chunk_count = payload_layout(self.header, file_size)  # 10

    def chunk_range(self, start, end):
        """Chunk indices [first, last] that plaintext bytes [start, end) touch (§6.7), or None."""
        end = min(end, self.plaintext_length)
        if start >= end:
            return None
        chunk = self.header["chunk_size"]
        return start // chunk, (end - 1) // chunk

    def read_chunk(self, index):
        """Step 11 for one chunk: its plaintext, or BundleError('corrupt', 'chunk')."""
        chunk, size, n = self.header["chunk_size"], self.header["size"], self.chunk_count
        length = chunk if index < n - 1 else self.plaintext_length - index * chunk
        self.handle.seek(size + index * (chunk + TAG))
        sealed = self.handle.read(length + TAG)
        if len(sealed) != length + TAG:
            raise _truncated("truncated", "truncated: the file ended while reading chunk %d" % index)
        plaintext = chacha_decrypt(self.keys["payload_key"], chunk_nonce(index, index == n - 1), sealed)
        if plaintext is None:
            raise _corrupt("chunk", "chunk %d fails authentication (altered, reordered, duplicated, "
                                    "or from another bundle)" % index, chunk=index)
        return plaintext

    def read(self, start=0, end=None):
        """Yields the verified plaintext of bytes [start, end) (clamped), a chunk at a time, in order."""
        end = self.plaintext_length if end is None else end
        span = self.chunk_range(start, end)
        if span is None:
            return
        end = min(end, self.plaintext_length)
        chunk = self.header["chunk_size"]
        for index in range(span[0], span[1] + 1):
            plaintext = self.read_chunk(index)
            base = index * chunk
            yield plaintext[max(start, base) - base:min(end, base + len(plaintext)) - base]


def open_bytes(data, vault_id, keyring, start=0, end=None):
    """Opens a whole bundle held in memory; returns (plaintext, header, metadata). For the generator."""
    import io
    opened = OpenedBundle(io.BytesIO(data), vault_id, keyring)
    return b"".join(opened.read(start, end)), opened.header, opened.metadata


# ---------------------------------------------------------------------------------------------
# Sealing (for testvectors/generate.py: deterministic, every random input given)
# ---------------------------------------------------------------------------------------------


def seal_bundle(vault_id, compartment_id, key_version, compartment_key, data_key, bundle_id, wrap_nonce,
                chunk_size, plaintext, metadata, unknown_length=False):
    """Returns a dict: the file bytes, the header bytes, the keys, the chunks (sealed bytes)."""
    keys = bundle_keys(data_key, bundle_id)
    ad = wrap_ad(vault_id, compartment_id, key_version, bundle_id)
    wrapped = wrap_data_key(compartment_key, wrap_nonce, data_key, ad)
    encoded = encode_metadata(*metadata)
    sealed_metadata = seal_metadata(keys["metadata_key"], encoded)
    length = UNKNOWN_LENGTH if unknown_length else len(plaintext)
    prefix = header_prefix(vault_id, compartment_id, key_version, bundle_id, chunk_size, length, wrap_nonce,
                           wrapped, sealed_metadata, keys["key_commitment"])
    header = prefix + header_mac(keys["header_key"], prefix)
    chunks = seal_payload(keys["payload_key"], plaintext, chunk_size)
    return {"file": header + b"".join(chunks), "header": header, "keys": keys, "wrap_ad": ad,
            "wrapped_data_key": wrapped, "encoded_metadata": encoded, "sealed_metadata": sealed_metadata,
            "chunks": chunks}


def rewrap_header(header_bytes, data_key, new_version, new_compartment_key, new_wrap_nonce):
    """§6.8: the header with only key version, wrap nonce, wrapped data key and MAC replaced."""
    header = parse_header(header_bytes)
    ad = wrap_ad(header["vault_id"], header["compartment_id"], new_version, header["bundle_id"])
    wrapped = wrap_data_key(new_compartment_key, new_wrap_nonce, data_key, ad)
    prefix = bytearray(header["prefix"])
    prefix[OFF_KEY_VERSION:OFF_BUNDLE] = u32(new_version)
    prefix[OFF_NONCE:OFF_WRAPPED] = new_wrap_nonce
    prefix[OFF_WRAPPED:OFF_META_LEN] = wrapped
    keys = bundle_keys(data_key, header["bundle_id"])
    return bytes(prefix) + header_mac(keys["header_key"], bytes(prefix))


# ---------------------------------------------------------------------------------------------
# The vault (vault_reader.py), and the command line
# ---------------------------------------------------------------------------------------------

class _Parser(argparse.ArgumentParser):
    def error(self, message):
        self.print_usage(sys.stderr)
        print("bundle_opener: usage: %s" % message, file=sys.stderr)
        sys.exit(64)


def parse_range(text):
    start, sep, end = text.partition(":")
    if not sep or not start.isdigit() or not end.isdigit() or int(start) > int(end):
        raise ValueError("--range must be START:END with START <= END, in bytes")
    return int(start), int(end)


def unlock(arguments):
    vault = vr.Vault(arguments.vault)  # vault_reader's checks, schema version included
    if arguments.passphrase_file:
        master_key, _ = vault.unlock_passphrase(vr.read_passphrase_file(arguments.passphrase_file))
    elif arguments.recovery_key_file:
        with open(arguments.recovery_key_file, "r", encoding="utf-8", newline="") as handle:
            master_key, _ = vault.unlock_recovery_key(vr.parse_recovery_key(handle.read()))
    else:
        parsed = []
        for path in arguments.share_file:
            with open(path, "rb") as handle:
                parsed.append(vr.parse_share(handle.read(vr.SHARE_MAX_BYTES + 1)))
        master_key, _ = vault.unlock_shares(parsed)
    return vault, master_key


def main(argv=None):
    parser = _Parser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--vault", required=True)
    credential = parser.add_mutually_exclusive_group(required=True)
    credential.add_argument("--passphrase-file")
    credential.add_argument("--recovery-key-file")
    credential.add_argument("--share-file", action="append")
    parser.add_argument("bundle")
    parser.add_argument("-o", "--output", default="-")
    parser.add_argument("--range", metavar="START:END")
    parser.add_argument("--info", action="store_true")
    arguments = parser.parse_args(argv)
    try:
        span = parse_range(arguments.range) if arguments.range else (0, None)
    except ValueError as error:
        parser.error(str(error))
    written = 0
    temporary = None
    try:
        vault, master_key = unlock(arguments)
        with open(arguments.bundle, "rb") as handle:
            if not os.path.isfile(arguments.bundle):
                raise BundleError("corrupt", "not-a-file", "a bundle must be opened from a regular file")
            opened = OpenedBundle(handle, vault.vault_id, VaultKeyring(vault, master_key))
            if arguments.info:
                header = opened.header
                json.dump({
                    "vault_id": header["vault_id"].hex(), "compartment_id": header["compartment_id"].hex(),
                    "key_version": header["key_version"], "bundle_id": header["bundle_id"].hex(),
                    "chunk_size": header["chunk_size"], "header_size": header["size"],
                    "declared_length": None if header["plaintext_length"] == UNKNOWN_LENGTH else header["plaintext_length"],
                    "plaintext_length": opened.plaintext_length, "chunk_count": opened.chunk_count,
                    "metadata": opened.metadata,
                }, sys.stdout, ensure_ascii=False, indent=2, sort_keys=True)
                sys.stdout.write("\n")
                return 0
            if arguments.output == "-":
                out = sys.stdout.buffer
                for piece in opened.read(*span):
                    out.write(piece)
                    out.flush()
                    written += len(piece)
            else:
                directory = os.path.dirname(os.path.abspath(arguments.output))
                temporary = os.path.join(directory, ".bundle_opener-%d.tmp" % os.getpid())
                with open(temporary, "wb") as out:
                    for piece in opened.read(*span):
                        out.write(piece)
                    out.flush()
                    os.fsync(out.fileno())
                os.replace(temporary, arguments.output)
                temporary = None
    except BundleError as error:
        print("bundle_opener: %s (%s): %s" % (error.kind, error.reason, error), file=sys.stderr)
        if written:
            print("bundle_opener: %d bytes had already been written to standard output" % written, file=sys.stderr)
        return 65
    except vr.AuthenticationError as error:
        print("bundle_opener: authentication failed: %s" % error, file=sys.stderr)
        return 2
    except vr.FormatError as error:
        print("bundle_opener: bad data (%s): %s" % (error.reason, error), file=sys.stderr)
        return 65
    except (vr.NotFoundError, FileNotFoundError, IsADirectoryError) as error:
        print("bundle_opener: not found: %s" % error, file=sys.stderr)
        return 66
    finally:
        if temporary is not None and os.path.exists(temporary):
            os.unlink(temporary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
