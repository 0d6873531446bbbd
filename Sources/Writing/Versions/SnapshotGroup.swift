import CryptoVault

/// The sealed value of a group of consecutive snapshots of one document stored as deltas (SECURITY.md
/// §15.2, record versions 3 and 4): for each member a check of its content and its delta from the
/// version before it, all the deltas packed together with DEFLATE. The group is sealed at its first
/// member's place and sealed again as each later member joins, so a document's history costs one
/// sealed record (its seal, header, row and index entries) per `WritingStore.groupLimit` versions
/// instead of one per version, and its deltas are packed against each other (a 500-character
/// snapshot's delta is a few hundred bytes; the record around it was as much again).
///
///     group4  = version:u8 (4) form:u8 (3) document:16 sequence:u32be base:16 count:u32be
///               check:16*count size:u32be packed
///     packed  = raw DEFLATE (RFC 1951) of entry*count; size = its length unpacked
///     entry   = varint(2 * length) compact       the delta from the version before (§15.1's compact form)
///             | varint(2 * sequence + 1)          a reference: the content of the document's snapshot `sequence`
///                                                 (1 ≤ sequence < the member's own), not stored again
///     check   = SHA-256(id || content)[0..16], id the member's snapshot id
///     group3  = version:u8 (3) form:u8 (3) document:16 sequence:u32be base:16 count:u32be
///               (id:16 digest:32)*count size:u32be packed3
///     packed3 = raw DEFLATE of (length:u32be delta)*count, digest = SHA-256(content)
///     base    = the id of the snapshot before the first member
///
/// `sequence` is the first member's; member i is sequence + i. Version 4 (written since
/// `versions-7`) stores each delta in the compact form (`SnapshotDelta.compact()`: varints, copy
/// offsets relative to the last copy's end) and binds the member's id into its 16-byte check instead
/// of storing it beside a 32-byte digest: 48 bytes a version became 16, and a row moved in its group
/// or given another's id rebuilds a content whose check is not the member's, refused as damage when
/// it is read, as version 3's stored ids were refused. Version 3 is still read; a group of it is
/// not joined (the next snapshot starts a version-4 group).
struct SnapshotGroup: Equatable {
    static let version: UInt8 = 4
    static let version3: UInt8 = 3
    static let form: UInt8 = 3
    static let headerSize = 2 + NodeID.size + 4 + SnapshotID.size + 4
    static let memberSize3 = SnapshotID.size + SHA256.digestSize
    static let checkSize = 16

    struct Member: Equatable {
        /// The member's snapshot id as a version-3 group stores it; nil in version 4 (bound into `digest`).
        let id: SnapshotID?
        /// Version 4: the check `SHA-256(id || content)[0..16]`; version 3: SHA-256 of the content.
        let digest: [UInt8]
        /// The snapshot delta (§15.1, version 1 bytes) from the previous version's content, unpacked;
        /// empty for a reference.
        let delta: [UInt8]
        /// Version 4: the sequence of the earlier snapshot whose content the member's is (a restore of
        /// it, or a titled snapshot of unchanged content), instead of a delta.
        let reference: Int?

        init(id: SnapshotID?, digest: [UInt8], delta: [UInt8], reference: Int? = nil) {
            self.id = id
            self.digest = digest
            self.delta = delta
            self.reference = reference
        }
    }

    /// 3 or 4: the version the group was read as (and is written back as).
    let version: UInt8
    let document: NodeID
    /// The first member's sequence.
    let sequence: Int
    /// The id bytes of the snapshot before the first member.
    let base: [UInt8]
    let members: [Member]

    /// The check a version-4 member holds for snapshot `id` of `content`.
    static func check(_ id: SnapshotID, _ content: [UInt8]) -> [UInt8] {
        Array(SHA256.hash(id.bytes + content).prefix(checkSize))
    }

    init(version: UInt8 = SnapshotGroup.version, document: NodeID, sequence: Int, base: [UInt8], members: [Member]) {
        self.version = version
        self.document = document
        self.sequence = sequence
        self.base = base
        self.members = members
    }

    /// The group with `member` joined at its end.
    func appending(_ member: Member) -> SnapshotGroup {
        SnapshotGroup(version: version, document: document, sequence: sequence, base: base, members: members + [member])
    }

    /// The deltas' bytes unpacked (what `WritingStore.groupBytes` bounds).
    var deltaBytes: Int { members.reduce(0) { $0 + 4 + $1.delta.count } }

