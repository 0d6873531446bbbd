import CryptoVault
import Foundation

/// The writing model inside one vault transaction: projects, their binder of folders (Chapters)
/// and documents (Scenes), documents' blocks, and the entries beside them. Every change is made in
/// the transaction, with its audit entry; every name, title and text is a sealed record in the
/// project's compartment, and the clear columns hold only ids, order, kinds and parent links
/// (SECURITY.md §14).
///
/// Every call names the project: a node, block or entry id of another project is refused
/// (`.notInProject`), so an id pasted from elsewhere can never reach into the wrong compartment.
/// A refused call throws before it changes anything, and the transaction rolls back whatever a
/// later failure leaves.
public struct WritingStore {
    public let transaction: VaultTransaction
    public let access: RecordAccess
    /// The time rows and edit events are stamped with; a test passes its own to move time by hand
    /// (a writing session's gap, SECURITY.md §15.5).
    public let clock: VaultClock
    /// True in the store sync writes received changes with (`receivingChanges()`): what another
    /// device changed is written into a project shared with this one to view only, or archived
    /// here, as into any other.
    public private(set) var isReceiving = false
    /// What this store's transaction has fingerprinted already (`rememberWords`).
    let rememberedTexts = RememberedTexts()
    /// Each project's links as its records say, checked once by this store (`links(of:)`).
    let foundLinks = FoundLinks()
    /// The last base a one-block branch was made against or read from (`BranchBase`).
    let branchBase = BranchBase()

    public init(_ transaction: VaultTransaction, access: RecordAccess = .vault, clock: VaultClock = .system) {
        self.transaction = transaction
        self.access = access
        self.clock = clock
    }

    /// This store, writing what sync received from other devices (SECURITY.md §19.5): a project
    /// shared with this device to view only, or archived here, takes those changes, and refuses
    /// this device's own.
    public func receivingChanges() -> WritingStore {
        var store = self
        store.isReceiving = true
        return store
    }

    var projectTable: ProjectTable { ProjectTable(database: transaction.database) }
    var nodeTable: NodeTable { NodeTable(database: transaction.database) }
    var blockTable: BlockTable { BlockTable(database: transaction.database) }
    var entryTable: EntryTable { EntryTable(database: transaction.database) }
    var now: Int64 { clock.now() }

    // MARK: Projects

    /// Makes a project and its own compartment in this transaction, privileged when `privileged`
    /// says so or, when nil, when the register's privacy default does (Healthcare and Legal). The
    /// compartment is named `project <id>` (its name is not the project's, which is sealed in it and
    /// may change). Both commit with their entries (`compartment.create`, then
    /// `writing.project-create`) or not at all: no compartment is left without its project.
    public func createProject(named name: String, register: Register, kind: ProjectKind,
                              privileged: Bool? = nil) throws -> WritingProject {
        try createProject(named: name, register: register, kind: kind, privileged: privileged, details: [])
    }

    /// `createProject`, its entry with `details` after the register and kind (a kept project's origin).
    func createProject(named name: String, register: Register, kind: ProjectKind, privileged: Bool?,
                       details: [VaultEvent.Detail]) throws -> WritingProject {
        let name = try Self.checkedName(name, "a project name")
        let id = try ProjectID.random()
        let compartment = try transaction.createCompartment(named: "project \(id.hex)", register: register, privileged: privileged)
        let row = ProjectTable.Row(id: id, compartmentID: compartment.id, register: register, kind: kind,
                                   createdAt: now, archivedAt: nil)
        try projectTable.insert(row)
        let project = WritingProject(row, compartment: compartment)
        try sealName(name, of: project)
        try record(.writingProjectCreate, project, subject: project.id,
                   details: [.init("register", register.rawValue), .init("kind", kind.rawValue)] + details)
        return project
    }

    /// Every project, oldest first (names are sealed: `name(of:)` reads one). A project whose
    /// compartment was destroyed here (`vaultctl compartment destroy "project ID"`: the project
    /// shredded, SECURITY.md §14.1) is left out: nothing of it opens any more, and one shredded
    /// project must not stop every listing, sync and restore of the vault (review 17 s13, N-s13-1).
    /// So is a project whose row is damaged (`damagedProjects`), for the same reason (N-s14-8).
    public func projects() throws -> [WritingProject] {
        let destroyed = try transaction.compartmentsDestroyed()
        return try projectTable.all().compactMap { stored in
            guard case .whole(let row, _) = stored, destroyed[row.compartmentID] == false,
                  let compartment = try wholeCompartment(row.compartmentID) else { return nil }
            return Self.isMade(in: compartment, row.id) ? WritingProject(row, compartment: compartment) : nil
        }
    }

