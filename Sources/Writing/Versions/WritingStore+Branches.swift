import CryptoVault

/// Branches (SECURITY.md §15.3): proposed changes of a document against one of its snapshots, kept
/// whatever becomes of them. Adopting one writes it into the document (merged with the document's
/// own changes since the base) and takes a snapshot of origin `adopt`; reverting puts back the
/// content from before the adoption as a snapshot of origin `revert`; discarding marks it and keeps
/// the document as it stands as a snapshot of origin `discard`. Each is a version and an audit entry. A proposal reaches a document by no other path.
extension WritingStore {
    var branchTable: BranchTable { BranchTable(database: transaction.database) }

    /// Stores `content` as a proposal for `document` against `base`, open. The content is checked as
    /// a document's is (`replaceDocumentContent`), and may reuse only this document's block ids.
    /// The branch's id is random, or `id` (a sync conflict's, named alike on every device: one held
    /// already is refused, `invalidIdentifier`).
    @discardableResult
    public func createBranch(of document: NodeID, in projectID: ProjectID, base: SnapshotID, content: DocumentContent,
                             kind: BranchKind, provenance: String, id: BranchID? = nil) throws -> Branch {
        let provenance = try Self.checkedName(provenance, "a branch's provenance")
        try Self.check(content)
        let project = try writable(projectID)
        // Creating opens nothing, but a proposal for a privileged document is made where it can be
        // read, as taking a snapshot is: in a session (SECURITY.md §10).
        try checkReadable(project)
        try checkDocument(document, in: project)
        _ = try checkSnapshot(base, of: document, in: project)
        for block in content.blocks {
            if let owner = try blockTable.document(of: block.id), owner != document {
                throw WritingError(.notInProject, "block \(block.id) belongs to another document")
            }
        }
        if let id, try branchTable.row(id) != nil { throw WritingError(.invalidIdentifier, "a branch \(id) exists already") }
        let parts = BranchRecord(document: document, base: base, content: SnapshotContent.encode(content)).parts()
        let row = BranchTable.Row(id: try id ?? BranchID.random(), project: project.id, document: document, base: base, kind: kind,
                                  state: .open, parts: parts.count, createdAt: now)
        try branchTable.insert(row)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.branchPart(row.id, index), of: project) }
        try rememberWords(content.blocks.map(Self.fingerprintedText(of:)), of: project)
        try seal(Array(provenance.utf8), at: try WritingRecord.branchProvenance(row.id), of: project)
        try record(.writingBranchCreate, project, subject: document,
                   details: [.init("branch", row.id.hex), .init("kind", kind.rawValue), .init("base", base.hex)])
        return Branch(row, provenance: provenance)
    }

    /// The document's branches, oldest first, in every state, their provenance opened.
    public func branches(of document: NodeID, in projectID: ProjectID) throws -> [Branch] {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let rows = try branchTable.all(of: document)
        let provenances = try openText(try rows.map { try WritingRecord.branchProvenance($0.id) }, of: project)
        return zip(rows, provenances).map { Branch($0, provenance: $1) }
    }

    /// One branch; one of another document or project is refused (`.notInProject`).
    public func branch(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> Branch {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let row = try checkBranch(id, of: document, in: project)
        return Branch(row, provenance: try openText([try WritingRecord.branchProvenance(id)], of: project)[0])
    }

    /// The content the branch proposes.
    public func branchContent(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> DocumentContent {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        return try proposedContent(of: try checkBranch(id, of: document, in: project), in: project)
    }

    /// Writes an open branch into its document and returns the snapshot of the result (origin
    /// `adopt`). If the document moved on since the base, the base, the document and the proposal
    /// are merged block by block; overlapping changes are refused (`.branchConflict`, listing them)
    /// and nothing changes. The content before is kept as a snapshot, for `revert`.
    @discardableResult
    public func adopt(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        var row = try checkBranch(id, of: document, in: project, state: .open)
        let base = try SnapshotContent.decode(try contentBytes(of: try checkSnapshot(row.base, of: document, in: project), in: project))
        let current = try currentContent(of: document, in: project)
        let merged = try BranchMerge.merge(base: base, ours: current, theirs: try proposedContent(of: row, in: project))
        let before = try addSnapshot(SnapshotContent.encode(current), of: document, in: project, origin: .automatic, title: nil)
        let adopted = try write(merged, to: document, in: project, origin: .adopt)
        row.state = .adopted
        row.decidedAt = now
        row.beforeAdoption = before.id
        row.adoption = adopted.id
        try branchTable.update(row)
        try record(.writingBranchAdopt, project, subject: document,
                   details: [.init("branch", id.hex), .init("merged", SnapshotContent.encode(current) == SnapshotContent.encode(base) ? "no" : "yes"),
                             .init("before", before.id.hex), .init("version", adopted.id.hex)])
        return Snapshot(adopted, title: nil)
    }

    /// What adopting open branch `id` now would refuse: each place the document and the proposal
    /// both changed since the branch's base, with the base's, the document's and the proposal's
    /// blocks there. Empty when the adoption would merge. Reads only (a privileged project's words,
    /// so only through a session's access, as every read of its content is).
    public func adoptionConflicts(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> [BranchConflict] {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let row = try checkBranch(id, of: document, in: project, state: .open)
        let base = try SnapshotContent.decode(try contentBytes(of: try checkSnapshot(row.base, of: document, in: project), in: project))
        return try BranchMerge.overlaps(base: base, ours: try currentContent(of: document, in: project),
                                        theirs: try proposedContent(of: row, in: project))
    }

    /// Marks an open branch discarded: it is kept, and the document's content is not touched. The
    /// decision is a version too, as an adoption and a revert are: the document as it stands is
    /// snapshotted with origin `discard` (stored even when equal to the latest), which it returns.
    @discardableResult
    public func discard(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        var row = try checkBranch(id, of: document, in: project, state: .open)
        let version = try addSnapshot(SnapshotContent.encode(try currentContent(of: document, in: project)), of: document, in: project,
                                      origin: .discard, title: nil)
        row.state = .discarded
        row.decidedAt = now
        try branchTable.update(row)
        try record(.writingBranchDiscard, project, subject: document, details: [.init("branch", id.hex), .init("version", version.id.hex)])
        return Snapshot(version, title: nil)
    }

    /// Undoes an adopted branch: the document's content becomes what it was before the adoption,
    /// taken as a snapshot of origin `revert`, which it returns. Unedited since, the result is the
    /// earlier content byte for byte; edited since, the adoption is taken out of it by the same
    /// merge (the adopted version as base), and edits overlapping it are refused (`.branchConflict`).
    @discardableResult
    public func revert(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        var row = try checkBranch(id, of: document, in: project, state: .adopted)
        let (before, adopted) = try adoptionVersions(of: row, in: project)
        let restored = try BranchMerge.merge(base: adopted, ours: try currentContent(of: document, in: project), theirs: before, for: .revert)
        let version = try write(restored, to: document, in: project, origin: .revert)
        row.state = .reverted
        row.decidedAt = now
        try branchTable.update(row)
        try record(.writingBranchRevert, project, subject: document, details: [.init("branch", id.hex), .init("version", version.id.hex)])
        return Snapshot(version, title: nil)
    }

    /// What reverting adopted branch `id` now would refuse: each place edited since the adoption
    /// that the adoption had changed too, with the adopted version's blocks there (`base`), the
    /// document's, and those from before the adoption (`proposal`: what the revert would bring back).
    /// Empty when the revert would merge. Reads only, through the store's access, as adoptionConflicts.
    public func revertConflicts(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> [BranchConflict] {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let (before, adopted) = try adoptionVersions(of: try checkBranch(id, of: document, in: project, state: .adopted), in: project)
        return try BranchMerge.overlaps(base: adopted, ours: try currentContent(of: document, in: project), theirs: before)
    }

    // MARK: Helpers

    /// An adopted branch's two versions of its document: before the adoption, and as it left it.
    private func adoptionVersions(of row: BranchTable.Row, in project: WritingProject) throws -> (before: DocumentContent, adopted: DocumentContent) {
        guard let beforeID = row.beforeAdoption, let adoptionID = row.adoption else {
            throw WritingError(.damagedRecord, "branch \(row.id) is adopted but names no snapshots of its adoption")
        }
        let content = { (id: SnapshotID) in
            try SnapshotContent.decode(try contentBytes(of: try checkSnapshot(id, of: row.document, in: project), in: project))
        }
        return (try content(beforeID), try content(adoptionID))
    }

    /// Makes `content` the document's and takes its snapshot of `origin`.
    private func write(_ content: DocumentContent, to document: NodeID, in project: WritingProject,
                       origin: SnapshotOrigin) throws -> SnapshotTable.Row {
        try replaceDocumentContent(of: document, in: project.id, with: content)
        return try addSnapshot(SnapshotContent.encode(content), of: document, in: project, origin: origin, title: nil)
    }

    /// The branch's proposed content, its sealed value checked against its row.
    func proposedContent(of row: BranchTable.Row, in project: WritingProject) throws -> DocumentContent {
        let locations = try (0..<row.parts).map { try WritingRecord.branchPart(row.id, $0) }
        // The parts are parsed as one array, as a snapshot's are: each is copied out of locked memory here.
        let record = try BranchRecord(parsing: Array(try open(locations, of: project) { _, plaintext in [UInt8](plaintext) }.joined()))
        guard record.document == row.document, record.base == row.base else {
            throw WritingError(.damagedRecord, "branch \(row.id)'s sealed value is not the one its row names")
        }
        return try SnapshotContent.decode(record.content)
    }

    /// The branch's row, refusing one of another project or document, none, or (given `state`) one in another state.
    func checkBranch(_ id: BranchID, of document: NodeID, in project: WritingProject, state: BranchState? = nil) throws -> BranchTable.Row {
        guard let row = try branchTable.row(id) else { throw WritingError(.branchNotFound, "no branch \(id)") }
        guard row.project == project.id else { throw WritingError(.notInProject, "branch \(id) belongs to another project") }
        guard row.document == document else { throw WritingError(.notInProject, "branch \(id) belongs to another document") }
        if let state, row.state != state {
            throw WritingError(.branchNotOpen, "branch \(id) is \(row.state.rawValue), not \(state.rawValue)")
        }
        return row
    }

    /// Removes a document's branches with their sealed records (the document is being removed).
    func removeBranches(of document: NodeID, in project: WritingProject) throws {
        for row in try branchTable.all(of: document) {
            for index in 0..<row.parts { try remove(try WritingRecord.branchPart(row.id, index), of: project) }
            try remove(try WritingRecord.branchProvenance(row.id), of: project)
        }
        try branchTable.deleteAll(of: document)
    }
}

extension Branch {
    init(_ row: BranchTable.Row, provenance: String) {
        self.init(id: row.id, document: row.document, base: row.base, kind: row.kind, state: row.state, provenance: provenance,
                  createdAt: row.createdAt, decidedAt: row.decidedAt, beforeAdoption: row.beforeAdoption, adoption: row.adoption)
    }
}
