import CryptoVault

/// The sealed value of one snapshot (SECURITY.md §15.2): which version of which document it is, the
/// digest of that version's content, and either the whole content (a keyframe) or the delta from
/// the previous version, packed with DEFLATE since version 2. The digest is sealed, never a clear
/// column: a plain hash of a short note in clear would let anyone who can guess the note confirm
/// the guess.
///
///     record  = version:u8 (2) form:u8 (1 keyframe, 2 delta) document:16 sequence:u32be base:16
///               digest:32 size:u32be packed
///     packed  = raw DEFLATE (RFC 1951) of the payload; size = the payload's length
///     record1 = version:u8 (1) form:u8 document:16 sequence:u32be base:16 digest:32 payload
///     base    = the id of the document's snapshot sequence − 1 (16 zero bytes for sequence 1)
///     digest  = SHA-256(content), content as `SnapshotContent` encodes it
///     payload = content (keyframe) | SnapshotDelta from the base's content (delta)
///
/// Version 1 (the payload as it is) was written before packing and is still read. The document,
/// sequence and base repeat the clear row's, so a row edited to move a snapshot to another place in
/// a chain, or to another document, is refused as damage when it is read.
struct SnapshotRecord: Equatable {
    /// The version written.
    static let version: UInt8 = 2
    static let unpackedVersion: UInt8 = 1
    static let headerSize = 2 + 16 + 4 + 16 + SHA256.digestSize

    /// How a snapshot is stored (the clear `form` column): a keyframe or delta is a record of its
    /// own (this type); a group's first member holds the `SnapshotGroup` of it and the `grouped`
    /// snapshots after it, which hold no record.
    enum Form: UInt8 {
        case keyframe = 1
        case delta = 2
        case group = 3
        case grouped = 4

        var name: String {
            switch self {
            case .keyframe: "keyframe"
            case .delta: "delta"
            case .group: "group"
            case .grouped: "grouped"
            }
        }

        init?(name: String) {
            switch name {
            case "keyframe": self = .keyframe
            case "delta": self = .delta
            case "group": self = .group
            case "grouped": self = .grouped
            default: return nil
            }
        }
    }

    /// The payload as the record holds it.
    enum Stored: Equatable {
        /// Version 1: the payload itself.
        case plain([UInt8])
        /// Version 2: the payload's length and its DEFLATE stream.
        case packed(size: Int, bytes: [UInt8])
    }

    let form: Form
    let document: NodeID
    let sequence: Int
    /// The previous snapshot's id bytes, or 16 zeros.
    let base: [UInt8]
    let digest: [UInt8]
    let stored: Stored

    /// A record of today's version: `payload` packed.
    init(form: Form, document: NodeID, sequence: Int, base: [UInt8], digest: [UInt8], payload: [UInt8]) {
        self.init(form: form, document: document, sequence: sequence, base: base, digest: digest,
                  stored: .packed(size: payload.count, bytes: Deflate.pack(payload)))
    }

    init(form: Form, document: NodeID, sequence: Int, base: [UInt8], digest: [UInt8], stored: Stored) {
        self.form = form
        self.document = document
        self.sequence = sequence
        self.base = base
        self.digest = digest
        self.stored = stored
    }

    /// The content (keyframe) or delta, unpacked; a packed size over `WritingLimits.maximumDocumentBytes`
    /// (the most a delta may make) or a stream that does not give exactly it is `.damagedRecord`.
    func payload() throws(WritingError) -> [UInt8] {
        switch stored {
        case .plain(let bytes): bytes
        case .packed(let size, let bytes): try Deflate.unpack(bytes, size: size, limit: WritingLimits.maximumDocumentBytes)
        }
    }

    func encoded() -> [UInt8] {
        var out: [UInt8]
        switch stored {
        case .plain: out = [Self.unpackedVersion, form.rawValue]
        case .packed: out = [Self.version, form.rawValue]
        }
        out += document.bytes
        ByteReader.appendLength(sequence, &out)
        out += base
        out += digest
        switch stored {
        case .plain(let bytes):
            out += bytes
        case .packed(let size, let bytes):
            ByteReader.appendLength(size, &out)
            out += bytes
        }
        return out
    }

    /// Parses either version; the packed payload is unpacked only by `payload()`.
    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a snapshot's sealed value")
        let version = try reader.byte()
        guard version == Self.version || version == Self.unpackedVersion else { throw reader.damaged("an unknown snapshot version") }
        guard let form = Form(rawValue: try reader.byte()), form == .keyframe || form == .delta else {
            throw reader.damaged("an unknown snapshot form")
        }
        self.form = form
        document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
        sequence = try reader.length()
        base = Array(try reader.bytes(SnapshotID.size))
        digest = Array(try reader.bytes(SHA256.digestSize))
        guard sequence >= 1 else { throw reader.damaged("sequence 0") }
        if version == Self.unpackedVersion {
            stored = .plain(Array(bytes[Self.headerSize...]))
        } else {
            let size = try reader.length()
            stored = .packed(size: size, bytes: Array(bytes[(Self.headerSize + 4)...]))
        }
    }

    /// The record split into the pieces sealed as `part-0`, `part-1`, …: a sealed record holds at
    /// most 1 MiB, and a keyframe of a long document is more.
    static let partSize = 1 << 20

    func parts() -> [[UInt8]] { Self.split(encoded()) }

    /// `bytes` in pieces of `partSize` (the last shorter): a branch's sealed value is split the same way.
    static func split(_ bytes: [UInt8]) -> [[UInt8]] {
        stride(from: 0, to: bytes.count, by: partSize).map { Array(bytes[$0..<min($0 + partSize, bytes.count)]) }
    }
}
