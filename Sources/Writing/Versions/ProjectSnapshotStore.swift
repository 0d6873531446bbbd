import CryptoVault

/// Versions of a whole project (SECURITY.md §15.2): a project snapshot is the binder (every folder
/// and document, its place and its title) and, for each document, a document snapshot of its
/// content, taken through the document snapshot store, so an unchanged document links its latest
/// version rather than storing it again. Restoring one puts the binder and every document back in
/// one transaction, as a version of its own, and audited.
extension WritingStore {
    var projectSnapshotTable: ProjectSnapshotTable { ProjectSnapshotTable(database: transaction.database) }

    /// Takes a snapshot of the whole project: titled when `title` is given, else automatic. An
    /// automatic one equal to the latest (same binder, titles and document versions) is not taken
    /// again: the latest is returned.
    @discardableResult
    public func createProjectSnapshot(of projectID: ProjectID, titled title: String? = nil) throws -> ProjectSnapshot {
        let title = try title.map { try Self.checkedName($0, "a snapshot title") }
        let project = try writable(projectID)
        return try addProjectSnapshot(of: project, origin: title == nil ? .automatic : .titled, title: title)
    }

    /// The project's snapshots, oldest first, the titled ones' titles opened.
    public func projectSnapshots(of projectID: ProjectID) throws -> [ProjectSnapshot] {
        let project = try self.project(projectID)
        try checkReadable(project)
        let rows = try projectSnapshotTable.all(of: project.id)
        let titled = rows.filter { $0.origin == .titled }
        let titles = try openText(try titled.map { try WritingRecord.projectSnapshotTitle($0.id) }, of: project)
        let titleByID = Dictionary(uniqueKeysWithValues: zip(titled.map(\.id), titles))
        return rows.map { ProjectSnapshot($0, title: titleByID[$0.id]) }
    }

    /// What the project held at `snapshot`: its nodes in reading order, each document with its version.
    public func projectSnapshotNodes(_ snapshot: ProjectSnapshotID, of projectID: ProjectID) throws -> [ProjectSnapshotNode] {
        let project = try self.project(projectID)
        return try projectRecord(try checkProjectSnapshot(snapshot, in: project), of: project).nodes
    }

    /// Makes the project what it was at `snapshot`, in this transaction: the project as it is now is
    /// snapshotted first (`before`), every folder and document of the snapshot gets its place and
    /// title back (a folder removed since is made again with its id), every document whose content
    /// differs is restored to its version (§15.2, `writing.snapshot-restore`), and the result is
    /// snapshotted with origin `restore`. Documents added since are kept where they are: a restore
    /// never removes writing. A snapshot holding a document removed since (its versions went with
    /// it) is refused (`snapshotNotFound`) before anything changes.
    @discardableResult
    public func restoreProject(_ projectID: ProjectID, to snapshot: ProjectSnapshotID) throws -> ProjectRestore {
        let project = try writable(projectID)
        let record = try projectRecord(try checkProjectSnapshot(snapshot, in: project), of: project)
        let existing = try checkRestorable(record, in: project)
        let before = try addProjectSnapshot(of: project, origin: .automatic, title: nil)
        let titles = try currentTitles(of: project)
        var restored = 0
        for node in record.nodes {
            try place(node, existing: existing[node.id], currentTitle: titles[node.id], in: project)
            guard let version = node.snapshot else { continue }
            let wanted = try contentBytes(of: try checkSnapshot(version, of: node.id, in: project), in: project)
            if SnapshotContent.encode(try currentContent(of: node.id, in: project)) != wanted {
                try restore(node.id, in: project.id, to: version)
                restored += 1
            }
        }
        _ = try binder(of: project)  // the restored places with what was added since still make a tree
        let version = try addProjectSnapshot(of: project, origin: .restore, title: nil)
        try self.record(.writingProjectSnapshotRestore, project, subject: project.id, details: [
            .init("snapshot", snapshot.hex), .init("before", before.id.hex), .init("version", version.id.hex),
            .init("restored", String(restored)),
        ])
        return ProjectRestore(before: before, version: version, documentsRestored: restored)
    }

    // MARK: Taking

