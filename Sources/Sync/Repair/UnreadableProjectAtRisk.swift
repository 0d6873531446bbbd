import CryptoVault
import Writing

/// A project here that `vaultctl repair --from DEVICE` would leave with words no command reads
/// (reviewer s17, F17-6): DEVICE does not offer it, its rows are damaged so that its documents do
/// not read (a table dropped, say), and its compartment still holds its blocks' sealed records. The
/// kept copy would hold those records, but `doc show --read-only` reads a document through the same
/// rows, so the words would be readable nowhere. Like `LocalDocumentAtRisk`, the repair names it and
/// is refused unless the owner passes --discard-local.
public struct UnreadableProjectAtRisk: Sendable, Equatable {
    public let project: ProjectID
    /// Why its rows are not kept (`KeptProjects.problem`).
    public let damage: String
    /// How many of its blocks' sealed records the compartment holds.
    public let blocks: Int

    /// `project` (not offered, dropped for `damage`) when a document of it does not read here while
    /// its compartment holds block records; nil when everything of it reads (its documents are then
    /// `LocalDocumentAtRisk`'s to name) or it never held a block.
    static func find(_ project: ProjectID, damage: String, compartment: VaultCompartment, store: WritingStore) throws -> UnreadableProjectAtRisk? {
        guard !readsWhole(project, store: store) else { return nil }
        let blocks = try store.sealedBlockCount(in: compartment)
        return blocks > 0 ? UnreadableProjectAtRisk(project: project, damage: damage, blocks: blocks) : nil
    }

    /// Whether the binder and every document of `project` read here.
    private static func readsWhole(_ project: ProjectID, store: WritingStore) -> Bool {
        guard let nodes = try? store.nodes(in: project) else { return false }
        return nodes.filter { $0.kind == .scene }.allSatisfy { (try? store.documentContent(of: $0.id, in: project)) != nil }
    }

    /// How a message names it: its id and damage, never a title (none reads).
    public var named: String {
        "project \(project.hex), whose documents do not read here (\(damage)) while \(blocks) sealed record(s) hold their words"
    }
}
