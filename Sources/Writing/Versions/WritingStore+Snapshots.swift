import CryptoVault

/// A document's versions (SECURITY.md §15.2): each snapshot is the document's content bytes
/// (`SnapshotContent`), packed and sealed in the project's compartment, as a keyframe (the whole
/// content) at the start of each chain and otherwise as the delta from the previous one. A restore
/// reads one keyframe and at most `chainLimit − 1` deltas, and checks the result against the
/// sealed digest, so a damaged or reordered chain is refused rather than restored wrong.
extension WritingStore {
    /// A chain is a keyframe and at most 255 deltas after it. A packed keyframe of the 100 KB
    /// automerge paper is about 35 KB, some 60 packed deltas' worth: a keyframe every 64 versions was
    /// two fifths of the history's snapshot bytes (vaultbench trace). Longer chains cost every read
    /// of an old version more: each record of its chain is opened and named in `record.open` (511
    /// of them made 8 entries, 33 KB of log, per read) and applied (restores took four times as
    /// long as with 255). Vaults written with a keyframe every 32 or 64 keep their chains, which are
    /// shorter and read the same way.
    public static let chainLimit = 256

    /// A new chain also starts before a restore would rebuild more than this many bytes along one
    /// (each delta applied makes a whole version): 32 MiB, so a long document's chains are shorter
    /// (a 1 MiB document's 33 snapshots) and a restore stays a few tens of milliseconds whatever its size.
    static let chainRebuildBudget = 32 << 20

    /// Whether snapshot `sequence` (of `size` content bytes) starts a new chain, the last one having
    /// started at `lastKeyframe` (nil: none yet).
    static func startsChain(_ sequence: Int, size: Int, lastKeyframe: Int?) -> Bool {
        guard let lastKeyframe else { return true }
        let deltas = sequence - lastKeyframe
        return deltas >= chainLimit || deltas * max(size, 1) > chainRebuildBudget
    }

    var snapshotTable: SnapshotTable { SnapshotTable(database: transaction.database) }

    /// Takes a snapshot of the document's current content: titled when `title` is given, else
    /// automatic. An automatic snapshot of content equal to the latest snapshot's is not taken
    /// again (versions are content-addressed): the latest is returned.
    @discardableResult
    public func createSnapshot(of document: NodeID, in projectID: ProjectID, titled title: String? = nil) throws -> Snapshot {
        let title = try title.map { try Self.checkedName($0, "a snapshot title") }
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        let content = SnapshotContent.encode(try currentContent(of: document, in: project))
        let row = try addSnapshot(content, of: document, in: project, origin: title == nil ? .automatic : .titled, title: title)
        // An automatic call that found the latest unchanged returns it, with its own title if it has one.
        let kept = row.origin == .titled && title == nil ? try openText([try WritingRecord.snapshotTitle(row.id)], of: project)[0] : title
        return Snapshot(row, title: kept)
    }

    /// Writes `content` as the document's content (`replaceDocumentContent`) and takes an automatic
    /// snapshot of the result (`createSnapshot`), reading the stored blocks once instead of twice: the
    /// snapshot is the content just written, and its delta's base is the content the write replaced
    /// when the latest snapshot's sealed digest says that is the latest version (then one record of
    /// the chain is opened, not the chain). Content equal to the latest snapshot's takes none.
    @discardableResult
    public func replaceDocumentContentAndSnapshot(of document: NodeID, in projectID: ProjectID,
                                                  with content: DocumentContent) throws -> (change: ContentChange, snapshot: Snapshot) {
        var replaced: DocumentContent?
        let change = try replaceDocumentContent(of: document, in: projectID, with: content) { replaced = $0 }
        // The blocks are sealed as BlockEncoding encodes them and read back in this order: these are
        // the bytes createSnapshot would read.
        let project = try writable(projectID)
        let row = try addSnapshot(SnapshotContent.encode(content), of: document, in: project, origin: .automatic,
                                  title: nil, latestCandidate: replaced.map(SnapshotContent.encode))
        // Unchanged since a titled snapshot: that one is returned, with its title.
        let title = row.origin == .titled ? try openText([try WritingRecord.snapshotTitle(row.id)], of: project)[0] : nil
        return (change, Snapshot(row, title: title))
    }

