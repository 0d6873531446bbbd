import CryptoVault
import Foundation
import Registers
import Sync
import Writing

/// branch create, list, show, diff, adopt, discard, revert: proposed changes of a document
/// (SECURITY.md §15.3), each kept whatever becomes of it.
enum BranchCommands {
    static let kindOption = Option("--kind", value: "KIND", "manual (the default), ai-suggestion or research-insert (sync-conflict: sync only)")
    static let byOption = Option("--by", value: "TEXT", "who or what proposes it (sealed; default 'vaultctl')")
    static let branchNote = """
        BRANCH is a branch's id or its number in the document's list (1 for the first).
        """

    static let create = Command("branch create", synopsis: "propose a change of a document", usage: "PROJECT DOC [FILE|-]", about: """
        Stores the text of FILE (or standard input, also as -) as a proposed change of document DOC,
        against its current version (snapshotted if it is not already), without touching the document.
        The text is read as 'vaultctl doc write' reads it. Prints the branch's number and id.

        \(WritingContext.sessionNote)
        """, options: [kindOption, byOption] + DocCommands.readOptions, positionals: 2...3, json: true, examples: [
            "vaultctl branch create \"The harbour\" Arrival arrival-tighter.txt --by \"editor\"",
        ]) { arguments in
            let kind = try proposedKind(arguments.value("--kind") ?? "manual")
            let text = try DocCommands.readText(arguments.positionals.count > 2 ? arguments.positionals[2] : "-")
            let (context, project, node) = try SnapshotCommands.open(arguments)
            defer { context.end() }
            let parsed = try PlainText.parse(text, labels: FieldEditor(project.register))
            let (branch, number) = try context.store(for: project) { store in
                let current = try store.documentContent(of: node.id, in: project.id)
                let base = try store.createSnapshot(of: node.id, in: project.id)
                let branch = try store.createBranch(of: node.id, in: project.id, base: base.id, content: parsed.reusingIDs(of: current),
                                                    kind: kind, provenance: arguments.value("--by") ?? "vaultctl")
                return (branch, try store.branches(of: node.id, in: project.id).count)
            }
            if arguments.has("--json") { Output.json(json(branch, number: number)); return }
            Output.line("\(WritingContext.capitalizedTerm(.branch, project.register)) \(number) of \(node.title): \(branch.id).")
        }

    /// The kind of a branch a person proposes. A sync-conflict branch is the merge's record of a
    /// block two devices changed (SECURITY.md §19.3), made by sync alone: one made by hand would show
    /// in 'vaultctl conflicts' on every device as if the merge had made it (F17-13).
    static func proposedKind(_ text: String) throws -> BranchKind {
        if BranchKind(rawValue: text) == .syncConflict {
            throw CommandError(message: "--kind sync-conflict: a sync-conflict branch is made by sync only, when two devices changed one block; "
                               + "propose yours as manual (the default), ai-suggestion or research-insert", exitCode: .usage)
        }
        guard let kind = BranchKind(rawValue: text) else {
            throw CommandError(message: "--kind is manual, ai-suggestion or research-insert", exitCode: .usage)
        }
        return kind
    }

    static let list = Command("branch list", synopsis: "list a document's proposed changes", usage: "PROJECT DOC", about: """
        Lists the branches of document DOC of PROJECT, oldest first: number, id, when, kind, state
        (open, adopted, discarded, reverted) and who proposed it. A branch another device decided
        otherwise at the same time is marked with each decision that was overruled (which, on which
        device, when; 'overruled' in --json): the branch's state is the one every device settles on.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl branch list \"The harbour\" Arrival",
        ]) { arguments in
            let (context, project, node) = try SnapshotCommands.open(arguments)
            defer { context.end() }
            let keys = try SyncReadKeys(context.vault)
            let (branches, overruled) = try context.store(for: project) { store in
                (try store.branches(of: node.id, in: project.id),
                 try SyncStatus.overruledDecisions(of: project.id, in: store, keys: keys).filter { $0.document == node.id })
            }
            let names = try ConflictsCommand.DeviceNames(context.vault)
            let overruledByBranch = Dictionary(grouping: overruled, by: \.branch)
            if arguments.has("--json") {
                Output.json(branches.enumerated().map { index, branch in
                    var row = json(branch, number: index + 1)
                    row["overruled"] = (overruledByBranch[branch.id] ?? []).map { overruledJSON($0, names) }
                    return row
                })
                return
            }
            Output.line("\(WritingContext.counted(branches.count, .branch, project.register)) of \(node.title)")
            for (index, branch) in branches.enumerated() {
                Output.line(line(branch, number: index + 1))
                for decision in overruledByBranch[branch.id] ?? [] { Output.line("     " + overruledLine(decision, names)) }
            }
        }

    /// The mark of a decision on a branch that another device's overruled (SECURITY.md §19.3).
    static func overruledLine(_ decision: OverruledDecision, _ names: ConflictsCommand.DeviceNames) -> String {
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(decision.decidedAt)))
        let settled = decision.settledBy.map { " by \(names.name(of: $0))" } ?? ""
        return "overruled: \(names.name(of: decision.device))'s \(decision.decision.name) (\(when)); \(decision.state.rawValue)\(settled)"
    }

    static func overruledJSON(_ decision: OverruledDecision, _ names: ConflictsCommand.DeviceNames) -> [String: Any] {
        ["decision": decision.decision.name, "decided_at": decision.decidedAt, "device": decision.device.hex,
         "device_name": names.name(of: decision.device), "this_device": decision.device == names.this,
         "settled_by": decision.settledBy?.hex ?? NSNull()]
    }

    static let show = Command("branch show", synopsis: "print a proposed change's text", usage: "PROJECT DOC BRANCH", about: """
        Prints the text branch BRANCH proposes for document DOC, as 'vaultctl doc show' prints a
        document. With --json, the branch and its text.
        \(branchNote)

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 3...3, json: true, examples: [
            "vaultctl branch show \"The harbour\" Arrival 1",
        ]) { arguments in
            let (context, project, node) = try SnapshotCommands.open(arguments)
            defer { context.end() }
            let (branch, number, content) = try context.store(for: project) { store in
                try resolve(arguments.positionals[2], of: node, in: project, store) { try store.branchContent($0, of: node.id, in: project.id) }
            }
            let text = PlainText.render(content, labels: FieldEditor(project.register))
            if arguments.has("--json") {
                var row = json(branch, number: number)
                row["text"] = text
                Output.json(row)
                return
            }
            Output.raw(text)
        }

