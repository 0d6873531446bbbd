import CryptoVault
import Foundation
import Testing
@testable import Sync
import Writing

/// The concurrent editing traces (`shared/corpora/editing-traces/concurrent`: real writers typing
/// into one text at once), replayed as one device per writer that syncs at every merge point: a
/// device receives exactly the records of a transaction's past before it types the transaction's
/// patches. The text is a block editor's document: one paragraph block per line.
///
/// Every device must end with the same document and the same conflicts. Inside a block the merge
/// is the character merge of SECURITY.md §19.3, the trace's own kind; but a line split or joined
/// while the other writer typed in the text it moved cannot take that typing into its new block (no
/// operation moves characters between blocks), so a few lines still differ from `endContent`.
@Suite struct EditingTraceReplayTests {
    static let names = ["friendsforever", "clownschool"]

    @Test(arguments: names) func everyDeviceConvergesTowardTheTracesEndContent(_ name: String) throws {
        guard let trace = try Self.load(name) else { return }
        var (fleet, document, records) = try Self.replay(trace)
        let text = fleet.replicas[0].content(of: document).blocks.map(\.text).joined(separator: "\n")
        for replica in fleet.replicas.indices.dropFirst() {
            #expect(fleet.replicas[replica].content(of: document).canonicalBytes == fleet.replicas[0].content(of: document).canonicalBytes)
            #expect(fleet.replicas[replica].conflicts() == fleet.replicas[0].conflicts())
        }
        let conflicts = fleet.replicas[0].conflicts()
        let ours = text.split(separator: "\n", omittingEmptySubsequences: false)
        let theirs = trace.endContent.split(separator: "\n", omittingEmptySubsequences: false)
        print("trace \(name): \(trace.transactions.count) transactions, \(records) records, \(conflicts.count) conflicts kept as branches, "
              + "\(theirs.filter { !ours.contains($0) }.count) of endContent's \(theirs.count) lines not in the result")
        withKnownIssue("a line split or joined while the other writer typed in the text it moved keeps that typing in the old block") {
            #expect(text == trace.endContent)
        }
        for conflict in conflicts { #expect(conflict.losing != conflict.winning) }
    }

    static func load(_ name: String) throws -> ConcurrentTrace? {
        guard let path = corpus("concurrent/\(name).json.gz") else {
            print("⚠️  SKIPPED: the editing-trace corpus (shared/corpora/editing-traces/concurrent) is not here; trace \(name) was NOT replayed")
            return nil
        }
        return try ConcurrentTrace.load(gzipped: path)
    }

    /// Replays the trace, one device per writer, and heals every link at the end.
    static func replay(_ trace: ConcurrentTrace) throws -> (fleet: SyncFleet, document: NodeID, records: Int) {
        var fleet = try SyncFleet(devices: trace.agents)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Trace")
        var generator = SeededGenerator(seed: 7)
        fleet.healAll(&generator)
        var records: [ChangeRecord?] = []
        var known = Array(repeating: Set<Int>(), count: trace.agents)
        var lines: [TraceLines?] = Array(repeating: nil, count: trace.agents)
        for (index, transaction) in trace.transactions.enumerated() {
            let device = transaction.agent
            // Sync at the merge point: the records of the transaction's past this device lacks, oldest first.
            let missing = Self.past(of: transaction.parents, in: trace, excluding: known[device]).sorted()
            for earlier in missing {
                known[device].insert(earlier)
                if let record = records[earlier] {
                    #expect(fleet.replicas[device].receive(record.encoded) == .applied(1), "transaction \(earlier)")
                }
            }
            // What a device shows changes only when it receives: its text is read again only then.
            if !missing.isEmpty || lines[device] == nil {
                lines[device] = TraceLines(fleet.replicas[device].content(of: document))
            }
            for patch in transaction.patches { try lines[device]!.apply(patch) }
            records.append(try fleet.replicas[device].edit(document, to: lines[device]!.content))
            known[device].insert(index)
        }
        fleet.healAll(&generator)
        return (fleet, document, records.compactMap { $0 }.count)
    }

    /// The transactions in the past of `parents` (themselves included) not in `known`.
    static func past(of parents: [Int], in trace: ConcurrentTrace, excluding known: Set<Int>) -> Set<Int> {
        var found = Set<Int>(), stack = parents.filter { !known.contains($0) }
        while let next = stack.popLast() {
            guard found.insert(next).inserted else { continue }
            stack += trace.transactions[next].parents.filter { !known.contains($0) && !found.contains($0) }
        }
        return found
    }

    static func corpus(_ relative: String) -> String? {
        var folder = URL(fileURLWithPath: #filePath)
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/corpora/editing-traces").appendingPathComponent(relative).path
            if FileManager.default.fileExists(atPath: candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}

/// One device's document as lines of code points, each a paragraph block: a patch edits the lines
/// it touches, and only those blocks are rebuilt. A line changed keeps its block's id; a line split
/// off is a new block; lines joined keep the first one's.
struct TraceLines {
    private(set) var blocks: [Block]
    private var lines: [[Unicode.Scalar]]

    init(_ content: DocumentContent) {
        blocks = content.blocks
        lines = content.blocks.map { Array($0.text.unicodeScalars) }
        if lines.isEmpty { lines = [[]]; blocks = [Block(id: try! BlockID.random(), kind: .paragraph)] }
    }

    var content: DocumentContent { DocumentContent(blocks: blocks) }

    mutating func apply(_ patch: ConcurrentTrace.Patch) throws {
        // The line holding the position, and the first line the patch does not reach.
        var start = 0, offset = patch.position
        while start < lines.count - 1, offset > lines[start].count { offset -= lines[start].count + 1; start += 1 }
        var end = start, reach = offset + patch.deleted
        while end < lines.count - 1, reach > lines[end].count { reach -= lines[end].count + 1; end += 1 }
        var joined: [Unicode.Scalar] = []
        for index in start...end { if index > start { joined.append("\n") }; joined += lines[index] }
        let from = min(offset, joined.count)
        joined.replaceSubrange(from..<min(joined.count, from + patch.deleted), with: patch.inserted)
        let replaced = joined.split(separator: "\n", omittingEmptySubsequences: false).map(Array.init)
        var newBlocks: [Block] = []
        for (index, line) in replaced.enumerated() {
            let id = start + index <= end ? blocks[start + index].id : try BlockID.random()
            var view = String.UnicodeScalarView()
            view.append(contentsOf: line)
            newBlocks.append(Block(id: id, kind: .paragraph, text: String(view)))
        }
        lines.replaceSubrange(start...end, with: replaced)
        blocks.replaceSubrange(start...end, with: newBlocks)
    }
}

/// A concurrent trace: `{ "endContent", "numAgents", "txns": [ { "parents", "agent", "patches" } ] }`.
struct ConcurrentTrace {
    struct Patch {
        let position: Int
        let deleted: Int
        let inserted: [Unicode.Scalar]
    }

    struct Transaction {
        let parents: [Int]
        let agent: Int
        let patches: [Patch]
    }

    let endContent: String
    let agents: Int
    let transactions: [Transaction]

    struct Malformed: Error {}

    /// Unpacked by the real `gzip -dc`, as vaultbench does.
    static func load(gzipped path: String) throws -> ConcurrentTrace {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc", path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0,
              let root = try JSONSerialization.jsonObject(with: data) as? [String: Any],
              let end = root["endContent"] as? String, let agents = root["numAgents"] as? Int,
              let transactions = root["txns"] as? [[String: Any]] else { throw Malformed() }
        return ConcurrentTrace(endContent: end, agents: agents, transactions: try transactions.enumerated().map { index, transaction in
            guard let parents = transaction["parents"] as? [Int], parents.allSatisfy({ $0 < index }),
                  let agent = transaction["agent"] as? Int, (0..<agents).contains(agent),
                  let patches = transaction["patches"] as? [[Any]] else { throw Malformed() }
            return Transaction(parents: parents, agent: agent, patches: try patches.map { patch in
                guard patch.count == 3, let position = patch[0] as? Int, let deleted = patch[1] as? Int,
                      let inserted = patch[2] as? String else { throw Malformed() }
                return Patch(position: position, deleted: deleted, inserted: Array(inserted.unicodeScalars))
            })
        })
    }
}
