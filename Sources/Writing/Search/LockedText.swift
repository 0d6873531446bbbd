import CryptoVault

/// Plaintext pieces a search index keeps (the blocks' texts, the folded words), held in locked
/// memory that is wiped when released (SecureBytes: never swapped out, zeroed on free), packed into
/// chunks of at most `chunkBytes`. A group of pieces (one document's texts) stays in one chunk; a
/// piece is read back where it lies, or decoded into a String only to make a snippet.
struct LockedText: Sendable {
    /// Where a piece is: its chunk and its byte range there.
    struct Location: Sendable {
        let chunk: Int
        let range: Range<Int>
    }

    /// A stored document is at most 16 MiB (`WritingLimits.maximumStoredDocumentBytes`), so one fits a chunk.
    static let chunkBytes = 16 * 1024 * 1024

    private let chunks: [SecureBytes]

    /// Copies each group's pieces into locked chunks; returns them with each piece's location.
    init(groups: [[String]], locations: inout [[Location]]) throws {
        var sizes: [Int] = []
        var placed: [[Location]] = []
        for group in groups {
            let bytes = group.reduce(0) { $0 + $1.utf8.count }
            if sizes.isEmpty || sizes[sizes.count - 1] + bytes > Self.chunkBytes { sizes.append(0) }
            var offset = sizes[sizes.count - 1]
            placed.append(group.map { piece in
                defer { offset += piece.utf8.count }
                return Location(chunk: sizes.count - 1, range: offset..<(offset + piece.utf8.count))
            })
            sizes[sizes.count - 1] = offset
        }
        let chunks = try sizes.map { try SecureBytes(count: $0) }
        for (group, pieceLocations) in zip(groups, placed) {
            for (piece, location) in zip(group, pieceLocations) {
                chunks[location.chunk].withUnsafeMutableBytes { chunk in
                    _ = UnsafeMutableRawBufferPointer(rebasing: chunk[location.range]).initializeMemory(as: UInt8.self, from: piece.utf8)
                }
            }
        }
        self.chunks = chunks
        locations = placed
    }

    /// `body` with the piece's bytes, valid only during the call.
    func withBytes<Result>(_ location: Location, _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try chunks[location.chunk].withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[location.range])) }
    }

    /// The piece as a String (ordinary memory: for a snippet, as the model's strings are).
    func string(_ location: Location) -> String {
        withBytes(location) { String(decoding: $0, as: UTF8.self) }
    }
}
