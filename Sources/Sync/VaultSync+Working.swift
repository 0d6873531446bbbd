import CryptoVault
import Writing

/// The replica a step works on (SECURITY.md §19.5): with a cache (`VaultSync.replicas`), the kept
/// replica extended with the records stored since it was kept, each opened and verified once;
/// without one, or when the kept one is not sure to be what the vault holds, the replica rebuilt
/// from every stored record.
extension VaultSync {
    struct Working {
        var replica: SyncReplica
        /// The hashes of the stored records the replica holds, in the order their rows were stored.
        var hashes: [[UInt8]]
        /// Where every document showed what the replica shows, if known.
        var documentsAgree: WritingChangeMarks.Mark?
        /// The documents (and other ids) that may differ from the replica: written since the
        /// documents last agreed with it, or touched by records taken since; nil: any of them.
        var changed: Set<[UInt8]>?

        /// Whether the document may differ from what the replica shows.
        func mayDiffer(_ document: NodeID) -> Bool { changed?.contains(document.bytes) ?? true }
    }

    /// The project's replica for this step, and which documents may differ from it.
    func working(_ project: WritingProject) throws -> Working {
        guard let replicas, !project.isPrivileged else {
            return Working(replica: try replica(of: project.id), hashes: [], documentsAgree: nil, changed: nil)
        }
        let rows = try storedRows(of: project), own = try ownDevices()
        if let kept = replicas.take(project.id, of: transaction.vault), holds(kept, of: rows, own: own),
           let extended = try extend(kept, with: rows[kept.hashes.count...], of: project) {
            return extended
        }
        return Working(replica: try replica(of: project.id), hashes: rows.map(\.hash), documentsAgree: nil, changed: nil)
    }

    /// Keeps the step's replica for the next step, if its transaction commits; `agreeing` says
    /// whether every document now shows what it shows (then the mark is taken now).
    func keep(_ working: Working, of project: WritingProject, agreeing: Bool) throws {
        guard let replicas else { return }
        guard !project.isPrivileged else {
            // No replica of a privileged project is kept; what this step wrote unsettles it (`settle`).
            replicas.settle(project.id, nil)
            return
        }
        // A document held for an open editor shows the writer's text, not the replica's: no mark
        // says they agree, so the next step compares every document.
        let holding = try !HeldBases(sync: self).documents(of: project.id).isEmpty
        let mark = holding ? nil : agreeing ? try WritingChangeMarks.shared.mark(project.id, in: transaction) : working.documentsAgree
        replicas.keep(SyncReplicaCache.Entry(vault: transaction.vault, replica: working.replica, hashes: working.hashes, documentsAgree: mark),
                      of: project.id)
    }

    /// Every change of `project`'s store is a record now (the end of `commitLocalChanges`): a
    /// privileged project's settled mark is kept, so that the next exchange knows without a session
    /// that nothing of it changed since (`SyncSettledMark`; review 17 s10, N-s10-6).
    func settle(_ project: WritingProject) throws {
        guard let replicas, project.isPrivileged else { return }
        replicas.settle(project.id, try SyncSettledMark.take(project.id, in: transaction))
    }

    /// The project's stored rows, hash and part count, in the order they were stored.
    private func storedRows(of project: WritingProject) throws -> [(hash: [UInt8], parts: Int64)] {
        var rows: [(hash: [UInt8], parts: Int64)] = []
        try database.forEachRawRow("SELECT hash, parts FROM sync_records WHERE project_id = ? ORDER BY rowid", [.blob(project.id.bytes)]) { row in
            rows.append((row.blob(at: 0), row.integer(at: 1)))
        }
        return rows
    }

    /// Whether the kept replica is this vault's, for this device, took no key this step does not
    /// (a device it may no longer take records of: the rebuild says whether that is damage), weighs
    /// forks with today's own devices (a trust changed since: SECURITY.md §19.4), and holds exactly
    /// the first stored records, in their order.
    private func holds(_ kept: SyncReplicaCache.Entry, of rows: [(hash: [UInt8], parts: Int64)], own: Set<DeviceID>) -> Bool {
        var keys = devices
        keys[author.device] = author.key.publicKey
        guard kept.vault === transaction.vault, kept.replica.author?.device == author.device, kept.replica.own == own,
              kept.replica.devices.allSatisfy({ keys[$0.key] == $0.value }), kept.hashes.count <= rows.count else { return false }
        return zip(kept.hashes, rows).allSatisfy { $0 == $1.hash }
    }

    /// The kept replica with `rows` (stored since) taken, or nil when one does not apply (the
    /// rebuild then says why). The documents they touch may differ from it, with those written.
    private func extend(_ kept: SyncReplicaCache.Entry, with rows: ArraySlice<(hash: [UInt8], parts: Int64)>,
                        of project: WritingProject) throws -> Working? {
        var working = Working(replica: kept.replica, hashes: kept.hashes, documentsAgree: kept.documentsAgree, changed: nil)
        working.replica.admit(devices)
        var touched = Set<[UInt8]>()
        for row in rows {
            let bytes = try storedRecord(row.hash, parts: row.parts, of: project)
            guard let record = try? ChangeRecordCodec.parse(bytes), record.hash == row.hash,
                  case .applied(1) = working.replica.receive(record) else { return nil }
            touched.formUnion(Self.documents(touchedBy: record).map(\.bytes))
            working.hashes.append(row.hash)
        }
        if let mark = kept.documentsAgree, let written = try WritingChangeMarks.shared.written(since: mark, in: transaction) {
            working.changed = written.union(touched)
        }
        return working
    }

    /// The documents whose blocks or place a record writes.
    static func documents(touchedBy record: ChangeRecord) -> Set<NodeID> {
        var documents = Set<NodeID>()
        for operation in record.operations {
            if case .node(let id, _) = operation { documents.insert(id) }
            if case .block(let document, _, _) = operation { documents.insert(document) }
            if case .text(let document, _, _) = operation { documents.insert(document) }
            if case .conflict(let conflict) = operation { documents.insert(conflict.document) }
        }
        return documents
    }
}
