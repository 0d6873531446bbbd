/// The STREAM construction (Hoang, Reyhanitabar, Rogaway, Vizár), as age uses it: each chunk is sealed
/// with ChaCha20-Poly1305 under one payload key and the nonce `u88be(chunk index) || last flag`.
///
/// The index in the nonce makes reordering, duplication and dropping detectable; the last flag makes
/// truncation at a chunk boundary and "two final chunks" detectable. Every chunk is independent, so
/// chunks are sealed and opened in parallel and any one can be read on its own.
struct StreamCipher: @unchecked Sendable {
    static let tagSize = BulkChaChaPoly.tagSize
    static let nonceSize = BulkChaChaPoly.nonceSize
    /// 88 bits of counter; a bundle never gets near it, but the bound is checked, not assumed.
    static let maximumChunkCount: UInt64 = 1 << 62

    private let payloadKey: SecureBytes

    init(payloadKey: SecureBytes) {
        self.payloadKey = payloadKey
    }

    static func nonce(index: UInt64, isLast: Bool) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: nonceSize) { buffer, count in
            writeNonce(index: index, isLast: isLast, into: buffer.baseAddress!)
            count = nonceSize
        }
    }

    /// `u88be(index) || last flag` into 12 bytes at `nonce`.
    private static func writeNonce(index: UInt64, isLast: Bool, into nonce: UnsafeMutablePointer<UInt8>) {
        nonce.update(repeating: 0, count: 3)
        for byte in 0..<8 { nonce[10 - byte] = UInt8(truncatingIfNeeded: index >> (8 * UInt64(byte))) }
        nonce[11] = isLast ? 1 : 0
    }

    /// Runs `body` with the nonce of chunk `index` in a stack buffer: no allocation per chunk.
    private static func withNonce<Result>(index: UInt64, isLast: Bool, _ body: (UnsafePointer<UInt8>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: nonceSize) { buffer in
            writeNonce(index: index, isLast: isLast, into: buffer.baseAddress!)
            return body(buffer.baseAddress!)
        }
    }

    /// Seals `plaintext` into `sealed` (plaintext.count + 16 bytes).
    func seal(_ plaintext: UnsafeRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer, index: UInt64, isLast: Bool) {
        Self.withNonce(index: index, isLast: isLast) { nonce in
            payloadKey.withUnsafeBytes { key in BulkChaChaPoly.seal(plaintext, into: sealed, key: key, nonce: nonce) }
        }
    }

    /// Opens `sealed` into `plaintext` (sealed.count − 16 bytes); false if the chunk is not authentic
    /// at this index and position, in which case `plaintext` is zeroed.
    func open(_ sealed: UnsafeRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer, index: UInt64, isLast: Bool) -> Bool {
        Self.withNonce(index: index, isLast: isLast) { nonce in
            payloadKey.withUnsafeBytes { key in BulkChaChaPoly.open(sealed, into: plaintext, key: key, nonce: nonce) }
        }
    }
}
