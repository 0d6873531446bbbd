import CryptoVault

/// A stored snapshot as sync sends it (SECURITY.md §19.2, operation 0x06): its listing, the digest
/// of its content, and its content either whole (`base` nil) or as a snapshot delta (§15.1) from
/// the content of `base`, an earlier snapshot of the same document.
public struct SnapshotForSync: Sendable {
    public let snapshot: Snapshot
    /// SHA-256 of the content (§15.2).
    public let digest: [UInt8]
    public let base: SnapshotID?
    public let payload: [UInt8]
}

/// A stored branch as sync sends it (operation 0x07, made): its listing and its proposal as a
/// snapshot delta from its base's content.
public struct BranchForSync: Sendable {
    public let branch: Branch
    public let delta: [UInt8]
}

/// A branch's clear columns: what sync compares to find the decisions made since the last commit.
public struct BranchStatus: Sendable, Equatable {
    public let id: BranchID
    public let document: NodeID
    public let kind: BranchKind
    public let state: BranchState
    public let decidedAt: Int64?
    public let beforeAdoption: SnapshotID?
    public let adoption: SnapshotID?
}

/// An edit event's clear columns (SECURITY.md §15.5), read without opening its sealed documents.
public struct EditEventStatus: Sendable, Equatable {
    public let id: EditEventID
    public let deviceID: AuditDeviceID
    public let startedAt: Int64
    public let lastEditAt: Int64
    public let endedAt: Int64?
    public let edits: Int
}

/// The doors sync needs into versions (SECURITY.md §19.5): snapshots, branches, decisions and edit
/// events made on another of the owner's devices are written here with the ids, devices and times
/// they were made with there, so both devices list the same history. Everything else is the store's
/// own: checked, sealed in the project's compartment, recorded in the transaction (each entry's
/// detail `from` names the device the change came from), and a privileged project's only in a
/// session of its compartment.
extension WritingStore {
    // MARK: Reading what to send

    /// The project's snapshots not in `known`, oldest first per document, each whole or as a delta
    /// from an earlier snapshot of its document that is in `known` or listed before it. A snapshot
    /// whose payload is over `maximumPayload` bytes even as a delta is left out (and is no base).
    public func snapshotsForSync(in projectID: ProjectID, notIn known: Set<SnapshotID>, maximumPayload: Int) throws -> [SnapshotForSync] {
        let project = try self.project(projectID)
        try checkReadable(project)
        let rows = try snapshotTable.all(inProject: project.id)
        var result: [SnapshotForSync] = []
        var start = 0
        while start < rows.count {
            var end = start
            while end < rows.count, rows[end].document == rows[start].document { end += 1 }
            result += try snapshotsForSync(Array(rows[start..<end]), known: known, maximumPayload: maximumPayload, in: project)
            start = end
        }
        return result
    }

    /// One document's snapshots (all of them, in sequence order) not in `known`: the chain is read
    /// once, from the keyframe at or before the latest known version before the first new one.
    private func snapshotsForSync(_ rows: [SnapshotTable.Row], known: Set<SnapshotID>, maximumPayload: Int,
                                  in project: WritingProject) throws -> [SnapshotForSync] {
        guard let firstNew = rows.firstIndex(where: { !known.contains($0.id) }) else { return [] }
        let from = firstNew > 0 ? firstNew - 1 : firstNew
        guard let keyframe = rows[...from].lastIndex(where: { $0.form == .keyframe }) else {
            throw WritingError(.damagedRecord, "snapshot \(rows[from].id)'s chain has no keyframe")
        }
        let links = try openLinks(Array(rows[keyframe...]), in: project)
        let titled = links.map(\.row).filter { !known.contains($0.id) && $0.origin == .titled }
        let titles = Dictionary(uniqueKeysWithValues: zip(titled.map(\.id), try openText(try titled.map { try WritingRecord.snapshotTitle($0.id) }, of: project)))
        var result: [SnapshotForSync] = []
        var base: (id: SnapshotID, content: [UInt8])? = nil, previous: SnapshotID? = nil
        _ = try replay(links) { link, content in
            defer { previous = link.row.id }
            if known.contains(link.row.id) { base = (link.row.id, content); return }
            let digest = SHA256.hash(content)
            guard link.holds(content) else { throw WritingError(.damagedRecord, "snapshot \(link.row.id)'s content is not the version it sealed") }
            // The stored delta is from the snapshot just before: reused when that one is the base.
            var sent: (base: SnapshotID?, payload: [UInt8]) = (nil, content)
            if let base {
                let delta = if let stored = link.delta, base.id == previous { stored } else { try SnapshotDelta.between(base.content, content).serialized() }
                if delta.count < content.count { sent = (base.id, delta) }
            }
            guard sent.payload.count <= maximumPayload else { return }
            result.append(SnapshotForSync(snapshot: Snapshot(link.row, title: titles[link.row.id]), digest: digest, base: sent.base, payload: sent.payload))
            base = (link.row.id, content)
        }
        return result
    }

