import CryptoVault
import Writing

/// A project's entries, name and archived flag between the owner's devices (SECURITY.md §19.2
/// operations 0x09 and 0x0A, §19.5): a commit sends each that differs from what the records say;
/// a receive writes what the records settle into the store through its sync doors
/// (`WritingStore+SyncedEntries`), in the caller's one audited transaction.
extension VaultSync {
    // MARK: Commit

    /// The operations that make the records say what the store holds: each entry written whole
    /// where it differs (or is new), each entry the records hold present and the store no longer
    /// has removed, the name when it differs, and the archived flag when it differs (set or
    /// cleared; a time alone is no change). A name no record has set yet is sent with the first
    /// record that carries anything (`withOthers`, or records held): a project made here from an
    /// offer has its owner's name, and sends nothing of its own for it.
    func projectOperations(in project: WritingProject, replica: SyncReplica, after others: [ChangeOperation]) throws -> [ChangeOperation] {
        let withOthers = !others.isEmpty
        let registers = replica.holdings, history = replica.history
        var operations: [ChangeOperation] = []
        let archived = registers.archivedAt(history: history) ?? nil
        if (archived != nil) != project.isArchived { operations.append(.project(.archived(project.archivedAt))) }
        let held = registers.entryValues(history: history)
        let here = try store.entries(in: project.id)
        let ids = Set(here.map(\.id))
        let leftOut = try entriesLeftOut(of: held, absentFrom: ids, in: project.id)  // not removed here: VaultSync+OtherProjects
        for entry in here where held[entry.id] != .present(entry) { operations.append(.project(.entry(entry.id, .present(entry)))) }
        for (id, value) in held.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) })
        where !ids.contains(id) && value != .removed && !leftOut.contains(id) {
            operations.append(.project(.entry(id, .removed)))
        }
        let name = try store.name(of: project), named = registers.name(history: history)
        if named != name, named != nil || withOthers || !operations.isEmpty || replica.recordCount > 0 {
            operations.insert(.project(.name(name)), at: 0)
        }
        return operations + (try projectSnapshotOperations(in: project, replica: replica, after: others))
    }

    /// The project snapshots this device made that the records do not hold whose every document
    /// version they hold or this commit sends (0x06 before it), each under `maximumVersionPayload`
    /// encoded (a larger one stays on its device, §19.7).
    func projectSnapshotOperations(in project: WritingProject, replica: SyncReplica, after others: [ChangeOperation]) throws -> [ChangeOperation] {
        var versions = replica.syncedSnapshotIDs
        for case .version(.snapshot(let snapshot)) in others { versions.insert(snapshot.id) }
        var operations: [ChangeOperation] = []
        let own = try store.auditDeviceID()  // only the ones this device made (§19.4, as `versionOperations`)
        for snapshot in try store.projectSnapshots(of: project.id) where replica.holdings.projectSnapshots[snapshot.id] == nil && snapshot.deviceID == own {
            let nodes = try store.projectSnapshotNodes(snapshot.id, of: project.id)
            guard nodes.allSatisfy({ $0.snapshot.map(versions.contains) ?? true }) else { continue }
            let operation = ChangeOperation.project(.projectSnapshot(SyncedProjectSnapshot(
                id: snapshot.id, origin: snapshot.origin, title: snapshot.title, deviceID: snapshot.deviceID, createdAt: snapshot.createdAt, nodes: nodes)))
            var encoded: [UInt8] = []
            try ChangeRecordCodec.encode(operation, to: &encoded)
            if encoded.count <= Self.maximumVersionPayload { operations.append(operation) }
        }
        return operations
    }

    // MARK: Receive

    /// Brings the project back before anything is written when the records say it is no longer
    /// archived (so their documents can be written); called by `receive` before the documents.
    func unarchiveIfSettled(_ replica: SyncReplica, project: WritingProject) throws {
        let registers = replica.holdings, history = replica.history
        guard project.isArchived, case .some(.none) = registers.archivedAt(history: history) else { return }
        try store.setSyncedArchived(project.id, at: nil, from: registers.writer(ofArchived: history)?.hex ?? "unknown")
    }

    /// Writes the entries and the name the records settle where the store differs, then archives
    /// the project when they say so (last, so what the same records wrote is in first). An entry's
    /// removal, a name or an archiving someone else's device wrote in the owner's project is not
    /// applied but recorded (`OwnersProject`): the store keeps what it has, or the value of the
    /// highest-ranked write of the owner's devices among the register's heads.
    func writeProject(of replica: SyncReplica, into project: WritingProject, owners: OwnersProject, arrived: Set<[UInt8]>) throws {
        let registers = replica.holdings, history = replica.history
        let here = Dictionary(uniqueKeysWithValues: try store.entries(in: project.id).map { ($0.id, $0) })
        let values = registers.entryValues(history: history)
        let leftOut = try entriesLeftOut(of: values, absentFrom: Set(here.keys), in: project.id, taking: true)  // VaultSync+OtherProjects
        for (id, value) in values.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) where !leftOut.contains(id) {
            let from = registers.writer(ofEntry: id, history: history)?.hex ?? "unknown"
            switch value {
            case .present(let entry) where here[id] != entry: try store.putSyncedEntry(entry, in: project.id, from: from)
            case .removed where here[id] != nil:
                if let refused = try refusedEntryRemoval(id, registers, history, owners) {
                    try owners.recordRefused("entry-removal", winner: refused, history: history, arrived: arrived, in: transaction,
                                             naming: [.init("entry", id.hex)])
                    continue
                }
                try store.removeSyncedEntry(id, in: project.id, from: from)
            default: break
            }
        }
        if let name = registers.name(history: history), try store.name(of: project) != name {
            if let (winner, ownersHead) = try owners.overruled(registers.nameHeads.map(\.entry), history: history) {
                try owners.recordRefused("rename", winner: winner, history: history, arrived: arrived, in: transaction)
                if let ownersHead, let owned = registers.nameHeads.first(where: { $0.entry == ownersHead })?.value,
                   try store.name(of: project) != owned {
                    try store.renameSynced(project.id, to: owned, from: history.entries[ownersHead].record.device.hex)
                }
            } else {
                try store.renameSynced(project.id, to: name, from: registers.writer(ofName: history)?.hex ?? "unknown")
            }
        }
        try writeProjectSnapshots(of: replica, into: project)
        let current = try store.project(project.id)
        if case .some(.some(let time)) = registers.archivedAt(history: history), !current.isArchived {
            guard let (winner, ownersHead) = try owners.overruled(registers.archivedHeads.map(\.entry), history: history) else {
                try store.setSyncedArchived(project.id, at: time, from: registers.writer(ofArchived: history)?.hex ?? "unknown")
                return
            }
            try owners.recordRefused("archive", winner: winner, history: history, arrived: arrived, in: transaction)
            // Archived as the owner's own device archived it, if one of its writes is a head.
            if let ownersHead, case .some(.some(let owned)) = registers.archivedHeads.first(where: { $0.entry == ownersHead }).map(\.value) {
                try store.setSyncedArchived(project.id, at: owned, from: history.entries[ownersHead].record.device.hex)
            }
        }
    }

    /// The winning removal of entry `id` when the owner's devices refuse it (`OwnersProject`):
    /// someone else's device made it and no head of the owner's devices removes it too.
    private func refusedEntryRemoval(_ id: EntryID, _ registers: ProjectRegisters, _ history: CausalHistory,
                                     _ owners: OwnersProject) throws -> Int? {
        let heads = registers.entryHeads(id)
        guard let (winner, ownersHead) = try owners.overruled(heads.map(\.entry), history: history) else { return nil }
        if let ownersHead, heads.first(where: { $0.entry == ownersHead })?.value == .removed { return nil }
        return winner
    }

    /// Each project snapshot the store lacks whose every document version it holds, oldest first;
    /// one the store refuses for what it holds (a version of another document) is left out, as a
    /// document snapshot is (the records keep it).
    private func writeProjectSnapshots(of replica: SyncReplica, into project: WritingProject) throws {
        let wanted = replica.holdings.projectSnapshots
        guard !wanted.isEmpty else { return }
        let here = Set(try store.projectSnapshots(of: project.id).map(\.id)), versions = try store.snapshotIDs(in: project.id)
        let fresh = wanted.values.filter { !here.contains($0.snapshot.id) && $0.snapshot.nodes.allSatisfy { $0.snapshot.map(versions.contains) ?? true } }
        for (entry, snapshot) in fresh.sorted(by: { ($0.snapshot.createdAt, $0.entry) < ($1.snapshot.createdAt, $1.entry) }) {
            do {
                try store.addSyncedProjectSnapshot(snapshot.id, of: project.id, nodes: snapshot.nodes, origin: snapshot.origin, title: snapshot.title,
                                                   deviceID: snapshot.deviceID, createdAt: snapshot.createdAt,
                                                   from: replica.history.entries[entry].record.device.hex)
            } catch let error as WritingError where ![.damagedRecord, .privilegedSessionRequired, .projectArchived].contains(error.code) {}
        }
    }
}
