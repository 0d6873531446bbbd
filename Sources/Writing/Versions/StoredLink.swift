/// One stored version of a document as its records give it (SECURITY.md §15.2): its row, its sealed
/// digest, and its content whole (a keyframe) or as the delta from the version before it (a delta
/// record or a group member), with the group it is in when it is in one.
struct StoredLink {
    enum Payload {
        case content([UInt8])
        case delta([UInt8])
    }

    let row: SnapshotTable.Row
    /// SHA-256 of the version's content.
    let digest: [UInt8]
    let payload: Payload
    /// The group holding the version and its first member's row, or nil (a record of its own).
    let group: (head: SnapshotTable.Row, value: SnapshotGroup)?

    /// The version's content, made from the previous version's `base` for a delta.
    func apply(to base: [UInt8]) throws -> [UInt8] {
        switch payload {
        case .content(let content): content
        case .delta(let delta): try SnapshotDelta(parsing: delta).apply(to: base)
        }
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