    /// The project's branches not in `known` (nor in `excluded`), oldest first, each with its
    /// proposal as a delta from its base's content.
    public func branchesForSync(in projectID: ProjectID, notIn known: Set<BranchID>) throws -> [BranchForSync] {
        let project = try self.project(projectID)
        try checkReadable(project)
        return try branchTable.all(inProject: project.id).filter { !known.contains($0.id) }.map { row in
            let base = try contentBytes(of: try checkSnapshot(row.base, of: row.document, in: project), in: project)
            let proposal = SnapshotContent.encode(try proposedContent(of: row, in: project))
            let provenance = try openText([try WritingRecord.branchProvenance(row.id)], of: project)[0]
            return BranchForSync(branch: Branch(row, provenance: provenance), delta: try SnapshotDelta.between(base, proposal).serialized())
        }
    }

    /// Every branch's clear columns, oldest first (nothing is opened).
    public func branchStatuses(in projectID: ProjectID) throws -> [BranchStatus] {
        let project = try self.project(projectID)
        return try branchTable.all(inProject: project.id).map {
            BranchStatus(id: $0.id, document: $0.document, kind: $0.kind, state: $0.state, decidedAt: $0.decidedAt,
                         beforeAdoption: $0.beforeAdoption, adoption: $0.adoption)
        }
    }

    /// Every snapshot id of the project (clear, nothing opened).
    public func snapshotIDs(in projectID: ProjectID) throws -> Set<SnapshotID> {
        Set(try snapshotTable.all(inProject: try self.project(projectID).id).map(\.id))
    }

    /// Every edit event's clear columns (nothing opened).
    public func editEventStatuses(in projectID: ProjectID) throws -> [EditEventStatus] {
        try editEventTable.all(in: try self.project(projectID).id).map {
            EditEventStatus(id: $0.id, deviceID: $0.deviceID, startedAt: $0.startedAt, lastEditAt: $0.lastEditAt, endedAt: $0.endedAt, edits: $0.edits)
        }
    }

    /// One edit event's documents and word changes, opened.
    public func editEventDocuments(_ id: EditEventID, in projectID: ProjectID) throws -> [DocumentEdit] {
        let project = try self.project(projectID)
        return try open([try WritingRecord.editEvent(id)], of: project) { _, plaintext in try EditEventRecord(parsing: plaintext) }[0].documents
    }

    /// The vault's audit device id, which its own snapshots and edit events carry (§4.7).
    public func auditDeviceID() throws -> AuditDeviceID { try deviceID() }

    /// A snapshot's content bytes (§15.2), as `snapshotContent` reads them.
    public func snapshotContentBytes(_ snapshot: SnapshotID, of document: NodeID, in projectID: ProjectID) throws -> [UInt8] {
        let project = try self.project(projectID)
        return try contentBytes(of: try checkSnapshot(snapshot, of: document, in: project), in: project)
    }

    // MARK: Writing what was received

