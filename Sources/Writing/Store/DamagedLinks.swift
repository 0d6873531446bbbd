import CryptoVault

/// A row of `writing_nodes`, `writing_entries`, `writing_branches` or `writing_blocks` whose link
/// (its `project_id`, or a block's `node_id`) does not say where its sealed record is (reviewer15's
/// R15-2, R15-3, R15-5, R15-6; SECURITY.md §14.2, "Links"): one flipped bit makes it name no project
/// or no document, a hostile edit names another project. The record is sealed in its project's
/// compartment (the compartment's uuid is in the record's associated data, §4.8), so the record says
/// whose the row is. It is that project's damage: every command of the project is refused (exit 65),
/// naming it and `vaultctl repair`, so nothing reads a document short of a block (and takes a
/// version of the loss as if the writer made it) or a binder short of a document; the project the
/// row names now, when there is one, reads as if the row were not there; `LinkMend` puts it back.
public struct DamagedLink: Sendable, Equatable {
    public enum Table: String, Sendable, CaseIterable {
        case nodes = "writing_nodes", entries = "writing_entries", branches = "writing_branches", blocks = "writing_blocks"

        /// The column that links the row.
        var column: String { self == .blocks ? "node_id" : "project_id" }

        /// The field of the row's sealed record that says which compartment holds it (a branch's
        /// first part: every branch has one, `BranchRecord`).
        var field: String {
            switch self {
            case .nodes: "title"
            case .entries: "entry"
            case .branches: "part-0"
            case .blocks: "block"
            }
        }

        /// What a row of the table is, in a message.
        var noun: String {
            switch self {
            case .nodes: "document or folder"
            case .entries: "entry"
            case .branches: "branch"
            case .blocks: "block"
            }
        }

        func location(of id: [UInt8]) throws -> SealedRecordLocation {
            try SealedRecordLocation(module: WritingRecord.module, table: rawValue, recordID: id, field: field)
        }
    }

    public let table: Table
    /// The row's own id (16 bytes) and rowid.
    public let id: [UInt8]
    public let rowid: Int64
    /// The project whose compartment holds the row's sealed record: whose the row is.
    public let owner: ProjectID
    /// What the link column holds now (a project's or a document's id, or bytes naming none).
    public let named: [UInt8]
    /// Whether `named` names a row of the table it links to (a hostile move into another project).
    public let namesARow: Bool
    /// A block's position (nil for the other tables).
    public let position: Int64?

    public var column: String { table.column }

    /// What is wrong, ids and table names only.
    public var problem: String {
        let what = table == .blocks ? (namesARow ? "another project's document" : "no document")
            : (namesARow ? "project \(Self.hex(named))" : "no project")
        return "\(table.noun) \(Self.hex(id)) (\(table.rawValue).\(column)) names \(what), "
            + "but its sealed record is in this project's compartment"
    }

    public static func hex(_ bytes: [UInt8]) -> String { bytes.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined() }
}

/// The damaged links of one project (`DamagedLink.owner`), for its refusal and its warning.
public struct ProjectLinkDamage: Sendable, Equatable {
    public let project: ProjectID
    public let links: [DamagedLink]

    public var problem: String {
        let shown = links.prefix(3).map(\.problem).joined(separator: "; ")
        let more = links.count > 3 ? "; and \(links.count - 3) more" : ""
        return "project \(project.hex) is damaged: \(links.count) of its row(s) link elsewhere (\(shown)\(more)), "
            + "so its documents would read short of words"
    }

    /// `problem`, with what it means and what mends it.
    public var warning: String {
        problem + ": none of it is read until 'vaultctl repair' puts them back"
    }
}

/// A row as its table's owner reads it for the link check: its rowid, id, link and (a block's) position.
struct LinkedRow {
    let rowid: Int64
    let id: [UInt8]
    let named: [UInt8]
    let position: Int64?

    init(_ row: CryptoVault.Row, link column: String) throws {
        rowid = try row.integer("rowid")
        id = try row.blob("id")
        named = try row.blob(column)
        position = if case .integer(let value) = row["position"] { value } else { nil }
    }
}

/// One project's links as its records say (`WritingStore.links(of:)`): its rows that link elsewhere,
/// and the rows that link to it though their records are another compartment's (read as absent).
struct ProjectLinks {
    let damaged: [DamagedLink]
    let strays: [DamagedLink.Table: Set<[UInt8]>]

    /// No damage and no stray: what `LinksFoundWhole` keeps.
    static let whole = ProjectLinks(damaged: [], strays: [:])

    var isWhole: Bool { damaged.isEmpty && strays.values.allSatisfy(\.isEmpty) }
}

/// Each store checks a project's links once: every door of a project asks, and a store lives inside
/// one transaction, whose writers only add rows linked where their records are (and `LinkMend`,
/// which changes links, asks nothing before it does).
final class FoundLinks {
    var byProject: [ProjectID: ProjectLinks] = [:]
}

extension WritingStore {
    /// Project `id`'s damaged links, nil when it has none (or it is not a whole project).
    public func linkDamage(of id: ProjectID) throws -> ProjectLinkDamage? {
        let links = try links(of: try projectIgnoringLinks(id)).damaged
        return links.isEmpty ? nil : ProjectLinkDamage(project: id, links: links)
    }

    /// Every whole project's damaged links, by project (every unlock's warning; `LinkMend`).
    public func linkDamages() throws -> [ProjectLinkDamage] {
        try projects().compactMap { project in
            let links = try links(of: project).damaged
            return links.isEmpty ? nil : ProjectLinkDamage(project: project.id, links: links)
        }
    }

