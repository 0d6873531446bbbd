import CryptoVault

/// One stored version of a document as its records give it (SECURITY.md §15.2): its row, its sealed
/// digest, and its content whole (a keyframe) or as the delta from the version before it (a delta
/// record or a group member), with the group it is in when it is in one.
struct StoredLink {
    enum Payload {
        case content([UInt8])
        case delta([UInt8])
        /// The content of the document's snapshot of this sequence (a version-4 group's reference).
        case reference(Int)
    }

    let row: SnapshotTable.Row
    /// SHA-256 of the version's content, or (`idBound`, a version-4 group's member) the check
    /// SHA-256(id || content)[0..16].
    let digest: [UInt8]
    let payload: Payload
    /// The group holding the version and its first member's row, or nil (a record of its own).
    let group: (head: SnapshotTable.Row, value: SnapshotGroup)?
    let idBound: Bool

    init(row: SnapshotTable.Row, digest: [UInt8], payload: Payload, group: (head: SnapshotTable.Row, value: SnapshotGroup)?, idBound: Bool = false) {
        self.row = row
        self.digest = digest
        self.payload = payload
        self.group = group
        self.idBound = idBound
    }

    /// Whether `content` is the version this link sealed (its digest or check, the latter bound to the row's id).
    func holds(_ content: [UInt8]) -> Bool {
        idBound ? SnapshotGroup.check(row.id, content) == digest : SHA256.hash(content) == digest
    }

    /// The version's content, made from the previous version's `base` for a delta, or (a reference)
    /// read by `referenced` from the sequence it names.
    func apply(to base: [UInt8], referenced: (Int) throws -> [UInt8]) throws -> [UInt8] {
        switch payload {
        case .content(let content): content
        case .delta(let delta): try SnapshotDelta(parsing: delta).apply(to: base)
        case .reference(let sequence): try referenced(sequence)
        }
    }

    /// The sequence of the snapshot whose content this one's is when it is a reference, else its own:
    /// what a later reference to it names (a reference never names a reference).
    var contentSequence: Int {
        if case .reference(let sequence) = payload { return sequence }
        return row.sequence
    }

    /// The stored delta from the previous version, or nil for a keyframe.
    var delta: [UInt8]? {
        if case .delta(let delta) = payload { return delta }
        return nil
    }
}

/// The latest version's content, as the next snapshot's delta is made from it, and the group it is
/// in (which the next snapshot joins when it has room).
struct HeldVersion {
    let content: [UInt8]
    let group: (head: SnapshotTable.Row, value: SnapshotGroup)?
}