    /// Live compartment `id`, or nil when its own row in `compartments` is damaged (R15-9: one bit of
    /// its register failed the whole vault): that compartment's projects' damage alone
    /// (`DamagedProjectRow.compartmentRow`).
    private func wholeCompartment(_ id: CompartmentID) throws -> VaultCompartment? {
        do {
            return try transaction.compartment(withID: id)
        } catch let error as CryptoVaultError where error.code == .corruptVault {
            return nil
        }
    }

    /// Whether `compartment` is one project `id` is made in: named `project ID`, or `project ID
    /// (synced)`, as every maker of a project names it (`createProject`, `addSyncedProject`). A row
    /// whose compartment is named for another id has its id or its compartment id damaged (one
    /// flipped bit of either; reviewer15's V-2, V-3), and its name record is not in that compartment.
    static func isMade(in compartment: VaultCompartment, _ id: ProjectID) -> Bool {
        compartment.name == "project \(id.hex)" || compartment.name == "project \(id.hex) (synced)"
    }

    /// The rows of `writing_projects` that make no project (`DamagedProjectRow`), oldest first: each
    /// left out of `projects`, named by every command, mended by `vaultctl repair`. A shredded
    /// project's row is not among them, whatever else of it is damaged: nothing of it opens.
    public func damagedProjects() throws -> [DamagedProjectRow] {
        let destroyed = try transaction.compartmentsDestroyed()
        let stored = try projectTable.all()
        let held = Set(stored.compactMap { if case .whole(let row, _) = $0 { row.id } else { nil } })
        return try stored.compactMap { try damage(of: $0, destroyed: { destroyed[$0] }, held: held.contains) }
    }

    /// Project `id`'s row when it makes no project (`damagedProjects`); nil when whole, shredded or absent.
    public func damagedProject(_ id: ProjectID) throws -> DamagedProjectRow? {
        guard let stored = try projectTable.stored(id) else { return nil }
        return try damage(of: stored, destroyed: { try transaction.wasDestroyed(compartment: $0) },
                          held: { try projectTable.stored($0) != nil })
    }

    /// What is wrong with a stored row, given whether each compartment was destroyed (nil: no row
    /// of it) and whether a project id has a row. A whole row whose live compartment is named for
    /// another project has its id damaged when no row has that other id (the compartment names the
    /// project it was made for), else its compartment id.
    private func damage(of stored: ProjectTable.Stored, destroyed: (CompartmentID) throws -> Bool?,
                        held: (ProjectID) throws -> Bool) throws -> DamagedProjectRow? {
        let (id, compartment, rowid, found, lookup): (ProjectID?, CompartmentID?, Int64, [String], [UInt8]?) = switch stored {
        case .whole(let row, let rowid): (row.id, row.compartmentID, rowid, [], row.nameLookup)
        case .damaged(let damage): (damage.id, damage.compartmentID, damage.rowid, damage.columns, damage.nameLookup)
        }
        var columns = found
        var names: [String: String] = [:]
        if let compartment {
            switch try destroyed(compartment) {
            case true?:
                // Shredded, whatever else of the row is damaged; unless the project's own compartment
                // lives (`hasLiveCompartment`): the row names another, destroyed one.
                guard let id, try hasLiveCompartment(id) else { return nil }
                if !columns.contains("compartment_uuid") { columns.append("compartment_uuid") }
                names["compartment_uuid"] = "a compartment no longer live here while the project's own lives"
            case nil:
                if !columns.contains("compartment_uuid") { columns.append("compartment_uuid") }
                names["compartment_uuid"] = "no compartment of this vault"
            case false?:
                // A live compartment whose own row is damaged (R15-9), or named for another project (V-2, V-3, V-8).
                if try wholeCompartment(compartment) == nil {
                    columns.append(DamagedProjectRow.compartmentRow)
                } else if let id, !columns.contains("compartment_uuid"), let column = try misnamed(compartment, for: id, held: held) {
                    columns.append(column)
                    names[column] = column == "id" ? "no project this vault holds (its compartment was made for another id)"
                        : "another project's compartment"
                }
            }
        }
        return columns.isEmpty ? nil : DamagedProjectRow(id: id, compartmentID: compartment, columns: columns, rowid: rowid,
                                                         misnamed: names, nameLookup: lookup)
    }

