import Foundation
import Testing
import TestSupport

/// The branch contract (issue 15, SECURITY.md §15.3): AI writes and research inserts reach a
/// document only as branches. The assistant (Sources/Assistant) and the agents (Sources/Agents)
/// may read the writing model and propose (`createBranch`, and `createSnapshot` for the base it
/// needs); every other write of WritingStore is theirs to never call. The written-down rule would
/// not stop a new call, so this guard reads the code: every public method of WritingStore is found
/// by reading Sources/Writing (a method added later is covered without touching this file), and any
/// call of one outside the allowed set from those two modules fails the suite, naming the line.
@Suite struct BranchContractGuardTests {
    /// What the assistant and the agents may call: reads, and the two calls of the branch contract.
    static let allowed: Set<String> = [
        "projects", "project", "name", "nodes", "node", "outline", "documentContent", "document", "entries",
        "snapshots", "snapshotContent", "branches", "branch", "branchContent", "editEvents", "search",
        "exportedProject", "projectSnapshots", "projectSnapshotNodes",
        // RecordAccess's session (declared beside the store's access helpers): a read.
        "session",
        "createBranch", "createSnapshot",
    ]

    /// Lines that call a method of another type with a WritingStore method's name, each with the
    /// text that shows it is that other type's (the assistant restores its placeholders).
    static let otherReceivers: [String: String] = [
        "Sources/Assistant/Service/AIService.swift": "PlaceholderRestoration(",
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

    /// The lines of Sources/Assistant and Sources/Agents that call one of `names` (`.name(`).
    static func calls(of names: Set<String>, in sources: [(path: String, text: String)]) throws -> [String] {
        let regex = try NSRegularExpression(pattern: #"\.(\#(names.sorted().joined(separator: "|")))\s*\("#)
        return sources.filter { $0.path.hasPrefix("Sources/Assistant/") || $0.path.hasPrefix("Sources/Agents/") }.flatMap { file in
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

    @Test("the assistant and the agents call no WritingStore write but createBranch (and createSnapshot for its base)")
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
}
