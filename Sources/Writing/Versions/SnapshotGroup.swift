import CryptoVault

/// The sealed value of a group of consecutive snapshots of one document stored as deltas (SECURITY.md
/// §15.2, record version 3): each member's id, the digest of its content and its delta from the
/// version before it, all the deltas packed together with DEFLATE. The group is sealed at its first
/// member's place and sealed again as each later member joins, so a document's history costs one
/// sealed record (its seal, header, row and index entries) per `WritingStore.groupLimit` versions
/// instead of one per version, and its deltas are packed against each other (a 500-character
/// snapshot's delta is a few hundred bytes; the record around it was as much again).
///
///     group   = version:u8 (3) form:u8 (3) document:16 sequence:u32be base:16 count:u32be
///               (id:16 digest:32)*count size:u32be packed
///     packed  = raw DEFLATE (RFC 1951) of (length:u32be delta)*count; size = its length unpacked
///     base    = the id of the snapshot before the first member
///
/// `sequence` is the first member's; member i is sequence + i. The ids repeat the clear rows', so a
/// row moved in a group or given another's id is refused as damage when it is read.
struct SnapshotGroup: Equatable {
    static let version: UInt8 = 3
    static let form: UInt8 = 3
    static let headerSize = 2 + NodeID.size + 4 + SnapshotID.size + 4
    static let memberSize = SnapshotID.size + SHA256.digestSize

    struct Member: Equatable {
        let id: SnapshotID
        /// SHA-256 of the member's content.
        let digest: [UInt8]
        /// The snapshot delta (§15.1) from the previous version's content, unpacked.
        let delta: [UInt8]
    }

    let document: NodeID
    /// The first member's sequence.
    let sequence: Int
    /// The id bytes of the snapshot before the first member.
    let base: [UInt8]
    let members: [Member]

    init(document: NodeID, sequence: Int, base: [UInt8], members: [Member]) {
        self.document = document
        self.sequence = sequence
        self.base = base
        self.members = members
    }

    /// The group with `member` joined at its end.
    func appending(_ member: Member) -> SnapshotGroup {
        SnapshotGroup(document: document, sequence: sequence, base: base, members: members + [member])
    }

    /// The deltas' bytes unpacked (what `WritingStore.groupBytes` bounds).
    var deltaBytes: Int { members.reduce(0) { $0 + 4 + $1.delta.count } }

    func encoded() -> [UInt8] {
        var out: [UInt8] = [Self.version, Self.form]
        out += document.bytes
        ByteReader.appendLength(sequence, &out)
        out += base
        ByteReader.appendLength(members.count, &out)
        var deltas: [UInt8] = []
        deltas.reserveCapacity(deltaBytes)
        for member in members {
            out += member.id.bytes
            out += member.digest
            ByteReader.appendLength(member.delta.count, &deltas)
            deltas += member.delta
        }
        ByteReader.appendLength(deltas.count, &out)
        out += Deflate.pack(deltas)
        return out
    }

    /// Parses the grammar above and unpacks the deltas (each is parsed only when applied). Refused
    /// as `.damagedRecord`: another version or form, sequence 0, no members or more than the bytes
    /// can hold, an unpacked size over `WritingLimits.maximumDocumentBytes` or a stream that does not
    /// give exactly it, and deltas that do not fill it exactly.
    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a snapshot group's sealed value")
        guard try reader.byte() == Self.version else { throw reader.damaged("an unknown snapshot version") }
        guard try reader.byte() == Self.form else { throw reader.damaged("an unknown snapshot form") }
        document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
        sequence = try reader.length()
        base = Array(try reader.bytes(SnapshotID.size))
        let count = try reader.length()
        guard sequence >= 1 else { throw reader.damaged("sequence 0") }
        // Each member takes 48 bytes before the packed deltas: a count past that is damage, found before any allocation.
        guard count >= 1, count <= (bytes.count - Self.headerSize) / Self.memberSize else { throw reader.damaged("a member count of \(count)") }
        var heads: [(SnapshotID, [UInt8])] = []
        heads.reserveCapacity(count)
        for _ in 0..<count {
            heads.append((try SnapshotID.parsed(Array(try reader.bytes(SnapshotID.size))), Array(try reader.bytes(SHA256.digestSize))))
        }
        let size = try reader.length()
        let deltas = try Deflate.unpack(Array(bytes[(Self.headerSize + count * Self.memberSize + 4)...]), size: size,
                                        limit: WritingLimits.maximumDocumentBytes)
        var inner = ByteReader(bytes: deltas, what: "a snapshot group's deltas")
        members = try heads.map { id, digest throws(WritingError) in
            Member(id: id, digest: digest, delta: Array(try inner.bytes(try inner.length())))
        }
        guard inner.isAtEnd else { throw inner.damaged("bytes after the last delta") }
    }

    func parts() -> [[UInt8]] { SnapshotRecord.split(encoded()) }
}
