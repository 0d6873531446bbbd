import CryptoVault
import Foundation
import Registers
import Writing

/// A document's history and branches: the snapshot timeline, taking and restoring a version, a
/// word-level comparison of any two versions (or a version and the current text), and branches by
/// kind with their diff against the base, adopted, discarded or reverted. Each is the store's own
/// call, recorded as the CLI's `snapshot` and `branch` commands are.
struct VersionRoutes {
    let access: ProjectAccess

    func snapshots(_ projectText: String, _ nodeText: String) throws -> [[String: Any]] {
        let (project, node) = try resolve(projectText, nodeText)
        return try access.store(for: project) { try $0.snapshots(of: node, in: project.id) }.map(Self.json)
    }

    /// `{title?}`: a titled version of the document as it is now.
    func createSnapshot(_ projectText: String, _ nodeText: String, _ body: JSONBody) throws -> [String: Any] {
        let (project, node) = try resolve(projectText, nodeText)
        let title = try body.optionalString("title").flatMap { $0.isEmpty ? nil : $0 }
        return Self.json(try access.store(for: project) { try $0.createSnapshot(of: node, in: project.id, titled: title) })
    }

    func restore(_ projectText: String, _ nodeText: String, _ snapshotText: String) throws -> [String: Any] {
        let (project, node) = try resolve(projectText, nodeText)
        let snapshot = try SnapshotID(hex: snapshotText)
        return Self.json(try access.store(for: project) { try $0.restore(node, in: project.id, to: snapshot) })
    }

    /// `?from=SNAPSHOT&to=SNAPSHOT|current`: the word runs between the two texts.
    func diff(_ projectText: String, _ nodeText: String, _ request: HTTPRequest) throws -> [String: Any] {
        let (project, node) = try resolve(projectText, nodeText)
        guard let fromText = request.queryValue("from") else { throw ConsoleError(.invalidBody, "diff needs ?from=SNAPSHOT") }
        let from = try SnapshotID(hex: fromText)
        let to = try request.queryValue("to").flatMap { $0 == "current" ? nil : $0 }.map { try SnapshotID(hex: $0) }
        let (old, new) = try access.store(for: project) { store in
            (try store.snapshotContent(from, of: node, in: project.id),
             try to.map { try store.snapshotContent($0, of: node, in: project.id) } ?? store.documentContent(of: node, in: project.id))
        }
        return ["runs": try Self.runs(old, new, project.register)]
    }

    func branches(_ projectText: String, _ nodeText: String) throws -> [[String: Any]] {
        let (project, node) = try resolve(projectText, nodeText)
        return try access.store(for: project) { try $0.branches(of: node, in: project.id) }.map(Self.json)
    }

    /// A branch with its proposal and the word runs from its base to it.
    func branch(_ projectText: String, _ nodeText: String, _ branchText: String) throws -> [String: Any] {
        let (project, node) = try resolve(projectText, nodeText)
        let id = try BranchID(hex: branchText)
        let (branch, base, proposal) = try access.store(for: project) { store in
            let branch = try store.branch(id, of: node, in: project.id)
            return (branch, try store.snapshotContent(branch.base, of: node, in: project.id), try store.branchContent(id, of: node, in: project.id))
        }
        var result = Self.json(branch)
        result["base_blocks"] = base.blocks.map(DocumentRoutes.json)
        result["blocks"] = proposal.blocks.map(DocumentRoutes.json)
        result["runs"] = try Self.runs(base, proposal, project.register)
        return result
    }

    /// `adopt`, `discard` or `revert`: each answers the version it made (a discard also the branch it set aside).
    func decide(_ projectText: String, _ nodeText: String, _ branchText: String, _ decision: String) throws -> [String: Any] {
        let (project, node) = try resolve(projectText, nodeText)
        let id = try BranchID(hex: branchText)
        return try access.store(for: project) { store -> [String: Any] in
            switch decision {
            case "adopt": return ["version": Self.json(try store.adopt(id, of: node, in: project.id))]
            case "revert": return ["version": Self.json(try store.revert(id, of: node, in: project.id))]
            default:
                return ["discarded": id.hex, "version": Self.json(try store.discard(id, of: node, in: project.id))]
            }
        }
    }

    /// `?q=QUERY&limit=N`: the documents found, in reading order, each with its snippets.
    func search(_ projectText: String, _ request: HTTPRequest) throws -> [String: Any] {
        let project = try access.project(projectText)
        let query = try SearchQuery(parsing: request.queryValue("q") ?? "")
        let limit = min(max(request.queryValue("limit").flatMap(Int.init) ?? SearchResults.defaultLimit, 1), SearchResults.maximumLimit)
        let (results, nodes) = try access.store(for: project) { store in
            (try store.search(query, in: project.id, limit: limit), try store.nodes(in: project.id))
        }
        let titles = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.title) })
        return ["found": results.total, "documents": results.hits.map { hit in
            ["id": hit.document.hex, "title": titles[hit.document] ?? "", "matched_blocks": hit.matchedBlocks,
             "snippets": hit.blocks.map(\.snippet)] as [String: Any]
        }]
    }

    private func resolve(_ projectText: String, _ nodeText: String) throws -> (WritingProject, NodeID) {
        (try access.project(projectText), try NodeID(hex: nodeText))
    }

    static func runs(_ old: DocumentContent, _ new: DocumentContent, _ register: Register) throws -> [[String: String]] {
        let labels = FieldEditor(register)
        return try WordDiff.between(PlainText.render(old, labels: labels), PlainText.render(new, labels: labels)).runs.map {
            ["kind": $0.kind.rawValue, "text": $0.text]
        }
    }

    static func json(_ snapshot: Snapshot) -> [String: Any] {
        ["id": snapshot.id.hex, "number": snapshot.sequence, "origin": snapshot.origin.rawValue, "title": snapshot.title ?? NSNull(),
         "created_at": snapshot.createdAt]
    }

    static func json(_ branch: Branch) -> [String: Any] {
        ["id": branch.id.hex, "kind": branch.kind.rawValue, "state": branch.state.rawValue, "by": branch.provenance, "base": branch.base.hex,
         "created_at": branch.createdAt, "decided_at": branch.decidedAt ?? NSNull()]
    }
}
