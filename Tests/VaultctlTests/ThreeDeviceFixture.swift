import AuditChain
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Sync
import Testing
import TestSupport
import Writing

/// Three vaults on `ThreeHosts`, each pair paired as the owner's own devices ('mine'), each serving
/// the channel with `vaultctl serve` in its own namespace, with one project made on device 0 and
/// synced to the others. Syncs are `vaultctl sync now --peer` run on the asking device's host, in the
/// command's own process or forwarded to that device's daemon. Edits are made in this process
/// through the library (a fresh open and unlock each time, with the real audit log).
final class ThreeDeviceFixture {
    let hosts: ThreeHosts
    let vaults: [CLIVault]
    private(set) var fingerprints: [String] = []
    private(set) var daemons: [CLI.Running] = []
    private(set) var ports: [String] = []
    private(set) var project: ProjectID!
    /// The longest a sync may take before the test calls it stuck (each sync's own deadline is longer).
    static let syncSeconds = 120.0

    init() throws {
        hosts = try ThreeHosts()
        vaults = try (0..<3).map { _ in try CLIVault() }
        for (a, b) in ThreeHosts.pairs { try pair(host: a, joining: b) }
        fingerprints = try vaults.map { try PeersCommandTests.fingerprint($0) }
        for device in 0..<3 { try startDaemon(device) }
    }

    deinit {
        for daemon in daemons where daemon.process.isRunning { kill(daemon.process.processIdentifier, SIGKILL) }
    }

    /// `pair host` on `a`'s host, `pair join` from `b`'s, both trusting the other as 'mine'.
    private func pair(host a: Int, joining b: Int) throws {
        let host = try hosts.start(a, ["pair", "host", "--address", hosts.address(of: a, for: b) + ":0", "--trust", "mine",
                                       "--vault", vaults[a].directory, "--passphrase-file", vaults[a].passphraseFile])
        let (code, pairingAddress) = try NetworkTests.codeAndAddress(host)
        try vaults[b].write(code + "\n", to: vaults[b].root + "/code")
        let joining = try hosts.start(b, ["pair", "join", pairingAddress, "--code-file", vaults[b].root + "/code", "--trust", "mine",
                                          "--vault", vaults[b].directory, "--passphrase-file", vaults[b].passphraseFile])
        let joined = joining.finish(within: 60)
        _ = host.finish(within: 10)
        try #require(joined.status == 0 && host.process.terminationStatus == 0, "pairing \(a) and \(b): \(joined.stderr)")
    }

    /// `vaultctl serve` for `device`, on every address of its host (only its links are there).
    private func startDaemon(_ device: Int) throws {
        let daemon = try hosts.start(device, ["serve", "--address", "0.0.0.0:0",
                                              "--vault", vaults[device].directory, "--passphrase-file", vaults[device].passphraseFile])
        daemons.append(daemon)
        let address = try NetworkTests.channelAddress(daemon)
        ports.append(String(address.split(separator: ":").last ?? ""))
    }

    // MARK: Syncs

    /// `vaultctl sync now` on `asker`'s host with `answerer`, at its address on their link; through
    /// `asker`'s daemon (no passphrase given: the command runs there) or in its own process.
    func startSync(_ asker: Int, with answerer: Int, throughDaemon: Bool) throws -> CLI.Running {
        let credentials = throughDaemon ? [] : ["--passphrase-file", vaults[asker].passphraseFile]
        return try hosts.start(asker, ["sync", "now", "--peer", fingerprints[answerer],
                                       "--address", hosts.address(of: answerer, for: asker) + ":" + ports[answerer],
                                       "--vault", vaults[asker].directory] + credentials)
    }

    func sync(_ asker: Int, with answerer: Int, throughDaemon: Bool) throws -> CLI.Result {
        try startSync(asker, with: answerer, throughDaemon: throughDaemon).finish(within: Self.syncSeconds)
    }

    // MARK: The vaults, in this process

    func open(_ device: Int) throws -> UnlockedVault { try SyncOverNetworkFixture.open(vaults[device]) }

    func edit<Result>(_ device: Int, _ body: (WritingStore) throws -> Result) throws -> Result {
        let unlocked = try open(device)
        defer { try? unlocked.vault.finishCommand() }
        return try unlocked.transaction { tx in try body(WritingStore(tx)) }
    }