    /// Refuses a project with damaged links (`.damagedRecord`), naming it and what mends it.
    func checkLinks(of project: WritingProject) throws {
        let links = try links(of: project).damaged
        guard !links.isEmpty else { return }
        throw WritingError(.damagedRecord, ProjectLinkDamage(project: project.id, links: links).problem + "; 'vaultctl repair' mends it")
    }

    /// The ids of rows of `table` that link to `project` though another compartment holds their
    /// records: read as absent, so one project's damage never breaks another (R15-6).
    func strays(in project: WritingProject, _ table: DamagedLink.Table) throws -> Set<[UInt8]> {
        try links(of: project).strays[table] ?? []
    }

    /// A document's blocks in reading order; one whose record another compartment holds (`strays`:
    /// moved here by a hostile edit) is not among them, so it never breaks this project's reads.
    func blockRows(in document: NodeID, of project: WritingProject) throws -> [BlockTable.Row] {
        let strays = try strays(in: project, .blocks)
        return try blockTable.all(in: document).filter { !strays.contains($0.id.bytes) }
    }

    /// `project`'s links, checked once per store (`FoundLinks`), and not again while its connection
    /// keeps them found whole (`LinksFoundWhole`: no other connection has committed since).
    func links(of project: WritingProject) throws -> ProjectLinks {
        if let found = foundLinks.byProject[project.id] { return found }
        if LinksFoundWhole.holds(project, in: transaction) {
            foundLinks.byProject[project.id] = .whole
            return .whole
        }
        let found = try findLinks(of: project)
        if found.isWhole { LinksFoundWhole.keep(project, in: transaction) }
        foundLinks.byProject[project.id] = found
        return found
    }

    /// `project`'s links as its rows and records say now, never a kept verdict (tests compare the two).
    func linksFoundAgain(of project: WritingProject) throws -> ProjectLinks {
        try findLinks(of: project)
    }

    /// Compares the rows `project`'s compartment holds records of (by the compartment's index, so
    /// the cost is the project's, never the vault's) with the rows linking to it: a row whose record
    /// is here and whose link is not is its damage; a row linking here whose record is in another
    /// compartment is a stray. A block's link is right when it names a document whose record is here.
    private func findLinks(of project: WritingProject) throws -> ProjectLinks {
        let fields = Dictionary(uniqueKeysWithValues: DamagedLink.Table.allCases.map { ($0.rawValue, $0.field) })
        let records = try transaction.recordIDs(ofModule: WritingRecord.module, fields: fields, in: project.compartment)
        let documents = records[DamagedLink.Table.nodes.rawValue] ?? []
        var damaged: [DamagedLink] = []
        var strays: [DamagedLink.Table: Set<[UInt8]>] = [:]
        for table in DamagedLink.Table.allCases {
            let linksHere: ([UInt8]) -> Bool = table == .blocks ? { documents.contains($0) } : { $0 == project.id.bytes }
            let own = records[table.rawValue] ?? []
            // No branch record and no branches table: a writing module before `versions-2` (BranchMigrationTests).
            if table == .branches, own.isEmpty, try !branchTable.isPresent() { continue }
            let reached = Dictionary(try linkedRows(of: table, in: project.id).map { ($0.id, $0) }) { first, _ in first }
            damaged += try own.filter { !(reached[$0].map { linksHere($0.named) } ?? false) }
                .compactMap { id in try reached[id] ?? linkedRow(of: table, id) }
                .filter { !linksHere($0.named) }.sorted { $0.rowid < $1.rowid }
                .map { row in
                    DamagedLink(table: table, id: row.id, rowid: row.rowid, owner: project.id, named: row.named,
                                namesARow: try namesARow(row.named, table), position: row.position)
                }
            strays[table] = Set(try reached.values.filter { linksHere($0.named) && !own.contains($0.id) }.filter { row in
                let holder = try transaction.recordCompartmentRowID(at: try table.location(of: row.id))
                return holder.map { $0 != project.compartment.rowID } ?? false
            }.map(\.id))
        }
        return ProjectLinks(damaged: damaged, strays: strays)
    }

    /// The rows of `table` linking to `project`: its nodes and entries by `project_id`, the blocks
    /// and branches of its documents by `node_id` (the tables' indexes).
    private func linkedRows(of table: DamagedLink.Table, in project: ProjectID) throws -> [LinkedRow] {
        switch table {
        case .nodes: try nodeTable.linkedRows(in: project)
        case .entries: try entryTable.linkedRows(in: project)
        case .branches: try branchTable.linkedRows(inDocumentsOf: project)
        case .blocks: try blockTable.linkedRows(inDocumentsOf: project)
        }
    }

    private func linkedRow(of table: DamagedLink.Table, _ id: [UInt8]) throws -> LinkedRow? {
        switch table {
        case .nodes: try nodeTable.linkedRow(id)
        case .entries: try entryTable.linkedRow(id)
        case .branches: try branchTable.linkedRow(id)
        case .blocks: try blockTable.linkedRow(id)
        }
    }

    /// Whether `named` is the id of a row of the table `table` links to (a project, or a block's document).
    private func namesARow(_ named: [UInt8], _ table: DamagedLink.Table) throws -> Bool {
        if table == .blocks { return try nodeTable.linkedRow(named) != nil }
        guard let project = try? ProjectID(bytes: named) else { return false }
        return try projectTable.stored(project) != nil
    }
}
