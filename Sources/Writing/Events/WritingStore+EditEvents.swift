import CryptoVault

/// Edit events (SECURITY.md §15.5): every content write is merged, in its own transaction, into
/// the writing session of this device in the project: the session its last edit less than
/// `WritingSessionRule.gap` ago belongs to, or a new one. A privileged project's sessions are also
/// stamped into the audit chain: `writing.edit-session-start` when one begins and
/// `writing.edit-session-end` (its documents, word change, edits and times; never a word of text)
/// when it is found over.
///
/// A session is found over by this device's next write or listing of the project after the gap,
/// or ended explicitly: `vaultctl activity --end`, a command's one-command (`--purpose`) session as
/// it ends (vaultctl's `WritingContext`), and the daemon, which ends them with its privileged
/// sessions and when it stops (Appliance's `WritingSessionEnds`; a privileged session, a layer
/// below, cannot call up into the writing model itself). So the end stamp always comes from a
/// transaction that holds the project open; only a killed process leaves a start with no end until
/// the next visit, as its privileged session does (§10.2).
extension WritingStore {
    var editEventTable: EditEventTable { EditEventTable(database: transaction.database) }

    /// The project's edit events of every device, oldest first, their documents opened (a privileged
    /// project's need a session).
    public func editEvents(in projectID: ProjectID) throws -> [SceneEditEvent] {
        let project = try self.project(projectID)
        try checkReadable(project)
        let rows = try editEventTable.all(in: project.id)
        let records = try open(try rows.map { try WritingRecord.editEvent($0.id) }, of: project) { _, plaintext in
            try EditEventRecord(parsing: plaintext)
        }
        return zip(rows, records).map { SceneEditEvent($0, documents: $1.documents) }
    }

    /// Ends this device's writing session of the project if its last edit is `gap` ago or more, or
    /// whatever its age when `now` is true (a writer who says they are done, the demo, a daemon whose
    /// privileged session is closing), and returns the events it ended. A privileged project's end
    /// is stamped (so this needs a session of it, which reads the event's documents). An archived
    /// project changes nothing, so its sessions are left as they are and listing it still works.
    @discardableResult
    public func endWritingSessions(in projectID: ProjectID, now endNow: Bool = false) throws -> [SceneEditEvent] {
        let project = try self.project(projectID)
        guard !project.isArchived else { return [] }
        let time = now
        var ended: [SceneEditEvent] = []
        for row in try editEventTable.unended(in: project.id, device: try deviceID())
        where endNow || !WritingSession(row).continues(at: time) {
            ended.append(try end(row, record: try editRecord(row.id, of: project), in: project))
        }
        return ended
    }

    /// Merges a content write of `document` that changed its word count by `words` into this
    /// device's session of the project (called by `replaceDocumentContent`, in its transaction).
    func recordEdit(of document: NodeID, in project: WritingProject, words: Int) throws {
        let deviceID = try self.deviceID(), time = now
        let open = try editEventTable.unended(in: project.id, device: deviceID)
        if var current = open.first, WritingSession(current).continues(at: time) {
            let record = try editRecord(current.id, of: project).adding(words, to: document)
            if record.documents.count <= WritingSessionRule.maximumDocuments {
                current.lastEditAt = max(current.lastEditAt, time)
                current.edits += 1
                try editEventTable.update(current)
                try seal(record.encoded(), at: try WritingRecord.editEvent(current.id), of: project)
                return
            }
        }
        for row in open { try end(row, record: try editRecord(row.id, of: project), in: project) }
        try startSession(of: document, in: project, words: words, device: deviceID, at: time)
    }

    private func startSession(of document: NodeID, in project: WritingProject, words: Int, device: AuditDeviceID, at time: Int64) throws {
        let row = EditEventTable.Row(id: try EditEventID.random(), project: project.id, deviceID: device, startedAt: time,
                                     lastEditAt: time, endedAt: nil, edits: 1)
        try editEventTable.insert(row)
        let record = EditEventRecord(documents: [DocumentEdit(document: document, wordDelta: words)])
        try seal(record.encoded(), at: try WritingRecord.editEvent(row.id), of: project)
        guard project.isPrivileged else { return }
        try self.record(.writingEditSessionStart, project, subject: project.id,
                        details: [.init("event", row.id.hex), .init("document", document.hex), .init("started", String(time))])
    }

    /// Marks the session ended at its last edit and, in a privileged project, stamps its end.
    private func end(_ row: EditEventTable.Row, record: EditEventRecord, in project: WritingProject) throws -> SceneEditEvent {
        var row = row
        row.endedAt = row.lastEditAt
        try editEventTable.update(row)
        let event = SceneEditEvent(row, documents: record.documents)
        guard project.isPrivileged else { return event }
        try self.record(.writingEditSessionEnd, project, subject: project.id, details: [
            .init("event", row.id.hex), .init("documents", event.documents.map(\.document.hex).joined(separator: ",")),
            .init("words", String(event.wordDelta)), .init("edits", String(row.edits)),
            .init("started", String(row.startedAt)), .init("ended", String(row.lastEditAt)),
        ])
        return event
    }

    private func editRecord(_ id: EditEventID, of project: WritingProject) throws -> EditEventRecord {
        try open([try WritingRecord.editEvent(id)], of: project) { _, plaintext in
            try EditEventRecord(parsing: plaintext)
        }[0]
    }

    /// The words a block holds, as `WordDiff.wordCount` counts them (its text and its cells).
    static func words(in block: Block) -> Int {
        block.rows.joined().reduce(WordTokenizer.wordCount(of: block.text)) { $0 + WordTokenizer.wordCount(of: $1) }
    }

    /// The vault's audit device id, which snapshots and edit events are stamped with (§4.7).
    func deviceID() throws -> AuditDeviceID {
        guard let deviceID = try Vault.auditDeviceID(in: transaction.database) else {
            throw WritingError(.damagedRecord, "the vault has no device id to stamp the version or edit with")
        }
        return deviceID
    }
}

extension WritingRecord {
    /// An edit event's documents and word changes (`EditEventRecord`).
    static func editEvent(_ id: EditEventID) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: "writing_edit_events", record: id, field: "documents")
    }
}

extension SceneEditEvent {
    init(_ row: EditEventTable.Row, documents: [DocumentEdit]) {
        self.init(id: row.id, project: row.project, deviceID: row.deviceID, startedAt: row.startedAt, lastEditAt: row.lastEditAt,
                  endedAt: row.endedAt, edits: row.edits, documents: documents)
    }
}