    /// Which column of project `id`'s row is damaged when its live compartment is named for another
    /// project: its id when no row has the id the compartment names, else its compartment id; nil
    /// when the compartment is the project's.
    private func misnamed(_ compartmentID: CompartmentID, for id: ProjectID, held: (ProjectID) throws -> Bool) throws -> String? {
        let compartment = try transaction.compartment(withID: compartmentID)
        guard !Self.isMade(in: compartment, id) else { return nil }
        return try ProjectRowMend.projectID(namedIn: compartment.name).map { try !held($0) } == true ? "id" : "compartment_uuid"
    }

    /// Whether this vault holds project `id` with its compartment destroyed (shredded here): its rows
    /// stay, as the memory that it was, and sync never makes it again from an offer (`isShredded`).
    /// Only the compartment's own row says so: a compartment id that names no compartment here (one
    /// flipped bit) is damage, never a shred (review 17 s14, N-s14-9).
    public func isShredded(_ id: ProjectID) throws -> Bool {
        guard let compartment = try projectTable.stored(id)?.compartmentID else { return false }
        return try transaction.wasDestroyed(compartment: compartment) == true && !hasLiveCompartment(id)
    }

    /// Whether a live compartment is named for project `id` (`project ID`, `project ID (synced)`).
    /// Shredding a project destroys its compartment, which wipes the name; so a row naming a destroyed
    /// compartment while one named for its project lives names the wrong compartment (one the owner
    /// destroyed, pointed at by a hostile edit: reviewer15's V-6). Calling that a shred made `sync`
    /// tell the owner to destroy the last readable copy on the other device. A compartment the owner
    /// named so (V-1) makes a shredded project read as damaged instead, which loses nothing; `repair`
    /// takes only the compartment the project's name opens in.
    private func hasLiveCompartment(_ id: ProjectID) throws -> Bool { compartmentNamed(for: id) != nil }

    /// The live compartment named for project `id` (`isMade`), if one loads: what says a damaged
    /// row's project's register and privilege when its own row cannot (`sync status`, V-7).
    public func compartmentNamed(for id: ProjectID) -> VaultCompartment? {
        ["project \(id.hex)", "project \(id.hex) (synced)"].lazy.compactMap { try? transaction.vault.compartment(named: $0) }.first
    }

    /// Project `id`, refused when its row is damaged, its compartment destroyed, or a row of its
    /// own links elsewhere (`DamagedLink`: its documents would read short of words).
    public func project(_ id: ProjectID) throws -> WritingProject {
        let project = try projectIgnoringLinks(id)
        try checkLinks(of: project)
        return project
    }

    /// `project(_:)` without the check of its rows' links: for `LinkMend`, which puts them back.
    func projectIgnoringLinks(_ id: ProjectID) throws -> WritingProject {
        guard let row = try projectTable.row(id) else { throw WritingError(.projectNotFound, "no project \(id)") }
        do {
            guard let compartment = try wholeCompartment(row.compartmentID), Self.isMade(in: compartment, id) else { throw try damagedRowError(id) }
            return WritingProject(row, compartment: compartment)
        } catch let error as CryptoVaultError where error.code == .foreignBundle {
            // Destroyed: shredded, as before. Named nowhere in this vault: the row is damaged (N-s14-9).
            guard try transaction.wasDestroyed(compartment: row.compartmentID) == nil || hasLiveCompartment(id) else { throw error }
            throw try damagedRowError(id)
        }
    }

    /// The refusal of project `id` whose row makes no project, naming what `damagedProject` found.
    private func damagedRowError(_ id: ProjectID) throws -> WritingError {
        let problem = try damagedProject(id)?.problem ?? "the row of project \(id.hex) in writing_projects is damaged"
        return WritingError(.damagedRecord, problem + "; 'vaultctl repair' mends it")
    }

    /// The compartments of the projects whose rows make one (`projects`): none of them is another
    /// row's to take (`ProjectRowMend`).
    func compartmentsOfWholeProjects() throws -> Set<CompartmentID> {
        Set(try projects().map(\.compartment.id))
    }

    /// Whether project `id`'s sealed name opens in `compartment` (`ProjectRowMend`: the compartment
    /// is the project's only then; a compartment merely named for it, which `compartment create`
    /// can make, is not). The read is recorded as every read is.
    func nameOpens(of id: ProjectID, in compartment: VaultCompartment) -> Bool {
        let row = ProjectTable.Row(id: id, compartmentID: compartment.id, register: compartment.register, kind: .document, createdAt: 0, archivedAt: nil)
        return (try? name(of: WritingProject(row, compartment: compartment))) != nil
    }

