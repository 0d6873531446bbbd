/// An audit entry's canonical encoding (SECURITY.md §8.2), checked strictly where it lies: every length
/// bounded, every field canonical, nothing left over, and each field located rather than copied.
/// `AuditEntry(decoding:)` builds an entry from it; the verifier, which walks millions of entries,
/// needs only the checks, the sequence number and the previous hash, and so allocates nothing.
struct EncodedEntry {
    let bytes: UnsafeRawBufferPointer
    let seq: UInt64
    let time: Int64
    let deviceID: Range<Int>
    let actor: Range<Int>
    let action: Range<Int>
    let compartmentID: Range<Int>
    let subjectID: Range<Int>
    /// The detail hashes after their count byte: per detail, u8 n, name (n bytes), hash (32).
    let detailHashes: Range<Int>
    let sealedDetails: Range<Int>
    let previousHash: Range<Int>

    init(parsing bytes: UnsafeRawBufferPointer) throws {
        var reader = EntryReader(bytes)
        guard bytes.count <= AuditEntry.maximumEncodedSize, try reader.byte() == AuditEntry.version else {
            throw AuditChainError(.malformedEntry, "an audit entry has an unknown version or is too large")
        }
        self.bytes = bytes
        seq = try reader.integer(8)
        time = Int64(bitPattern: try reader.integer(8))
        deviceID = try reader.take(16)
        actor = try reader.text(maximum: 255, allowed: { _ in true })
        action = try reader.text(maximum: 64, allowed: AuditEntry.isActionCharacter)
        compartmentID = try reader.shortField { $0 == 0 || $0 == 16 }
        subjectID = try reader.shortField { $0 <= 64 }
        let detailCount = Int(try reader.byte())
        let detailsStart = reader.offset
        for _ in 0..<detailCount {
            _ = try reader.text(maximum: 32, allowed: AuditEntry.isDetailNameCharacter)
            _ = try reader.take(32)
        }
        detailHashes = detailsStart..<reader.offset
        sealedDetails = try reader.take(Int(try reader.integer(4)))
        previousHash = try reader.take(32)
        guard reader.isAtEnd else { throw AuditChainError(.malformedEntry, "an audit entry has trailing bytes") }
        guard sealedDetails.isEmpty || sealedDetails.count >= 40 else {
            throw AuditChainError(.malformedEntry, "an audit entry's sealed details are truncated")
        }
    }

    var previousHashDigest: MerkleHash.Digest { MerkleHash.digest(UnsafeRawBufferPointer(rebasing: bytes[previousHash])) }

    func array(_ field: Range<Int>) -> [UInt8] { Array(bytes[field]) }

    /// A text field; it was checked to be UTF-8 when parsed.
    func string(_ field: Range<Int>) -> String { String(decoding: bytes[field], as: UTF8.self) }

    /// Calls `body(name, hash)` for each detail hash, in order.
    func forEachDetailHash(_ body: (Range<Int>, Range<Int>) throws -> Void) rethrows {
        var offset = detailHashes.lowerBound
        while offset < detailHashes.upperBound {
            let name = (offset + 1)..<(offset + 1 + Int(bytes[offset]))
            try body(name, name.upperBound..<(name.upperBound + 32))
            offset = name.upperBound + 32
        }
    }
}

/// A bounds-checked reader over encoded bytes that hands out the ranges of fields; every failure is a
/// malformed entry.
struct EntryReader {
    private let bytes: UnsafeRawBufferPointer
    private(set) var offset = 0

    init(_ bytes: UnsafeRawBufferPointer) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func take(_ count: Int) throws -> Range<Int> {
        guard count >= 0, count <= bytes.count - offset else {
            throw AuditChainError(.malformedEntry, "an audit entry is truncated")
        }
        defer { offset += count }
        return offset..<(offset + count)
    }

    mutating func byte() throws -> UInt8 { bytes[try take(1).lowerBound] }

    mutating func integer(_ width: Int) throws -> UInt64 {
        bytes[try take(width)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// u8 n, then n bytes, where `allowed(n)` must hold.
    mutating func shortField(allowed: (Int) -> Bool) throws -> Range<Int> {
        let count = Int(try byte())
        guard allowed(count) else { throw AuditChainError(.malformedEntry, "an audit entry field has an impossible length") }
        return try take(count)
    }

    /// u8 n, then n bytes of UTF-8 text, each byte passing `allowed`.
    mutating func text(maximum: Int, allowed: (UInt8) -> Bool) throws -> Range<Int> {
        let field = try take(Int(try byte()))
        let raw = UnsafeRawBufferPointer(rebasing: bytes[field])
        guard raw.count <= maximum, raw.allSatisfy(allowed), Self.isUTF8(raw) else {
            throw AuditChainError(.malformedEntry, "an audit entry has a malformed text field")
        }
        return field
    }

    /// Whether `raw` is well-formed UTF-8 (ASCII, the usual case, is checked without decoding).
    static func isUTF8(_ raw: UnsafeRawBufferPointer) -> Bool {
        if raw.allSatisfy({ $0 < 0x80 }) { return true }
        return !transcode(raw.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true, into: { _ in })
    }
}
