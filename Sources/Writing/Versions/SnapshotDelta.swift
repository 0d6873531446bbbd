/// The change from one version's bytes to the next, as the snapshots of a document will store it:
/// stretches copied from the previous version and bytes inserted, in order. It works on any byte
/// string (a document's canonical encoding); the stretches are found by a diff of tokens
/// (`SequenceDiff` over runs that end after an ASCII space or punctuation byte, at most 32 bytes
/// long), so typing in a long document costs a delta of the typing, not of the document.
///
///     delta   = version:u8 (1) op*
///     op      = 0x01 offset:u32be length:u32be     copy `length` bytes of the base from `offset`
///             | 0x02 length:u32be bytes            insert `length` bytes
///
/// Canonical: no op of length 0, no two inserts in a row, no copy that continues the copy before it
/// (it would be one copy), nothing after the last op. `init(parsing:)` refuses anything else, and
/// `apply(to:)` refuses a copy outside the base and a result over `WritingLimits.maximumDocumentBytes`.
public struct SnapshotDelta: Sendable, Equatable {
    public static let version: UInt8 = 1
    static let copyTag: UInt8 = 0x01
    static let insertTag: UInt8 = 0x02
    static let maximumTokenLength = 32

    public enum Operation: Sendable, Equatable {
        case copy(offset: Int, length: Int)
        case insert([UInt8])
    }

    public let operations: [Operation]

    /// The delta that turns `base` into `target`.
    public static func between(_ base: [UInt8], _ target: [UInt8]) throws(WritingError) -> SnapshotDelta {
        try checkSize(base.count, "base")
        try checkSize(target.count, "target")
        let baseTokens = tokens(of: base), targetTokens = tokens(of: target)
        var table = SymbolTable<ArraySlice<UInt8>>()
        let baseSymbols = baseTokens.map { table.symbol(base[$0]) }
        let targetSymbols = targetTokens.map { table.symbol(target[$0]) }
        var builder = Builder()
        var baseIndex = 0
        for hunk in SequenceDiff.hunks(baseSymbols, targetSymbols) {
            builder.copy(baseTokens[baseIndex..<hunk.oldStart])
            builder.insert(target, targetTokens[hunk.newStart..<(hunk.newStart + hunk.newCount)])
            baseIndex = hunk.oldStart + hunk.oldCount
        }
        builder.copy(baseTokens[baseIndex...])
        return SnapshotDelta(operations: builder.operations)
    }

    init(operations: [Operation]) { self.operations = operations }

    /// The bytes this delta makes from `base`.
    public func apply(to base: [UInt8]) throws(WritingError) -> [UInt8] {
        var out: [UInt8] = []
        // One allocation for the result (a restore applies up to 1023 deltas to a whole document each).
        let size = operations.reduce(0) { total, operation in
            switch operation {
            case .copy(_, let length): total + length
            case .insert(let bytes): total + bytes.count
            }
        }
        out.reserveCapacity(min(size, WritingLimits.maximumDocumentBytes))
        for operation in operations {
            switch operation {
            case .copy(let offset, let length):
                guard offset <= base.count, length <= base.count - offset else {
                    throw WritingError(.diffDoesNotApply, "a snapshot delta copies bytes \(offset)..<\(offset + length) of a base of \(base.count)")
                }
                out += base[offset..<(offset + length)]
            case .insert(let bytes):
                out += bytes
            }
            try Self.checkSize(out.count, "patched")
        }
        return out
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = [Self.version]
        for operation in operations {
            switch operation {
            case .copy(let offset, let length):
                out.append(Self.copyTag)
                ByteReader.appendLength(offset, &out)
                ByteReader.appendLength(length, &out)
            case .insert(let bytes):
                out.append(Self.insertTag)
                ByteReader.appendLength(bytes.count, &out)
                out += bytes
            }
        }
        return out
    }

    /// Parses the grammar above, canonical form only; anything else is `.damagedRecord`.
    public init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a snapshot delta")
        guard try reader.byte() == Self.version else { throw reader.damaged("an unknown delta version") }
        var operations: [Operation] = []
        while !reader.isAtEnd {
            let operation: Operation
            switch try reader.byte() {
            case Self.copyTag: operation = .copy(offset: try reader.length(), length: try reader.length())
            case Self.insertTag: operation = .insert(Array(try reader.bytes(try reader.length())))
            default: throw reader.damaged("an unknown delta operation")
            }
            guard Self.isCanonical(operation, after: operations.last) else { throw reader.damaged("a delta not in canonical form") }
            operations.append(operation)
        }
        self.operations = operations
    }

    static func isCanonical(_ operation: Operation, after previous: Operation?) -> Bool {
        switch operation {
        case .copy(let offset, let length):
            guard length > 0 else { return false }
            if case .copy(let previousOffset, let previousLength)? = previous { return offset != previousOffset + previousLength }
            return true
        case .insert(let bytes):
            guard !bytes.isEmpty else { return false }
            if case .insert? = previous { return false }
            return true
        }
    }

    private static func checkSize(_ count: Int, _ role: String) throws(WritingError) {
        guard count <= WritingLimits.maximumDocumentBytes else {
            throw WritingError(.documentTooLarge, "the \(role) version is \(count) bytes; at most \(WritingLimits.maximumDocumentBytes) are accepted")
        }
    }

    /// Byte ranges that tile `bytes`: each ends after an ASCII space or punctuation byte, or at
    /// `maximumTokenLength` bytes.
    static func tokens(of bytes: [UInt8]) -> [Range<Int>] {
        var tokens: [Range<Int>] = []
        var start = 0
        for index in bytes.indices {
            let byte = bytes[index]
            let ends = byte < 0x30 || (0x3A...0x40).contains(byte) || (0x5B...0x60).contains(byte) || (0x7B...0x7F).contains(byte)
            if ends || index + 1 - start == maximumTokenLength {
                tokens.append(start..<(index + 1))
                start = index + 1
            }
        }
        if start < bytes.count { tokens.append(start..<bytes.count) }
        return tokens
    }

    /// Gathers copies and inserts, joining a copy that continues the one before it.
    private struct Builder {
        var operations: [Operation] = []

        mutating func copy(_ tokens: ArraySlice<Range<Int>>) {
            guard let first = tokens.first, let last = tokens.last else { return }
            if case .copy(let offset, let length)? = operations.last, offset + length == first.lowerBound {
                operations[operations.count - 1] = .copy(offset: offset, length: last.upperBound - offset)
            } else {
                operations.append(.copy(offset: first.lowerBound, length: last.upperBound - first.lowerBound))
            }
        }

        mutating func insert(_ bytes: [UInt8], _ tokens: ArraySlice<Range<Int>>) {
            guard let first = tokens.first, let last = tokens.last else { return }
            operations.append(.insert(Array(bytes[first.lowerBound..<last.upperBound])))
        }
    }
}