    /// Makes the project on device 0: a folder and two documents of two paragraphs each.
    func makeProject(typing words: () -> String) throws {
        project = try edit(0) { store in
            let project = try store.createProject(named: "Field notes", register: .general, kind: .document)
            let folder = try store.addNode(.chapter, titled: "Part one", in: project.id)
            for (title, parent) in [("Day one", folder.id), ("Day two", nil as NodeID?)] {
                let node = try store.addNode(.scene, titled: title, in: project.id, under: parent)
                try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: try (0..<2).map { _ in
                    Block(id: try BlockID.random(), kind: .paragraph, text: words())
                }))
            }
            return project.id
        }
    }

    /// What a device shows of the project: its name, its binder, each document's blocks, and each
    /// document's branches (kind, state and blocks), all in a canonical order.
    struct Shown: Equatable {
        struct Node: Equatable { let id: NodeID; let kind: NodeKind; let parent: NodeID?; let orderKey: String; let title: String }
        /// A branch, with its id: a sync conflict's is the conflict's id, the same on every device
        /// that makes it (SECURITY.md §19.5); every other branch travels with its id.
        struct BranchShown: Hashable {
            let id: BranchID?
            let kind: BranchKind
            let state: BranchState
            let blocks: [Block]
            /// A sync conflict's block (its provenance names it), nil for any other branch.
            let conflictBlock: BlockID?

            var sortKey: String { (id?.hex ?? "") + kind.rawValue + state.rawValue + blocks.map(\.text).joined(separator: "\n") }

            /// What the records decide of the branch, the same on every device that has it (SECURITY.md
            /// §19.3): its id, kind and state and, for a sync conflict's branch, the proposal's block
            /// of the conflict (none: the losing side is the block's removal). The rest of such a
            /// proposal is the device's own document when it made the branch, so it may differ: a
            /// device that removed the document while another typed in it gets it back and makes
            /// the document's conflict branches again from what it then shows. Any other branch's
            /// whole proposal travels, so all of it is compared.
            var decided: BranchShown {
                BranchShown(id: id, kind: kind, state: state, blocks: conflictBlock.map { block in blocks.filter { $0.id == block } } ?? blocks,
                            conflictBlock: conflictBlock)
            }
        }
        var name = ""
        var binder: [Node] = []
        var documents: [NodeID: [Block]] = [:]
        var branches: [NodeID: [BranchShown]] = [:]

        /// Every word in a document or in a branch.
        var keptWords: Set<String> {
            WordsTyped.words(in: documents.values.flatMap { $0 } + branches.values.flatMap { $0.flatMap(\.blocks) })
        }
    }

    func shown(_ device: Int) throws -> Shown {
        try edit(device) { store in
            var shown = Shown()
            shown.name = try store.name(of: try store.project(project))
            for node in try store.nodes(in: project) {
                shown.binder.append(.init(id: node.id, kind: node.kind, parent: node.parent, orderKey: node.orderKey, title: node.title))
                guard node.kind == .scene else { continue }
                shown.documents[node.id] = try store.documentContent(of: node.id, in: project).blocks
                shown.branches[node.id] = try store.branches(of: node.id, in: project).map {
                    Shown.BranchShown(id: $0.id, kind: $0.kind, state: $0.state,
                                      blocks: try store.branchContent($0.id, of: node.id, in: project).blocks,
                                      conflictBlock: WritingStore.conflictBlock(named: $0.provenance))
                }.sorted { $0.sortKey < $1.sortKey }
            }
            return shown
        }
    }

    /// Every audit log verifies, and every device rebuilds the project's replica from what it stored
    /// (every record verifies again); with `sameRecords`, all hold the same records.
    func checkVaults(_ label: String, sameRecords: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var vectors: [[DeviceID: UInt64]] = []
        for device in 0..<3 {
            let unlocked = try open(device)
            defer { try? unlocked.vault.finishCommand() }
            _ = try AuditLogReader(vault: unlocked.vault).verify()
            let keys = try unlocked.deviceKeys()
            let devices = Dictionary(uniqueKeysWithValues: try unlocked.vault.familyPairings().map { ($0.peer.deviceID, $0.peer.signingPublicKey) })
            vectors.append(try unlocked.transaction { tx in
                try VaultSync(WritingStore(tx), author: SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey), devices: devices)
                    .replica(of: project).versionVector
            })
        }
        #expect(!sameRecords || Set(vectors).count == 1, "\(label): the devices hold different records: \(vectors)", sourceLocation: sourceLocation)
    }
}

/// The words typed on the devices, and the ones a device deleted from what it showed (a deliberate
/// deletion: a word, a paragraph, a document). Kept here, outside the code under test, from what
/// each device showed before and after each of its edits: every word typed and not deliberately
/// deleted must be in a document or a branch on every device once they have synced.
struct WordsTyped {
    private(set) var typed = Set<String>()
    private(set) var deleted = Set<String>()
    private var next = 0

    var mustSurvive: Set<String> { typed.subtracting(deleted) }

    /// `count` new words, each unique, typed on `device`.
    mutating func type(on device: Int, count: Int = 1) -> [String] {
        (0..<count).map { _ in
            next += 1
            let word = "d\(device)w\(next)"
            typed.insert(word)
            return word
        }
    }

    /// A fresh word for a title (titles are compared, not tracked).
    mutating func title() -> String {
        next += 1
        return "t\(next)"
    }

    /// A device changed what it showed from `before` to `after`: what left, it deleted.
    mutating func changed(from before: [Block], to after: [Block]) {
        deleted.formUnion(Self.words(in: before).subtracting(Self.words(in: after)))
    }

    static func words(in blocks: [Block]) -> Set<String> {
        Set(blocks.flatMap { $0.text.split(separator: " ").map(String.init) })
    }
}

/// SplitMix64: the schedules' random choices, replayable from one seed.
struct ScheduleRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
