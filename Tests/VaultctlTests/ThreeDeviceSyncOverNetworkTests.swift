import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import Writing

/// Three of the owner's devices over the real channel (issue 17's network test): three hosts in
/// network namespaces, each pair with a link of its own; random schedules of every kind of edit the
/// writing model offers (a word typed, deleted or replaced; a paragraph added, deleted or moved; a
/// document created, renamed, moved or removed; a folder created or removed),
/// syncs between random pairs through `vaultctl sync now` (in its own process or through the
/// device's daemon), and the links between specific pairs cut and restored, before and during
/// syncs. After each schedule the links heal and three syncs run: then all three devices show
/// byte-identical projects (binder, titles, documents), every word typed and not deleted on purpose
/// is in a document or a branch on each (`WordsTyped`, kept here from what each device showed), no
/// word is in the documents twice, and at the end every audit log and record set verifies and all
/// three hold the same records. Each device makes its own sync conflicts' branches (SECURITY.md
/// §19.5), named by their conflicts: a branch of one id must be the same on every device that has it
/// in what the records decide (its state and the conflict's block as proposed; the rest of a
/// conflict's proposal is the device's own document when it made the branch, §19.3), none empty,
/// and every branch must be on all three (§19.3: the conflicts are a function of the records held,
/// whatever order they came in).
///
/// Seeded: the seed is printed, and `SYNC_NET_SEED=N` replays a run's choices (the timing of a cut
/// during a sync is the machine's). `SYNC_NET_SCHEDULES=N` runs more (or, to debug, fewer) than 50.
/// Needs network namespaces: as root with iproute2 (as CI runs it) a machine that will not make them
/// fails it with the reason; only without root or iproute2 is it skipped, and it says so.
@Suite(.serialized)
struct ThreeDeviceSyncOverNetworkTests {
    static let environment = ProcessInfo.processInfo.environment
    static let schedules = max(1, Int(environment["SYNC_NET_SCHEDULES"] ?? "") ?? 50)
    static let seed = UInt64(environment["SYNC_NET_SEED"] ?? "") ?? UInt64.random(in: 0...UInt64.max)

    struct Tally {
        var operations: [ScheduleOperation: Int] = [:]
        var syncs = 0, throughDaemon = 0, refusedOverCut = 0, cutsDuring = 0, cutsDuringFailed = 0, linkChanges = 0
        var wordsInBranchesOnly = 0, branches = 0, conflictBranches = 0
    }

    @Test(.enabled("needs network namespaces: root and iproute2") { NetworkNamespaces.availableOrSaySkipped("ThreeDeviceSyncOverNetworkTests") })
    func randomEditAndPartitionSchedulesConvergeOnThreeDevicesWithEveryWordKept() throws {
        print("ThreeDeviceSyncOverNetworkTests: seed \(Self.seed), \(Self.schedules) schedules "
              + "(replay: SYNC_NET_SEED=\(Self.seed) swift test --filter ThreeDeviceSyncOverNetworkTests)")
        let clock = VaultClock.system
        let started = clock.monotonic()
        var random = ScheduleRandom(seed: Self.seed)
        let f = try ThreeDeviceFixture()
        print("ThreeDeviceSyncOverNetworkTests: over \(f.hosts.description)")
        var words = WordsTyped()
        try f.makeProject { words.type(on: 0, count: 2).joined(separator: " ") }
        for device in [1, 2] {
            let first = try f.sync(device, with: 0, throughDaemon: false)
            try #require(first.status == 0, "the first sync of device \(device) failed: \(first.stderr)")
        }
        var tally = Tally()
        for schedule in 1...Self.schedules {
            var trace: [String] = []
            for _ in 0..<Int.random(in: 4...9, using: &random) {
                try step(f, &words, &tally, &trace, &random)
            }
            try heal(f, &tally, &trace, &random)
            guard try check(f, words, &tally, label: "seed \(Self.seed), schedule \(schedule)", trace: trace) else { return }
        }
        try f.checkVaults("after \(Self.schedules) schedules")
        let operations = ScheduleOperation.allCases.map { "\($0.rawValue) \(tally.operations[$0, default: 0])" }.joined(separator: ", ")
        print("ThreeDeviceSyncOverNetworkTests: seed \(Self.seed): \(Self.schedules) schedules in \(Int(clock.monotonic() - started)) s; "
              + "operations: \(operations); \(tally.syncs) syncs (\(tally.throughDaemon) through a daemon), \(tally.linkChanges) links cut or "
              + "restored, \(tally.refusedOverCut) syncs over a cut link failed as they must, \(tally.cutsDuring) links cut during a sync "
              + "(\(tally.cutsDuringFailed) of those syncs failed), \(tally.branches) branches (\(tally.conflictBranches) of sync conflicts, "
              + "the same on all three), \(tally.wordsInBranchesOnly) words kept only in branches")
    }