    /// The document's snapshots, oldest first, with the titled ones' titles opened.
    public func snapshots(of document: NodeID, in projectID: ProjectID) throws -> [Snapshot] {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let rows = try snapshotTable.all(of: document)
        let titled = rows.filter { $0.origin == .titled }
        let titles = try openText(try titled.map { try WritingRecord.snapshotTitle($0.id) }, of: project)
        let titleByID = Dictionary(uniqueKeysWithValues: zip(titled.map(\.id), titles))
        return rows.map { Snapshot($0, title: titleByID[$0.id]) }
    }

    /// The content the document had when `snapshot` was taken. A snapshot of another document or
    /// project is refused (`.notInProject`).
    public func snapshotContent(_ snapshot: SnapshotID, of document: NodeID, in projectID: ProjectID) throws -> DocumentContent {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        return try SnapshotContent.decode(try contentBytes(of: try checkSnapshot(snapshot, of: document, in: project), in: project))
    }

    /// Makes the document's content what it was at `snapshot` (its blocks with their ids, so
    /// unchanged blocks stay as they are), recorded as a content write and a restore, and takes a
    /// new snapshot of the result (origin `.restore`), which it returns.
    @discardableResult
    public func restore(_ document: NodeID, in projectID: ProjectID, to snapshot: SnapshotID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        let bytes = try contentBytes(of: try checkSnapshot(snapshot, of: document, in: project), in: project)
        try replaceDocumentContent(of: document, in: projectID, with: try SnapshotContent.decode(bytes))
        let row = try addSnapshot(bytes, of: document, in: project, origin: .restore, title: nil)
        try record(.writingSnapshotRestore, project, subject: document,
                   details: [.init("snapshot", snapshot.hex), .init("version", row.id.hex)])
        return Snapshot(row, title: nil)
    }

    // MARK: The chain

