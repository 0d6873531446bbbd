import Appliance
import AuditChain
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PeerChannel
import Sync
import Testing
import TestSupport
import Writing

/// A hostile paired peer over a real network (issue 17): the laptop's `vaultctl serve` answers in a
/// network namespace of its own, reached over a veth pair from this process, which plays a device
/// the laptop paired as its owner's own and then turned: a forged signature, a replayed change, a
/// change for a project it has no access to, a huge record, a malformed record, a causality cycle
/// and a record going backwards in time. Each is refused with its reason and recorded on the laptop;
/// then the desk, an honest own device, syncs with the laptop over the same network and it works.
@Suite(.serialized)
struct HostilePeerOverNetworkTests {
    /// One namespace for the laptop, joined to this (the root) namespace by a veth pair.
    final class Network {
        let namespace: String
        let subnet = Int.random(in: 1...250)
        private let suffix = String(UUID().uuidString.prefix(6)).lowercased()

        init?() {
            namespace = "svhl-" + suffix
            guard getuid() == 0, FileManager.default.isExecutableFile(atPath: TwoHosts.ip) else { return nil }
            let (outside, inside) = ("vho" + suffix, "vhi" + suffix)
            let steps = [["netns", "add", namespace], ["link", "add", outside, "type", "veth", "peer", "name", inside],
                         ["link", "set", inside, "netns", namespace], ["addr", "add", "10.198.\(subnet).1/24", "dev", outside],
                         ["link", "set", outside, "up"], ["-n", namespace, "addr", "add", laptopAddress + "/24", "dev", inside],
                         ["-n", namespace, "link", "set", inside, "up"], ["-n", namespace, "link", "set", "lo", "up"]]
            guard steps.allSatisfy({ Self.ip($0) == 0 }) else { _ = Self.ip(["netns", "delete", namespace]); return nil }
        }

        deinit { _ = Self.ip(["netns", "delete", namespace]) }

        var laptopAddress: String { "10.198.\(subnet).2" }

        /// vaultctl started inside the laptop's namespace.
        func start(_ arguments: [String]) throws -> CLI.Running {
            try CLI.start(["netns", "exec", namespace, CLI.binary] + arguments, executable: TwoHosts.ip)
        }