    static let diff = Command("branch diff", synopsis: "show a proposed change against its base, word by word", usage: "PROJECT DOC BRANCH",
                              about: """
        Shows what branch BRANCH changes in the version it was proposed against, word by word:
        removed words as [-words-], added ones as {+words+}. With --json, the runs.
        \(branchNote)

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 3...3, json: true, examples: [
            "vaultctl branch diff \"The harbour\" Arrival 1",
        ]) { arguments in
            let (context, project, node) = try SnapshotCommands.open(arguments)
            defer { context.end() }
            let (branch, number, texts) = try context.store(for: project) { store in
                try resolve(arguments.positionals[2], of: node, in: project, store) { id in
                    let branch = try store.branch(id, of: node.id, in: project.id)
                    return (try store.snapshotContent(branch.base, of: node.id, in: project.id), try store.branchContent(id, of: node.id, in: project.id))
                }
            }
            let labels = FieldEditor(project.register)
            let diff = try WordDiff.between(PlainText.render(texts.0, labels: labels), PlainText.render(texts.1, labels: labels))
            if arguments.has("--json") {
                var row = json(branch, number: number)
                row["runs"] = WordDiffOutput.json(diff)
                Output.json(row)
                return
            }
            Output.raw(WordDiffOutput.text(diff))
        }

    static let adopt = decision("adopt", synopsis: "write a proposed change into its document", about: """
        Writes branch BRANCH into document DOC. If the document changed since the branch's base, the
        two are merged block by block; changes to the same place are refused (exit 1) and nothing
        changes: each overlap is shown on standard output, the document's words and the branch's,
        each marked against the base as 'vaultctl branch diff' marks them ([-removed-], {+added+});
        with --json, as "conflicts" (each side's blocks, text and runs). A sync conflict's branch
        ('vaultctl conflicts') holds one block: adopting it writes that block alone into the
        document as it is now, and every other block keeps what was written since. The result of
        an adoption is stored as a new version (origin adopt).
        """, shows: .adoption) { store, id, node, project in try store.adopt(id, of: node.id, in: project.id) }

    static let revert = decision("revert", synopsis: "undo an adopted change", about: """
        Undoes the adoption of branch BRANCH: document DOC gets back the content it had before, stored
        as a new version (origin revert). Edits made since are kept; edits that touch the adopted
        change are refused (exit 1) and nothing changes: each overlap is shown on standard output,
        the document's words now and those before the adoption, each marked against the version the
        adoption stored; with --json, as "conflicts" (each side's blocks, text and runs).
        """, shows: .revert) { store, id, node, project in try store.revert(id, of: node.id, in: project.id) }

    static let discard = decision("discard", synopsis: "set a proposed change aside", about: """
        Marks open branch BRANCH discarded: it is kept (and listed), and the document's text is not
        touched. The decision is a version too: the document as it stands is stored as a new version
        (origin discard).
        """) { store, id, node, project in try store.discard(id, of: node.id, in: project.id) }

    static let all = [create, list, show, diff, adopt, discard, revert]

    /// adopt, discard, revert: one shape, the store call differing. `act` returns the version it stored, if any.
    static func decision(_ verb: String, synopsis: String, about: String, shows overlaps: BranchConflictOutput.Overlaps? = nil,
                         _ act: @escaping @Sendable (WritingStore, BranchID, BinderNode, WritingProject) throws -> Snapshot?) -> Command {
        Command("branch \(verb)", synopsis: synopsis, usage: "PROJECT DOC BRANCH", about: """
            \(about)
            \(branchNote)

            \(WritingContext.sessionNote)
            """, options: DocCommands.readOptions, positionals: 3...3, json: true, examples: [
                "vaultctl branch \(verb) \"The harbour\" Arrival 1",
            ]) { arguments in try decide(arguments, shows: overlaps, act) }
    }

    static func decide(_ arguments: ParsedArguments, shows overlaps: BranchConflictOutput.Overlaps?,
                       _ act: (WritingStore, BranchID, BinderNode, WritingProject) throws -> Snapshot?) throws {
        let (context, project, node) = try SnapshotCommands.open(arguments)
        defer { context.end() }
        let number: Int, version: Snapshot?
        do {
            (number, version) = try context.store(for: project) { store in
                let resolved = try resolve(arguments.positionals[2], of: node, in: project, store) { try act(store, $0, node, project) }
                return (resolved.1, resolved.2)
            }
        } catch let refusal as WritingVocabulary.Refusal where refusal.code == .branchConflict {
            guard let overlaps else { throw refusal }
            try showConflicts(overlaps, arguments, context, project, node)
            // The code's hint is an adoption's (make a new branch); a revert is settled in the document.
            guard overlaps == .revert else { throw refusal }
            throw CommandError(message: refusal.message, exitCode: .failure, hint: WritingVocabulary.say(
                "edit the document by hand where you want the adopted change taken out (the overlap is shown above); "
                + "the edits made since stay", project.register))
        }
        // Read again after the decision, for the state it left.
        let branch = try context.store(for: project) { store in try store.branches(of: node.id, in: project.id)[number - 1] }
        if arguments.has("--json") {
            let stored: Any = version.map { SnapshotCommands.json($0) } ?? NSNull()
            Output.json(["branch": json(branch, number: number), "version": stored])
            return
        }
        let after = version.map { "; stored as version \($0.sequence): \($0.id)." } ?? "."
        Output.line("\(WritingContext.capitalizedTerm(.branch, project.register)) \(number) of \(node.title) is \(branch.state.rawValue)" + after)
    }

    /// The overlaps an adoption or a revert was refused for, on standard output (the refusal itself
    /// goes to standard error): read in the same session the decision was tried in.
    static func showConflicts(_ overlaps: BranchConflictOutput.Overlaps, _ arguments: ParsedArguments, _ context: WritingContext,
                              _ project: WritingProject, _ node: BinderNode) throws {
        let conflicts = try context.store(for: project) { store in
            try resolve(arguments.positionals[2], of: node, in: project, store) { id in
                switch overlaps {
                case .adoption: try store.adoptionConflicts(id, of: node.id, in: project.id)
                case .revert: try store.revertConflicts(id, of: node.id, in: project.id)
                }
            }.2
        }
        if arguments.has("--json") {
            let labels = FieldEditor(project.register)
            Output.json(["conflicts": try conflicts.map { try BranchConflictOutput.json($0, overlaps, labels: labels) }])
            return
        }
        for line in try BranchConflictOutput.lines(conflicts, overlaps, project.register) { Output.line(line) }
    }

    /// Runs `body` with BRANCH's id (an id as given, or that of its number; the store refuses
    /// another document's) and gives back its listing and number with the result.
    static func resolve<Result>(_ text: String, of node: BinderNode, in project: WritingProject, _ store: WritingStore,
                                _ body: (BranchID) throws -> Result) throws -> (Branch, Int, Result) {
        let branches = try store.branches(of: node.id, in: project.id)
        let id: BranchID
        if let given = try? BranchID(hex: text) {
            id = given
        } else if let number = Int(text), (1...max(1, branches.count)).contains(number), number <= branches.count {
            id = branches[number - 1].id
        } else {
            throw WritingError(.branchNotFound, "no \(WritingContext.term(.branch, project.register)) '\(text)' of the "
                               + "\(WritingContext.term(.scene, project.register)) ('vaultctl branch list' shows them)")
        }
        let result = try body(id)
        guard let index = branches.firstIndex(where: { $0.id == id }) else {
            throw WritingError(.branchNotFound, "no \(WritingContext.term(.branch, project.register)) \(id)")
        }
        return (branches[index], index + 1, result)
    }

    static func line(_ branch: Branch, number: Int) -> String {
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(branch.createdAt)))
        return "\(String(number).padding(toLength: 4, withPad: " ", startingAt: 0)) \(branch.id)  \(when)  "
            + "\(branch.kind.rawValue.padding(toLength: 16, withPad: " ", startingAt: 0))\(branch.state.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0))\(branch.provenance)"
    }

    static func json(_ branch: Branch, number: Int) -> [String: Any] {
        ["id": branch.id.hex, "number": number, "kind": branch.kind.rawValue, "state": branch.state.rawValue, "by": branch.provenance,
         "base": branch.base.hex, "created_at": branch.createdAt, "decided_at": branch.decidedAt ?? NSNull(),
         "before_adoption": branch.beforeAdoption?.hex ?? NSNull(), "adoption": branch.adoption?.hex ?? NSNull()]
    }
}
