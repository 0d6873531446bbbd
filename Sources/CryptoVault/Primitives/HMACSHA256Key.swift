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
///
/// Sendable: the pads are written once, in `init`, and only read after (an unlocked vault keeps the
/// audit hashing key's, `AuditKeys.hasher`, for every transaction of every thread).
public final class HMACSHA256Key: @unchecked Sendable {
    static let blockSize = 64
    /// K' ⊕ ipad, then K' ⊕ opad: one locked allocation (each costs system calls to map and lock).
    private let pads: SecureBytes

    public init(_ key: SecureBytes) throws {
        pads = try SecureBytes(count: 2 * Self.blockSize)
        try pads.withUnsafeMutableBytes { pads in
            // K' is built in the outer pad's half, then both halves are made from it.
            let block = UnsafeMutableRawBufferPointer(rebasing: pads[Self.blockSize...])
            try key.withUnsafeBytes { key in
                if key.count > Self.blockSize {
                    let hashed = try SecureBytes(count: SHA256.digestSize)
                    hashed.withUnsafeMutableBytes { SHA256.hash(key, UnsafeRawBufferPointer(start: nil, count: 0), into: $0) }
                    hashed.withUnsafeBytes { block.copyMemory(from: $0) }
                } else if let base = key.baseAddress, !key.isEmpty {
                    block.copyMemory(from: UnsafeRawBufferPointer(start: base, count: key.count))
                }
            }
            for index in 0..<Self.blockSize {
                pads[index] = pads[Self.blockSize + index] ^ 0x36
                pads[Self.blockSize + index] ^= 0x5c
            }
        }
    }

    /// The 32-byte tag of `message`.
    public func tag(_ message: UnsafeRawBufferPointer) -> [UInt8] {
        var output = [UInt8](repeating: 0, count: SHA256.digestSize)
        output.withUnsafeMutableBytes { output in
            // The inner digest is computed into the output and replaced there by the outer one.
            pads.withUnsafeBytes { SHA256.hash(UnsafeRawBufferPointer(rebasing: $0[..<Self.blockSize]), message, into: output) }
            withUnsafeTemporaryAllocation(byteCount: SHA256.digestSize, alignment: 1) { inner in
                inner.copyMemory(from: UnsafeRawBufferPointer(output))
                pads.withUnsafeBytes { SHA256.hash(UnsafeRawBufferPointer(rebasing: $0[Self.blockSize...]), UnsafeRawBufferPointer(inner), into: output) }
                sodium_memzero(inner.baseAddress, inner.count)
            }
        }
        return output
    }

    public func tag(_ message: [UInt8]) -> [UInt8] {
        message.withUnsafeBytes { tag($0) }
    }
}