    /// Writes the damaged columns of the row at `rowid` again (`ProjectRowMend`), recorded
    /// (`writing.project-row-mended`); the row must then make project `id`, or nothing is written.
    func rewriteProjectRow(_ rowid: Int64, of id: ProjectID, _ values: [(column: String, value: SQLValue)], from sources: String) throws {
        try LinksFoundWhole.forget(in: transaction)
        try projectTable.rewrite(rowid: rowid, values)
        let project = try self.project(id)
        try record(.writingProjectRowMended, project, subject: id,
                   details: [.init("columns", values.map(\.column).joined(separator: ",")), .init("from", sources)])
    }

    /// The project's name (a privileged project's needs a session of its compartment).
    public func name(of project: WritingProject) throws -> String {
        try openText([try WritingRecord.projectName(project.id)], of: project)[0]
    }

    public func rename(_ project: ProjectID, to name: String) throws {
        let name = try Self.checkedName(name, "a project name")
        let project = try writable(project)
        try sealName(name, of: project)
        try record(.writingProjectRename, project, subject: project.id)
    }

    /// Archives the project (or brings it back): it stays whole and readable, and refuses changes until unarchived.
    public func archive(_ id: ProjectID, _ archived: Bool = true) throws {
        let project = try self.project(id)
        try checkNotViewOnly(project)
        try projectTable.setArchived(id, at: archived ? now : nil)
        try record(.writingProjectArchive, project, subject: id, details: [.init("archived", archived ? "yes" : "no")])
    }

    /// Changes the project's register: labels and visibility only, no record is touched.
    public func setRegister(_ id: ProjectID, _ register: Register) throws {
        let project = try writable(id)
        try projectTable.setRegister(id, register)
        try record(.writingProjectRegister, project, subject: id, details: [.init("register", register.rawValue)])
    }

    // MARK: The binder

    /// Adds a folder or document titled `title` under `parent` (the top level when nil), before
    /// `sibling` or at the end. A parent that is a document, or past the nesting limit, is refused.
    public func addNode(_ kind: NodeKind, titled title: String, in projectID: ProjectID, under parent: NodeID? = nil,
                        before sibling: NodeID? = nil) throws -> BinderNode {
        let title = try Self.checkedName(title, "a title")
        let project = try writable(projectID)
        let binder = try self.binder(of: project)
        if let parent { try checkFolder(parent, in: binder, project: project) }
        let depth = parent.map { binder.depth(of: $0) + 1 } ?? 1
        guard depth <= WritingLimits.maximumNesting else {
            throw WritingError(.nestingTooDeep, "folders nest at most \(WritingLimits.maximumNesting) deep")
        }
        let row = NodeTable.Row(id: try NodeID.random(), kind: kind, parent: parent,
                                orderKey: try binder.orderKey(under: parent, before: try sibling.map { try checkNode($0, in: binder, project: project).id }),
                                createdAt: now)
        try nodeTable.insert(row, in: projectID)
        try seal(Array(title.utf8), at: try WritingRecord.nodeTitle(row.id), of: project)
        try record(.writingNodeAdd, project, subject: row.id, details: [.init("kind", kind.rawValue)])
        return BinderNode(row, title: title)
    }

    /// The binder in reading order (depth first, siblings by order key), titles opened.
    public func nodes(in projectID: ProjectID) throws -> [BinderNode] {
        let project = try self.project(projectID)
        let ordered = try binder(of: project).ordered().map(\.row)
        let titles = try openText(try ordered.map { try WritingRecord.nodeTitle($0.id) }, of: project)
        return zip(ordered, titles).map { BinderNode($0, title: $1) }
    }

    /// One node, its title opened; an id of another project is refused (`.notInProject`).
    public func node(_ id: NodeID, in projectID: ProjectID) throws -> BinderNode {
        let project = try self.project(projectID)
        let row = try checkNode(id, in: try binder(of: project), project: project)
        return BinderNode(row, title: try openText([try WritingRecord.nodeTitle(id)], of: project)[0])
    }

    /// The binder's structure without opening a title: ids, kinds, parents, order keys and depths.
    public func outline(of projectID: ProjectID) throws -> [(id: NodeID, kind: NodeKind, parent: NodeID?, depth: Int)] {
        try binder(of: try project(projectID)).ordered().map { ($0.row.id, $0.row.kind, $0.row.parent, $0.depth) }
    }

