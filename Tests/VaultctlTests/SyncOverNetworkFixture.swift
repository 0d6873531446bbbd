import Appliance
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

/// Two vaults on two hosts (network namespaces, or loopback where the machine does not allow them),
/// paired as each other's own devices, with one project of one document made on the laptop and
/// synced once. The desk's daemon answers the channel; the laptop runs `vaultctl sync now`. Edits
/// are made in this process through the library (a fresh open and unlock each time, with the real
/// audit log), and every word ever typed is tracked here, outside the code under test.
final class SyncOverNetworkFixture {
    let hosts = TwoHosts()
    let desk: CLIVault
    let laptop: CLIVault
    let deskFingerprint: String
    private(set) var daemon: CLI.Running?
    private(set) var channelAddress = ""
    private(set) var project: ProjectID!
    private(set) var document: NodeID!
    /// Every document tracked: the first project's first (`project`, `document`), then those of the
    /// projects `addProject` made.
    private(set) var documents: [(project: ProjectID, document: NodeID)] = []
    /// Every word typed on either device, per tracked document.
    private(set) var typed: [[String]] = []
    static let paragraphs = 4

    init() throws {
        (desk, laptop) = try Self.pairAsOwnDevices(hosts)
        deskFingerprint = try PeersCommandTests.fingerprint(desk)
        try startDaemon()
        let (project, document) = try edit(laptop) { store in
            let project = try store.createProject(named: "Field notes", register: .general, kind: .document)
            let node = try store.addNode(.scene, titled: "Day one", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: try (0..<Self.paragraphs).map {
                Block(id: try BlockID.random(), kind: .paragraph, text: "p\($0)")
            }))
            return (project.id, node.id)
        }
        self.project = project
        self.document = document
        documents = [(project, document)]
        typed = [(0..<Self.paragraphs).map { "p\($0)" }]
        let first = try sync()
        try #require(first.status == 0, "the first sync failed: \(first.stderr)")
    }

    deinit {
        if let daemon { kill(daemon.process.processIdentifier, SIGKILL) }
        hosts.setLink(.laptop, up: true)
    }

    /// Two vaults paired across the hosts, each trusting the other as the owner's own.
    static func pairAsOwnDevices(_ hosts: TwoHosts) throws -> (desk: CLIVault, laptop: CLIVault) {
        let desk = try CLIVault(), laptop = try CLIVault()
        let host = try hosts.start(.desk, ["pair", "host", "--address", hosts.address(.desk) + ":0", "--trust", "mine",
                                           "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        let (code, pairingAddress) = try NetworkTests.codeAndAddress(host)
        try laptop.write(code + "\n", to: laptop.root + "/code")
        let joined = try hosts.run(.laptop, laptop, ["pair", "join", pairingAddress, "--code-file", laptop.root + "/code", "--trust", "mine"])
        host.process.waitUntilExit()
        try #require(joined.status == 0 && host.process.terminationStatus == 0, "\(joined.stderr) \(host.result().stderr)")
        return (desk, laptop)
    }

    func startDaemon() throws {
        let daemon = try hosts.start(.desk, ["serve", "--address", hosts.address(.desk) + ":0",
                                             "--vault", desk.directory, "--passphrase-file", desk.passphraseFile])
        self.daemon = daemon
        channelAddress = try NetworkTests.channelAddress(daemon)
    }

    /// Kills the desk's daemon with SIGKILL and starts another.
    func killDaemon() throws {
        if let daemon {
            kill(daemon.process.processIdentifier, SIGKILL)
            daemon.process.waitUntilExit()
        }
        try startDaemon()
    }

    func syncArguments() -> [String] { ["sync", "now", "--peer", deskFingerprint, "--address", channelAddress] }

    /// `vaultctl sync now` on the laptop's host.
    func sync() throws -> CLI.Result { try hosts.run(.laptop, laptop, syncArguments()) }

    /// The same, started and left running.
    func startSync() throws -> CLI.Running {
        try hosts.start(.laptop, syncArguments() + ["--vault", laptop.directory, "--passphrase-file", laptop.passphraseFile])
    }

    // MARK: The vaults, in this process

    static func open(_ vault: CLIVault) throws -> UnlockedVault {
        try Vault.open(at: vault.directory, journal: AuditLog(), modules: VaultModules.all)
            .unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
    }

    func edit<Result>(_ vault: CLIVault, _ body: (WritingStore) throws -> Result) throws -> Result {
        let unlocked = try Self.open(vault)
        defer { try? unlocked.vault.finishCommand() }
        return try unlocked.transaction { tx in try body(WritingStore(tx)) }
    }

    /// Makes another project of one document of `paragraphs` paragraphs on the laptop (not synced
    /// yet), and tracks it; returns its index in `documents`.
    @discardableResult
    func addProject(named name: String) throws -> Int {
        let index = documents.count
        let words = (0..<Self.paragraphs).map { "d\(index)p\($0)" }
        let made = try edit(laptop) { store in
            let project = try store.createProject(named: name, register: .general, kind: .document)
            let node = try store.addNode(.scene, titled: name, in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: try words.map {
                Block(id: try BlockID.random(), kind: .paragraph, text: $0)
            }))
            return (project.id, node.id)
        }
        documents.append(made)
        typed.append(words)
        return index
    }

    /// Appends a fresh word to paragraph `index` of the document on `vault`, and tracks it.
    func type(_ word: String, into index: Int, on vault: CLIVault) throws {
        try type([(document: 0, paragraph: index, words: word)], on: vault)
    }

    /// Appends each fresh text to its paragraph of its tracked document on `vault`, all in one
    /// opening of the vault, and tracks every word.
    func type(_ edits: [(document: Int, paragraph: Int, words: String)], on vault: CLIVault) throws {
        for edit in edits { typed[edit.document] += edit.words.split(separator: " ").map(String.init) }
        try edit(vault) { store in
            for (index, tracked) in documents.enumerated() {
                let mine = edits.filter { $0.document == index }
                guard !mine.isEmpty else { continue }
                var content = try store.documentContent(of: tracked.document, in: tracked.project)
                for edit in mine { content.blocks[edit.paragraph % content.blocks.count].text += " " + edit.words }
                try store.replaceDocumentContent(of: tracked.document, in: tracked.project, with: content)
            }
        }
    }

    /// The document's paragraphs, and the paragraphs of each of its branches.
    func state(_ vault: CLIVault) throws -> (text: [String], branches: [[String]]) {
        try states(vault)[0]
    }

    /// The same for every tracked document, in order.
    func states(_ vault: CLIVault) throws -> [(text: [String], branches: [[String]])] {
        try edit(vault) { store in
            try documents.map { tracked in
                let text = try store.documentContent(of: tracked.document, in: tracked.project).blocks.map(\.text)
                let branches = try store.branches(of: tracked.document, in: tracked.project).map {
                    try store.branchContent($0.id, of: tracked.document, in: tracked.project).blocks.map(\.text)
                }
                return (text: text, branches: branches)
            }
        }
    }

    /// Both devices hold byte-identical documents, and every word typed is in its document or in a
    /// branch of it on each; returns the number of words only a branch holds (on the desk).
    @discardableResult
    func checkConverged(_ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> Int {
        let deskStates = try states(desk), laptopStates = try states(laptop)
        var inBranchOnly = 0
        for index in documents.indices {
            let deskState = deskStates[index], laptopState = laptopStates[index]
            let named = documents.count == 1 ? label : "\(label), document \(index)"
            #expect(deskState.text == laptopState.text, "\(named): the desk and the laptop differ", sourceLocation: sourceLocation)
            for (name, state) in [("desk", deskState), ("laptop", laptopState)] {
                let words = Set(state.text.flatMap { $0.split(separator: " ").map(String.init) })
                let branchWords = Set(state.branches.flatMap { $0.flatMap { $0.split(separator: " ").map(String.init) } })
                let lost = typed[index].filter { !words.contains($0) && !branchWords.contains($0) }
                #expect(lost.isEmpty, "\(named): on the \(name), \(lost.count) words typed are in neither the document nor a branch: \(lost.prefix(10))",
                        sourceLocation: sourceLocation)
                if name == "desk" { inBranchOnly += typed[index].filter { !words.contains($0) }.count }
            }
        }
        return inBranchOnly
    }

    /// No word appears twice in any tracked document (nothing was applied twice).
    func checkNoDuplicates(_ label: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        for vault in [desk, laptop] {
            for (index, state) in try states(vault).enumerated() {
                let words = state.text.flatMap { $0.split(separator: " ").map(String.init) }
                let named = documents.count == 1 ? label : "\(label), document \(index)"
                #expect(words.count == Set(words).count, "\(named): \(words.count - Set(words).count) words appear twice", sourceLocation: sourceLocation)
            }
        }
    }

    /// Both audit logs verify, and both vaults rebuild the project's replica from what they stored
    /// (every record verifies again); with `sameRecords`, both hold the same records.
    func checkVaults(_ label: String, sameRecords: Bool = true, sourceLocation: SourceLocation = #_sourceLocation) throws {
        var vectors: [[[DeviceID: UInt64]]] = []
        for vault in [desk, laptop] {
            let unlocked = try Self.open(vault)
            _ = try AuditLogReader(vault: unlocked.vault).verify()
            let keys = try unlocked.deviceKeys()
            let devices = Dictionary(uniqueKeysWithValues: try unlocked.vault.familyPairings().map { ($0.peer.deviceID, $0.peer.signingPublicKey) })
            vectors.append(try unlocked.transaction { tx in
                let sync = VaultSync(WritingStore(tx), author: SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey), devices: devices)
                return try Set(documents.map(\.project)).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.map { try sync.replica(of: $0).versionVector }
            })
        }
        #expect(!sameRecords || vectors[0] == vectors[1], "\(label): the two devices hold different records: \(vectors)", sourceLocation: sourceLocation)
    }
}
