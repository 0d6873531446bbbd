internal import CSodium

/// HMAC-SHA-256 (RFC 2104) under one key for many short messages: the audit log keys the hash of
/// every detail of every entry with the same key, thousands of times per transaction.
///
/// The key's two padded blocks, K' ⊕ ipad and K' ⊕ opad (K' = the key, or SHA-256 of a key longer
/// than a block, zero-padded to 64 bytes), are made once and kept in locked, wiped memory; each tag is
/// then SHA-256(K' ⊕ opad || SHA-256(K' ⊕ ipad || message)), two digests by `SHA256` (libcrypto, on
/// the CPU's SHA extensions where present). `HMAC.sha256(key:message:)` computes the same tag with
/// libsodium's portable SHA-256 and absorbs both pads again for every message, about ten times the
/// work for a 32-byte message. A test checks the two agree (RFC 4231's vectors, keys of 0 to 200
/// bytes, messages of 0 to 300).
public final class HMACSHA256Key {
    static let blockSize = 64
    private let innerPad: SecureBytes
    private let outerPad: SecureBytes

    public init(_ key: SecureBytes) throws {
        let block = try SecureBytes(count: Self.blockSize)
        try block.withUnsafeMutableBytes { block in
            try key.withUnsafeBytes { key in
                guard key.count > Self.blockSize else {
                    if let base = key.baseAddress, !key.isEmpty { block.copyMemory(from: UnsafeRawBufferPointer(start: base, count: key.count)) }
                    return
                }
                let hashed = try SecureBytes(count: SHA256.digestSize)
                hashed.withUnsafeMutableBytes { SHA256.hash(key, UnsafeRawBufferPointer(start: nil, count: 0), into: $0) }
                hashed.withUnsafeBytes { block.copyMemory(from: $0) }
            }
        }
        innerPad = try Self.pad(block, with: 0x36)
        outerPad = try Self.pad(block, with: 0x5c)
    }

    private static func pad(_ block: SecureBytes, with byte: UInt8) throws -> SecureBytes {
        let padded = try SecureBytes(count: blockSize)
        padded.withUnsafeMutableBytes { padded in
            block.withUnsafeBytes { block in
                for index in 0..<blockSize { padded[index] = block[index] ^ byte }
            }
        }
        return padded
    }

    /// The 32-byte tag of `message`.
    public func tag(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: SHA256.digestSize)
        output.withUnsafeMutableBytes { output in
            // The inner digest is computed into the output and replaced there by the outer one.
            innerPad.withUnsafeBytes { SHA256.hash($0, message, into: output) }
            withUnsafeTemporaryAllocation(byteCount: SHA256.digestSize, alignment: 1) { inner in
                inner.copyMemory(from: UnsafeRawBufferPointer(output))
                outerPad.withUnsafeBytes { SHA256.hash($0, UnsafeRawBufferPointer(inner), into: output) }
                sodium_memzero(inner.baseAddress, inner.count)
            }
        }
        return output
    }

    public func tag(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { tag($0) }
    }
}
