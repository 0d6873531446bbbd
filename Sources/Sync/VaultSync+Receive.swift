import CryptoVault
import Writing

/// What one exchange did to the vault.
public struct SyncReceipt: Sendable, Equatable {
    /// Records verified and stored (with held ones they completed).
    public let stored: Int
    /// Records refused, each with its reason (and an audit entry).
    public let refused: [SyncRefusal]
    /// Documents whose content the records changed.
    public let documentsWritten: Int
    /// Conflicts kept as new syncConflict branches.
    public let branchesMade: Int
    /// The documents whose content the records changed (for open editors: `SyncCoordinator`).
    public var documents: Set<NodeID> = []
}

extension VaultSync {
    /// Takes a peer's records for `projectID`: each verified (parse, project, device, signature,
    /// replay, causality) and stored sealed, or refused and recorded with its reason; then the
    /// documents the records make are written into the writing model, and each conflict met for the
    /// first time becomes a branch of kind syncConflict. Records still waiting for their parents
    /// when the exchange ends are refused (`.missingParents`). Local edits should be committed
    /// first (`commitLocalChanges`): what is written here replaces the documents' content.
    ///
    /// Refusals are recorded one by one while `allowance` lasts; the rest as one summary at the end.
    public func receive(_ records: [[UInt8]], for projectID: ProjectID, allowance: SyncRefusalAllowance = .unbounded) throws -> SyncReceipt {
        let project: WritingProject
        do { project = try store.project(projectID) } catch let error as WritingError where error.code == .projectNotFound {
            return try refuseAll(records, for: projectID, allowance: allowance)
        }
        var working = try working(project)
        let heldBefore = working.replica.records(missingFrom: [:]), refusalsBefore = working.replica.refusals.count
        working.replica.attribution = RecordAttribution(own: try store.auditDeviceID(), author: author.device,
                                                        held: working.replica.records(missingFrom: [:]))
        working.replica.checksConflictClaims = true
        for bytes in records { working.replica.receive(bytes) }
        working.replica.endExchange()
        working.replica.checksConflictClaims = false
        working.replica.attribution = nil
        let held = working.replica.records(missingFrom: [:])
        let heldNow = Set(held.map(\.hash)), before = Set(heldBefore.map(\.hash))
        let fresh = held.filter { !before.contains($0.hash) }
        // Records the fork rule took out of the replica (SECURITY.md §19.4) leave the vault first (a
        // record of the same number may take their place); the words they showed are kept below.
        let gone = heldBefore.filter { !heldNow.contains($0.hash) }
        let shownBeforeDrop = try contents(touchedBy: gone, of: project)
        for record in gone { try deleteRecord(record, of: project) }
        try keepLeftOut(working.replica.leftOutToKeep, held: heldNow, of: project)  // VaultSync+ForkLeftOut
        working.hashes = working.hashes.filter { heldNow.contains($0) }
        for record in fresh {
            try storeRecord(record, of: project)
            try transaction.record(.syncRecordReceive, compartment: project.compartment.id, subject: projectID,
                                   details: [.init("hash", ByteEncoding.hex(record.hash)), .init("device", record.device.hex),
                                             .init("counter", String(record.counter))])
        }
        working.hashes += fresh.map(\.hash)
        // The conflicts met now are pending until a record joins them: this device's, at once (§19.3).
        working.hashes += try commitJoin(of: &working.replica, in: project).map(\.hash)
        // Someone else's removals, archiving and renames of the owner's project are not applied here (OwnersProject).
        let owners = try OwnersProject(project, me: author.device, database: database), arrived = Set(fresh.map(\.hash))
        let refused = Array(working.replica.refusals.dropFirst(refusalsBefore))
        for refusal in refused where allowance.admit() { try audit(refusal, project: projectID, compartment: project.compartment.id) }
        try summarise(allowance, project: projectID, compartment: project.compartment.id)
        // When the documents are known to have shown what the replica showed, except those written
        // since, only those and the ones the new records touch can differ; else every one is compared.
        let differing = working.changed.map { changed in
            Set(changed.compactMap { try? NodeID(bytes: $0) }).union((fresh + gone).flatMap(Self.documents(touchedBy:)))
        }
        var documents = Set<NodeID>()
        try unarchiveIfSettled(working.replica, project: project)  // the records brought it back (VaultSync+Project)
        let written = try writeDocuments(of: &working.replica, into: project, only: differing, written: &documents,
                                         owners: owners, arrived: arrived)
        var branches = try keepConflicts(of: &working.replica, in: project)
            + keepWordsOfDropped(shownBeforeDrop, dropped: gone, replica: &working.replica, in: project)
        branches += try keepOverflows(of: &working.replica, in: project, only: differing)  // blocks past a document's bound (VaultSync+Overflow)
        try writeVersions(of: working.replica, into: project)  // snapshots, branches, decisions, edit events (VaultSync+Versions)
        try writeProject(of: working.replica, into: project, owners: owners, arrived: arrived)  // entries, name, archived flag (VaultSync+Project)
        try keep(working, of: project, agreeing: true)
        var receipt = SyncReceipt(stored: fresh.count, refused: refused, documentsWritten: written, branchesMade: branches)
        receipt.documents = documents
        return receipt
    }

