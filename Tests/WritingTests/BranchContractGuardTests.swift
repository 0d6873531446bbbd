import Foundation
import Testing
import TestSupport

/// The branch contract (issue 15, SECURITY.md §15.3): AI writes and research inserts reach a
/// document only as branches. The assistant (Sources/Assistant) and the agents (Sources/Agents)
/// may read the writing model and propose (`createBranch`, and `createSnapshot` for the base it
/// needs); every other write of WritingStore is theirs to never call. The written-down rule would
/// not stop a new call, so this guard reads the code: every public method of WritingStore is found
/// by reading Sources/Writing (a method added later is covered without touching this file), and any
/// call of one outside the allowed set from those two modules fails the suite, naming the line. A
/// file elsewhere (the console's routes, vaultctl's commands, the benches) that imports either
/// module or names the assistant's service is held to the same rule: an AI path added there would
/// otherwise pass unseen.
@Suite struct BranchContractGuardTests {
    /// What the assistant and the agents may call: reads, and the two calls of the branch contract.
    static let allowed: Set<String> = [
        "projects", "project", "name", "nodes", "node", "outline", "documentContent", "document", "entries",
        "snapshots", "snapshotContent", "branches", "branch", "branchContent", "editEvents", "search",
        "projectSnapshots", "projectSnapshotNodes",
        // RecordAccess's session (declared beside the store's access helpers): a read.
        "session",
        "createBranch", "createSnapshot",
    ]

    /// Lines that match a write's name but are no AI write, each with the text that shows it: the
    /// assistant restores its placeholders (another type's `restore`), and the assistant's bench
    /// creates its fixture project before any model is asked anything.
    static let otherReceivers: [String: String] = [
        "Sources/Assistant/Service/AIService.swift": "PlaceholderRestoration(",
        "Sources/assistbench/AssistantBench.swift": "vault.createWritingProject(named: \"Harbour\"",
    ]

    /// Every `public func` declared in a file of Sources/Writing that extends or declares WritingStore.
    static func storeMethods() throws -> Set<String> {
        let regex = try NSRegularExpression(pattern: #"public\s+func\s+(\w+)"#)
        let files = try PackageFiles.swiftSources().filter {
            $0.path.hasPrefix("Sources/Writing/") && ($0.text.contains("extension WritingStore") || $0.text.contains("struct WritingStore"))
        }
        return Set(files.flatMap { file in
            regex.matches(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)).compactMap {
                Range($0.range(at: 1), in: file.text).map { String(file.text[$0]) }
            }
        })
    }

    /// What marks a file outside the two modules as an AI path: it imports one of them or names the
    /// assistant's service or its suggestions.
    static let aiMarkers = ["import Assistant", "import Agents", "AIService", "AISuggestions"]

    /// Whether a source file is held to the branch contract: the assistant's and the agents' own
    /// files, and any other file that uses them.
    static func isAIPath(_ file: (path: String, text: String)) -> Bool {
        file.path.hasPrefix("Sources/Assistant/") || file.path.hasPrefix("Sources/Agents/")
            || aiMarkers.contains { file.text.contains($0) }
    }

