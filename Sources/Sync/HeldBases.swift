import CryptoVault
import Writing

/// The holds of open editors as the vault keeps them (SECURITY.md §19.5, §19.9; attack review s6,
/// P5): per held document, its project and the text the writer's edits are made from (the base),
/// sealed in the project's compartment, written in the step's own audited transaction.
///
/// Why in the vault and not in the daemon's memory: a held document's store shows the writer's
/// text while the records already hold what came. A hold lost with a killed daemon made the next
/// commit take that difference as the writer's own edits: deletions of the other device's words,
/// which then left every device. With the base kept here, each commit of the writer's edits, in
/// whatever process (a restarted daemon, a `vaultctl` command), merges them with what came instead.
///
///     sync_held_documents (document_id PRIMARY KEY (16), project_id, parts, held_at)
///     sealed: module sync, table sync_held_documents, record id the document id, fields base-0, base-1, …
///             (the base's §15.2 content bytes, in parts of at most 512 KiB)
struct HeldBases {
    let sync: VaultSync

    static let table = "sync_held_documents"

    /// The most parts a base is cut into: a stored document's bound, twice over for its encoding
    /// (`VaultSync.DamagedRows` takes a larger count for damage).
    static let mostParts = 2 * WritingLimits.maximumStoredDocumentBytes / VaultSync.partSize + 1

    private var database: Database { sync.database }

    /// The held documents of `project`, each with the text the writer's edits are made from.
    func bases(of project: WritingProject) throws -> [NodeID: DocumentContent] {
        var bases: [NodeID: DocumentContent] = [:]
        for row in try database.query("SELECT document_id, parts FROM sync_held_documents WHERE project_id = ?", [.blob(project.id.bytes)]) {
            let document = try NodeID(bytes: try row.blob("document_id"))
            bases[document] = try base(of: document, parts: try row.nonNegativeInteger("parts"), in: project)
        }
        return bases
    }

    /// The held documents of `project` (no base opened).
    func documents(of project: ProjectID) throws -> Set<NodeID> {
        Set(try database.query("SELECT document_id FROM sync_held_documents WHERE project_id = ?", [.blob(project.bytes)]).map {
            try NodeID(bytes: try $0.blob("document_id"))
        })
    }

    /// Whether an editor holds a document of `project`, read from `database` alone (no step needed).
    static func holdsAny(of project: ProjectID, in database: Database) throws -> Bool {
        try database.queryOne("SELECT 1 FROM sync_held_documents WHERE project_id = ? LIMIT 1", [.blob(project.bytes)]) != nil
    }

    /// Starts holding `document` from `base`; a hold kept already keeps its base (the older text,
    /// which what came since is merged against).
    func hold(_ document: NodeID, of project: WritingProject, base: DocumentContent) throws {
        guard try database.queryOne("SELECT 1 FROM sync_held_documents WHERE document_id = ?", [.blob(document.bytes)]) == nil else { return }
        let parts = try seal(base, of: document, in: project, replacing: 0)
        try database.query("INSERT INTO sync_held_documents (document_id, project_id, parts, held_at) VALUES (?, ?, ?, ?)",
                           [.blob(document.bytes), .blob(project.id.bytes), .integer(Int64(parts)), .integer(sync.store.clock.now())])
    }

    /// The writer's edits up to `base` are committed: later edits are made from it.
    func rebase(_ document: NodeID, of project: WritingProject, to base: DocumentContent) throws {
        guard let held = try heldParts(of: document) else { return }
        let parts = try seal(base, of: document, in: project, replacing: held)
        try database.query("UPDATE sync_held_documents SET parts = ? WHERE document_id = ?", [.integer(Int64(parts)), .blob(document.bytes)])
    }

    /// `document` shows what the records make (or is gone): nothing is held for it any more.
    func release(_ document: NodeID, of project: WritingProject) throws {
        guard let held = try heldParts(of: document) else { return }
        for part in 0..<held { try sync.transaction.removeRecord(at: try Self.location(document, part: part), in: project.compartment) }
        try database.query("DELETE FROM sync_held_documents WHERE document_id = ?", [.blob(document.bytes)])
    }

    private func heldParts(of document: NodeID) throws -> Int? {
        try database.queryOne("SELECT parts FROM sync_held_documents WHERE document_id = ?", [.blob(document.bytes)])
            .map { try $0.nonNegativeInteger("parts") }
    }

    /// Seals `base` in parts; the parts an earlier, longer base left beyond them are removed.
    private func seal(_ base: DocumentContent, of document: NodeID, in project: WritingProject, replacing held: Int) throws -> Int {
        let bytes = SnapshotContent.encode(base)
        let parts = stride(from: 0, to: max(bytes.count, 1), by: VaultSync.partSize).map { Array(bytes[$0..<min(bytes.count, $0 + VaultSync.partSize)]) }
        for (index, part) in parts.enumerated() {
            _ = try sync.transaction.sealRecord(part, at: try Self.location(document, part: index), in: project.compartment)
        }
        for part in parts.count..<max(held, parts.count) {
            try sync.transaction.removeRecord(at: try Self.location(document, part: part), in: project.compartment)
        }
        return parts.count
    }

    /// A held base, opened (a privileged project's in a session of its compartment, as its records
    /// are); one that does not open or decode is the project's sync state damaged.
    private func base(of document: NodeID, parts: Int, in project: WritingProject) throws -> DocumentContent {
        var bytes: [UInt8] = []
        do {
            try sync.open(try (0..<parts).map { try Self.location(document, part: $0) }, of: project) { bytes += $0 }
            return try SnapshotContent.decode(bytes)
        } catch let error as WritingError where error.code == .privilegedSessionRequired {
            throw error
        } catch {
            throw VaultSync.damaged(project.id, "the base of the editor's hold on document \(document) does not open (\(VaultSync.reason(error)))")
        }
    }

    /// A damaged hold (`VaultSync.DamagedRows`; closing note s10): its part count found again by
    /// opening the base's sealed parts in order until one is not there, its time made now when it is
    /// not one. False when its document id is not whole or the parts found do not make a base: the
    /// caller drops the row.
    func mend(_ rowid: Int64, of project: WritingProject) throws -> Bool {
        guard let row = try database.queryOne("SELECT document_id FROM sync_held_documents WHERE rowid = ?", [.integer(rowid)]),
              let document = try? NodeID(bytes: try row.blob("document_id")) else { return false }
        var parts = 0
        while parts < Self.mostParts, (try? sync.open([try Self.location(document, part: parts)], of: project) { _ in }) != nil { parts += 1 }
        guard parts > 0, (try? base(of: document, parts: parts, in: project)) != nil else { return false }
        try database.query("""
            UPDATE sync_held_documents SET parts = ?, held_at = CASE WHEN typeof(held_at) = 'integer' THEN held_at ELSE ? END WHERE rowid = ?
            """, [.integer(Int64(parts)), .integer(sync.store.clock.now()), .integer(rowid)])
        return true
    }

    static func location(_ document: NodeID, part: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: "sync", table: table, recordID: document.bytes, field: "base-\(part)")
    }
}