    /// Joins what arrived (SECURITY.md §19.3): when conflicts are pending, this device, if it writes
    /// the project, commits a record naming every head, carrying them (`SyncReplica.commitJoin`),
    /// stored and recorded in the receive's transaction, so they are facts (and branches,
    /// `keepConflicts`) here and on every device the record reaches. None for a view-only project
    /// or one this device may not write now (`belowOwnFloor`, `hasSetAside`): the document shows
    /// the winner there, and the conflict becomes a branch when a writer's join arrives.
    private func commitJoin(of replica: inout SyncReplica, in project: WritingProject) throws -> [ChangeRecord] {
        guard replica.author != nil, !project.isViewOnly, try !belowOwnFloor(project.id, replica), try !hasSetAside(project.id) else { return [] }
        let joins = try replica.commitJoin()
        for record in joins {
            try storeRecord(record, of: project)
            try transaction.record(.syncRecordCommit, compartment: project.compartment.id, subject: project.id,
                                   details: [.init("hash", ByteEncoding.hex(record.hash)), .init("counter", String(record.counter)),
                                             .init("operations", String(record.operations.count))])
        }
        return joins
    }

    /// What the store shows of each document `records` touch, before the fork rule's drop is written.
    private func contents(touchedBy records: [ChangeRecord], of project: WritingProject) throws -> [NodeID: DocumentContent] {
        var contents: [NodeID: DocumentContent] = [:]
        let present = Set(try store.nodes(in: project.id).filter { $0.kind == .scene }.map(\.id))
        for document in Set(records.flatMap(Self.documents(touchedBy:))) where present.contains(document) {
            contents[document] = try store.documentContent(of: document, in: project.id)
        }
        return contents
    }

    /// Deletes a stored record's row and its sealed parts: the fork rule left it out (SECURITY.md §19.4).
    private func deleteRecord(_ record: ChangeRecord, of project: WritingProject) throws {
        guard let row = try database.queryOne("SELECT parts FROM sync_records WHERE hash = ?", [.blob(record.hash)]) else { return }
        for part in 0..<(try Self.storedParts(try row.integer("parts"), of: project.id)) {
            try transaction.removeRecord(at: try Self.location(record.hash, part: part), in: project.compartment)
        }
        try database.query("DELETE FROM sync_records WHERE hash = ?", [.blob(record.hash)])
        try transaction.record(.syncRecordDropped, compartment: project.compartment.id, subject: project.id,
                               details: [.init("hash", ByteEncoding.hex(record.hash)), .init("device", record.device.hex),
                                         .init("counter", String(record.counter))])
    }