    func addProjectSnapshot(of project: WritingProject, origin: ProjectSnapshotOrigin, title: String?) throws -> ProjectSnapshot {
        let record = ProjectSnapshotRecord(project: project.id, nodes: try currentNodes(of: project))
        let latest = try projectSnapshotTable.latest(of: project.id)
        if origin == .automatic, let latest, try projectRecord(latest, of: project) == record {
            let kept = latest.origin == .titled ? try openText([try WritingRecord.projectSnapshotTitle(latest.id)], of: project)[0] : nil
            return ProjectSnapshot(latest, title: kept)
        }
        let parts = record.parts()
        let row = ProjectSnapshotTable.Row(id: try ProjectSnapshotID.random(), project: project.id, sequence: (latest?.sequence ?? 0) + 1,
                                           origin: origin, parts: parts.count, deviceID: try deviceID(), createdAt: now)
        try projectSnapshotTable.insert(row)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.projectSnapshotPart(row.id, index), of: project) }
        if let title { try seal(Array(title.utf8), at: try WritingRecord.projectSnapshotTitle(row.id), of: project) }
        try self.record(.writingProjectSnapshotCreate, project, subject: project.id, details: [
            .init("snapshot", row.id.hex), .init("origin", origin.rawValue),
            .init("documents", String(record.nodes.filter { $0.kind == .scene }.count)),
        ])
        return ProjectSnapshot(row, title: title)
    }

    /// The binder now, each document linked to a snapshot of its current content (an automatic
    /// document snapshot: its latest when unchanged).
    private func currentNodes(of project: WritingProject) throws -> [ProjectSnapshotNode] {
        let ordered = try binder(of: project).ordered().map(\.row)
        let titles = try openText(try ordered.map { try WritingRecord.nodeTitle($0.id) }, of: project)
        return try zip(ordered, titles).map { row, title in
            let version = row.kind == .scene
                ? try addSnapshot(SnapshotContent.encode(try currentContent(of: row.id, in: project)), of: row.id, in: project,
                                  origin: .automatic, title: nil).id
                : nil
            return ProjectSnapshotNode(id: row.id, kind: row.kind, parent: row.parent, orderKey: row.orderKey, title: title, snapshot: version)
        }
    }

    // MARK: Restoring

    /// The snapshot's nodes that still exist, by id; refuses a node now of another kind or project,
    /// and a document that is gone.
    private func checkRestorable(_ record: ProjectSnapshotRecord, in project: WritingProject) throws -> [NodeID: NodeTable.Row] {
        var existing: [NodeID: NodeTable.Row] = [:]
        for node in record.nodes {
            guard let found = try nodeTable.row(node.id) else {
                guard node.kind == .chapter else {
                    throw WritingError(.snapshotNotFound, "document \(node.id) of this version was removed since, and its versions with it")
                }
                continue
            }
            guard found.project == project.id, found.row.kind == node.kind else {
                throw WritingError(.damagedRecord, "project snapshot node \(node.id) is not that node of this project")
            }
            existing[node.id] = found.row
        }
        return existing
    }

    private func currentTitles(of project: WritingProject) throws -> [NodeID: String] {
        let strays = try strays(in: project, .nodes)  // another project's nodes (R15-6) are not this one's
        let rows = try nodeTable.all(in: project.id).filter { !strays.contains($0.id.bytes) }
        return Dictionary(uniqueKeysWithValues: zip(rows.map(\.id), try openText(try rows.map { try WritingRecord.nodeTitle($0.id) }, of: project)))
    }

    /// Puts one node where the snapshot had it, with its title (a missing folder is made again).
    private func place(_ node: ProjectSnapshotNode, existing: NodeTable.Row?, currentTitle: String?, in project: WritingProject) throws {
        if let existing {
            if existing.parent != node.parent || existing.orderKey != node.orderKey {
                try nodeTable.move(node.id, under: node.parent, orderKey: node.orderKey)
                try record(.writingNodeMove, project, subject: node.id)
            }
        } else {
            try nodeTable.insert(NodeTable.Row(id: node.id, kind: node.kind, parent: node.parent, orderKey: node.orderKey, createdAt: now),
                                 in: project.id)
            try record(.writingNodeAdd, project, subject: node.id, details: [.init("kind", node.kind.rawValue)])
        }
        if currentTitle != node.title {
            try seal(Array(node.title.utf8), at: try WritingRecord.nodeTitle(node.id), of: project)
            if existing != nil { try record(.writingNodeRename, project, subject: node.id) }
        }
    }

    // MARK: Reading

    private func projectRecord(_ row: ProjectSnapshotTable.Row, of project: WritingProject) throws -> ProjectSnapshotRecord {
        let locations = try (0..<row.parts).map { try WritingRecord.projectSnapshotPart(row.id, $0) }
        // The parts are joined and parsed as one array, as a snapshot's are (§15.2).
        let record = try ProjectSnapshotRecord(parsing: Array(try open(locations, of: project) { _, plaintext in [UInt8](plaintext) }.joined()))
        guard record.project == project.id else {
            throw WritingError(.damagedRecord, "project snapshot \(row.id)'s sealed value names another project")
        }
        return record
    }

    private func checkProjectSnapshot(_ id: ProjectSnapshotID, in project: WritingProject) throws -> ProjectSnapshotTable.Row {
        guard let row = try projectSnapshotTable.row(id) else { throw WritingError(.snapshotNotFound, "no project snapshot \(id)") }
        guard row.project == project.id else { throw WritingError(.notInProject, "project snapshot \(id) belongs to another project") }
        return row
    }
}

extension WritingRecord {
    /// Piece `index` of a project snapshot's sealed value (`ProjectSnapshotRecord.parts`).
    static func projectSnapshotPart(_ id: ProjectSnapshotID, _ index: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_project_snapshots", record: id, field: "part-\(index)")
    }

    static func projectSnapshotTitle(_ id: ProjectSnapshotID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_project_snapshots", record: id, field: "title")
    }
}

extension ProjectSnapshot {
    init(_ row: ProjectSnapshotTable.Row, title: String?) {
        self.init(id: row.id, sequence: row.sequence, origin: row.origin, title: title, deviceID: row.deviceID, createdAt: row.createdAt)
    }
}