    func encoded() throws(WritingError) -> [UInt8] {
        var out: [UInt8] = [version, Self.form]
        out += document.bytes
        ByteReader.appendLength(sequence, &out)
        out += base
        ByteReader.appendLength(members.count, &out)
        var deltas: [UInt8] = []
        deltas.reserveCapacity(deltaBytes)
        for member in members {
            if version == Self.version3 {
                out += member.id?.bytes ?? []
                out += member.digest
                ByteReader.appendLength(member.delta.count, &deltas)
                deltas += member.delta
            } else if let reference = member.reference {
                out += member.digest
                SnapshotDelta.appendVarint(UInt64(reference) * 2 + 1, &deltas)
            } else {
                out += member.digest
                let compact = try SnapshotDelta(parsing: member.delta).compact()
                SnapshotDelta.appendVarint(UInt64(compact.count) * 2, &deltas)
                deltas += compact
            }
        }
        ByteReader.appendLength(deltas.count, &out)
        out += Deflate.pack(deltas)
        return out
    }

    /// Parses either version's grammar above and unpacks the deltas (a version-4 member's compact
    /// delta is parsed here and kept as version 1 bytes; each is applied only when read). Refused as
    /// `.damagedRecord`: another version or form, sequence 0, no members or more than the bytes can
    /// hold, an unpacked size over `WritingLimits.maximumDocumentBytes` or a stream that does not give
    /// exactly it, a compact delta that is not canonical, a reference to snapshot 0 or to one not
    /// before its member, and entries that do not fill it exactly.
    init(parsing bytes: [UInt8]) throws(WritingError) {
        var reader = ByteReader(bytes: bytes, what: "a snapshot group's sealed value")
        version = try reader.byte()
        guard version == Self.version || version == Self.version3 else { throw reader.damaged("an unknown snapshot version") }
        guard try reader.byte() == Self.form else { throw reader.damaged("an unknown snapshot form") }
        document = try NodeID.parsed(Array(try reader.bytes(NodeID.size)))
        sequence = try reader.length()
        base = Array(try reader.bytes(SnapshotID.size))
        let count = try reader.length()
        guard sequence >= 1 else { throw reader.damaged("sequence 0") }
        // Each member takes 48 (version 3) or 16 bytes before the packed deltas: a count past that is damage, found before any allocation.
        let memberSize = version == Self.version3 ? Self.memberSize3 : Self.checkSize
        guard count >= 1, count <= (bytes.count - Self.headerSize) / memberSize else { throw reader.damaged("a member count of \(count)") }
        var heads: [(SnapshotID?, [UInt8])] = []
        heads.reserveCapacity(count)
        for _ in 0..<count {
            let id = version == Self.version3 ? try SnapshotID.parsed(Array(try reader.bytes(SnapshotID.size))) : nil
            heads.append((id, Array(try reader.bytes(memberSize - (id == nil ? 0 : SnapshotID.size)))))
        }
        let size = try reader.length()
        let deltas = try Deflate.unpack(Array(bytes[(Self.headerSize + count * memberSize + 4)...]), size: size,
                                        limit: WritingLimits.maximumDocumentBytes)
        if version == Self.version3 {
            var inner = ByteReader(bytes: deltas, what: "a snapshot group's deltas")
            members = try heads.map { id, digest throws(WritingError) in
                Member(id: id, digest: digest, delta: Array(try inner.bytes(try inner.length())))
            }
            guard inner.isAtEnd else { throw inner.damaged("bytes after the last delta") }
        } else {
            var index = deltas.startIndex
            let slice = deltas[...]
            let first = sequence
            members = try heads.enumerated().map { position, head throws(WritingError) in
                let entry = Int(try SnapshotDelta.varint(slice, &index))
                if entry & 1 == 1 {
                    // A reference to an earlier snapshot: never to the member itself or one after it.
                    guard (1..<(first + position)).contains(entry >> 1) else {
                        throw WritingError(.damagedRecord, "a snapshot group's deltas are damaged: a reference to snapshot \(entry >> 1)")
                    }
                    return Member(id: nil, digest: head.1, delta: [], reference: entry >> 1)
                }
                let length = entry >> 1
                guard length <= deltas.count - index else { throw WritingError(.damagedRecord, "a snapshot group's deltas are damaged: a delta runs past the end") }
                defer { index += length }
                return Member(id: nil, digest: head.1, delta: try SnapshotDelta(compact: slice[index..<(index + length)]).serialized())
            }
            guard index == deltas.count else { throw WritingError(.damagedRecord, "a snapshot group's deltas are damaged: bytes after the last delta") }
        }
    }

    func parts() throws(WritingError) -> [[UInt8]] { SnapshotRecord.split(try encoded()) }
}