    /// Keeps the words a drop took out of a document (SECURITY.md §19.4, review 17 s10, N-s10-1 (a)):
    /// a document the store showed otherwise before the fork rule left records out gets a
    /// syncConflict branch proposing what it showed then, named `SHA-256("SealedVault fork v1" ||
    /// 0x00 || document || the least hash dropped)[:16]`, so devices that held the same records
    /// name it alike. A branch made here is sent with the next commit like any made branch, so
    /// every device shows it. A document an open editor holds keeps the writer's text (`held`).
    private func keepWordsOfDropped(_ before: [NodeID: DocumentContent], dropped: [ChangeRecord], replica: inout SyncReplica,
                                    in project: WritingProject) throws -> Int {
        guard let least = dropped.map(\.hash).min(by: { $0.lexicographicallyPrecedes($1) }) else { return 0 }
        var made = 0
        let present = Set(try store.nodes(in: project.id).filter { $0.kind == .scene }.map(\.id))
        for (document, shown) in before.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) })
        where present.contains(document) && !holds(document) && !shown.blocks.isEmpty {
            guard try store.documentContent(of: document, in: project.id) != shown else { continue }
            let base = try store.createSnapshot(of: document, in: project.id)
            let name = try BranchID(bytes: Array(SHA256.hash(Array("SealedVault fork v1".utf8) + [0] + document.bytes + least).prefix(16)))
            let make = { (id: BranchID?) in
                try self.store.createBranch(of: document, in: project.id, base: base.id, content: shown, kind: .syncConflict,
                                            provenance: "words a fork took out: device records that lost to another of one number, and what was built on them", id: id)
            }
            let branch: Branch
            do { branch = try make(name) } catch let error as WritingError where error.code == .invalidIdentifier { branch = try make(nil) }
            try transaction.record(.syncForkBranch, compartment: project.compartment.id, subject: project.id,
                                   details: [.init("branch", branch.id.hex), .init("document", document.hex)])
            made += 1
        }
        return made
    }

    /// A project this vault does not hold: it has no key for the records' compartment.
    private func refuseAll(_ records: [[UInt8]], for projectID: ProjectID, allowance: SyncRefusalAllowance) throws -> SyncReceipt {
        let refused = records.map { bytes in
            SyncRefusal(record: SHA256.hash(bytes), error: SyncError(.unknownCompartment, "this vault holds no project \(projectID) and no key for its compartment"))
        }
        for refusal in refused where allowance.admit() { try audit(refusal, project: projectID, compartment: nil) }
        try summarise(allowance, project: projectID, compartment: nil)
        return SyncReceipt(stored: 0, refused: refused, documentsWritten: 0, branchesMade: 0)
    }

    /// One `sync.record-refused` entry (reason `tooManyRefusals`) for the refusals `allowance`
    /// counted and did not record, since the last such entry.
    func summarise(_ allowance: SyncRefusalAllowance, project: ProjectID, compartment: CompartmentID?) throws {
        let count = allowance.unrecorded - allowance.summarised
        guard count > 0 else { return }
        try transaction.record(.syncRecordRefused, compartment: compartment, subject: project,
                               details: [.init("reason", "tooManyRefusals"), .init("unrecorded", String(count))])
        allowance.summarised = allowance.unrecorded
    }

    private func audit(_ refusal: SyncRefusal, project: ProjectID, compartment: CompartmentID?) throws {
        var details: [VaultEvent.Detail] = [.init("reason", refusal.error.code.rawValue)]
        if let hash = refusal.record { details.append(.init("hash", ByteEncoding.hex(hash))) }
        if let device = refusal.device { details.append(.init("device", device.hex)) }
        try transaction.record(.syncRecordRefused, compartment: compartment, subject: project, details: details)
    }

    /// Makes the vault's documents what the records show: documents made on another device are
    /// added with their ids, titles follow, and content that differs is replaced (of the documents
    /// in `only` and those added now, when it is given). A document someone else's device removed
    /// stays (`OwnersProject`), as the records hold it.
    private func writeDocuments(of replica: inout SyncReplica, into project: WritingProject, only: Set<NodeID>?,
                                written documents: inout Set<NodeID>, owners: OwnersProject, arrived: Set<[UInt8]>) throws -> Int {
        var vaultNodes = Dictionary(uniqueKeysWithValues: try store.nodes(in: project.id).map { ($0.id, $0) })
        let binder = replica.binder
        // A node another project keeps here is left out (VaultSync+OtherProjects), with what is under it;
        // one this project keeps is taken from the project that held it.
        let leftOut = try nodesLeftOut(of: binder, absentFrom: Set(vaultNodes.keys), in: project.id, taking: true)
        let missing = binder.filter { vaultNodes[$0.key] == nil && !leftOut.contains($0.key) }
        let added = Set(missing.keys)
        try addMissingNodes(missing, to: &vaultNodes, of: project)
        for (id, value) in binder.sorted(by: { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }) {
            guard case .present(_, let parent, let orderKey, let title) = value, let node = vaultNodes[id] else { continue }
            if node.title != title { try store.renameNode(id, in: project.id, to: title) }
            if node.parent != parent || node.orderKey != orderKey { try moveIfPossible(id, under: parent, orderKey: orderKey, in: project) }
        }
        let kept = try removeNodes(removedIn: &replica, from: vaultNodes, of: project, owners: owners, arrived: arrived)
        documents.formUnion(kept.filter(holds))  // a removal held for an open editor, like an edit
        var written = 0, moved = Set<NodeID>()
        let held = try HeldBases(sync: self).documents(of: project.id)
        for document in replica.documents where vaultNodes[document] != nil
            && (only?.contains(document) ?? true || added.contains(document) || held.contains(document)) {
            let content = replica.content(of: document)
            let stored = try store.documentContent(of: document, in: project.id)
            // An editor is open on it: left as the writer has it, written when the editor closes.
            if holds(document), !added.contains(document) {
                if stored != content {
                    try store.rememberHeldWords(content, in: project.id)
                    try self.held(document, of: project, stored: stored)
                    documents.insert(document)
                } else if held.contains(document) {
                    stillHeld(document)
                }
                continue
            }
            if stored != content {
                try write(content, of: document, stored: stored, in: project.id, moving: &moved)
                documents.insert(document)
                written += 1
            }
            if held.contains(document) { try released(document, of: project) }
        }
        // A document kept despite someone else's removal shows what the records hold of it: their
        // edits before the removal apply, the removal does not (the next commit writes it back).
        for document in kept where !holds(document) {
            let content = replica.content(of: document), stored = try store.documentContent(of: document, in: project.id)
            guard stored != content else { continue }
            try write(content, of: document, stored: stored, in: project.id, moving: &moved)
            documents.insert(document)
            written += 1
        }
        // A document a block moved from is written again as the records show it (its pieces' ids moved).
        for _ in 0..<WritingLimits.maximumNesting where !moved.isEmpty {
            let again = moved
            moved = []
            for document in again.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) where vaultNodes[document] != nil && !holds(document) {
                let content = replica.content(of: document), stored = try store.documentContent(of: document, in: project.id)
                guard stored != content else { continue }
                try write(content, of: document, stored: stored, in: project.id, moving: &moved)
                documents.insert(document)
                written += 1
            }
        }
        // A held document removed meanwhile holds nothing any more, unless its editor is still open:
        // then the removal waits for it to close (`removeNodes`).
        for document in held where (vaultNodes[document] == nil || !replica.documents.contains(document)) && !holds(document) {
            try released(document, of: project)
        }
        return written
    }

    /// Adds the nodes the records hold and the vault lacks, parents before children, in one walk:
    /// from each node up through its missing ancestors, then down again. The binder can be deeper
    /// than 32 (two devices' edits apart: `withinNesting`), and repeated passes over a chain whose
    /// ids descend would cost a pass per level (review 17 s10, on 1d698eb). A node whose chain
    /// reaches no held parent (one left out, or absent) is not added, nor is what is under it.
    private func addMissingNodes(_ missing: [NodeID: NodeValue], to vaultNodes: inout [NodeID: BinderNode],
                                 of project: WritingProject) throws {
        var stuck: Set<NodeID> = []
        for start in missing.keys.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            var chain: [NodeID] = [], onChain: Set<NodeID> = [], cursor: NodeID? = start
            while let id = cursor, vaultNodes[id] == nil, !stuck.contains(id), let value = missing[id],
                  onChain.insert(id).inserted {
                chain.append(id)
                guard case .present(_, let parent, _, _) = value else { break }
                cursor = parent
            }
            for (index, id) in chain.enumerated().reversed() {
                guard case .present(let kind, let parent, let orderKey, let title) = missing[id],
                      parent.map({ vaultNodes[$0] != nil }) ?? true else {
                    stuck.formUnion(chain[...index])
                    break
                }
                let under = Self.withinNesting(parent, vaultNodes)
                vaultNodes[id] = try store.addSyncedNode(id, kind, titled: title, in: project.id, under: under, orderKey: orderKey)
            }
        }
    }

    /// Where a node the records put under `parent` can go here: under `parent`, or when that would
    /// nest it deeper than the store keeps (`WritingLimits.maximumNesting`: two devices' honest
    /// moves and additions apart can together pass it), under `parent`'s ancestor one above the
    /// deepest level, so the node sits at that level (review 17 s8, F12). The store then differs
    /// from the records there, as after a move it cannot take (`moveIfPossible`): the next commit
    /// writes where the vault keeps it, so every device comes to keep the same binder.
    static func withinNesting(_ parent: NodeID?, _ vaultNodes: [NodeID: BinderNode]) -> NodeID? {
        var chain: [NodeID] = [], cursor = parent
        while let id = cursor, chain.count <= WritingLimits.maximumNesting {
            chain.append(id)
            cursor = vaultNodes[id]?.parent
        }
        guard chain.count >= WritingLimits.maximumNesting else { return parent }
        // chain: parent first, up to the top level; its node at depth d is chain[chain.count - d].
        return chain[chain.count - (WritingLimits.maximumNesting - 1)]
    }

    /// Writes `content` (as the records show the document) over `stored`, without what another project
    /// keeps here (`showable`). A block the store holds in another document of the project leaves it
    /// first, and that document is said `moving` (to be written again): a block over the store's bound
    /// is shown in pieces whose ids skip every block id of the project's records (§19.3), so a block
    /// the records give one document with the id of another's piece moves that piece's number (review
    /// 17 s9, N-s9-7), and the store must never refuse it.
    private func write(_ content: DocumentContent, of document: NodeID, stored: DocumentContent, in project: ProjectID,
                       moving moved: inout Set<NodeID>) throws {
        let shown = try showable(content, stored: stored, in: project)
        let here = Set(stored.blocks.map(\.id))
        for (block, other) in try store.documents(holdingBlocks: shown.blocks.map(\.id).filter { !here.contains($0) }, in: project)
        where other != document {
            try store.releaseSyncedBlock(block, of: project, to: project)
            moved.insert(other)
        }
        try store.replaceSyncedDocumentContent(of: document, in: project, with: shown)
    }

    /// Moves a node where the records put it; a move the binder cannot take (its parent is not
    /// here, or it would nest a folder under itself) leaves it where it is, for a later exchange.
    private func moveIfPossible(_ id: NodeID, under parent: NodeID?, orderKey: String, in project: WritingProject) throws {
        do { try store.moveSyncedNode(id, in: project.id, under: parent, orderKey: orderKey) } catch let error as WritingError
            where [.nodeNotFound, .wrongNodeKind, .moveIntoItself, .nestingTooDeep, .notInProject].contains(error.code) {}
    }

    /// Removes from the vault the nodes the records removed: documents (with their blocks,
    /// snapshots and branches) and folders, deepest first. A folder still holding something the
    /// records did not remove (a document made here and not committed yet) stays. A document whose
    /// removal someone else's device made stays too, recorded (`OwnersProject`, review 17 s8, F21):
    /// returned, in id order; and so does a document an open editor holds (SECURITY.md §19.9, review
    /// 20 F20-13: removing it would throw away the words the writer is typing), with its folders,
    /// until the editor closes (`writeReleased`).
    private func removeNodes(removedIn replica: inout SyncReplica, from vaultNodes: [NodeID: BinderNode], of project: WritingProject,
                             owners: OwnersProject, arrived: Set<[UInt8]>) throws -> [NodeID] {
        var kept: [NodeID] = []
        let removed = try vaultNodes.values.filter { replica.nodeValue($0.id) == .removed }
            .sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }.filter { node in
                guard node.kind == .scene else { return true }
                if holds(node.id) {
                    try held(node.id, of: project, stored: try store.documentContent(of: node.id, in: project.id))
                    kept.append(node.id)
                    return false
                }
                guard let refused = try replica.refusedRemoval(of: node.id, by: owners) else { return true }
                try owners.recordRefused("document-removal", winner: refused, history: replica.history, arrived: arrived,
                                         in: transaction, naming: [.init("document", node.id.hex)])
                kept.append(node.id)
                return false
            }
        let depth = { (node: BinderNode) -> Int in
            var depth = 0, parent = node.parent
            while let id = parent, depth <= WritingLimits.maximumNesting { depth += 1; parent = vaultNodes[id]?.parent }
            return depth
        }
        let deepestFirst = removed.map { (node: $0, depth: depth($0)) }.sorted { a, b in
            a.depth != b.depth ? a.depth > b.depth : a.node.id.bytes.lexicographicallyPrecedes(b.node.id.bytes)
        }
        for (node, _) in deepestFirst { _ = try removeFromVault(node.id, node.kind, of: project) }
        return kept.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// Removes `node` as the records removed it; false when it is a folder still holding something.
    /// A document's branches go with it; should the records bring it back, its conflicts' branches are made again.
    func removeFromVault(_ node: NodeID, _ kind: NodeKind, of project: WritingProject) throws -> Bool {
        let branches = kind == .scene ? try store.branches(of: node, in: project.id).map(\.id) : []
        do { try store.removeNode(node, in: project.id) } catch let error as WritingError where error.code == .folderNotEmpty { return false }
        for branch in branches {
            try database.query("DELETE FROM sync_conflict_branches WHERE project_id = ? AND branch_id = ?", [.blob(project.id.bytes), .blob(branch.bytes)])
        }
        return true
    }

    /// Keeps each conflict not kept before as a syncConflict branch of its document (SECURITY.md
    /// §15.3, merge-design §2). Its base is a snapshot of the document as this device now shows
    /// it, one per document per receive, shared by every branch made there; it proposes that
    /// document with the conflict's block alone replaced by the losing side (`ConflictBranchProposal`),
    /// stored as that one block (branch record version 2), and adopting it writes that block
    /// alone. Its id is the conflict's, so every device names it alike (a random one only if a
    /// branch of that id is here already: a peer's made branch of that id, which no honest device
    /// sends). What every device agrees on is what the records decide (id, block, losing and
    /// winning value); the rest of the proposal is this device's document. A conflict whose
    /// branch is gone (its document removed here by the owner, then brought back by the records:
    /// the store took the branches with it) is kept again, as when the records remove and bring
    /// back a document (`removeNodes`), so every device shows it.
    private func keepConflicts(of replica: inout SyncReplica, in project: WritingProject) throws -> Int {
        var made = 0
        let held = Set(try store.branchStatuses(in: project.id).map(\.id))
        var bases: [NodeID: (snapshot: SnapshotID, shown: DocumentContent, orderKeys: [BlockID: String])] = [:]
        for conflict in replica.conflicts() where replica.documents.contains(conflict.document) {
            if let row = try database.queryOne("SELECT branch_id FROM sync_conflict_branches WHERE conflict = ?", [.blob(conflict.branch.bytes)]) {
                guard !held.contains(try BranchID(bytes: try row.blob("branch_id"))) else { continue }
                try database.query("DELETE FROM sync_conflict_branches WHERE conflict = ?", [.blob(conflict.branch.bytes)])
            }
            // A document or block left out here (another project holds its id: VaultSync+OtherProjects)
            // has no branch here.
            guard try store.nodes([conflict.document], heldOutside: project.id).isEmpty,
                  try store.blocks([conflict.block], heldOutside: project.id).isEmpty else { continue }
            if bases[conflict.document] == nil {
                let snapshot = try store.createSnapshot(of: conflict.document, in: project.id)
                let keys = Dictionary(replica.orderedBlocks(of: conflict.document).map { ($0.block.id, $0.orderKey) }) { first, _ in first }
                bases[conflict.document] = (snapshot.id, try store.documentContent(of: conflict.document, in: project.id), keys)
            }
            guard let base = bases[conflict.document] else { continue }
            let oneBlock = ConflictBranchProposal.proposal(for: conflict, shown: base.shown, orderKeys: base.orderKeys)
            let proposal = oneBlock ?? ConflictBranchProposal.inPieces(conflict, shown: base.shown, orderKeys: base.orderKeys, besides: replica.holdsBlock)
            guard !proposal.blocks.isEmpty else { continue }
            let make = { (id: BranchID?) in
                try self.store.createBranch(of: conflict.document, in: project.id, base: base.snapshot, content: proposal, kind: .syncConflict,
                                            provenance: WritingStore.conflictProvenance + conflict.block.hex, id: id,
                                            block: oneBlock == nil ? nil : conflict.block)
            }
            let branch: Branch
            do { branch = try make(conflict.branch) } catch let error as WritingError where error.code == .invalidIdentifier { branch = try make(nil) }
            try database.query("INSERT INTO sync_conflict_branches (conflict, project_id, branch_id) VALUES (?, ?, ?)",
                               [.blob(conflict.branch.bytes), .blob(project.id.bytes), .blob(branch.id.bytes)])
            try transaction.record(.syncConflictBranch, compartment: project.compartment.id, subject: project.id,
                                   details: [.init("conflict", conflict.branch.hex), .init("branch", branch.id.hex),
                                             .init("document", conflict.document.hex), .init("block", conflict.block.hex)])
            made += 1
        }
        return made
    }
}
