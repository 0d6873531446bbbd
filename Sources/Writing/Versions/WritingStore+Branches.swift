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
    ///
    /// Given `block` (a sync conflict's), the proposal must be the base with that block alone
    /// changed (else `invalidText`, nothing stored): it is stored as the delta from the base that
    /// writes the block (record version 2), and adopting it writes that block alone (`adoptConflictBlock`).
    @discardableResult
    public func createBranch(of document: NodeID, in projectID: ProjectID, base: SnapshotID, content: DocumentContent,
                             kind: BranchKind, provenance: String, id: BranchID? = nil, block: BlockID? = nil) throws -> Branch {
        let provenance = try Self.checkedName(provenance, "a branch's provenance")
        try Self.check(content)
        let project = try writable(projectID)
        // Creating opens nothing, but a proposal for a privileged document is made where it can be
        // read, as taking a snapshot is: in a session (SECURITY.md §10).
        try checkReadable(project)
        try checkDocument(document, in: project)
        let baseRow = try checkSnapshot(base, of: document, in: project)
        // The document's own blocks are read in one query: a sync conflict's proposal is its whole
        // document, and a receive makes a branch per conflict (one query per block was 200 per branch).
        let own = try blockTable.idBytes(in: document)
        for block in content.blocks where !own.contains(block.id.bytes) {
            if let owner = try blockTable.document(of: block.id), owner != document {
                throw WritingError(.notInProject, "block \(block.id) belongs to another document")
            }
        }
        if let id, try branchTable.row(id) != nil { throw WritingError(.invalidIdentifier, "a branch \(id) exists already") }
        let sealed: BranchRecord, words: [Block]
        if let block {
            let (bytes, shown) = try branchBase.content(of: base) { try contentBytes(of: baseRow, in: project) }
            guard OneBlockProposal.changesOnly(block, base: shown, proposal: content) else {
                throw WritingError(.invalidText, "a proposal of block \(block) changes other blocks of its base too")
            }
            sealed = BranchRecord(document: document, base: base, block: block,
                                  delta: try OneBlockProposal.delta(from: bytes, to: content, changing: block))
            // The other blocks are the base's, whose words the store holds already.
            words = content.blocks.filter { $0.id == block }
        } else {
            sealed = BranchRecord(document: document, base: base, content: SnapshotContent.encode(content))
            words = content.blocks
        }
        let parts = sealed.parts()
        let row = BranchTable.Row(id: try id ?? BranchID.random(), project: project.id, document: document, base: base, kind: kind,
                                  state: .open, parts: parts.count, createdAt: now)
        try branchTable.insert(row)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.branchPart(row.id, index), of: project) }
        try rememberWords(words.map(Self.fingerprintedText(of:)), of: project)
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
    ///
    /// A sync conflict's branch of one block is adopted as `adoptConflictBlock` does.
    @discardableResult
    public func adopt(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        let row = try checkBranch(id, of: document, in: project, state: .open)
        let proposal = try proposal(of: row, in: project), current = try currentContent(of: document, in: project)
        let base = try baseContent(of: row, in: project)
        let adopted = try proposal.block.map { OneBlockProposal.writing($0, of: proposal.content, into: current) }
            ?? (try BranchMerge.merge(base: base, ours: current, theirs: proposal.content))
        return try decideAdopt(row, of: project, base: base, current: current, adopted: adopted)
    }

    /// Adopts an open sync conflict's branch of one block (SECURITY.md §15.3): writes that block as
    /// the branch proposes it (its value, or its absence) into the document as it is now, and
    /// nothing else, so every other block keeps what was written since, on any device. Snapshots
    /// before and after as `adopt`. A branch of no one block is refused (`invalidText`).
    @discardableResult
    public func adoptConflictBlock(_ id: BranchID, of document: NodeID, in projectID: ProjectID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        let row = try checkBranch(id, of: document, in: project, state: .open)
        let proposal = try proposal(of: row, in: project)
        guard let block = proposal.block else { throw WritingError(.invalidText, "branch \(id) is not a sync conflict's branch of one block") }
        let current = try currentContent(of: document, in: project)
        return try decideAdopt(row, of: project, base: try baseContent(of: row, in: project), current: current,
                               adopted: OneBlockProposal.writing(block, of: proposal.content, into: current))
    }

    /// Writes `merged` as an adoption of `branch`: the content before kept as a snapshot (for
    /// `revert`), the result snapshotted with origin `adopt`, the row marked, the entry recorded.
    private func decideAdopt(_ branch: BranchTable.Row, of project: WritingProject, base: DocumentContent, current: DocumentContent,
                             adopted merged: DocumentContent) throws -> Snapshot {
        var row = branch
        let id = row.id, document = row.document
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
        let proposal = try proposal(of: row, in: project)
        // A block written alone never overlaps.
        guard proposal.block == nil else { return [] }
        return try BranchMerge.overlaps(base: try baseContent(of: row, in: project), ours: try currentContent(of: document, in: project),
                                        theirs: proposal.content)
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
        try proposal(of: row, in: project).content
    }

    /// The branch's proposed content, and the one block it changes when it is a sync conflict's:
    /// a version-2 record's block (its delta applied to the base must change that block alone,
    /// else it is damage), or for a version-1 sync conflict's branch (stored before version 2,
    /// a whole document as the losing side saw it) the block its provenance names, as
    /// `keepConflicts` wrote it.
    func proposal(of row: BranchTable.Row, in project: WritingProject) throws -> (content: DocumentContent, block: BlockID?) {
        let locations = try (0..<row.parts).map { try WritingRecord.branchPart(row.id, $0) }
        // The parts are parsed as one array, as a snapshot's are: each is copied out of locked memory here.
        let record = try BranchRecord(parsing: Array(try open(locations, of: project) { _, plaintext in [UInt8](plaintext) }.joined()))
        guard record.document == row.document, record.base == row.base else {
            throw WritingError(.damagedRecord, "branch \(row.id)'s sealed value is not the one its row names")
        }
        guard let block = record.block else {
            return (try SnapshotContent.decode(record.content), row.kind == .syncConflict ? try Self.conflictBlock(named: try provenance(of: row, in: project)) : nil)
        }
        let (bytes, base) = try baseBytes(of: row, in: project)
        let content: DocumentContent
        do { content = try SnapshotContent.decode(try SnapshotDelta(parsing: record.content).apply(to: bytes)) } catch {
            throw WritingError(.damagedRecord, "branch \(row.id)'s proposal does not apply to its base: \(error.message)")
        }
        guard OneBlockProposal.changesOnly(block, base: base, proposal: content) else {
            throw WritingError(.damagedRecord, "branch \(row.id)'s proposal changes more than its block \(block)")
        }
        return (content, block)
    }

    /// The provenance `VaultSync.keepConflicts` gives a sync conflict's branch.
    public static let conflictProvenance = "sync conflict over block "

    /// The block a sync conflict's provenance names, or nil (another kind of sync branch: a
    /// fork's words, a held editor's, an overflow's, set-aside words: these propose a whole document).
    public static func conflictBlock(named provenance: String) -> BlockID? {
        guard provenance.hasPrefix(conflictProvenance) else { return nil }
        return try? BlockID(hex: String(provenance.dropFirst(conflictProvenance.count)))
    }

    /// The content of the branch's base, read once per store for all the branches made against it (`BranchBase`).
    private func baseBytes(of row: BranchTable.Row, in project: WritingProject) throws -> (bytes: [UInt8], content: DocumentContent) {
        let baseRow = try checkSnapshot(row.base, of: row.document, in: project)
        return try branchBase.content(of: row.base) { try contentBytes(of: baseRow, in: project) }
    }

    private func baseContent(of row: BranchTable.Row, in project: WritingProject) throws -> DocumentContent {
        try baseBytes(of: row, in: project).content
    }

    private func provenance(of row: BranchTable.Row, in project: WritingProject) throws -> String {
        try openText([try WritingRecord.branchProvenance(row.id)], of: project)[0]
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
