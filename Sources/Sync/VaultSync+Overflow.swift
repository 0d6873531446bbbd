import CryptoVault
import Writing

/// A document's blocks past the store's bound, kept in overflow branches (SECURITY.md §19.3,
/// `DocumentOverflow`; review 17 s8, F12): what the document does not show is proposed by
/// syncConflict branches every device names alike, so `vaultctl conflicts` lists it and no word is lost.
extension VaultSync {
    static let overflowProvenance = "sync: blocks past the document's bound of 16 MiB"

    /// Keeps each overflow branch the records make for the documents in `only` (every document when
    /// nil) and this vault does not hold yet: a syncConflict branch of the document against a
    /// snapshot of it as it now is, proposing the blocks past the bound (`SyncReplica.overflow`),
    /// named as the records name it (a random id only if a branch of that id is here already), listed
    /// in `sync_conflict_branches` under that name, so it is never sent as made (each device makes its
    /// own) and its decisions travel under the name, as a conflict's do. A document this vault does
    /// not hold (left out, or not added) makes none. Returns how many it made.
    func keepOverflows(of replica: inout SyncReplica, in project: WritingProject, only: Set<NodeID>?) throws -> Int {
        var made = 0, held: Set<BranchID>?
        for document in replica.documents where only?.contains(document) ?? true {
            let overflow = replica.overflow(of: document)
            guard !overflow.isEmpty, try store.nodes([document], heldOutside: project.id).isEmpty,
                  try store.nodes(in: project.id).contains(where: { $0.id == document }) else { continue }
            if held == nil { held = Set(try store.branchStatuses(in: project.id).map(\.id)) }
            for (name, content) in overflow {
                if let row = try database.queryOne("SELECT branch_id FROM sync_conflict_branches WHERE conflict = ?", [.blob(name.bytes)]) {
                    guard !(held ?? []).contains(try BranchID(bytes: try row.blob("branch_id"))) else { continue }
                    try database.query("DELETE FROM sync_conflict_branches WHERE conflict = ?", [.blob(name.bytes)])
                }
                let proposal = try withoutBlocksHeldOutside(content, in: project.id)
                guard let first = proposal.blocks.first else { continue }
                let base = try store.createSnapshot(of: document, in: project.id)
                let make = { (id: BranchID?) in
                    try self.store.createBranch(of: document, in: project.id, base: base.id, content: proposal,
                                                kind: .syncConflict, provenance: Self.overflowProvenance, id: id)
                }
                let branch: Branch
                do { branch = try make(name) } catch let error as WritingError where error.code == .invalidIdentifier { branch = try make(nil) }
                try database.query("INSERT INTO sync_conflict_branches (conflict, project_id, branch_id) VALUES (?, ?, ?)",
                                   [.blob(name.bytes), .blob(project.id.bytes), .blob(branch.id.bytes)])
                try transaction.record(.syncConflictBranch, compartment: project.compartment.id, subject: project.id,
                                       details: [.init("conflict", name.hex), .init("branch", branch.id.hex),
                                                 .init("document", document.hex), .init("block", first.id.hex)])
                made += 1
            }
        }
        return made
    }
}
