import CryptoVault
import Writing

/// Versions between the owner's devices (SECURITY.md §19.2 operations 0x06 to 0x08, §19.3, §19.5):
/// a commit sends the snapshots, branches, decisions and this device's edit events made since the
/// last one; a receive writes what the records hold into the store through its own doors, in the
/// caller's one audited transaction.
extension VaultSync {
    /// A snapshot's or branch's content travels in one operation of at most this many bytes (a record
    /// holds 4 MiB): a branch over it, even as a delta, stays on its device (§19.7); a snapshot over
    /// it travels in parts (`snapshotPartBytes` each, one record each, §19.2 0x0C), up to
    /// `VersionOperationCodec.maximumPartsLength`.
    static let maximumVersionPayload = 3 << 20
    static let snapshotPartBytes = 2 << 20

    /// The operations that carry `snapshot`: itself, or when its payload is over one operation's,
    /// its parts (each alone in its record, `commitInRecords`) and then itself naming them.
    static func operations(carrying snapshot: SyncedSnapshot, payload bytes: [UInt8]) -> [ChangeOperation] {
        guard bytes.count > maximumVersionPayload else { return [.version(.snapshot(snapshot))] }
        let parts = stride(from: 0, to: bytes.count, by: snapshotPartBytes).map {
            SnapshotPart(snapshot: snapshot.id, bytes: Array(bytes[$0..<min($0 + snapshotPartBytes, bytes.count)]))
        }
        let named = SyncedSnapshot(id: snapshot.id, document: snapshot.document, origin: snapshot.origin, title: snapshot.title,
                                   deviceID: snapshot.deviceID, createdAt: snapshot.createdAt, digest: snapshot.digest,
                                   payload: .parts(base: snapshot.payload.base, length: bytes.count, digests: parts.map(\.digest)))
        return parts.map { .version(.snapshotPart($0)) } + [.version(.snapshot(named))]
    }

    // MARK: Commit

    /// This device's versions the records do not hold yet, as operations, in the order a receiver
    /// needs them: snapshots (each delta after its base), branches (after their bases), decisions,
    /// then this device's edit events that changed. Only the snapshots this device made (its audit
    /// device, §4.7.1): the store may hold another device's the records do not, written from a
    /// record a fork left out (§19.4), and sent as this device's it is refused (`attributionMismatch`)
    /// by every device that knows its maker, at each exchange (reviewer 17, F17-15). Called by `commitLocalChanges` after the
    /// documents' own operations, so an adoption's words are in the same record as its decision.
    func versionOperations(in project: WritingProject, replica: SyncReplica) throws -> [ChangeOperation] {
        var sent = replica.syncedSnapshotIDs, times: [SnapshotID: Int64] = [:]
        var operations: [ChangeOperation] = []
        let own = try store.auditDeviceID()
        let names = try conflictNames(in: project)
        // Taken as known, so none is read again at each commit; a later snapshot is sent whole (`ownPayload`).
        let conflictBases = try conflictBasesMadeHere(in: project, names: names).subtracting(sent)
        var notSent = conflictBases
        for found in try store.snapshotsForSync(in: project.id, notIn: sent.union(conflictBases),
                                                maximumPayload: VersionOperationCodec.maximumPartsLength) {
            let snapshot = found.snapshot
            guard snapshot.deviceID == own, let (base, payload) = try ownPayload(of: found, notSent: notSent, in: project) else {
                notSent.insert(snapshot.id)
                continue
            }
            operations += Self.operations(carrying: SyncedSnapshot(
                id: snapshot.id, document: snapshot.document, origin: snapshot.origin, title: snapshot.title, deviceID: snapshot.deviceID,
                createdAt: snapshot.createdAt, digest: found.digest, payload: base.map { .delta(base: $0, payload) } ?? .whole(payload)),
                payload: payload)
            sent.insert(snapshot.id)
            times[snapshot.id] = snapshot.createdAt
        }
        let unsent = try store.branchesForSync(in: project.id, notIn: replica.syncedBranchIDs.union(names.keys))
        // A branch that kept set-aside words (`VaultSync+SetAside`) is this device's alone: made while
        // nothing was committed, discarded when they are put back, neither it nor its decisions are
        // ever a record (closing note s13: the origin held a discarded branch of words it has).
        let keptHere = Set(unsent.filter { $0.branch.provenance.hasPrefix(Self.setAsideProvenance) }.map(\.branch.id))
        for found in unsent
        where !keptHere.contains(found.branch.id) && sent.contains(found.branch.base) && found.delta.count <= Self.maximumVersionPayload {
            let branch = found.branch
            operations.append(.version(.branch(SyncedBranch(id: branch.id, document: branch.document, kind: branch.kind, base: branch.base,
                                                            provenance: branch.provenance, createdAt: branch.createdAt, delta: found.delta))))
        }
        for synced in replica.syncedSnapshots { times[synced.id] = synced.createdAt }
        for status in try store.branchStatuses(in: project.id) where status.state != .open && !keptHere.contains(status.id) {
            let name = names[status.id] ?? status.id
            operations += Self.decisions(made: status, named: name, settled: replica.settled(name), adoptedAt: status.adoption.flatMap { times[$0] })
                .map { .version(.decision($0)) }
        }
        return operations + (try editEventOperations(in: project, replica: replica))
    }