    /// One random step: an edit on one device, a sync between two, a link cut or restored, or a
    /// link cut and restored while a sync runs over it.
    private func step(_ f: ThreeDeviceFixture, _ words: inout WordsTyped, _ tally: inout Tally, _ trace: inout [String],
                      _ random: inout ScheduleRandom) throws {
        let roll = Int.random(in: 0..<100, using: &random)
        let asker = Int.random(in: 0..<3, using: &random)
        let answerer = (asker + Int.random(in: 1...2, using: &random)) % 3
        let throughDaemon = Bool.random(using: &random)
        switch roll {
        case 0..<45:
            let operation = ScheduleOperation.random(using: &random)
            let subject = try f.edit(asker) { store in try operation.apply(to: store, project: f.project, on: asker, &words, &random) }
            trace.append("device \(asker): \(operation.rawValue)" + (subject.map { $0.isEmpty ? "" : " (\($0))" } ?? " (nothing to do it on)"))
            if subject != nil { tally.operations[operation, default: 0] += 1 }
        case 45..<72:
            let result = try f.sync(asker, with: answerer, throughDaemon: throughDaemon)
            tally.syncs += 1
            tally.throughDaemon += throughDaemon ? 1 : 0
            trace.append("sync \(asker) with \(answerer)\(throughDaemon ? " through its daemon" : ""): exit \(result.status)")
            if f.hosts.isLinked(asker, answerer) {
                try #require(result.status == 0, "sync \(asker) with \(answerer) failed over a working link: \(result.stderr)\n\(trace.joined(separator: "\n"))")
            } else {
                // Over a cut link the sync fails, and says it could not reach the device.
                #expect(result.status == 74, "sync \(asker) with \(answerer) over a cut link: exit \(result.status): \(result.stderr)")
                tally.refusedOverCut += 1
            }
        case 72..<87:
            let up = !f.hosts.isLinked(asker, answerer)
            try #require(f.hosts.setLink(asker, answerer, up: up))
            tally.linkChanges += 1
            trace.append("link \(asker)-\(answerer) \(up ? "restored" : "cut")")
        default:
            guard f.hosts.isLinked(asker, answerer) else { return }
            let running = try f.startSync(asker, with: answerer, throughDaemon: throughDaemon)
            usleep(UInt32.random(in: 0...150_000, using: &random))
            try #require(f.hosts.setLink(asker, answerer, up: false))
            usleep(UInt32.random(in: 100_000...400_000, using: &random))
            try #require(f.hosts.setLink(asker, answerer, up: true))
            let result = running.finish(within: ThreeDeviceFixture.syncSeconds)
            tally.cutsDuring += 1
            tally.cutsDuringFailed += result.status == 0 ? 0 : 1
            trace.append("sync \(asker) with \(answerer)\(throughDaemon ? " through its daemon" : ""), link cut and restored during it: exit \(result.status)")
        }
    }

