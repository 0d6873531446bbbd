import CryptoVault
import Foundation
import Sync
import Writing

/// `conflicts [PROJECT]`: the open sync conflicts (issue 17, SECURITY.md §19.3), kept as branches of
/// kind sync-conflict, which the branch commands resolve.
enum ConflictsCommand {
    static let command = Command("conflicts", synopsis: "list the open sync conflicts (branches of kind sync-conflict)", usage: "[PROJECT]", about: """
        Lists the open branches of kind sync-conflict of PROJECT, or of every project this command
        can read: project, document, the branch's number in the document's list, its id, when and
        by whom, and then which device's side of the block the document kept and which holds the
        branch ("Med, block 1: kept desk's; yours is branch 3"). Each holds the side sync left out
        of the document, so neither side's words are lost; resolve one with 'vaultctl branch adopt'
        (which writes that block alone) or 'vaultctl branch discard'. Then the
        decisions another device overruled: a branch adopted, discarded or reverted on one device
        while another decided it otherwise (the branch's state is the same on every device; the
        overruled decision is kept): which, on which device, and what the branch is now. Privileged
        projects this command cannot read are counted, not listed; a privileged PROJECT named
        without a session is refused (exit 77), never answered "no open conflicts".

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 0...1, json: true,
        examples: ["vaultctl conflicts", "vaultctl conflicts \"Clinic notes\" --json"]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let projects = try arguments.positionals.first.map { [try context.project($0)] } ?? context.projects()
            var found: [(project: WritingProject, item: ConflictSidesText.Item)] = []
            var overruled: [Overruled] = []
            var unread = 0
            let keys = try SyncReadKeys(context.vault)
            let named = !arguments.positionals.isEmpty
            for project in projects {
                // A project named on the command line is read or refused, as `doc show` does: "no
                // open conflicts" of a privileged one not read would be false (review 20, F20-11).
                let access: RecordAccess? = named ? try context.requireAccess(for: project) : try context.access(for: project)
                guard access != nil else { unread += 1; continue }
                found += try context.store(for: project) { store in try ConflictSidesText.items(of: project, in: store, keys: keys) }
                    .map { (project, $0) }
                overruled += try context.store(for: project) { store in try overruledDecisions(of: project, in: store, keys: keys) }
            }
            let names = try DeviceNames(context.vault)
            if arguments.has("--json") {
                Output.json(["conflicts": found.map { project, item in
                    ["project": project.id.hex, "document": item.document.id.hex, "title": item.document.title]
                        .merging(BranchCommands.json(item.branch, number: item.number)) { first, _ in first }
                        .merging(item.json(names)) { first, _ in first }
                }, "overruled": overruled.map { $0.json(names) }, "unreadable_projects": unread])
                return
            }
            if found.isEmpty { Output.line("No open sync conflicts.") }
            for (project, item) in found {
                Output.line("\(item.document.title) (\(WritingContext.term(.project, project.register)) \(project.id)): "
                            + BranchCommands.line(item.branch, number: item.number))
                Output.line("  " + item.line(names))
            }
            if !overruled.isEmpty { Output.line("Decisions overruled by another device's:") }
            for item in overruled { Output.line("  " + item.line(names)) }
            if unread > 0 { Output.note("vaultctl: \(unread) privileged project(s) not read: give --purpose to read them") }
        }

    /// A decision on a branch of `project` that another device's decision overruled, with where it is.
    struct Overruled {
        let project: WritingProject
        let document: BinderNode
        let number: Int
        let decision: OverruledDecision

        func line(_ names: DeviceNames) -> String {
            let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(decision.decidedAt)))
            let settled = decision.settledBy.map { " by \(names.name(of: $0))" } ?? ""
            let register = project.register, branch = WritingContext.term(.branch, register)
            return "\(document.title) (\(WritingContext.term(.project, register)) \(project.id)): \(branch) \(number) \(decision.branch): "
                + "\(names.name(of: decision.device))'s \(decision.decision.name) (\(when)) was overruled; the \(branch) is "
                + "\(decision.state.rawValue)\(settled)"
        }

        func json(_ names: DeviceNames) -> [String: Any] {
            ["project": project.id.hex, "document": document.id.hex, "title": document.title, "branch": decision.branch.hex, "number": number,
             "decision": decision.decision.name, "decided_at": decision.decidedAt, "device": decision.device.hex,
             "device_name": names.name(of: decision.device), "this_device": decision.device == names.this,
             "state": decision.state.rawValue, "settled_by": decision.settledBy?.hex ?? NSNull()]
        }
    }

    /// Names of devices for the lines: this one, a paired one by its name, another by its id.
    struct DeviceNames {
        let this: DeviceID
        let paired: [DeviceID: String]

        init(_ vault: UnlockedVault) throws {
            this = try vault.deviceKeys().profile.deviceID
            paired = Dictionary(try vault.vault.familyPairings().map { ($0.peer.deviceID, $0.peer.name) }) { first, _ in first }
        }

        func name(of device: DeviceID) -> String {
            device == this ? "this device" : paired[device].map { "\($0) (\(device.fingerprint))" } ?? "device \(device.hex)"
        }
    }

    /// The decisions on `project`'s branches that another device's overruled, with each branch's
    /// document and number in its list.
    static func overruledDecisions(of project: WritingProject, in store: WritingStore, keys: SyncReadKeys) throws -> [Overruled] {
        let decisions = try SyncStatus.overruledDecisions(of: project.id, in: store, keys: keys)
        guard !decisions.isEmpty else { return [] }
        let nodes = Dictionary(try store.nodes(in: project.id).map { ($0.id, $0) }) { first, _ in first }
        return try decisions.compactMap { decision in
            guard let document = nodes[decision.document],
                  let index = try store.branches(of: document.id, in: project.id).firstIndex(where: { $0.id == decision.branch }) else { return nil }
            return Overruled(project: project, document: document, number: index + 1, decision: decision)
        }
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