    public func renameNode(_ id: NodeID, in projectID: ProjectID, to title: String) throws {
        let title = try Self.checkedName(title, "a title")
        let project = try writable(projectID)
        _ = try checkNode(id, in: try binder(of: project), project: project)
        try seal(Array(title.utf8), at: try WritingRecord.nodeTitle(id), of: project)
        try record(.writingNodeRename, project, subject: id)
    }

    /// Moves a node under `parent` (the top level when nil), before `sibling` or at the end. It keeps
    /// its id, title and content, and everything under it moves with it; only its own row changes.
    /// A folder moved under itself or its own descendant is refused (`.moveIntoItself`).
    public func moveNode(_ id: NodeID, in projectID: ProjectID, under parent: NodeID?, before sibling: NodeID? = nil) throws {
        let project = try writable(projectID)
        let binder = try self.binder(of: project)
        try checkMove(id, under: parent, in: binder, project: project)
        if let sibling, sibling == id { throw WritingError(.moveIntoItself, "an item cannot be placed before itself") }
        let key = try binder.orderKey(under: parent, before: try sibling.map { try checkNode($0, in: binder, project: project).id }, moving: id)
        try nodeTable.move(id, under: parent, orderKey: key)
        try record(.writingNodeMove, project, subject: id)
    }

    /// Removes a document with its blocks, or an empty folder (a folder with anything in it is refused).
    public func removeNode(_ id: NodeID, in projectID: ProjectID) throws {
        let project = try writable(projectID)
        let binder = try self.binder(of: project)
        let row = try checkNode(id, in: binder, project: project)
        guard binder.children(of: id).isEmpty else {
            throw WritingError(.folderNotEmpty, "the folder is not empty: move or remove what is in it first")
        }
        try removeRow(row, of: project, details: [.init("kind", row.kind.rawValue)])
    }

    /// Removes a node (a document with its blocks, branches and snapshots), recorded with `details`.
    func removeRow(_ row: NodeTable.Row, of project: WritingProject, details: [VaultEvent.Detail]) throws {
        if row.kind == .scene {
            for block in try blockRows(in: row.id, of: project) {
                try blockTable.delete(block.id)
                try remove(try WritingRecord.block(block.id), of: project)
            }
            try removeBranches(of: row.id, in: project)
            try removeSnapshots(of: row.id, in: project)
        }
        try nodeTable.delete(row.id)
        try remove(try WritingRecord.nodeTitle(row.id), of: project)
        try record(.writingNodeRemove, project, subject: row.id, details: details)
    }

    // MARK: Checks

    /// The project's binder; a node another project's record claims (`strays`) is not in it.
    func binder(of project: WritingProject) throws -> Binder {
        let strays = try strays(in: project, .nodes)
        return try Binder(try nodeTable.all(in: project.id).filter { !strays.contains($0.id.bytes) })
    }

    /// The project, refused if archived (it is kept as it was) or, unless `receiving` (what sync
    /// writes of another device's changes), if it is shared with this device to view only. The
    /// archive locks this device's own changes only: the store sync receives with writes what
    /// another device changed meanwhile (review 17 s11, N-s11-2: refused, the own device that
    /// archived and the one that edited split for good while the project stayed archived).
    func writable(_ id: ProjectID, receiving: Bool = false) throws -> WritingProject {
        let project = try self.project(id)
        guard !project.isArchived || isReceiving else {
            throw WritingError(.projectArchived, "project \(id) is archived: unarchive it to change it")
        }
        if !receiving && !isReceiving { try checkNotViewOnly(project) }
        return project
    }

    /// Refuses any change of a project shared with this device to view only (its owner would refuse
    /// it at the next sync, and the words would stay here unseen), recording the refusal: it stands
    /// though the transaction rolls back (`recordRefusal`).
    func checkNotViewOnly(_ project: WritingProject) throws {
        guard project.isViewOnly else { return }
        try transaction.recordRefusal(.writingChange, compartment: project.compartment.id, subject: project.id.bytes,
                                      details: [.init("reason", "view-only")])
        throw WritingError(.viewOnly, "this project is shared with you to view only (its owner's device takes no changes from this one), "
                           + "or, after a repair, a restore-backup or a recover, waits for this device's own records of it to come back from your other own devices "
                           + "(the command said so; 'vaultctl sync now --peer DEVICE' with your own device brings them): nothing was changed")
    }

