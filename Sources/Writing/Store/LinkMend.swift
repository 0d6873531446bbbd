import CryptoVault
import PrivilegedSession

/// `vaultctl repair` for rows that link elsewhere (`DamagedLink`; reviewer15's R15-2, R15-3, R15-5,
/// R15-6): each put back where its sealed record says it is, in one audited transaction per project
/// (`writing.link-mended` per row: table, row, column, from). Never from the link itself, which is
/// what is damaged:
/// - a node's, an entry's or a branch's project: the project whose compartment its record opens in
///   (the compartment's uuid is in the record's associated data, §4.8: it opens nowhere else);
/// - a block's document: its record opens in the project's compartment, and of that project's
///   documents (its links mended first) the one it completes: the blocks' positions, its own with
///   those of the other blocks naming the same missing document, fill the document's 0 to n−1 with
///   none twice; of several such, the one whose latest version lists the block's id, else the one
///   whose id the damaged `node_id` differs from in at most `nearBits` bits (a flipped bit makes such
///   a value; another random id is never that near). With none, or several still, the block is not
///   put back, and `repair` says why.
public enum LinkMend {
    /// One row put back, or why not.
    public struct Outcome: Sendable, Equatable {
        public let link: DamagedLink
        /// Where it was put: a project's or a document's id (nil when not mended).
        public let mendedTo: [UInt8]?
        public let notMended: String?
    }

    /// The most bits a damaged `node_id` may differ from its document's id to say which it is.
    static let nearBits = 8

    public static func mend(_ vault: UnlockedVault) throws -> [Outcome] {
        let damages = try vault.transaction { tx in try WritingStore(tx).linkDamages() }
        return damages.flatMap { damage in
            do { return try mend(damage, in: vault) } catch {
                let code = (error as? WritingError)?.code.rawValue ?? (error as? CryptoVaultError)?.code.rawValue ?? "unreadable"
                return damage.links.map { Outcome(link: $0, mendedTo: nil, notMended: "it could not be written again (\(code))") }
            }
        }
    }

    /// One project's rows, in one transaction: projects first, then blocks (their documents may be
    /// nodes just put back).
    private static func mend(_ damage: ProjectLinkDamage, in vault: UnlockedVault) throws -> [Outcome] {
        let compartment = try vault.transaction { tx in try WritingStore(tx).projectIgnoringLinks(damage.project).compartment }
        let session = compartment.isPrivileged
            ? try PrivilegedProcessingSession.start(vault: vault, compartment: compartment, actor: "repair", purpose: "put back rows that link elsewhere")
            : nil
        defer { try? session?.end() }
        let access: RecordAccess = session.map { .session($0) } ?? .vault
        return try vault.transaction { tx in
            let store = WritingStore(tx, access: access)
            let project = try store.projectIgnoringLinks(damage.project)
            let ordered = damage.links.filter { $0.table != .blocks } + damage.links.filter { $0.table == .blocks }
            return try ordered.map { link in try store.mendLink(link, ordered.filter { $0.table == .blocks }, of: project) }
        }
    }
}

extension WritingStore {
    /// Puts `link` back (`LinkMend`), recorded; `blocks` are the project's blocks naming a missing
    /// document, which a block's document must take together.
    func mendLink(_ link: DamagedLink, _ blocks: [DamagedLink], of project: WritingProject) throws -> LinkMend.Outcome {
        let unmended = { (why: String) in LinkMend.Outcome(link: link, mendedTo: nil, notMended: why) }
        let location = try SealedRecordLocation(module: WritingRecord.module, table: link.table.rawValue, recordID: link.id, field: link.table.field)
        guard (try? open([location], of: project) { _, _ in () }) != nil else {
            return unmended("its sealed record does not open in the project's compartment, so nothing says whose it is")
        }
        let found: ([UInt8], String)? = link.table == .blocks
            ? try document(completedBy: link, blocks, in: project)
            : (project.id.bytes, "sealed-record")
        guard let found else {
            return unmended("no one document of the project is completed by it (by the blocks' positions and the damaged document id)")
        }
        let (value, from) = found
        try LinksFoundWhole.forget(in: transaction)
        try setLink(link, to: value)
        try record(.writingLinkMended, project, subject: project.id,
                   details: [.init("table", link.table.rawValue), .init("row", DamagedLink.hex(link.id)),
                             .init("column", link.column), .init("from", from)])
        return LinkMend.Outcome(link: link, mendedTo: value, notMended: nil)
    }

    /// The document of `project` that block `link` and the others naming the same missing document
    /// complete, and what said so (`LinkMend`); nil when no one document does.
    private func document(completedBy link: DamagedLink, _ blocks: [DamagedLink], in project: WritingProject) throws -> ([UInt8], String)? {
        // The blocks naming the same missing document still (those put back already name theirs).
        let missing = try blocks.filter { try blockTable.linkedRow($0.id)?.named == link.named }.compactMap(\.position)
        var fitting: [NodeID] = []
        for node in try nodeTable.all(in: project.id) where node.kind == .scene {
            let positions = try blockRows(in: node.id, of: project).map { Int64($0.position) } + missing
            if positions.sorted() == Array(0..<Int64(positions.count)) { fitting.append(node.id) }
        }
        if fitting.count == 1 { return (fitting[0].bytes, "sealed-record,positions") }
        let listed = try fitting.filter { try latestVersion(of: $0, in: project, lists: link.id) }
        if listed.count == 1 { return (listed[0].bytes, "sealed-record,positions,version") }
        let near = fitting.filter { Self.bitsApart($0.bytes, link.named) <= LinkMend.nearBits }
        return near.count == 1 ? (near[0].bytes, "sealed-record,positions,node-id-bits") : nil
    }

    /// Whether `document`'s latest version lists block `id` (a version keeps its blocks' ids, §15.2;
    /// ids are random, so no other document's version lists it).
    private func latestVersion(of document: NodeID, in project: WritingProject, lists id: [UInt8]) throws -> Bool {
        guard let row = try snapshotTable.latest(of: document) else { return false }
        return try SnapshotContent.decode(try contentBytes(of: row, in: project)).blocks.contains { $0.id.bytes == id }
    }

    /// Writes `link`'s column again, through its table's owner.
    private func setLink(_ link: DamagedLink, to value: [UInt8]) throws {
        switch link.table {
        case .nodes: try nodeTable.setProject(ofRowid: link.rowid, to: value)
        case .entries: try entryTable.setProject(ofRowid: link.rowid, to: value)
        case .branches: try branchTable.setProject(ofRowid: link.rowid, to: value)
        case .blocks: try blockTable.setDocument(ofRowid: link.rowid, to: value)
        }
    }

    static func bitsApart(_ a: [UInt8], _ b: [UInt8]) -> Int {
        guard a.count == b.count else { return Int.max }
        return zip(a, b).reduce(0) { $0 + ($1.0 ^ $1.1).nonzeroBitCount }
    }
}
