import CryptoVault
import Writing

/// This device's records of a project that the project's origin refused because it made this device a
/// viewer meanwhile (`sync_set_aside`, SECURITY.md §19.5; session 13): an edit made as editor and not
/// yet synced when the colleague who owns the project downgraded this device. The origin refuses them
/// at every push (`viewerCannotWrite`), and while they stood in the replica this device showed a
/// document no other device shows and `sync now` said "partial" for good. So they are **set aside**:
/// moved, as signed, from `sync_records` to `sync_set_aside` (their sealed parts stay where they are),
/// so the replica, the version vector and every push leave them out and the device shows the origin's
/// document; the words they made are kept as branches of kind sync-conflict of the documents they
/// changed (`vaultctl conflicts`). Nothing is signed again: a record keeps its counter, and while any
/// is set aside this device commits nothing in the project (its next record would take a counter of
/// one of them with other content: a fork). They are put back, as they were, when the origin makes
/// this device an editor again (`putBackSetAside`), and then sent like any record.
extension VaultSync {
    /// What is set aside of a project: how many records, which device refused them, since when, and
    /// (when set aside now) how many branches keep their words.
    public struct SetAside: Sendable, Equatable {
        public let records: Int
        public let refusedBy: DeviceID
        public let since: Int64
        public var branchesMade = 0
        /// Set aside by this run (else kept from an earlier one).
        public var now = false
        /// Set aside by this run as an own device's records that device holds set aside (nil: this
        /// device's own, refused by the origin itself; `SyncEndpoint.setAsideAsOwnDevice`).
        public var writer: DeviceID?
    }

    static let setAsideTable = "sync_set_aside"

    /// What a row `setAsideRefused` writes holds, as SQL over its columns: a stored record's
    /// (`DamagedRecords.wholeRow`), the device that refused it and when. Another row is its
    /// project's damaged sync state (`DamagedRows`), mended by `vaultctl repair` (`mendSetAside`).
    static let wholeSetAsideRow = DamagedRecords.wholeRow
        + " AND typeof(refused_by) = 'blob' AND length(refused_by) = 16 AND typeof(set_at) = 'integer'"

    /// The set-aside records of `project`, or nil when none are (read from the clear columns alone;
    /// a damaged row is its project's local-only reason, never read as if whole).
    static func setAside(of project: ProjectID, in database: Database) throws -> SetAside? {
        guard let row = try database.queryOne("""
            SELECT COUNT(*) AS records, MIN(set_at) AS since, MAX(refused_by) AS refused_by FROM sync_set_aside
            WHERE project_id = ? AND (\(wholeSetAsideRow))
            """, [.blob(project.bytes)]), try row.integer("records") > 0 else { return nil }
        return SetAside(records: Int(try row.integer("records")), refusedBy: try DeviceID(bytes: try row.blob("refused_by")),
                        since: try row.integer("since"))
    }

    /// How the branches keeping set-aside words begin their provenance (`putBackSetAside` discards them).
    static let setAsideProvenance = "edits set aside on device"

    /// Whether any record of `project` is set aside: then this device commits nothing there.
    func hasSetAside(_ project: ProjectID) throws -> Bool {
        try database.queryOne("SELECT 1 FROM sync_set_aside WHERE project_id = ? LIMIT 1", [.blob(project.bytes)]) != nil
    }

    /// The hashes of `project`'s set-aside records: a receive passes them over (an own device that took
    /// them before sends them back; taking them would undo the set-aside without a word).
    func setAsideHashes(of project: ProjectID) throws -> Set<[UInt8]> {
        Set(try database.query("SELECT hash FROM sync_set_aside WHERE project_id = ?", [.blob(project.bytes)]).map { try $0.blob("hash") })
    }