    /// Writes the records' content into a document as `replaceDocumentContent` does, but joins no
    /// writing session of this device: the words were typed on another device, whose own edit event
    /// says so (it arrives as one, §19.2 operation 0x08). When this device's automatic-snapshot row
    /// names the document, it is marked: the document is no longer what this device's last write
    /// left, so a write without a base keeps what it replaces (§15.6; attack review s6, P6).
    @discardableResult
    public func replaceSyncedDocumentContent(of document: NodeID, in projectID: ProjectID, with content: DocumentContent) throws -> ContentChange {
        var before = content
        let change = try replaceDocumentContent(of: document, in: projectID, with: content, recordingEdit: false, reading: { before = $0 })
        // Only a change of words marks it: new block ids for the same words (a block re-based by
        // this device's own commit, §19.2) are not words from elsewhere.
        if Self.words(of: before) != Self.words(of: content) { try autoSnapshotTable.markReceived(document, of: projectID, device: try deviceID()) }
        return change
    }

    /// A document's blocks as the writer reads them: kinds, texts and table rows in order, no ids.
    private static func words(of content: DocumentContent) -> [[String]] {
        content.blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] + $0.rows.flatMap { $0 } }
    }

    /// Stores a snapshot taken on another device: its id, origin, title, device and time as there,
    /// and `content` (§15.2 bytes, checked to decode) as the document's next link here. A snapshot
    /// id held already is refused (`.invalidIdentifier`).
    public func addSyncedSnapshot(_ id: SnapshotID, of document: NodeID, in projectID: ProjectID, content: [UInt8], origin: SnapshotOrigin,
                                  title: String?, deviceID: AuditDeviceID, createdAt: Int64, from device: String) throws {
        let project = try writable(projectID, receiving: true)
        try checkReadable(project)
        try checkDocument(document, in: project)
        let title = try title.map { try Self.checkedName($0, "a snapshot title") }
        guard (origin == .titled) == (title != nil) else { throw WritingError(.invalidText, "only a titled snapshot has a title") }
        guard try snapshotTable.row(id) == nil else { throw WritingError(.invalidIdentifier, "a snapshot \(id) exists already") }
        _ = try SnapshotContent.decode(content)
        let latest = try snapshotTable.latest(of: document)
        // Where a chain starts and how deltas are grouped is the store's rule (`addSnapshot`'s), so a
        // synced link is stored as a local one; the latest's content is read only for a delta.
        let row = try storeVersion(content, id: id, of: document, in: project, after: latest,
                                   held: { try latest.map { try latestVersion($0, candidate: nil, in: project) } },
                                   origin: origin, deviceID: deviceID, createdAt: createdAt)
        if let title { try seal(Array(title.utf8), at: try WritingRecord.snapshotTitle(row.id), of: project) }
        try record(.writingSnapshotCreate, project, subject: document, details: [
            .init("snapshot", id.hex), .init("origin", origin.rawValue), .init("form", row.form.name), .init("from", device),
        ])
    }

    /// Stores a branch made on another device (or a sync conflict's, named by the conflict) with its
    /// id, kind, base, provenance and time as made there, open: its decisions arrive on their own.
    public func addSyncedBranch(_ id: BranchID, of document: NodeID, in projectID: ProjectID, base: SnapshotID, content: DocumentContent,
                                kind: BranchKind, provenance: String, createdAt: Int64, from device: String) throws -> Branch {
        let provenance = try Self.checkedName(provenance, "a branch's provenance")
        try Self.check(content)
        let project = try writable(projectID, receiving: true)
        try checkReadable(project)
        try checkDocument(document, in: project)
        _ = try checkSnapshot(base, of: document, in: project)
        guard try branchTable.row(id) == nil else { throw WritingError(.invalidIdentifier, "a branch \(id) exists already") }
        // The document's own blocks in one query, the others' owners one by one (as `createBranch`).
        let own = try blockTable.idBytes(in: document)
        for block in content.blocks where !own.contains(block.id.bytes) {
            if let owner = try blockTable.document(of: block.id), owner != document {
                throw WritingError(.notInProject, "block \(block.id) belongs to another document")
            }
        }
        let parts = BranchRecord(document: document, base: base, content: SnapshotContent.encode(content)).parts()
        let row = BranchTable.Row(id: id, project: project.id, document: document, base: base, kind: kind, state: .open,
                                  parts: parts.count, createdAt: createdAt)
        try branchTable.insert(row)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.branchPart(row.id, index), of: project) }
        try rememberWords(content.blocks.map(Self.fingerprintedText(of:)), of: project)
        try seal(Array(provenance.utf8), at: try WritingRecord.branchProvenance(row.id), of: project)
        try record(.writingBranchCreate, project, subject: document, details: [
            .init("branch", id.hex), .init("kind", kind.rawValue), .init("base", base.hex), .init("from", device),
        ])
        return Branch(row, provenance: provenance)
    }

    /// Sets a branch's state as the owner's devices' decisions settle it (SECURITY.md §19.3): the
    /// document is not touched (an adoption's or revert's words arrive as the document's own
    /// change), only the row, recorded as the decision's usual entry. A snapshot this vault does not
    /// hold is not named.
    public func setSyncedBranchState(_ id: BranchID, of document: NodeID, in projectID: ProjectID, state: BranchState, decidedAt: Int64?,
                                     before: SnapshotID?, adoption: SnapshotID?, from device: String) throws {
        let project = try writable(projectID, receiving: true)
        try checkDocument(document, in: project)
        var row = try checkBranch(id, of: document, in: project)
        let held = { (snapshot: SnapshotID?) throws -> SnapshotID? in
            guard let snapshot, let found = try self.snapshotTable.row(snapshot), found.document == document else { return nil }
            return snapshot
        }
        row.state = state
        row.decidedAt = decidedAt
        row.beforeAdoption = try held(before)
        row.adoption = try held(adoption)
        try branchTable.update(row)
        let action: AuditAction
        var details: [VaultEvent.Detail] = [.init("branch", id.hex)]
        switch state {
        case .open: return
        case .adopted:
            action = .writingBranchAdopt
            details += [.init("before", row.beforeAdoption?.hex ?? "none"), .init("version", row.adoption?.hex ?? "none")]
        case .discarded: action = .writingBranchDiscard
        case .reverted: action = .writingBranchRevert
        }
        try record(action, project, subject: document, details: details + [.init("from", device)])
    }

    /// Stores or updates an edit event of another device (SECURITY.md §15.5) as that device last
    /// committed it. Its end is not stamped here: a privileged project's stamps are the writing
    /// device's own entries, in its own audit chain.
    public func putSyncedEditEvent(_ id: EditEventID, in projectID: ProjectID, deviceID: AuditDeviceID, startedAt: Int64, lastEditAt: Int64,
                                   endedAt: Int64?, edits: Int, documents: [DocumentEdit]) throws {
        let project = try writable(projectID, receiving: true)
        try checkReadable(project)
        guard edits >= 1, lastEditAt >= startedAt, (1...WritingSessionRule.maximumDocuments).contains(documents.count),
              Set(documents.map(\.document)).count == documents.count else {
            throw WritingError(.invalidText, "an edit event with no edits, its last edit before its first, or its documents out of bounds")
        }
        let row = EditEventTable.Row(id: id, project: project.id, deviceID: deviceID, startedAt: startedAt, lastEditAt: lastEditAt,
                                     endedAt: endedAt, edits: edits)
        if let held = try editEventTable.row(id) {
            guard held.project == project.id, held.deviceID == deviceID, held.startedAt == startedAt else {
                throw WritingError(.notInProject, "edit event \(id) is another project's or device's")
            }
            try editEventTable.update(row)
        } else {
            try editEventTable.insert(row)
        }
        try seal(EditEventRecord(documents: documents).encoded(), at: try WritingRecord.editEvent(id), of: project)
    }
}