    /// The node's row, refusing an id of another project or none.
    func checkNode(_ id: NodeID, in binder: Binder, project: WritingProject) throws -> NodeTable.Row {
        if let row = binder.rows[id] { return row }
        if try nodeTable.project(of: id) != nil {
            throw WritingError(.notInProject, "\(id) belongs to another project")
        }
        throw WritingError(.nodeNotFound, "no document or folder \(id) in the project")
    }

    /// Refuses a move of `id` under `parent` (nil: the top level) that the binder cannot take: a node
    /// or folder of another project or none, a folder moved under itself or one of its own, or a move
    /// that nests folders deeper than `WritingLimits.maximumNesting`. Local and synced moves alike.
    func checkMove(_ id: NodeID, under parent: NodeID?, in binder: Binder, project: WritingProject) throws {
        _ = try checkNode(id, in: binder, project: project)
        guard let parent else { return }
        try checkFolder(parent, in: binder, project: project)
        guard !binder.isWithin(parent, id) else {
            throw WritingError(.moveIntoItself, "a folder cannot move under itself or under one of its own folders")
        }
        guard binder.depth(of: parent) + binder.height(of: id) <= WritingLimits.maximumNesting else {
            throw WritingError(.nestingTooDeep, "the move would nest folders deeper than \(WritingLimits.maximumNesting)")
        }
    }

    func checkFolder(_ id: NodeID, in binder: Binder, project: WritingProject) throws {
        guard try checkNode(id, in: binder, project: project).kind == .chapter else {
            throw WritingError(.wrongNodeKind, "\(id) is a document, not a folder: nothing can be put in it")
        }
    }

    /// A name or title as people type it: NFC, 1 to `maximumNameBytes` bytes, no control characters, no edge spaces.
    static func checkedName(_ typed: String, _ role: String) throws(WritingError) -> String {
        let name = typed.precomposedStringWithCanonicalMapping
        guard (1...WritingLimits.maximumNameBytes).contains(name.utf8.count) else {
            throw WritingError(.invalidName, "\(role) must be 1 to \(WritingLimits.maximumNameBytes) bytes long")
        }
        guard !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }),
              name.trimmingCharacters(in: .whitespaces) == name else {
            throw WritingError(.invalidName, "\(role) may not hold control characters or start or end with a space")
        }
        return name
    }

    /// Whether `name` is a name or title as the store keeps it (`checkedName` takes it unchanged:
    /// NFC already), so that a reader of names from elsewhere (a peer's change record) can refuse
    /// what the store would refuse, before anything is written.
    public static func isKeptName(_ name: String) -> Bool {
        guard let checked = try? checkedName(name, "a name") else { return false }
        return Array(checked.utf8) == Array(name.utf8)
    }

    /// Records a change of `project` (or its search) in the transaction. A change is noted for readers
    /// that hold what the project's documents were (`WritingChangeMarks`: the kept search index
    /// re-indexes the documents it names at the next search, sync's replica reads them again), and
    /// one of the whole project that may touch any document's text drops the kept search index
    /// (`SearchIndexCache`): every write of the store is recorded here.
    func record<Kind>(_ action: AuditAction, _ project: WritingProject, subject: TypedIdentifier<Kind>, details: [VaultEvent.Detail] = []) throws {
        if action != .writingSearch {
            let anyDocument = subject.bytes == project.id.bytes && !Self.actionsLeavingDocuments.contains(action)
            SearchIndexCache.shared.written(project.id, in: transaction, anyDocument: anyDocument)
            WritingChangeMarks.shared.written(project.id, subject: subject.bytes, in: transaction)
        }
        try transaction.record(action, compartment: project.compartment.id, subject: subject, details: details)
    }
}

extension WritingProject {
    init(_ row: ProjectTable.Row, compartment: VaultCompartment) {
        self.init(id: row.id, register: row.register, kind: row.kind, compartment: compartment, createdAt: row.createdAt,
                  archivedAt: row.archivedAt, isViewOnly: row.viewOnly)
    }
}

extension BinderNode {
    init(_ row: NodeTable.Row, title: String) {
        self.init(id: row.id, kind: row.kind, parent: row.parent, orderKey: row.orderKey, title: title, createdAt: row.createdAt)
    }
}

extension UnlockedVault {
    /// Makes a project and its own compartment in one transaction (`WritingStore.createProject`).
    public func createWritingProject(named name: String, register: Register, kind: ProjectKind,
                                     privileged: Bool? = nil) throws -> WritingProject {
        try transaction { tx in try WritingStore(tx).createProject(named: name, register: register, kind: kind, privileged: privileged) }
    }
}
