import Writing

/// A document here that `vaultctl repair --from DEVICE` would replace with other words, or drop
/// (SECURITY.md §19.10; review 17 s9, N-s9-6): its content here differs from what DEVICE's records
/// make of it and holds a block DEVICE's records never had so, or DEVICE's records do not hold it
/// (written here, never synced). The repair names each one and is refused unless the owner passes
/// --discard-local; then its words here are only in the kept copy (`vaultctl doc show PROJECT DOC
/// --vault KEPT --read-only` reads them). A device that is only behind (its document a text some
/// earlier record of DEVICE's had, block by block) loses nothing to the repair: those words are in
/// the records it is rebuilt from (review 20, F20-8: such a device was refused).
public struct LocalDocumentAtRisk: Sendable, Equatable {
    public let project: ProjectID
    public let document: NodeID
    /// The document's title; nil for a privileged project's, which no message carries.
    public let title: String?
    /// DEVICE's records do not hold the document at all.
    public let lackedByDevice: Bool

    /// Each document of `project` that `store` holds with other words than `replica` (DEVICE's
    /// records) shows, one of its blocks with a kind, cells and text no write of that block in the
    /// records had, or that the records lack. Only what can be read here is compared: a store or a
    /// document that cannot be read (the damage being repaired) has nothing readable to lose here,
    /// and the kept copy holds it as it was.
    static func find(in project: WritingProject, store: WritingStore, replica: inout SyncReplica) -> [LocalDocumentAtRisk] {
        guard let nodes = try? store.nodes(in: project.id) else { return [] }
        var found: [LocalDocumentAtRisk] = []
        for node in nodes where node.kind == .scene {
            guard let here = try? store.documentContent(of: node.id, in: project.id) else { continue }
            let lacked = replica.binder[node.id] == nil
            guard lacked || (words(of: here) != words(of: replica.content(of: node.id)) && !replica.heldAsWritten(here)) else { continue }
            found.append(LocalDocumentAtRisk(project: project.id, document: node.id, title: project.isPrivileged ? nil : node.title,
                                             lackedByDevice: lacked))
        }
        return found
    }

    /// What a reader sees of a document: each block's kind, text and cells, not the ids it goes by
    /// (a re-based block has a new id with the same words, §19.2).
    private static func words(of content: DocumentContent) -> [[String]] {
        content.blocks.map { ["\($0.kind)", $0.text] + $0.rows.map { $0.joined(separator: "\u{1F}") } }
    }

    /// How a message names it: its title and id, or the id alone for a privileged project's.
    public var named: String {
        let what = title.map { "'\($0)' (\(document.hex))" } ?? "document \(document.hex)"
        return "\(what) of project \(project.hex)" + (lackedByDevice ? ", which the device does not hold" : "")
    }
}

extension SyncReplica {
    /// Whether every block of `content` is, by its id, a block some write in the records left so
    /// (its kind, cells and text): the records hold each of its words where it stands here.
    mutating func heldAsWritten(_ content: DocumentContent) -> Bool {
        content.blocks.allSatisfy { block in withBlockRegister(block.id) { $0.someWriteShowed(block) } ?? false }
    }
}
