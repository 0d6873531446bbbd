import CryptoVault

/// The sealed value of one snapshot (SECURITY.md §15.2): which version of which document it is, the
/// digest of that version's content, and either the whole content (a keyframe) or the delta from
/// the previous version. The digest is sealed, never a clear column: a plain hash of a short note
/// in clear would let anyone who can guess the note confirm the guess.
///
///     record  = version:u8 (1) form:u8 (1 keyframe, 2 delta) document:16 sequence:u32be base:16
///               digest:32 payload
///     base    = the id of the document's snapshot sequence − 1 (16 zero bytes for sequence 1)
///     digest  = SHA-256(content), content as `SnapshotContent` encodes it
///     payload = content (keyframe) | SnapshotDelta from the base's content (delta)
///
/// The document, sequence and base repeat the clear row's, so a row edited to move a snapshot to
/// another place in a chain, or to another document, is refused as damage when it is read.
struct SnapshotRecord: Equatable {
    static let version: UInt8 = 1
    static let headerSize = 2 + 16 + 4 + 16 + SHA256.digestSize

    enum Form: UInt8 {
        case keyframe = 1
        case delta = 2

        var name: String { self == .keyframe ? "keyframe" : "delta" }

        init?(name: String) {
            switch name {
            case "keyframe": self = .keyframe
            case "delta": self = .delta
            default: return nil
            }
        }
    }

    let form: Form
    let document: NodeID
    let sequence: Int
    /// The previous snapshot's id bytes, or 16 zeros.
    let base: [UInt8]
    let digest: [UInt8]
    let payload: [UInt8]

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version, form.rawValue]
        out += document.bytes
        ByteReader.appendLength(sequence, &out)
        out += base
        out += digest
        out += payload
        return out
    }

    init(form: Form, document: NodeID, sequence: Int, base: [UInt8], digest: [UInt8], payload: [UInt8]) {
        self.form = form
        self.document = document
        self.sequence = sequence
        self.base = base
        self.digest = digest
        self.payload = payload
    }

    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a snapshot's sealed value")
        guard try reader.byte() == Self.version else { throw reader.damaged("an unknown snapshot version") }
        guard let form = Form(rawValue: try reader.byte()) else { throw reader.damaged("an unknown snapshot form") }
        self.form = form
        document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
        sequence = try reader.length()
        base = Array(try reader.bytes(SnapshotID.size))
        digest = Array(try reader.bytes(SHA256.digestSize))
        payload = Array(bytes[Self.headerSize...])
        guard sequence >= 1 else { throw reader.damaged("sequence 0") }
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
