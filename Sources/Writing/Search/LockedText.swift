import CryptoVault

/// Plaintext a search index keeps (the blocks' texts, the folded words), held in locked memory that
/// is wiped when released (SecureBytes: never swapped out, zeroed on free), packed into chunks of at
/// most `chunkBytes`. Each group of pieces (one document's texts and words) lies whole in one chunk,
/// where it is read back in place, or decoded into a String only to make a snippet.
///
/// An index updated for a changed document is made with a new LockedText: the changed document's
/// pieces written in, every other group copied from the old one, locked memory to locked memory
/// (never through ordinary memory). So nothing a document no longer holds outlives the old index,
/// which is wiped when it is released.
struct LockedText: Sendable {
    /// Where a piece or a group is: its chunk and its byte range there.
    struct Location: Sendable {
        let chunk: Int
        let range: Range<Int>

        /// The piece at `offsets` inside this group.
        func piece(_ offsets: Range<Int>) -> Location {
            Location(chunk: chunk, range: (range.lowerBound + offsets.lowerBound)..<(range.lowerBound + offsets.upperBound))
        }
    }

    /// What a group is made of: pieces written in one after another, or a group of another text copied whole.
    enum Group {
        case pieces([String])
        case copied(Location, from: LockedText)

        var byteCount: Int {
            switch self {
            case .pieces(let pieces): pieces.reduce(0) { $0 + $1.utf8.count }
            case .copied(let location, _): location.range.count
            }
        }
    }

    /// A stored document is at most 16 MiB (`WritingLimits.maximumStoredDocumentBytes`); a group
    /// larger than a chunk (its texts and its words) gets a chunk of its own size.
    static let chunkBytes = 16 * 1024 * 1024

    private let chunks: [SecureBytes]

    /// Copies each group into locked chunks; returns them with each group's location.
    init(_ groups: [Group], locations: inout [Location]) throws {
        var sizes: [Int] = []
        var placed: [Location] = []
        for group in groups {
            let bytes = group.byteCount
            if sizes.isEmpty || sizes[sizes.count - 1] + bytes > Self.chunkBytes { sizes.append(0) }
            let start = sizes[sizes.count - 1]
            placed.append(Location(chunk: sizes.count - 1, range: start..<(start + bytes)))
            sizes[sizes.count - 1] = start + bytes
        }
        let chunks = try sizes.map { try SecureBytes(count: $0) }
        for (group, location) in zip(groups, placed) {
            chunks[location.chunk].withUnsafeMutableBytes { chunk in
                Self.fill(UnsafeMutableRawBufferPointer(rebasing: chunk[location.range]), with: group)
            }
        }
        self.chunks = chunks
        locations = placed
    }

    private static func fill(_ target: UnsafeMutableRawBufferPointer, with group: Group) {
        switch group {
        case .pieces(let pieces):
            var offset = 0
            for piece in pieces {
                let count = piece.utf8.count
                UnsafeMutableRawBufferPointer(rebasing: target[offset..<(offset + count)]).copyBytes(from: piece.utf8)
                offset += count
            }
        case .copied(let location, let source):
            source.withBytes(location) { target.copyMemory(from: $0) }
        }
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