    /// The snapshots made here as the bases of sync conflicts' branches (`keepConflicts`) that nothing
    /// sent needs: this device's view of the document when it met the conflict. Every device makes
    /// its own branch of a conflict, with its own base, from the records, so a base is not sent
    /// (SECURITY.md §19.3): sent, it was a record with no edit after every receive that brought a
    /// conflict, and on a viewer a write its origin refuses (reviewer 20, F20-1). A base another
    /// branch here was made from, or an adoption names, is sent with it.
    func conflictBasesMadeHere(in project: WritingProject, names: [BranchID: BranchID]) throws -> Set<SnapshotID> {
        guard !names.isEmpty else { return [] }
        let statuses = try store.branchStatuses(in: project.id)
        var bases = Set<SnapshotID>(), needed = Set(statuses.flatMap { [$0.beforeAdoption, $0.adoption].compactMap { $0 } })
        let documents = Set(statuses.filter { names[$0.id] != nil }.map(\.document))
        for document in documents.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            for branch in try store.branches(of: document, in: project.id) {
                if names[branch.id] != nil { bases.insert(branch.base) } else { needed.insert(branch.base) }
            }
        }
        return bases.subtracting(needed)
    }

    /// What carries this device's snapshot `found`: the store's payload, or its whole content when
    /// that payload is a delta from a snapshot this commit does not send (another device's the
    /// records do not hold, SECURITY.md §19.4: a device sends only the versions it made); nil when
    /// that content is over what parts may carry (it stays here, §19.7).
    private func ownPayload(of found: SnapshotForSync, notSent: Set<SnapshotID>,
                            in project: WritingProject) throws -> (base: SnapshotID?, payload: [UInt8])? {
        guard let base = found.base, notSent.contains(base) else { return (found.base, found.payload) }
        let whole = try store.snapshotContentBytes(found.snapshot.id, of: found.snapshot.document, in: project.id)
        return whole.count <= VersionOperationCodec.maximumPartsLength ? (nil, whole) : nil
    }

    /// The decisions a branch's row shows that the records do not: an adoption whose snapshot no
    /// adopt names, a discard of a branch the records leave open, a revert they have not made.
    static func decisions(made status: BranchStatus, named name: BranchID, settled: SettledBranch, adoptedAt: Int64?) -> [SyncedDecision] {
        guard let decidedAt = status.decidedAt else { return [] }
        var decisions: [SyncedDecision] = []
        if status.state == .adopted || status.state == .reverted, let before = status.beforeAdoption, let adoption = status.adoption,
           !settled.decisions.contains(where: { $0.decision.decision == .adopt && $0.decision.version == adoption }) {
            decisions.append(SyncedDecision(branch: name, document: status.document, decision: .adopt,
                                            decidedAt: status.state == .adopted ? decidedAt : adoptedAt ?? decidedAt, before: before, version: adoption))
        }
        if status.state == .discarded, settled.state == .open {
            decisions.append(SyncedDecision(branch: name, document: status.document, decision: .discard, decidedAt: decidedAt, before: nil, version: nil))
        }
        if status.state == .reverted, settled.state != .reverted {
            decisions.append(SyncedDecision(branch: name, document: status.document, decision: .revert, decidedAt: decidedAt, before: nil, version: nil))
        }
        return decisions
    }

    /// This device's edit events whose clear columns differ from what the records last said.
    func editEventOperations(in project: WritingProject, replica: SyncReplica) throws -> [ChangeOperation] {
        let own = try store.auditDeviceID()
        return try store.editEventStatuses(in: project.id).filter { $0.deviceID == own }.compactMap { status in
            if let held = replica.syncedEditEvent(status.id), Self.same(held, status) { return nil }
            let documents = try store.editEventDocuments(status.id, in: project.id).map {
                EditedDocument(document: $0.document, words: Int32(clamping: $0.wordDelta))
            }
            return .version(.editEvent(SyncedEditEvent(id: status.id, deviceID: status.deviceID, startedAt: status.startedAt,
                                                       lastEditAt: status.lastEditAt, endedAt: status.endedAt.map { _ in status.lastEditAt },
                                                       edits: status.edits, documents: documents)))
        }
    }

    static func same(_ event: SyncedEditEvent, _ status: EditEventStatus) -> Bool {
        event.deviceID == status.deviceID && event.startedAt == status.startedAt && event.lastEditAt == status.lastEditAt
            && (event.endedAt != nil) == (status.endedAt != nil) && event.edits == status.edits
    }

    /// Sync conflicts' branches here, by local branch id: the conflict's id (§19.2), which names the
    /// branch on every device that met the conflict. They are not sent as made (each device makes
    /// its own from the records); their decisions are, under that name.
    func conflictNames(in project: WritingProject) throws -> [BranchID: BranchID] {
        var names: [BranchID: BranchID] = [:]
        for row in try database.query("SELECT conflict, branch_id FROM sync_conflict_branches WHERE project_id = ?", [.blob(project.id.bytes)]) {
            names[try BranchID(bytes: try row.blob("branch_id"))] = try BranchID(bytes: try row.blob("conflict"))
        }
        return names
    }

    // MARK: Receive

    /// Writes into the store the versions the records hold and it lacks: snapshots (content rebuilt
    /// and checked against the digest), branches, each branch's settled state, and other devices'
    /// edit events. Called by `receive` after the documents and conflicts are written. A version this
    /// vault cannot hold (its document removed here, its base missing, content that does not check)
    /// is left out; the records keep it.
    func writeVersions(of replica: SyncReplica, into project: WritingProject) throws {
        // The documents the records show; one this vault could not add is refused by the store
        // (`nodeNotFound`) and left out, without opening every title again to know.
        let documents = Set(replica.documents)
        let held = try writeSnapshots(of: replica, documents: documents, into: project)
        try writeBranches(of: replica, documents: documents, snapshots: held, into: project)
        try writeDecisions(of: replica, snapshots: held, into: project)
        try writeEditEvents(of: replica, into: project)
    }

    private func writeSnapshots(of replica: SyncReplica, documents: Set<NodeID>, into project: WritingProject) throws -> Set<SnapshotID> {
        var held = try store.snapshotIDs(in: project.id)
        var latest: [NodeID: (id: SnapshotID, content: [UInt8])] = [:]
        for snapshot in replica.syncedSnapshots where !held.contains(snapshot.id) && documents.contains(snapshot.document) {
            var written = false
            try leavingOutRefused {
                guard let content = try content(of: snapshot, latest: latest[snapshot.document], held: held, in: project) else { return }
                try store.addSyncedSnapshot(snapshot.id, of: snapshot.document, in: project.id, content: content, origin: snapshot.origin,
                                            title: snapshot.title, deviceID: snapshot.deviceID, createdAt: snapshot.createdAt,
                                            from: try writer(of: snapshot.id, in: replica))
                latest[snapshot.document] = (snapshot.id, content)
                written = true
            }
            guard written else { continue }
            held.insert(snapshot.id)
        }
        return held
    }

    /// The snapshot's content: whole, or its delta applied to its base's (written in this pass, or
    /// read from the store); nil when the base is not here or the result is not the digest's.
    private func content(of snapshot: SyncedSnapshot, latest: (id: SnapshotID, content: [UInt8])?, held: Set<SnapshotID>,
                         in project: WritingProject) throws -> [UInt8]? {
        switch snapshot.payload {
        case .parts: return nil  // a replica keeps a snapshot in parts as the payload they join to
        case .whole(let content): return content
        case .delta(let base, let delta):
            guard held.contains(base) else { return nil }
            let baseContent = latest?.id == base ? latest!.content : try store.snapshotContentBytes(base, of: snapshot.document, in: project.id)
            guard let content = try? SnapshotDelta(parsing: delta).apply(to: baseContent), SHA256.hash(content) == snapshot.digest else { return nil }
            return content
        }
    }

    private func writeBranches(of replica: SyncReplica, documents: Set<NodeID>, snapshots: Set<SnapshotID>, into project: WritingProject) throws {
        let here = Set(try store.branchStatuses(in: project.id).map(\.id))
        for branch in replica.syncedBranches
        where !here.contains(branch.id) && documents.contains(branch.document) && snapshots.contains(branch.base) {
            try leavingOutRefused {
                let base = try store.snapshotContentBytes(branch.base, of: branch.document, in: project.id)
                guard let proposal = try? SnapshotContent.decode(try SnapshotDelta(parsing: branch.delta).apply(to: base)) else { return }
                _ = try store.addSyncedBranch(branch.id, of: branch.document, in: project.id, base: branch.base, content: proposal, kind: branch.kind,
                                              provenance: branch.provenance, createdAt: branch.createdAt, from: try writer(of: branch.id, in: replica))
            }
        }
    }

    /// Sets each decided branch here to the state its decisions settle (§19.3), when it differs.
    private func writeDecisions(of replica: SyncReplica, snapshots: Set<SnapshotID>, into project: WritingProject) throws {
        let statuses = Dictionary(uniqueKeysWithValues: try store.branchStatuses(in: project.id).map { ($0.id, $0) })
        let local = Dictionary(uniqueKeysWithValues: try conflictNames(in: project).map { ($1, $0) })
        for name in replica.decidedBranches {
            guard let status = statuses[local[name] ?? name] else { continue }
            let settled = replica.settled(name)
            let before = settled.before.flatMap { snapshots.contains($0) ? $0 : nil }
            let adoption = settled.adoption.flatMap { snapshots.contains($0) ? $0 : nil }
            guard settled.state != .open, let last = settled.decisions.last(where: \.applied),
                  (status.state, status.decidedAt, status.beforeAdoption, status.adoption) != (settled.state, settled.decidedAt, before, adoption) else { continue }
            try store.setSyncedBranchState(status.id, of: status.document, in: project.id, state: settled.state, decidedAt: settled.decidedAt,
                                           before: before, adoption: adoption, from: last.device.hex)
        }
    }

    /// Other devices' edit events, as their devices last committed them. This device's own are the
    /// store's, which wrote them, unless the store lacks one (rebuilt by repair from another device).
    private func writeEditEvents(of replica: SyncReplica, into project: WritingProject) throws {
        let own = try store.auditDeviceID()
        let here = Dictionary(uniqueKeysWithValues: try store.editEventStatuses(in: project.id).map { ($0.id, $0) })
        for event in replica.syncedEditEvents where event.deviceID != own || here[event.id] == nil {
            if let status = here[event.id], Self.same(event, status) { continue }
            try leavingOutRefused {
                try store.putSyncedEditEvent(event.id, in: project.id, deviceID: event.deviceID, startedAt: event.startedAt,
                                             lastEditAt: event.lastEditAt, endedAt: event.endedAt, edits: event.edits,
                                             documents: event.documents.map { DocumentEdit(document: $0.document, wordDelta: Int($0.words)) })
            }
        }
    }

    /// Runs `body`, leaving out a version the store refuses for what it holds (an id of another
    /// document or device): the records keep it, and the rest goes on. Damage and a missing
    /// session still end the transaction.
    private func leavingOutRefused(_ body: () throws -> Void) throws {
        do { try body() } catch let error as WritingError where ![.damagedRecord, .privilegedSessionRequired].contains(error.code) {}
    }

    /// The device (hex) whose record first wrote snapshot or branch `id`.
    private func writer(of id: SnapshotID, in replica: SyncReplica) throws -> String {
        replica.versions.snapshots[id].flatMap { $0.first.map { replica.history.entries[$0.entry].record.device.hex } } ?? "unknown"
    }

    private func writer(of id: BranchID, in replica: SyncReplica) throws -> String {
        replica.versions.branches[id].flatMap { $0.first.map { replica.history.entries[$0.entry].record.device.hex } } ?? "unknown"
    }

    // MARK: History

    /// A branch's decisions as the records settle them, every one kept, the overruled included:
    /// `branch` is the branch's id here (a sync conflict's is looked up by its conflict).
    public func settledDecisions(of branch: BranchID, in projectID: ProjectID) throws -> SettledBranch {
        let project = try store.project(projectID)
        return try replica(of: projectID).settled(try conflictNames(in: project)[branch] ?? branch)
    }
}