    /// Stores `content` as the document's next snapshot (or, for an automatic one equal to the
    /// latest, returns the latest's row and stores nothing).
    /// `latestCandidate`, when given, is content the latest snapshot probably holds (what a write in
    /// this transaction replaced): it is used only if the latest's sealed digest is its hash.
    func addSnapshot(_ content: [UInt8], of document: NodeID, in project: WritingProject, origin: SnapshotOrigin,
                     title: String?, latestCandidate: [UInt8]? = nil) throws -> SnapshotTable.Row {
        let latest = try snapshotTable.latest(of: document)
        let previous = try latest.map { try latestContent($0, candidate: latestCandidate, in: project) }
        if origin == .automatic, let latest, previous == content { return latest }
        let sequence = (latest?.sequence ?? 0) + 1
        let startsChain = Self.startsChain(sequence, size: content.count, lastKeyframe: try snapshotTable.lastKeyframe(of: document))
        let delta = startsChain ? nil : try SnapshotDelta.between(previous ?? [], content).serialized()
        let form: SnapshotRecord.Form, payload: [UInt8]
        // A delta no smaller than the content (a document rewritten whole) is worth nothing: the content is stored.
        if let delta, delta.count < content.count { (form, payload) = (.delta, delta) } else { (form, payload) = (.keyframe, content) }
        let record = SnapshotRecord(form: form, document: document, sequence: sequence, base: latest?.id.bytes ?? Self.noBase,
                                    digest: SHA256.hash(content), payload: payload)
        let parts = record.parts()
        let row = SnapshotTable.Row(id: try SnapshotID.random(), project: project.id, document: document, sequence: sequence, form: form,
                                    origin: origin, parts: parts.count, deviceID: try deviceID(), createdAt: now)
        try snapshotTable.insert(row)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.snapshotPart(row.id, index), of: project) }
        if let title { try seal(Array(title.utf8), at: try WritingRecord.snapshotTitle(row.id), of: project) }
        try self.record(.writingSnapshotCreate, project, subject: document,
                        details: [.init("snapshot", row.id.hex), .init("origin", origin.rawValue), .init("form", form.name)])
        return row
    }

    static let noBase = [UInt8](repeating: 0, count: SnapshotID.size)

    /// The latest snapshot's content: `candidate` if the latest's sealed digest is its hash (one
    /// record opened), else read through its chain.
    func latestContent(_ latest: SnapshotTable.Row, candidate: [UInt8]?, in project: WritingProject) throws -> [UInt8] {
        guard let candidate else { return try contentBytes(of: latest, in: project) }
        let record = try openRecords([latest], in: project)[0]
        if record.digest == SHA256.hash(candidate) { return candidate }
        return try contentBytes(of: latest, in: project)
    }

    /// The snapshot's content bytes: its keyframe, then each delta up to it, every record checked
    /// against its row and the chain, and the result against the sealed digest. Only the result is
    /// hashed: each record is sealed where it lies and names its place in the chain, so a version
    /// on the way that is not what was sealed makes a result that is not either (hashing each of
    /// 63 versions of a 100 KB document was a quarter of a restore's time, with 64-link chains).
    func contentBytes(of row: SnapshotTable.Row, in project: WritingProject) throws -> [UInt8] {
        let chain = try snapshotTable.chain(of: row.document, to: row.sequence)
        guard let first = chain.first, first.form == .keyframe, chain.last?.id == row.id,
              chain.count <= Self.chainLimit,
              zip(chain, chain.dropFirst()).allSatisfy({ $1.sequence == $0.sequence + 1 }) else {
            throw WritingError(.damagedRecord, "snapshot \(row.id)'s chain has no keyframe within \(Self.chainLimit) or a gap")
        }
        var bytes: [UInt8] = []
        let records = try openRecords(chain, in: project)
        for record in records {
            bytes = record.form == .keyframe ? try record.payload() : try SnapshotDelta(parsing: try record.payload()).apply(to: bytes)
        }
        guard SHA256.hash(bytes) == records.last?.digest else {
            throw WritingError(.damagedRecord, "snapshot \(row.id)'s content is not the version it sealed")
        }
        return bytes
    }

    /// The sealed records of `links` (consecutive snapshots of one document, oldest first), opened in
    /// one read, each checked against its row and its base (the snapshot before it).
    func openRecords(_ links: [SnapshotTable.Row], in project: WritingProject) throws -> [SnapshotRecord] {
        guard let first = links.first else { return [] }
        let locations = try links.flatMap { link in try (0..<link.parts).map { try WritingRecord.snapshotPart(link.id, $0) } }
        // A snapshot record spans several sealed parts, parsed as one array: each part is copied out
        // of locked memory here (SnapshotRecord and SnapshotDelta read arrays).
        var values = try open(locations, of: project) { _, plaintext in [UInt8](plaintext) }[...]
        var base = first.sequence == 1 ? Self.noBase : try snapshotTable.id(of: first.document, sequence: first.sequence - 1)?.bytes ?? Self.noBase
        return try links.map { link in
            let record = try SnapshotRecord(parsing: Array(values.prefix(link.parts).joined()))
            values = values.dropFirst(link.parts)
            guard record.document == link.document, record.sequence == link.sequence, record.form == link.form, record.base == base else {
                throw WritingError(.damagedRecord, "snapshot \(link.id)'s sealed value is not the one its row names")
            }
            base = link.id.bytes
            return record
        }
    }

    /// The snapshot's row, refusing one of another project or document, or none.
    func checkSnapshot(_ id: SnapshotID, of document: NodeID, in project: WritingProject) throws -> SnapshotTable.Row {
        guard let row = try snapshotTable.row(id) else { throw WritingError(.snapshotNotFound, "no snapshot \(id)") }
        guard row.project == project.id else { throw WritingError(.notInProject, "snapshot \(id) belongs to another project") }
        guard row.document == document else { throw WritingError(.notInProject, "snapshot \(id) belongs to another document") }
        return row
    }

    /// Removes a document's snapshots with their sealed records (the document is being removed).
    func removeSnapshots(of document: NodeID, in project: WritingProject) throws {
        for row in try snapshotTable.all(of: document) {
            for index in 0..<row.parts { try remove(try WritingRecord.snapshotPart(row.id, index), of: project) }
            if row.origin == .titled { try remove(try WritingRecord.snapshotTitle(row.id), of: project) }
        }
        try snapshotTable.deleteAll(of: document)
    }
}

extension Snapshot {
    init(_ row: SnapshotTable.Row, title: String?) {
        self.init(id: row.id, document: row.document, sequence: row.sequence, origin: row.origin, title: title,
                  isKeyframe: row.form == .keyframe, deviceID: row.deviceID, createdAt: row.createdAt)
    }
}