    /// Restores every link, then syncs two devices with a third (one of them twice), so each has
    /// what every other had.
    private func heal(_ f: ThreeDeviceFixture, _ tally: inout Tally, _ trace: inout [String], _ random: inout ScheduleRandom) throws {
        for (a, b) in ThreeHosts.pairs where !f.hosts.isLinked(a, b) {
            try #require(f.hosts.setLink(a, b, up: true))
            trace.append("link \(a)-\(b) restored")
        }
        let order = [0, 1, 2].shuffled(using: &random)
        let hub = order[0]
        for asker in [order[1], order[2], order[1]] {
            let throughDaemon = Bool.random(using: &random)
            let result = try f.sync(asker, with: hub, throughDaemon: throughDaemon)
            tally.syncs += 1
            tally.throughDaemon += throughDaemon ? 1 : 0
            trace.append("sync \(asker) with \(hub)\(throughDaemon ? " through its daemon" : ""): exit \(result.status)")
            try #require(result.status == 0, "healing: sync \(asker) with \(hub) failed: \(result.stderr)\n\(trace.joined(separator: "\n"))")
        }
    }

    /// All three show the same project, every word that must survive is kept on each, and no word
    /// is in the documents twice. False (after recording why) when not.
    private func check(_ f: ThreeDeviceFixture, _ words: WordsTyped, _ tally: inout Tally, label: String, trace: [String]) throws -> Bool {
        let shown = try (0..<3).map { try f.shown($0) }
        var issues: [String] = []
        for device in 1..<3 {
            if shown[device].name != shown[0].name { issues.append("device \(device)'s project name differs from device 0's") }
            if shown[device].binder != shown[0].binder { issues.append("device \(device)'s binder differs: \(shown[device].binder) vs \(shown[0].binder)") }
            if shown[device].documents != shown[0].documents {
                issues.append("device \(device)'s documents differ: \(Self.texts(shown[device])) vs \(Self.texts(shown[0]))")
            }
            // Each device makes its own sync conflicts' branches (§19.5), the same ones: one id (the
            // conflict's) is the same branch (state and proposed block) everywhere, and every branch
            // is on every device, whatever order its records came in (§19.3).
            let differing = Self.compare(shown[device].branches, shown[0].branches)
            if !differing.isEmpty {
                issues.append("device \(device)'s branches differ from device 0's: \(differing); \(Self.branches(shown[device])) vs \(Self.branches(shown[0])); "
                              + "documents \(Self.texts(shown[device])) vs \(Self.texts(shown[0]))")
            }
        }
        for device in 0..<3 {
            let lost = words.mustSurvive.subtracting(shown[device].keptWords)
            if !lost.isEmpty {
                issues.append("on device \(device), \(lost.count) words typed are in no document or branch: \(lost.sorted().prefix(20)); "
                              + "documents \(Self.texts(shown[device])), branches \(Self.branches(shown[device]))")
            }
            let inDocuments = shown[device].documents.values.flatMap { $0.flatMap { $0.text.split(separator: " ") } }
            if inDocuments.count != Set(inDocuments).count { issues.append("on device \(device), \(inDocuments.count - Set(inDocuments).count) words are in the documents twice") }
        }
        for device in 0..<3 {
            let empty = shown[device].branches.values.flatMap { $0 }.filter { $0.kind == .syncConflict && $0.blocks.isEmpty }
            if !empty.isEmpty { issues.append("on device \(device), \(empty.count) sync-conflict branches propose an empty document") }
        }
        tally.conflictBranches = shown[0].branches.values.flatMap { $0 }.filter { $0.kind == .syncConflict }.count
        let inDocuments = WordsTyped.words(in: shown[0].documents.values.flatMap { $0 })
        tally.wordsInBranchesOnly = words.mustSurvive.subtracting(inDocuments).count
        tally.branches = shown[0].branches.values.reduce(0) { $0 + $1.count }
        guard issues.isEmpty else {
            Issue.record("\(label): \(issues.joined(separator: "\n"))\nthe schedule:\n\(trace.joined(separator: "\n"))")
            return false
        }
        return true
    }

