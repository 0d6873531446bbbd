import CryptoVault
import PrivilegedSession
import Writing

/// Sync inside one vault transaction (SECURITY.md §19.5): this device's edits become signed change
/// records, a peer's records are verified and stored, and the documents they make are written into
/// the writing model, all in the caller's `unlocked.transaction`, each step with its audit entry.
/// A record is sealed in its project's compartment; a refused one is recorded with its reason, and
/// the rest of the exchange goes on.
public struct VaultSync {
    /// A change record is sealed in parts of at most this many bytes (a sealed record holds 1 MiB).
    static let partSize = 512 * 1024

    public let store: WritingStore
    public let author: SyncAuthor
    /// The owner's devices whose records are taken (their Ed25519 public keys, by device id).
    public let devices: [DeviceID: [UInt8]]

    public init(_ store: WritingStore, author: SyncAuthor, devices: [DeviceID: [UInt8]]) {
        self.store = store
        self.author = author
        self.devices = devices
    }

    var transaction: VaultTransaction { store.transaction }
    var database: Database { store.transaction.database }

    // MARK: The stored records

    /// The project's replica, rebuilt from its stored records in the order they were stored (parents first).
    public func replica(of projectID: ProjectID) throws -> SyncReplica {
        let project = try store.project(projectID)
        var replica = SyncReplica(project: projectID, author: author, devices: devices)
        for bytes in try storedRecords(of: project) {
            guard case .applied = replica.receive(bytes) else {
                throw SyncError(.malformedRecord, "a stored change record of project \(projectID) no longer verifies: the sync state is damaged")
            }
        }
        return replica
    }

    /// The project's stored records a peer at `versionVector` lacks, parents first.
    public func records(of projectID: ProjectID, missingFrom versionVector: [DeviceID: UInt64]) throws -> [[UInt8]] {
        try replica(of: projectID).records(missingFrom: versionVector).map(\.encoded)
    }

    func storedRecords(of project: WritingProject) throws -> [[UInt8]] {
        let rows = try database.query("SELECT hash, parts FROM sync_records WHERE project_id = ? ORDER BY rowid", [.blob(project.id.bytes)])
        return try rows.map { row in
            let hash = try row.blob("hash"), parts = try row.nonNegativeInteger("parts")
            let locations = try (0..<parts).map { try Self.location(hash, part: $0) }
            var bytes: [UInt8] = []
            try open(locations, of: project) { bytes += $0 }
            return bytes
        }
    }

    /// Opens records of the project: a privileged project's only in a session of its compartment
    /// (the store's access), as every read of its writing records is (SECURITY.md §10).
    private func open(_ locations: [SealedRecordLocation], of project: WritingProject, _ body: (UnsafeRawBufferPointer) -> Void) throws {
        guard project.isPrivileged else {
            return try transaction.openRecords(at: locations, in: project.compartment) { _, plaintext in body(plaintext) }
        }
        guard let session = store.access.session(of: project.compartment) else {
            throw WritingError(.privilegedSessionRequired,
                               "project \(project.id) is privileged: its change records are read only in a privileged processing session of its compartment")
        }
        try session.openRecords(at: locations, in: transaction) { _, plaintext in body(plaintext) }
    }

    func storeRecord(_ record: ChangeRecord, of project: WritingProject) throws {
        let parts = stride(from: 0, to: record.encoded.count, by: Self.partSize).map {
            Array(record.encoded[$0..<min(record.encoded.count, $0 + Self.partSize)])
        }
        try database.query("""
            INSERT INTO sync_records (hash, project_id, device_id, counter, lamport, parts, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(record.hash), .blob(project.id.bytes), .blob(record.device.bytes), .integer(Int64(record.counter)),
                  .integer(Int64(record.lamport)), .integer(Int64(parts.count)), .integer(store.clock.now())])
        for (index, part) in parts.enumerated() { _ = try transaction.sealRecord(part, at: try Self.location(record.hash, part: index), in: project.compartment) }
    }

    static func location(_ hash: [UInt8], part: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: "sync", table: "sync_records", recordID: hash, field: "part-\(part)")
    }

    // MARK: This device's edits

    /// Writes the project's documents as they are in the vault, compared with what the records
    /// show, as one change record of this device, stored and recorded; nil when nothing changed.
    @discardableResult
    public func commitLocalChanges(in projectID: ProjectID) throws -> ChangeRecord? {
        let project = try store.project(projectID)
        var replica = try replica(of: projectID)
        let nodes = try store.nodes(in: projectID)
        var operations: [ChangeOperation] = []
        var created = Set<NodeID>()
        for node in nodes {
            let value = NodeValue.present(kind: node.kind, parent: node.parent, orderKey: node.orderKey, title: node.title)
            let held = replica.nodeValue(node.id)
            if held != value { operations.append(.node(node.id, value)) }
            if held == nil { created.insert(node.id) }
        }
        let present = Set(nodes.map(\.id))
        for id in replica.binder.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) where !present.contains(id) {
            operations.append(.node(id, .removed))
        }
        for node in nodes where node.kind == .scene {
            operations += try replica.operations(making: node.id, hold: try store.documentContent(of: node.id, in: projectID),
                                                 creating: created.contains(node.id))
        }
        guard !operations.isEmpty else { return nil }
        return try commitInRecords(operations, to: &replica, of: project)
    }
}
