import CryptoVault

/// The door sync stores a project snapshot taken on another device through (SECURITY.md §19.2,
/// operation 0x0B): its id, origin, title, device and time as there, and its binder with, for each
/// document, the document snapshot that holds its content then (which travelled as 0x06 and is
/// held here under the same id).
extension WritingStore {
    public func addSyncedProjectSnapshot(_ id: ProjectSnapshotID, of projectID: ProjectID, nodes: [ProjectSnapshotNode],
                                         origin: ProjectSnapshotOrigin, title: String?, deviceID: AuditDeviceID, createdAt: Int64,
                                         from device: String) throws {
        let project = try writable(projectID, receiving: true)
        try checkReadable(project)
        let title = try title.map { try Self.checkedName($0, "a snapshot title") }
        guard (origin == .titled) == (title != nil) else { throw WritingError(.invalidText, "only a titled project snapshot has a title") }
        guard try projectSnapshotTable.row(id) == nil else { throw WritingError(.invalidIdentifier, "a project snapshot \(id) exists already") }
        for node in nodes { if let version = node.snapshot { _ = try checkSnapshot(version, of: node.id, in: project) } }
        let record = ProjectSnapshotRecord(project: project.id, nodes: nodes)
        // The store's own reader must take it back: each node once, after its folder, titles and keys as kept.
        guard (try? ProjectSnapshotRecord(parsing: record.encoded())) == record else {
            throw WritingError(.invalidText, "project snapshot \(id) does not read back as written")
        }
        let parts = record.parts()
        let latest = try projectSnapshotTable.latest(of: project.id)
        let row = ProjectSnapshotTable.Row(id: id, project: project.id, sequence: (latest?.sequence ?? 0) + 1, origin: origin,
                                           parts: parts.count, deviceID: deviceID, createdAt: createdAt)
        try projectSnapshotTable.insert(row)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.projectSnapshotPart(row.id, index), of: project) }
        if let title { try seal(Array(title.utf8), at: try WritingRecord.projectSnapshotTitle(row.id), of: project) }
        try self.record(.writingProjectSnapshotCreate, project, subject: project.id, details: [
            .init("snapshot", row.id.hex), .init("origin", origin.rawValue),
            .init("documents", String(nodes.filter { $0.kind == .scene }.count)), .init("from", device),
        ])
    }
}

extension ProjectSnapshotNode {
    /// A node of a project snapshot as a change record carries it (SECURITY.md §19.2, 0x0B).
    public init(synced id: NodeID, kind: NodeKind, parent: NodeID?, orderKey: String, title: String, snapshot: SnapshotID?) {
        self.init(id: id, kind: kind, parent: parent, orderKey: orderKey, title: title, snapshot: snapshot)
    }
}