        static func ip(_ arguments: [String]) -> Int32 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: TwoHosts.ip)
            process.arguments = arguments
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            guard (try? process.run()) != nil else { return -1 }
            process.waitUntilExit()
            return process.terminationStatus
        }
    }

    /// Pairs `other` (in this namespace) with the laptop (in its own), each trusting the other as its own.
    static func pair(_ network: Network, laptop: CLIVault, with other: CLIVault) throws {
        let host = try network.start(["pair", "host", "--address", network.laptopAddress + ":0", "--trust", "mine",
                                      "--vault", laptop.directory, "--passphrase-file", laptop.passphraseFile])
        let (code, address) = try NetworkTests.codeAndAddress(host)
        try other.write(code + "\n", to: other.root + "/code")
        let joined = try other.run(["pair", "join", address, "--code-file", other.root + "/code", "--trust", "mine"])
        host.process.waitUntilExit()
        try #require(joined.status == 0 && host.process.terminationStatus == 0, "\(joined.stderr) \(host.result().stderr)")
    }

    /// `body` in one transaction of the vault's writing store, opened and unlocked in this process.
    @discardableResult
    static func editing<Result>(_ vault: CLIVault, _ body: (WritingStore) throws -> Result) throws -> Result {
        let unlocked = try SyncOverNetworkFixture.open(vault)
        defer { try? unlocked.vault.finishCommand() }
        return try unlocked.transaction { tx in try body(WritingStore(tx)) }
    }

    /// The reasons the laptop recorded for refused records and refused requests, in order.
    static func refusals(_ vault: CLIVault) throws -> (records: [String], requests: [String]) {
        let unlocked = try SyncOverNetworkFixture.open(vault)
        defer { try? unlocked.vault.finishCommand() }
        let keys = try unlocked.auditKeys()
        var found: (records: [String], requests: [String]) = ([], [])
        for entry in try AuditLogReader(vault: unlocked.vault).entries()
        where [AuditAction.syncRecordRefused.name, AuditAction.syncExchangeRefused.name].contains(entry.action) {
            let reason = try AuditLogReader.details(of: entry, vaultID: unlocked.vault.vaultID, keys: keys).first { $0.name == "reason" }?.value ?? "?"
            if entry.action == AuditAction.syncRecordRefused.name { found.records.append(reason) } else { found.requests.append(reason) }
        }
        return found
    }

    // Skipped, and reported as skipped, where namespaces cannot be made (not root, no iproute2): it
    // returned there and was counted as passed (review 17 F17-13). Where they can, a namespace that
    // fails to come up fails the test.
    @Test(.enabled("needs network namespaces: root and iproute2") { NetworkNamespaces.availableOrSaySkipped("HostilePeerOverNetworkTests") })
    func aHostilePairedPeerIsRefusedAndRecordedOverTheNetworkAndHonestSyncGoesOn() throws {
        let network = try #require(Network(), "the laptop's network namespace could not be made")
        let laptop = try CLIVault(), hostile = try CLIVault(), desk = try CLIVault()
        try Self.pair(network, laptop: laptop, with: hostile)
        try Self.pair(network, laptop: laptop, with: desk)
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop)
        let (projectID, documentID) = try Self.editing(laptop) { store in
            let project = try store.createProject(named: "Case notes", register: .general, kind: .document)
            let node = try store.addNode(.scene, titled: "Intake", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                Block(id: try BlockID.random(), kind: .paragraph, text: "first"), Block(id: try BlockID.random(), kind: .paragraph, text: "second"),
            ]))
            return (project.id, node.id)
        }
        let daemon = try network.start(["serve", "--address", network.laptopAddress + ":0", "--vault", laptop.directory, "--passphrase-file", laptop.passphraseFile])
        defer { kill(daemon.process.processIdentifier, SIGKILL); daemon.process.waitUntilExit() }
        let channel = try NetworkTests.channelAddress(daemon)

        // The hostile device syncs honestly once (it is paired as an own device), then turns.
        let turned = try SyncOverNetworkFixture.open(hostile)
        defer { try? turned.vault.finishCommand() }
        let laptopProfile = try #require(try turned.vault.familyPairings().first).peer
        let keys = try turned.deviceKeys()
        let transport = ChannelSyncTransport(try ChannelClient(connectingTo: try SocketAddress(parsing: channel), localKeys: keys, peer: laptopProfile))
        #expect(try SyncInitiator(vault: turned, transport: transport, coordinator: nil).run().received > 0)
        let author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        let held = try turned.transaction { tx in try VaultSync(WritingStore(tx), author: author, devices: [laptopProfile.deviceID: laptopProfile.signingPublicKey])
            .records(of: projectID, missingFrom: [:]) }
        let parent = try ChangeRecordCodec.parse(try #require(held.last))
        let honest = try ChangeRecord.make(project: projectID, author: author, counter: 1, lamport: parent.lamport + 1, parents: [parent.hash],
                                           operations: [.node(try NodeID.random(), .present(kind: .scene, parent: nil, orderKey: "1k", title: "From the turned device"))])
        func push(_ records: [[UInt8]], to id: ProjectID = projectID) throws -> SyncPushAnswer {
            try SyncPushAnswer(parsing: try transport.requestAsAnyPeer(SyncWire.pushKind, body: SyncPushRequest(project: id, records: records).serialized()))
        }
        var forged = honest.encoded
        forged[forged.count - 1] ^= 1
        #expect(try push([forged]).refused == ["badSignature"])
        #expect(try push([held[0]]).refused == ["replayedRecord"])
        // A project the laptop lacks: the push refused whole, before any record is read (review 17, F4).
        #expect(throws: SyncExchangeError(.notShared, "")) { try push([honest.encoded], to: try ProjectID.random()) }
        #expect(try push([Array(honest.encoded.dropLast(5))]).refused == ["malformedRecord"])
        // Two records naming each other's hashes cannot be made; a record whose parent never comes is
        // what a cycle looks like on the wire: it waits, and is refused when the exchange ends.
        let orphan = try ChangeRecord.make(project: projectID, author: author, counter: 2, lamport: 9, parents: [SHA256.hash(Array("elsewhere".utf8))],
                                           operations: [.node(try NodeID.random(), .removed)])
        #expect(try push([orphan.encoded]).refused == ["missingParents"])
        let backwards = try ChangeRecord.make(project: projectID, author: author, counter: 2, lamport: 1, parents: [honest.hash],
                                              operations: [.node(try NodeID.random(), .removed)])
        #expect(try push([honest.encoded, backwards.encoded]).refused == ["causalityViolation"])
        // A record past the wire's bound: the message is refused before any record is read.
        var huge: [UInt8] = [SyncWire.version] + projectID.bytes + [0, 0, 0, 1]
        let size = UInt32(SyncWire.maximumRecordLength + 1)
        huge += [UInt8(size >> 24), UInt8(size >> 16 & 0xff), UInt8(size >> 8 & 0xff), UInt8(size & 0xff)]
        #expect(throws: SyncExchangeError(.malformedMessage, "")) { try transport.requestAsAnyPeer(SyncWire.pushKind, body: huge) }
        // No longer trusted as an own device, and the project not shared with it: no access at all.
        #expect(try laptop.run(["peers", "trust", "--peer", try PeersCommandTests.fingerprint(hostile), "other"]).status == 0)
        #expect(throws: SyncExchangeError(.notShared, "")) { try push([honest.encoded]) }

        let recorded = try Self.refusals(laptop)
        #expect(recorded.records == ["badSignature", "replayedRecord", "malformedRecord", "missingParents", "causalityViolation"],
                "\(recorded)")
        #expect(recorded.requests == ["notShared", "malformedMessage", "notShared"], "\(recorded)")

        // Honest sync with another own device goes on, both ways, over the same network. The desk
        // was never paired with the turned device: the one record of it the laptop kept, signed while
        // it was trusted, verifies there through the laptop's roster, which names the signers the
        // laptop ended verify-only (reviewer s17, F17-16; before, it was refused there as
        // unknownDevice and every run exited 75), so the project wholly syncs; nothing the turned
        // device signed after reaches the desk (the laptop refused it above).
        for round in 1...2 {
            if round == 2 {
                try Self.editing(desk) { store in
                    var content = try store.documentContent(of: documentID, in: projectID)
                    content.blocks[1].text = "second, from the desk"
                    try store.replaceDocumentContent(of: documentID, in: projectID, with: content)
                }
            }
            let synced = try desk.run(["sync", "now", "--peer", laptopFingerprint, "--address", channel])
            #expect(synced.status == 0, "round \(round): \(synced.status): \(synced.stderr)")
            #expect(!synced.stderr.contains("refused"), "round \(round): \(synced.stderr)")
        }
        let texts = try Self.editing(laptop) { try $0.documentContent(of: documentID, in: projectID).blocks.map(\.text) }
        #expect(texts == ["first", "second, from the desk"])
        // The honest record the turned device sent while it was still trusted is kept; nothing else of it.
        let titles = try Self.editing(laptop) { try $0.nodes(in: projectID).map(\.title) }
        #expect(titles == ["Intake", "From the turned device"], "\(titles)")
        let deskTitles = try Self.editing(desk) { try $0.nodes(in: projectID).map(\.title) }
        #expect(deskTitles == titles, "\(deskTitles)")
    }
}
