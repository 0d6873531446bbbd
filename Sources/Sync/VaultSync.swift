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
    /// The kept replicas this step may use and keeps its own in (`SyncReplicaCache`), or nil to
    /// rebuild each project's replica from its stored records.
    public let replicas: SyncReplicaCache.Staging?
    /// The documents an editor is open on, whose changes a receive holds (`HeldDocuments`); only a
    /// step with a cache holds (the daemon's exchange: its coordinator knows the open editors). A
    /// hold begun is kept in the vault (`HeldBases`), and every step honours it.
    public var hold: SyncHold?

    public init(_ store: WritingStore, author: SyncAuthor, devices: [DeviceID: [UInt8]], replicas: SyncReplicaCache.Staging? = nil) {
        // Sync writes what other devices changed, also into a project this device only views.
        self.store = store.receivingChanges()
        self.author = author
        self.devices = devices
        self.replicas = replicas
    }

    var transaction: VaultTransaction { store.transaction }
    var database: Database { store.transaction.database }

    // MARK: The stored records

    /// The project's replica, rebuilt from its stored records in the order they were stored
    /// (parents first). A stored record that fails to open, no longer verifies, or waits for a
    /// parent that is not stored (a row gone) is damage: `.damagedSyncState`, saying which and why,
    /// and the project works local-only until it is repaired (`state(of:)`).
    public func replica(of projectID: ProjectID) throws -> SyncReplica {
        let project = try store.project(projectID)
        // A row of the sync module's tables that no writer stores (a flipped bit) is the project's
        // damage (N-s9-6, and the other tables' rows: closing note s10).
        try VaultSync.DamagedRows.check(projectID, in: database)
        // A stored record whose project id names no project here is hidden from every query of
        // its project: its counter would be signed again (N-s11-5).
        try VaultSync.UnownedRecords.check(projectID, in: store)
        var replica = SyncReplica(project: projectID, author: author, devices: devices, own: try ownDevices())
        for stored in try storedRecords(of: project) {
            let record: ChangeRecord
            do { record = try ChangeRecordCodec.parse(stored.bytes) } catch {
                throw Self.damaged(projectID, "record \(CausalHistory.short(stored.hash)) no longer verifies (\((error as? SyncError)?.code.rawValue ?? "unreadable"))")
            }
            try Self.checkColumns(stored, against: record, of: projectID)
            switch replica.receive(record) {
            case .applied: continue
            case .held: throw Self.damaged(projectID, "record \(CausalHistory.short(stored.hash)) follows a record that is not stored")
            case .refused(let error): throw Self.damaged(projectID, "record \(CausalHistory.short(stored.hash)) no longer verifies (\(error.code.rawValue))")
            }
        }
        // The fork rule's left-out records, as the walk that kept the stored ones left them (VaultSync+ForkLeftOut).
        for (record, device) in try leftOutRecords(of: project) { replica.recallLeftOut(record, forkedBy: device) }
        return replica
    }

    /// This vault's own devices, as SECURITY.md §19.4's fork rule weighs a fork's copies (the copy
    /// one of them built on stays, reviewer 12, fk4): this device, and each device whose records it
    /// takes that is trusted `mine` here and that no own device demoted (F4). The owner's devices
    /// trust one another `mine`, so each holds the same set once it has confirmed them all.
    func ownDevices() throws -> Set<DeviceID> {
        // A vault whose exchange tables stop before `sync_demotions` holds no demotion.
        let demoted = (try? SyncExchangeStore(database: database).demotedDevices()) ?? [:]
        var own: Set<DeviceID> = [author.device]
        for device in devices.keys where demoted[device] == nil && device != author.device {
            if try DeviceTrust.stored(deviceID: device, in: database) == .mine { own.insert(device) }
        }
        return own
    }

    /// A stored record's clear columns are what the exchange reads without opening the record
    /// (`heldVector`): a value flipped to another its CHECK allows (a counter 5 made 7) passed every
    /// check of the columns alone, and the vector then claimed records this vault does not hold
    /// (review 17 s10, N-s10-7). So each row is checked against the signed record it names, once
    /// per replica made (the record is parsed for the replica anyway): a difference is damage that
    /// `vaultctl repair` mends (`DamagedRecords.mend` writes the columns again from the record).
    static func checkColumns(_ stored: StoredRecord, against record: ChangeRecord, of project: ProjectID) throws {
        guard record.hash != stored.hash || record.device != stored.device || record.counter != stored.counter
              || record.lamport != stored.lamport || record.project != project else { return }
        throw SyncError(.damagedSyncState, """
            the sync state of project \(project) is damaged: the clear columns of stored record \(CausalHistory.short(stored.hash)) (device, counter, \
            lamport clock) are not those of the signed record it names; the project works local-only until 'vaultctl repair' mends it
            """)
    }

    /// One row of `sync_records`, its clear columns read as a writer stores them, and its record's bytes.
    struct StoredRecord {
        let hash: [UInt8]
        let device: DeviceID
        let counter: UInt64
        let lamport: UInt64
        let bytes: [UInt8]
    }

    static func damaged(_ project: ProjectID, _ why: String) -> SyncError {
        SyncError(.damagedSyncState, "the sync state of project \(project) is damaged: \(why); the project works local-only until it is repaired")
    }

    /// The project's stored records a peer at `versionVector` lacks, parents first.
    public func records(of projectID: ProjectID, missingFrom versionVector: [DeviceID: UInt64]) throws -> [[UInt8]] {
        try replica(of: projectID).records(missingFrom: versionVector).map(\.encoded)
    }

    func storedRecords(of project: WritingProject) throws -> [StoredRecord] {
        let rows = try database.query("SELECT hash, device_id, counter, lamport, parts FROM sync_records WHERE project_id = ? ORDER BY rowid",
                                      [.blob(project.id.bytes)])
        return try rows.map { row in
            let hash = try row.blob("hash")
            // The counter column is what the exchange reads without opening the record (`heldVector`).
            let counter = try Self.storedCounter(try row.integer("counter"), of: project.id)
            return StoredRecord(hash: hash, device: try DeviceID(bytes: try row.blob("device_id")), counter: counter,
                                lamport: UInt64(max(0, try row.integer("lamport"))),
                                bytes: try storedRecord(hash, parts: try row.integer("parts"), of: project))
        }
    }

    /// One stored record's bytes, its parts opened; one that does not open is damage.
    func storedRecord(_ hash: [UInt8], parts: Int64, of project: WritingProject) throws -> [UInt8] {
        let locations = try (0..<Self.storedParts(parts, of: project.id)).map { try Self.location(hash, part: $0) }
        var bytes: [UInt8] = []
        do { try open(locations, of: project) { bytes += $0 } } catch let error as WritingError where error.code == .privilegedSessionRequired {
            throw error
        } catch {
            throw Self.damaged(project.id, "record \(CausalHistory.short(hash)) does not open (\(Self.reason(error)))")
        }
        return bytes
    }

    /// An error's code, never its message (which could name what it was opening).
    static func reason(_ error: Error) -> String {
        if let error = error as? CryptoVaultError { return error.code.rawValue }
        if let error = error as? WritingError { return error.code.rawValue }
        return "an unreadable sealed record"
    }

    /// Opens records of the project: a privileged project's only in a session of its compartment
    /// (the store's access), as every read of its writing records is (SECURITY.md §10).
    func open(_ locations: [SealedRecordLocation], of project: WritingProject, _ body: (UnsafeRawBufferPointer) -> Void) throws {
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
        let parts = (record.encoded.count + Self.partSize - 1) / Self.partSize
        try database.query("""
            INSERT INTO sync_records (hash, project_id, device_id, counter, lamport, parts, stored_at) VALUES (?, ?, ?, ?, ?, ?, ?)
            """, [.blob(record.hash), .blob(project.id.bytes), .blob(record.device.bytes), .integer(Int64(record.counter)),
                  .integer(Int64(record.lamport)), .integer(Int64(parts)), .integer(store.clock.now())])
        _ = try sealParts(of: record, in: project)
    }

    /// Seals a record's bytes in parts at its places (`location`) in the project's compartment; returns how many.
    func sealParts(of record: ChangeRecord, in project: WritingProject) throws -> Int {
        let parts = stride(from: 0, to: record.encoded.count, by: Self.partSize).map {
            Array(record.encoded[$0..<min(record.encoded.count, $0 + Self.partSize)])
        }
        for (index, part) in parts.enumerated() { _ = try transaction.sealRecord(part, at: try Self.location(record.hash, part: index), in: project.compartment) }
        return parts.count
    }

    /// The nodes the records show that this vault removed, in id order: absent here, and at the
    /// top level, under a node here, or under one removed here too. A node under a parent this vault
    /// never held (the records never made it, or it could not be added) was never here, so it is
    /// not removed: the vault only has not caught up with it. A node `leftOut` (another project
    /// holds its id here) was never here either, nor was anything under it.
    static func removedHere(_ binder: [NodeID: NodeValue], present: Set<NodeID>, leftOut: Set<NodeID> = []) -> [NodeID] {
        var removed: [NodeID: Bool] = [:]
        func isRemoved(_ id: NodeID) -> Bool {
            var chain: [NodeID] = [], cursor: NodeID? = id, answer = true
            while let node = cursor {
                if present.contains(node) { answer = node != id; break }
                if leftOut.contains(node) { answer = false; break }
                if let known = removed[node] { answer = known; break }
                guard case .present(_, let parent, _, _)? = binder[node], chain.count <= WritingLimits.maximumNesting else { answer = false; break }
                chain.append(node)
                cursor = parent
            }
            for node in chain { removed[node] = answer }
            return answer && !present.contains(id)
        }
        return binder.keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.filter(isRemoved)
    }

    static func location(_ hash: [UInt8], part: Int) throws -> SealedRecordLocation {
        try SealedRecordLocation(module: "sync", table: "sync_records", recordID: hash, field: "part-\(part)")
    }

    // MARK: This device's edits

    /// Writes the project's documents as they are in the vault, compared with what the records
    /// show, as one change record of this device (or several in a row), stored and recorded; nil
    /// when nothing changed. The binder is compared whole; of the documents, those that may have
    /// changed since they last showed what the replica shows are read (every one, when that is
    /// not known: `SyncReplicaCache`).
    @discardableResult
    public func commitLocalChanges(in projectID: ProjectID) throws -> ChangeRecord? {
        let project = try store.project(projectID)
        // A replica that does not write the project commits nothing, ever (SECURITY.md §19.3): a
        // viewer's record would be refused by the origin as a write (`viewerCannotWrite`) and told to
        // it as its own edits set aside, though it typed nothing (reviewer 20, F20-1).
        guard !project.isViewOnly else { return nil }
        var working = try working(project)
        // After a repair that lacked some of this device's records: its next record would reuse
        // their counters (a fork). The project is view-only until they are back (`OwnRecordFloor`).
        guard try !belowOwnFloor(projectID, working.replica) else { return nil }
        // Records of this device are set aside (its origin refused them, VaultSync+SetAside): its next
        // record would take the counter of one of them with other content. Nothing is committed.
        guard try !hasSetAside(projectID) else { return nil }
        let nodes = try store.nodes(in: projectID)
        var operations: [ChangeOperation] = []
        var created = Set<NodeID>()
        let heldForEditors = try heldBases(of: project)  // merged from their kept bases, never taken as the writer's deletions
        let removalsWaiting = try removalsAwaitingClose(heldForEditors, nodes: nodes, replica: working.replica, in: projectID)
        for node in nodes where !removalsWaiting.contains(node.id) {
            let value = NodeValue.present(kind: node.kind, parent: node.parent, orderKey: node.orderKey, title: node.title)
            let held = working.replica.nodeValue(node.id)
            if held != value { operations.append(.node(node.id, value)) }
            // A node the records show removed but the store keeps (a removal refused and written
            // back: `OwnersProject`) is made again by this record, its content with it; compared
            // with a removed document, `operations(making:)` would refuse it (review 17 s12, N-s12-5).
            if held == nil || held == .removed { created.insert(node.id) }
        }
        let present = Set(nodes.map(\.id))
        let leftOut = try nodesLeftOut(of: working.replica.binder, absentFrom: present, in: projectID)
        for id in Self.removedHere(working.replica.binder, present: present, leftOut: leftOut) { operations.append(.node(id, .removed)) }
        var rebased: [NodeID: (content: DocumentContent, ids: [BlockID: BlockID])] = [:]
        var pieced = Set<NodeID>()  // documents here holding a block in pieces (`BlockOverflow`) or not all (`DocumentOverflow`)
        for node in nodes where node.kind == .scene && !removalsWaiting.contains(node.id) && (working.mayDiffer(node.id) || created.contains(node.id) || heldForEditors[node.id] != nil) {
            let stored = try store.documentContent(of: node.id, in: projectID)
            // Blocks left out here (another project holds their ids) are not the writer's deletions.
            var content = try keepingLeftOut(stored, of: node.id, replica: &working.replica, in: projectID)
            if let base = heldForEditors[node.id] {
                content = try created.contains(node.id) ? keptFromHeldRemoval(node.id, writer: content, of: project)
                    : mergingHeld(node.id, writer: stored, base: base, replica: &working.replica, of: project)
            }
            var ids: [BlockID: BlockID] = [:]
            // As the records hold it (a block shown in pieces is one: `BlockOverflow`), before they change.
            let whole = BlockOverflow.joined(stored, shown: working.replica.orderedBlocks(of: node.id).map(\.block), besides: working.replica.holdsBlock)
            if whole != stored || !working.replica.blocksPastBound(of: node.id).isEmpty { pieced.insert(node.id) }
            operations += try working.replica.operations(making: node.id, hold: content, creating: created.contains(node.id), rebased: &ids)
            // A held document keeps the writer's text in the store: that text takes the new ids of its blocks.
            if !ids.isEmpty { rebased[node.id] = (whole, ids) }
        }
        operations += try versionOperations(in: project, replica: working.replica)  // snapshots, branches, decisions, edit events (VaultSync+Versions)
        let held = try projectOperations(in: project, replica: working.replica, after: operations)  // entries, name, archived (VaultSync+Project)
        // The name goes with the first record (§19.3), not the last of a commit cut into several: a
        // peer taking them in more than one batch then has it before it commits anything of its own.
        let isName: (ChangeOperation) -> Bool = { if case .project(.name) = $0 { true } else { false } }
        operations = held.filter(isName) + operations + held.filter { !isName($0) }
        let records = operations.isEmpty ? [] : try commitInRecords(operations, to: &working.replica, of: project)
        // A re-based block (§19.2) has a new id in the records: the document here takes it, the same words.
        for (document, change) in rebased.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            // In pieces again where a block is over the store's bound, under the new ids' continuations.
            let blocks = BlockOverflow.split(change.content.blocks.map { block in
                change.ids[block.id].map { Block(id: $0, kind: block.kind, text: block.text, rows: block.rows) } ?? block
            }, besides: working.replica.holdsBlock)
            try store.replaceSyncedDocumentContent(of: document, in: projectID, with: DocumentContent(blocks: blocks))
            // A held document's later edits are made from the writer's text with those ids.
            if heldForEditors[document] != nil { try HeldBases(sync: self).rebase(document, of: project, to: DocumentContent(blocks: blocks)) }
        }
        // A block in pieces takes the pieces the records show now: the cuts move as the owner types,
        // and a block brought back within the bound is one block again (a held document is the writer's).
        for document in pieced.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) where rebased[document] == nil && heldForEditors[document] == nil {
            let shown = working.replica.content(of: document)
            if try store.documentContent(of: document, in: projectID) != shown { try store.replaceSyncedDocumentContent(of: document, in: projectID, with: shown) }
        }
        // What the owner's edits brought within the bound is shown now; what is still past it is in branches.
        try keepOverflows(of: &working.replica, in: project, only: pieced)
        working.hashes += records.map(\.hash)
        try keep(working, of: project, agreeing: true)
        try settle(project)
        return records.last
    }
}
