import CryptoVault
import Foundation
import Writing

/// `conflicts [PROJECT]`: the open sync conflicts (issue 17, SECURITY.md §19.3), kept as branches of
/// kind sync-conflict, which the branch commands resolve.
enum ConflictsCommand {
    static let command = Command("conflicts", synopsis: "list the open sync conflicts (branches of kind sync-conflict)", usage: "[PROJECT]", about: """
        Lists the open branches of kind sync-conflict of PROJECT, or of every project this command
        can read: project, document, the branch's number in the document's list, its id, when and
        by whom. Each holds the side sync left out of the document, so neither side's words are
        lost; resolve one with 'vaultctl branch adopt' or 'vaultctl branch discard'. Privileged
        projects this command cannot read are counted, not listed.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 0...1, json: true,
        examples: ["vaultctl conflicts", "vaultctl conflicts \"Clinic notes\" --json"]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let projects = try arguments.positionals.first.map { [try context.project($0)] } ?? context.projects()
            var found: [(project: WritingProject, document: BinderNode, number: Int, branch: Branch)] = []
            var unread = 0
            for project in projects {
                guard try context.access(for: project) != nil else { unread += 1; continue }
                found += try context.store(for: project) { store in try openConflicts(of: project, in: store) }
                    .map { (project, $0.document, $0.number, $0.branch) }
            }
            if arguments.has("--json") {
                Output.json(["conflicts": found.map { item in
                    ["project": item.project.id.hex, "document": item.document.id.hex, "title": item.document.title]
                        .merging(BranchCommands.json(item.branch, number: item.number)) { first, _ in first }
                }, "unreadable_projects": unread])
                return
            }
            if found.isEmpty { Output.line("No open sync conflicts.") }
            for item in found {
                Output.line("\(item.document.title) (project \(item.project.id)): \(BranchCommands.line(item.branch, number: item.number))")
            }
            if unread > 0 { Output.note("vaultctl: \(unread) privileged project(s) not read: give --purpose to read them") }
        }

    /// The open sync-conflict branches of every document of `project`, with their numbers in their document's list.
    static func openConflicts(of project: WritingProject, in store: WritingStore) throws -> [(document: BinderNode, number: Int, branch: Branch)] {
        try store.nodes(in: project.id).filter { $0.kind == .scene }.flatMap { node in
            try store.branches(of: node.id, in: project.id).enumerated()
                .filter { $0.element.kind == .syncConflict && $0.element.state == .open }
                .map { (node, $0.offset + 1, $0.element) }
        }
    }
}