    /// Sets aside this device's records of `projectID` that `peer`, the project's origin, lacks (by
    /// its version vector `peerHeld`) and refused whole, and any record held here built on one of
    /// them (the origin takes none of those either); then writes the documents as the records left
    /// make them, keeping the words each changed document showed as a branch of kind sync-conflict
    /// against a snapshot of the document as it now shows. One `sync.records-set-aside` entry
    /// (details: peer, records, from: the least counter of the writer set aside, branches).
    /// `writer`: whose records (nil: this device's; an own device's that set them aside there,
    /// `SyncEndpoint.setAsideAsOwnDevice`), and how the branches name the device made a viewer.
    /// Returns nil when nothing of the writer's is missing there.
    public func setAsideRefused(in projectID: ProjectID, peerHeld: [DeviceID: UInt64], refusedBy peer: DeviceID, named name: String,
                                writtenBy writer: DeviceID? = nil, madeViewer: String = "it") throws -> SetAside? {
        let project = try store.project(projectID)
        let chosen = try refusedOwnRecords(of: project, writtenBy: writer ?? author.device, peerHeld: peerHeld)
        guard !chosen.isEmpty else { return nil }
        let documents = try store.nodes(in: projectID).filter { $0.kind == .scene }
        var shown: [NodeID: DocumentContent] = [:]
        for document in documents { shown[document.id] = try store.documentContent(of: document.id, in: projectID) }
        let now = store.clock.now()
        for (hash, _, _) in chosen {
            try database.query("""
                INSERT INTO sync_set_aside (hash, project_id, device_id, counter, lamport, parts, stored_at, refused_by, set_at)
                SELECT hash, project_id, device_id, counter, lamport, parts, stored_at, ?, ? FROM sync_records WHERE hash = ?
                """, [.blob(peer.bytes), .integer(now), .blob(hash)])
            try database.query("DELETE FROM sync_records WHERE hash = ?", [.blob(hash)])
        }
        // The rows changed: the replica is rebuilt without them, and every document compared.
        _ = try receive([], for: projectID)
        var branches = 0
        for document in documents {
            guard let before = shown[document.id], let after = try? store.documentContent(of: document.id, in: projectID), after != before else { continue }
            let base = try store.createSnapshot(of: document.id, in: projectID)
            try store.createBranch(of: document.id, in: projectID, base: base.id, content: before, kind: .syncConflict,
                                   provenance: "\(Self.setAsideProvenance) \(author.device.hex): device \(name), the project's owner, refused them after making \(madeViewer) a viewer")
            branches += 1
        }
        let least = chosen.filter { $0.own }.map(\.counter).min() ?? 0
        try transaction.record(.syncRecordsSetAside, compartment: project.compartment.id, subject: projectID,
                               details: [.init("peer", peer.hex), .init("records", String(chosen.count)), .init("from", String(least)),
                                         .init("branches", String(branches))])
        return SetAside(records: chosen.count, refusedBy: peer, since: now, branchesMade: branches, now: true,
                        writer: writer.flatMap { $0 == author.device ? nil : $0 })
    }

    /// The stored records of `project` to set aside, in the order they were stored: `writer`'s past
    /// what `peerHeld` holds of it, and any other record `peerHeld` lacks built on one of them.
    private func refusedOwnRecords(of project: WritingProject, writtenBy writer: DeviceID,
                                   peerHeld: [DeviceID: UInt64]) throws -> [(hash: [UInt8], own: Bool, counter: UInt64)] {
        var chosen: [(hash: [UInt8], own: Bool, counter: UInt64)] = [], hashes = Set<[UInt8]>()
        for stored in try storedRecords(of: project) where stored.counter > peerHeld[stored.device] ?? 0 {
            let own = stored.device == writer
            guard try own || (!hashes.isEmpty && ChangeRecordCodec.parse(stored.bytes).parents.contains { hashes.contains($0) }) else { continue }
            chosen.append((stored.hash, own, stored.counter))
            hashes.insert(stored.hash)
        }
        return chosen
    }

    /// Puts `projectID`'s set-aside records back among its records, as they were stored, and writes
    /// the documents as the records make them (the set-aside words are in them again): the origin
    /// made this device an editor again, so its next push sends them. The open branches that kept
    /// their words are discarded (kept, decided): the documents show the words again, merged with
    /// what came since, and adopting the older text would undo that. One `sync.records-put-back`
    /// entry (details: peer, records, branches discarded). Returns how many records came back.
    @discardableResult
    public func putBackSetAside(in projectID: ProjectID, from peer: DeviceID) throws -> Int {
        let project = try store.project(projectID)
        // A damaged row is not put back as if whole: the project is local-only until `repair` mends it.
        try DamagedRows.check(projectID, in: database)
        guard let kept = try Self.setAside(of: projectID, in: database) else { return 0 }
        try database.query("""
            INSERT INTO sync_records (hash, project_id, device_id, counter, lamport, parts, stored_at)
            SELECT hash, project_id, device_id, counter, lamport, parts, stored_at FROM sync_set_aside WHERE project_id = ? ORDER BY rowid
            """, [.blob(projectID.bytes)])
        try database.query("DELETE FROM sync_set_aside WHERE project_id = ?", [.blob(projectID.bytes)])
        _ = try receive([], for: projectID)
        var discarded = 0
        for document in try store.nodes(in: projectID) where document.kind == .scene {
            for branch in try store.branches(of: document.id, in: projectID)
            where branch.kind == .syncConflict && branch.state == .open && branch.provenance.hasPrefix(Self.setAsideProvenance) {
                try store.discard(branch.id, of: document.id, in: projectID)
                discarded += 1
            }
        }
        try transaction.record(.syncRecordsPutBack, compartment: project.compartment.id, subject: projectID,
                               details: [.init("peer", peer.hex), .init("records", String(kept.records)), .init("branches", String(discarded))])
        return kept.records
    }
}

extension AuditAction {
    /// This device's records of a project its origin refused after making this device a viewer, set
    /// aside (details: peer, records, from, branches).
    public static let syncRecordsSetAside = AuditAction("sync.records-set-aside")
    /// Set-aside records put back once the origin made this device an editor again (details: peer, records).
    public static let syncRecordsPutBack = AuditAction("sync.records-put-back")
}
