import CryptoVault

/// The `replicate.chunk` bodies of one bundle file from `start` on (SECURITY.md §9.13): chunks of
/// `ReplicaChunk.maximumDataCount` bytes, the last one shorter, each read from the file straight into
/// its body, so the bytes are not copied again.
///
/// One body buffer serves every chunk: the channel has written a request whole before it asks for
/// the next body, and by then it no longer holds the last one, so the buffer is filled in place. A
/// requester that did hold a body longer would not see it change: the array is then copied instead.
struct OutgoingChunks {
    let file: OutgoingBundleFile
    let start: UInt64
    private var next: UInt64
    private var body: [UInt8] = []

    init(of file: OutgoingBundleFile, from start: UInt64) {
        self.file = file
        self.start = start
        next = start
    }

    /// The body of the next chunk, or nil after the last.
    mutating func nextBody() throws -> [UInt8]? {
        guard next < file.length else { return nil }
        let count = Int(min(UInt64(ReplicaChunk.maximumDataCount), file.length - next))
        if body.isEmpty {
            body = ReplicaChunk.body(bundleID: file.bundle.bundleID, offset: next, dataCount: count)
        } else if body.count > ReplicaChunk.headerSize + count {
            body.removeLast(body.count - ReplicaChunk.headerSize - count)
        }
        try body.withUnsafeMutableBytes { [next, file] bytes in
            bytes.storeBytes(of: next.bigEndian, toByteOffset: ReplicationWire.identifierSize, as: UInt64.self)
            try file.readExactly(into: UnsafeMutableRawBufferPointer(rebasing: bytes[ReplicaChunk.headerSize...]), at: next)
        }
        next += UInt64(count)
        return body
    }

    /// Where chunk `index` (counted from 0 at `start`) ends: the received count its answer must be.
    func end(ofChunk index: Int) -> UInt64 {
        min(start + UInt64(index + 1) * UInt64(ReplicaChunk.maximumDataCount), file.length)
    }
}