    /// Branches of one id that differ between two devices in what the records decide (`decided`;
    /// every branch's id is the same on all: a sync conflict's is its conflict's), and the sync
    /// conflicts' branches only one of them has. Any other branch on one device only differs.
    static func compare(_ mine: [NodeID: [ThreeDeviceFixture.Shown.BranchShown]], _ theirs: [NodeID: [ThreeDeviceFixture.Shown.BranchShown]])
        -> [String] {
        var differing: [String] = []
        for document in Set(mine.keys).union(theirs.keys) {
            let a = Dictionary(grouping: (mine[document] ?? []).map(\.decided), by: \.id)
            let b = Dictionary(grouping: (theirs[document] ?? []).map(\.decided), by: \.id)
            for id in Set(a.keys).union(b.keys) {
                if a[id] != b[id] { differing.append("\(document.hex.prefix(6)):\(id?.hex.prefix(6) ?? "-")") }
            }
        }
        return differing.sorted()
    }

    static func branches(_ shown: ThreeDeviceFixture.Shown) -> [String] {
        shown.branches.sorted { $0.key.hex < $1.key.hex }.flatMap { document, branches in
            branches.map {
                "\(document.hex.prefix(6)): \($0.id?.hex.prefix(6) ?? "-") \($0.kind.rawValue) \($0.state.rawValue) [\($0.blocks.map(\.text).joined(separator: " | "))]"
            }
        }
    }

    static func texts(_ shown: ThreeDeviceFixture.Shown) -> [String] {
        shown.binder.compactMap { node in shown.documents[node.id].map { "\(node.title): " + $0.map(\.text).joined(separator: " | ") } }
    }
}

/// The kinds of edit a schedule makes on a device, each through the writing store as the CLI's and
/// the console's commands make it. The project's name travels (a last-writer-wins register, record
/// operation 0x0A 0x01, SECURITY.md §19.2; ProjectHoldingsSyncTests), so renaming the project is one
/// of them, and `check` compares the name on all three devices.
enum ScheduleOperation: String, CaseIterable {
    case typeWord = "type a word", deleteWord = "delete a word", replaceWord = "replace a word"
    case addParagraph = "add a paragraph", deleteParagraph = "delete a paragraph", moveParagraph = "move a paragraph"
    case createDocument = "create a document", renameDocument = "rename a document", moveDocument = "move a document"
    case removeDocument = "remove a document", createFolder = "create a folder", removeFolder = "remove an empty folder"
    case renameProject = "rename the project"

    /// Typing and paragraphs most, the binder and the project's name less.
    static let weights: [ScheduleOperation: Int] = [
        .typeWord: 18, .deleteWord: 8, .replaceWord: 8, .addParagraph: 8, .deleteParagraph: 5, .moveParagraph: 6,
        .createDocument: 6, .renameDocument: 5, .moveDocument: 6, .removeDocument: 4, .createFolder: 3, .removeFolder: 3,
        .renameProject: 3,
    ]

    static func random(using random: inout ScheduleRandom) -> ScheduleOperation {
        var roll = Int.random(in: 0..<weights.values.reduce(0, +), using: &random)
        for operation in allCases {
            roll -= weights[operation]!
            if roll < 0 { return operation }
        }
        return .typeWord
    }