    /// The lines of the AI paths that call one of `names` (`.name(`).
    static func calls(of names: Set<String>, in sources: [(path: String, text: String)]) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"\.(\#(names.sorted().joined(separator: "|")))\s*\("#)
        return sources.filter(isAIPath).flatMap { file in
            file.text.split(separator: "\n", omittingEmptySubsequences: false).enumerated().compactMap { number, line -> String? in
                let text = String(line)
                guard regex.firstMatch(in: text, range: NSRange(text.startIndex..., in: text)) != nil else { return nil }
                if let marker = otherReceivers[file.path], text.contains(marker) { return nil }
                return "\(file.path):\(number + 1): \(text.trimmingCharacters(in: .whitespaces))"
            }
        }
    }

    @Test("the store's writes are found by reading Sources/Writing (so the guard below cannot pass by finding none)")
    func theWritesAreFound() throws {
        let forbidden = try Self.storeMethods().subtracting(Self.allowed)
        for write in ["replaceDocumentContent", "replaceDocumentContentAndSnapshot", "restore", "adopt", "revert", "discard",
                      "addNode", "removeNode", "moveNode", "renameNode", "addEntry", "updateEntry", "removeEntry", "setRegister"] {
            #expect(forbidden.contains(write), "\(write) is not found as a WritingStore write")
        }
    }

    @Test("the assistant, the agents and every file using them call no WritingStore write but createBranch (and createSnapshot for its base)")
    func aiWritesOnlyAsBranches() throws {
        let forbidden = try Self.storeMethods().subtracting(Self.allowed)
        let sources = try PackageFiles.swiftSources()
        #expect(try Self.calls(of: forbidden, in: sources) == [],
                "AI writes and research inserts reach a document only as branches (SECURITY.md §15.3): propose with createBranch")
        // The guard can fail: a direct write placed in an agent's tool is found.
        let planted = [(path: "Sources/Agents/Tools/Planted.swift",
                        text: "let x = 1\n        try store.replaceDocumentContent(of: document, in: project.id, with: content)\n")]
        #expect(try Self.calls(of: forbidden, in: planted)
                == ["Sources/Agents/Tools/Planted.swift:2: try store.replaceDocumentContent(of: document, in: project.id, with: content)"])
    }

    /// The files outside Sources/Sync and Sources/Writing that name the kind sync-conflict where a
    /// branch is made (`kind: .syncConflict`, on the call's line or the next).
    static func syncConflictMakers(in sources: [(path: String, text: String)]) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"kind:\s*(BranchKind)?\.syncConflict\b"#)
        return sources.filter { !$0.path.hasPrefix("Sources/Sync/") && !$0.path.hasPrefix("Sources/Writing/") }.compactMap { file in
            regex.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) == nil ? nil : file.path
        }
    }

    /// F17-13: a sync-conflict branch is the merge's record of a block two devices changed (SECURITY.md
    /// §19.3). One made elsewhere (a command, a console route, the assistant) would show in every
    /// device's `vaultctl conflicts` as if the merge had made it; `vaultctl branch create` refuses the kind.
    @Test("a branch of kind sync-conflict is made only by sync (Sources/Sync) and the store's own receive (Sources/Writing)")
    func syncConflictBranchesAreMadeBySyncOnly() throws {
        #expect(try Self.syncConflictMakers(in: try PackageFiles.swiftSources()) == [],
                "a sync-conflict branch is made by sync only (SECURITY.md §15.3): propose with kind manual")
        // The guard can fail: such a call planted in a console route is found, over two lines too.
        let planted = [(path: "Sources/Console/API/Planted.swift",
                        text: "try store.createBranch(of: id, in: project.id, base: now.id, content: content,\n    kind: .syncConflict, provenance: \"x\")\n"),
                       (path: "Sources/Sync/VaultSync+Receive.swift", text: "try store.createBranch(kind: .syncConflict)\n")]
        #expect(try Self.syncConflictMakers(in: planted) == ["Sources/Console/API/Planted.swift"])
    }

    @Test("a file outside the two modules that uses the assistant is held to the same rule")
    func aiPathsElsewhereAreGuarded() throws {
        let forbidden = try Self.storeMethods().subtracting(Self.allowed)
        let sources = try PackageFiles.swiftSources()
        // The guard really reaches past the two modules: the console's and vaultctl's assistant files are AI paths.
        let guarded = sources.filter(Self.isAIPath).map { $0.path }
        #expect(guarded.contains("Sources/Console/API/AssistantRoutes.swift"), "the console's assistant routes are not guarded")
        #expect(guarded.contains("Sources/vaultctl/Commands/AICommands.swift"), "vaultctl's ai commands are not guarded")
        // A route that takes the model's answer and writes it straight into the document is found...
        let planted = [(path: "Sources/Console/API/PlantedRoutes.swift",
                        text: "import Assistant\nlet answer = try await service.answer(prompt)\ntry store.editDocumentContent(of: document, in: project, with: answer)\n")]
        #expect(try Self.calls(of: forbidden, in: planted)
                == ["Sources/Console/API/PlantedRoutes.swift:3: try store.editDocumentContent(of: document, in: project, with: answer)"])
        // ...and the same write in a file that has nothing to do with the assistant is the writer's own.
        let ordinary = [(path: "Sources/Console/API/DocumentRoutes.swift",
                         text: "try store.editDocumentContent(of: document, in: project, with: content)\n")]
        #expect(try Self.calls(of: forbidden, in: ordinary) == [])
    }
}
