import CryptoVault

/// A transparency-log checkpoint (c2sp.org/tlog-checkpoint v1.0.0): the note text that states a
/// log's tree head. The text is at least three non-empty lines, each ending in a newline:
///
///     origin          = 1*character                  ; the log's identity, e.g. "example.com/log42"
///     tree-size       = "0" / %x31-39 *DIGIT         ; ASCII decimal, no leading zeros
///     root-hash       = base64(32-byte RFC 6962 root) ; standard, padded
///     extension-line  = 1*character                  ; optional, opaque, never empty
///
/// Parsing is strict so that each tree head has exactly one body: `body` gives back the parsed text.
public struct Checkpoint: Sendable, Equatable {
    /// The log's identity. Any non-empty text without control characters: the spec only recommends
    /// a schema-less URL and tells clients not to rely on that.
    public let origin: String
    /// The number of leaves in the tree.
    public let treeSize: UInt64
    /// The RFC 6962 / RFC 9162 root hash of the first `treeSize` leaves.
    public let rootHash: [UInt8]
    /// Opaque extra lines; the spec does not recommend them, since monitors cannot audit them.
    public let extensionLines: [String]

    /// A checkpoint of these parts; throws if any part could not be written as its line.
    public init(origin: String, treeSize: UInt64, rootHash: [UInt8], extensionLines: [String] = []) throws(AuditChainError) {
        try Self.validateLine(origin, "the origin")
        try MerkleHash.require(rootHash, "root hash")
        for line in extensionLines {
            try Self.validateLine(line, "an extension line")
        }
        self.origin = origin
        self.treeSize = treeSize
        self.rootHash = rootHash
        self.extensionLines = extensionLines
        try SignedNote.validateBody(body)
    }

    /// Parses a checkpoint body (a note's text, without the blank line and signatures).
    public init(parsing body: String) throws(AuditChainError) {
        guard body.utf8.count <= SignedNote.maximumSize else {
            throw AuditChainError(.noteTooLarge, "the checkpoint has \(body.utf8.count) bytes, more than \(SignedNote.maximumSize)")
        }
        guard body.utf8.last == SignedNote.newline else {
            throw AuditChainError(.malformedCheckpoint, "the checkpoint does not end in a newline")
        }
        if let byte = body.utf8.first(where: { $0 < 0x20 && $0 != SignedNote.newline }) {
            throw AuditChainError(.malformedCheckpoint, "the checkpoint holds control character 0x\(String(byte, radix: 16))")
        }
        let lines = Array(body.utf8).dropLast().split(separator: SignedNote.newline, omittingEmptySubsequences: false)
        guard lines.count >= 3 else {
            throw AuditChainError(.malformedCheckpoint, "a checkpoint has at least three lines, not \(lines.count)")
        }
        try self.init(origin: String(decoding: lines[0], as: UTF8.self),
                      treeSize: try Self.parseTreeSize(lines[1]),
                      rootHash: try Self.parseRootHash(lines[2]),
                      extensionLines: lines.dropFirst(3).map { String(decoding: $0, as: UTF8.self) })
    }

    /// Parses the checkpoint in `note` after checking that `logKey` signed it and that it names
    /// `origin`: the text of a note means nothing until a trusted signature on it has verified.
    public init(verifying note: SignedNote, origin: String, logKey: NoteVerifierKey) throws(AuditChainError) {
        _ = try note.verify(using: [logKey])
        try self.init(parsing: note.body)
        guard self.origin.utf8.elementsEqual(origin.utf8) else {
            throw AuditChainError(.originMismatch, "the checkpoint is of \(self.origin), not \(origin)")
        }
    }

    /// Byte-for-byte equality of the bodies: two checkpoints are the same statement only if their
    /// texts are (Swift's `==` on strings would equate canonically equivalent origins).
    public static func == (lhs: Checkpoint, rhs: Checkpoint) -> Bool {
        lhs.body.utf8.elementsEqual(rhs.body.utf8)
    }

    /// The note text of the checkpoint.
    public var body: String {
        ([origin, String(treeSize), NoteBase64.encode(rootHash)] + extensionLines).map { $0 + "\n" }.joined()
    }

    /// A line must be non-empty (the spec's rule for the origin and extension lines) and hold no
    /// newline or other control character (which would break it into more lines or an invalid note).
    private static func validateLine(_ line: String, _ name: String) throws(AuditChainError) {
        guard !line.isEmpty else { throw AuditChainError(.malformedCheckpoint, "\(name) is empty") }
        guard !line.utf8.contains(where: { $0 < 0x20 }) else {
            throw AuditChainError(.malformedCheckpoint, "\(name) holds a newline or control character")
        }
    }

    /// Canonical decimal only, so that one size has one spelling: no sign, space or leading zero.
    private static func parseTreeSize(_ line: ArraySlice<UInt8>) throws(AuditChainError) -> UInt64 {
        let digits = UInt8(ascii: "0")...UInt8(ascii: "9")
        guard !line.isEmpty, line.allSatisfy(digits.contains), line.first != UInt8(ascii: "0") || line.count == 1,
              let size = UInt64(String(decoding: line, as: UTF8.self)) else {
            throw AuditChainError(.malformedTreeSize, "the tree size is not a decimal number below 2^64 without leading zeros")
        }
        return size
    }

    private static func parseRootHash(_ line: ArraySlice<UInt8>) throws(AuditChainError) -> [UInt8] {
        guard let hash = NoteBase64.decode(line), hash.count == MerkleHash.size else {
            throw AuditChainError(.malformedHash, "the root hash is not the padded standard base64 of \(MerkleHash.size) bytes")
        }
        return hash
    }
}