    /// Makes this edit on `device`'s store, tracking the words: the document it was made on (its
    /// id's first 6 hex digits, for the schedule's trace; "" for a folder or the project), or nil
    /// when there is nothing to make it on (no document, no empty folder, the last document).
    func apply(to store: WritingStore, project: ProjectID, on device: Int, _ words: inout WordsTyped,
               _ random: inout ScheduleRandom) throws -> String? {
        let nodes = try store.nodes(in: project)
        let documents = nodes.filter { $0.kind == .scene }, folders = nodes.filter { $0.kind == .chapter }
        let tag = words.title()
        var subject = ""
        switch self {
        case .typeWord, .deleteWord, .replaceWord, .addParagraph, .deleteParagraph, .moveParagraph:
            guard let document = documents.randomElement(using: &random) else { return nil }
            let before = try store.documentContent(of: document.id, in: project).blocks
            let after = try edited(before, on: device, &words, &random)
            words.changed(from: before, to: after)
            try store.replaceDocumentContent(of: document.id, in: project, with: DocumentContent(blocks: after))
            subject = String(document.id.hex.prefix(6))
        case .createDocument:
            let parent = Bool.random(using: &random) ? folders.randomElement(using: &random)?.id : nil
            let node = try store.addNode(.scene, titled: "Notes \(tag)", in: project, under: parent)
            subject = String(node.id.hex.prefix(6))
            let blocks = try (0..<Int.random(in: 1...2, using: &random)).map { _ in
                Block(id: try BlockID.random(), kind: .paragraph, text: words.type(on: device, count: 2).joined(separator: " "))
            }
            try store.replaceDocumentContent(of: node.id, in: project, with: DocumentContent(blocks: blocks))
        case .renameDocument:
            guard let document = documents.randomElement(using: &random) else { return nil }
            subject = String(document.id.hex.prefix(6))
            try store.renameNode(document.id, in: project, to: "Renamed \(tag)")
        case .moveDocument:
            guard let document = documents.randomElement(using: &random) else { return nil }
            let parent = Bool.random(using: &random) ? folders.randomElement(using: &random)?.id : nil
            let siblings = nodes.filter { $0.parent == parent && $0.id != document.id }
            let before = Bool.random(using: &random) ? siblings.randomElement(using: &random)?.id : nil
            subject = String(document.id.hex.prefix(6))
            try store.moveNode(document.id, in: project, under: parent, before: before)
        case .removeDocument:
            guard documents.count > 1, let document = documents.randomElement(using: &random) else { return nil }
            // The document goes with its branches: every word it showed is deleted on purpose.
            let shown = try store.documentContent(of: document.id, in: project).blocks
                + store.branches(of: document.id, in: project).flatMap { try store.branchContent($0.id, of: document.id, in: project).blocks }
            words.changed(from: shown, to: [])
            subject = String(document.id.hex.prefix(6))
            try store.removeNode(document.id, in: project)
        case .createFolder:
            guard folders.count < 3 else { return nil }
            _ = try store.addNode(.chapter, titled: "Part \(tag)", in: project)
        case .removeFolder:
            guard let folder = folders.filter({ folder in !nodes.contains { $0.parent == folder.id } }).randomElement(using: &random) else { return nil }
            try store.removeNode(folder.id, in: project)
        case .renameProject:
            try store.rename(project, to: "Field notes \(tag)")
        }
        return subject
    }

    /// A paragraph-level edit of `blocks`: a word typed, deleted or replaced in one; one added,
    /// deleted or moved. On an empty document, a paragraph is added.
    private func edited(_ blocks: [Block], on device: Int, _ words: inout WordsTyped, _ random: inout ScheduleRandom) throws -> [Block] {
        var blocks = blocks
        let operation = blocks.isEmpty ? .addParagraph : self
        switch operation {
        case .typeWord, .deleteWord, .replaceWord:
            let index = Int.random(in: blocks.indices, using: &random)
            var text = blocks[index].text.split(separator: " ").map(String.init)
            let at = Int.random(in: 0...text.count, using: &random)
            if operation != .typeWord, at < text.count { text.remove(at: at) }
            if operation != .deleteWord { text.insert(contentsOf: words.type(on: device), at: at) }
            blocks[index].text = text.joined(separator: " ")
        case .addParagraph:
            let block = Block(id: try BlockID.random(), kind: .paragraph, text: words.type(on: device, count: 2).joined(separator: " "))
            blocks.insert(block, at: Int.random(in: 0...blocks.count, using: &random))
        case .deleteParagraph:
            blocks.remove(at: Int.random(in: blocks.indices, using: &random))
        default:
            let block = blocks.remove(at: Int.random(in: blocks.indices, using: &random))
            blocks.insert(block, at: Int.random(in: 0...blocks.count, using: &random))
        }
        return blocks
    }
}
