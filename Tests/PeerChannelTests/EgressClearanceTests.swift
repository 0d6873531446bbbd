import AuditChain
import CryptoVault
import Foundation
@testable import PeerChannel
import PrivilegedSession
import Testing
import TestSupport

/// Replication and sharing carry the vault's bytes to another device, so each takes the egress
/// funnel's clearance of exactly what it sends (SECURITY.md §10.5): a decision on the metadata of
/// ciphertext the leak guard cannot read, recorded as any egress decision is.
struct EgressClearanceTests {
    /// Hands the transport a real clearance, but one the funnel gave for other bytes.
    struct ClearingSomethingElse: EgressClearing {
        let funnel: EgressFunnel
        func clear(_ egress: CiphertextEgress) throws -> EgressClearance {
            try funnel.clear(CiphertextEgress(destination: egress.destination, compartmentIDs: egress.compartmentIDs,
                                              size: egress.size, sha256: [UInt8](repeating: 0, count: 32)))
        }
    }

    @Test("replicating a privileged compartment's bundle is an egress decision on its ciphertext (device, size, SHA-256), recorded before replica.send")
    func privilegedReplicationPassesTheFunnel() throws {
        let pair = try ReplicationPair()
        let chart = try pair.source.vault.createCompartment(named: "chart", register: .healthcare)
        #expect(chart.isPrivileged)
        let bundle = try pair.put(70_000, seed: 3, in: chart)
        let report = try pair.replicate()
        #expect(report.sentBundles == [bundle.bundleID])

        let entries = try pair.source.auditEntries("")
        let decision = try #require(entries.firstIndex { $0.action == "egress.decision" })
        let sent = try #require(entries.firstIndex { $0.action == "replica.send" })
        #expect(decision < sent)
        let details = entries[decision].details
        let ciphertext = try #require(pair.bytes(at: pair.sourceFile(bundle)))
        #expect(details["destination"] == "device:" + pair.peer.keys.profile.deviceID.hex)
        #expect(details["compartments"] == chart.id.hex)
        #expect(details["decision"] == "allow" && details["content"] == "ciphertext")
        #expect(details["size"] == "\(ciphertext.count)" && details["sha256"] == ByteEncoding.hex(SHA256.hash(ciphertext)))
    }

    @Test("a policy that keeps a compartment from devices refuses its replication (egressRefused): the refusal is recorded and the peer gets nothing")
    func aRefusedDecisionSendsNothing() throws {
        let pair = try ReplicationPair()
        _ = try pair.put(5_000, seed: 1, in: pair.memos)
        let policy = EgressPolicy(compartmentRules: [pair.memos.id: EgressRule(destinations: [.vault], whenFound: .refuse)])
        let funnel = try EgressFunnel(vault: pair.source.vault, policy: policy)
        #expect(throws: PrivilegedSessionError(.egressRefused, "")) {
            try Replicator(vault: pair.source.vault, channel: pair.channel(), clearing: funnel).replicate()
        }
        #expect(try pair.inventory().isEmpty)
        let decisions = try pair.source.auditEntries("egress.decision")
        #expect(decisions.map { $0.details["decision"] } == ["refuse"])
        #expect(try pair.source.auditEntries("replica.send").isEmpty)
    }

    @Test("a clearance the funnel gave for other bytes is refused by the transport (egressNotCleared) before anything is sent, for replication and for sharing")
    func aClearanceForOtherBytesIsRefused() throws {
        let pair = try ReplicationPair()
        _ = try pair.put(5_000, seed: 2, in: pair.memos)
        let channel = pair.channel()
        let wrong = ClearingSomethingElse(funnel: try EgressFunnel(vault: pair.source.vault))
        #expect(throws: PeerChannelError(.egressNotCleared, "")) {
            try Replicator(vault: pair.source.vault, channel: channel, clearing: wrong).replicate()
        }
        #expect(channel.requestCounts[ReplicationWire.announceKind] == nil && channel.requestCounts[ReplicationWire.chunkKind] == nil)

        let devices = try ShareGrantServiceTests.Devices()
        let shareChannel = devices.channel()
        var asked = false
        shareChannel.answerOverride = { answer in asked = true; return answer }
        #expect(throws: PeerChannelError(.egressNotCleared, "")) {
            try ShareSender.share(devices.memos, role: .viewer, vault: devices.owner, over: shareChannel,
                                  clearing: ClearingSomethingElse(funnel: try EgressFunnel(vault: devices.owner)))
        }
        #expect(!asked)
        #expect(try devices.recipient.sharedCompartment(named: "Memos") == nil)
    }

    @Test("sharing a compartment is an egress decision on the grant (share:DEVICE, its size and SHA-256), recorded before compartment.share")
    func sharingPassesTheFunnel() throws {
        let devices = try ShareGrantServiceTests.Devices()
        let grant = try ShareSender.share(devices.memos, role: .viewer, vault: devices.owner, over: devices.channel(),
                                          clearing: try EgressFunnel(vault: devices.owner))
        let events = devices.ownerEvents.recorded.withLock { $0 }
        let decision = try #require(events.firstIndex { $0.action == .egressDecision })
        let shared = try #require(events.firstIndex { $0.action == .compartmentShare })
        #expect(decision < shared)
        let details = Dictionary(events[decision].details.map { ($0.name, $0.value) }) { first, _ in first }
        let body = grant.serialized()
        #expect(details["destination"] == "share:" + devices.recipientDevice.profile.deviceID.hex)
        #expect(details["decision"] == "allow" && details["content"] == "ciphertext")
        #expect(details["size"] == "\(body.count)" && details["sha256"] == ByteEncoding.hex(SHA256.hash(body)))
    }
}

/// No transport can be handed bytes of the vault without the funnel: a clearance is made in one
/// file of PrivilegedSession, and each outbound transport of PeerChannel demands one.
struct EgressClearanceGuardTests {
    static func sources() throws -> [(path: String, text: String)] { try PackageFiles.swiftSources() }

    @Test("an EgressClearance is made only by the funnel (CiphertextClearance.swift), through an initializer that is package-internal")
    func onlyTheFunnelMakesAClearance() throws {
        let sources = try Self.sources()
        let makers = sources.filter { $0.text.contains("EgressClearance(") }.map(\.path)
        #expect(makers == ["Sources/PrivilegedSession/Egress/CiphertextClearance.swift"], "\(makers)")
        let declaration = try #require(sources.first { $0.path == "Sources/CryptoVault/Egress/EgressClearance.swift" })
        let initializers = declaration.text.split(separator: "\n").filter { $0.contains("init(recordedDecisionFor") }
        #expect(initializers.count == 1 && initializers.allSatisfy { $0.trimmingCharacters(in: .whitespaces).hasPrefix("package init(") })
    }

    @Test("every PeerChannel entry point that sends the vault's bundles or keys to a device takes the funnel (EgressClearing)")
    func everyOutboundTransportDemandsAClearance() throws {
        let peerChannel = try Self.sources().filter { $0.path.hasPrefix("Sources/PeerChannel/") }
        let replicator = try #require(peerChannel.first { $0.path.hasSuffix("/Replicator.swift") })
        #expect(replicator.text.contains("public init(vault: UnlockedVault, channel: ChannelRequesting, clearing: any EgressClearing)"))
        #expect(!replicator.text.contains("public init(vault: UnlockedVault, channel: ChannelRequesting)"))
        let copySender = try #require(peerChannel.first { $0.path.hasSuffix("/VaultCopySender.swift") })
        #expect(copySender.text.contains("public init(vault: UnlockedVault, channel: ChannelRequesting, clearing: any EgressClearing)"))
        let sender = try #require(peerChannel.first { $0.path.hasSuffix("/ShareSender.swift") })
        #expect(sender.text.contains("over channel: ChannelRequesting, clearing: any EgressClearing) throws -> ShareGrant"))
        // The wire kinds that carry a bundle's ciphertext, a whole-vault copy or a grant are sent from
        // those three files only.
        for kind in ["ReplicationWire.chunkKind", "ReplicationWire.announceKind", "ShareGrantService.grantKind",
                     "VaultCopyWire.offerKind", "VaultCopyWire.chunkKind"] {
            let senders = peerChannel.filter { $0.text.contains("request(\(kind)") || $0.text.contains("requests(\(kind)") }.map(\.path)
            #expect(senders.allSatisfy { $0.hasSuffix("/Replicator.swift") || $0.hasSuffix("/ShareSender.swift") || $0.hasSuffix("/VaultCopySender.swift") },
                    "\(kind): \(senders)")
        }
    }

    /// Every file in Sources/ that sends a request to a paired device (a channel or sync transport's
    /// `request`/`requests`), and why what it sends may leave. A new sender fails here until it is
    /// listed, with a clearance, a released payload, or a reason its bytes are not the vault's content.
    static let channelSenders: [String: String] = [
        "Sources/PeerChannel/Sharing/ShareSender.swift": "a share grant, after an EgressClearance",
        "Sources/PeerChannel/Replication/Replicator.swift": "bundle ciphertext, after an EgressClearance",
        "Sources/PeerChannel/Replication/VaultCopySender.swift": "a whole-vault copy, after an EgressClearance",
        "Sources/PeerChannel/Replication/PeerInventory.swift": "asks which bundle ids the peer keeps for this vault (ids only)",
        "Sources/PeerChannel/Replication/VaultRestorer.swift": "asks for this vault's own replica back, by bundle id",
        "Sources/PeerChannel/Witnessing/WitnessClient.swift": "a signed checkpoint and a consistency proof (public tree heads)",
        "Sources/Sync/Exchange/SyncInitiator.swift": "through SyncTransport, which takes only a SyncOutgoing",
        "Sources/Sync/Repair/StoreRepair.swift": "through SyncTransport: a projects request and pull requests (it sends no record)",
        "Sources/Appliance/Daemon/SyncChannelService.swift": "ChannelSyncTransport: the bytes of a SyncOutgoing",
        "Sources/vaultctl/Commands/PeerChannelCommands.swift": "a ping's sequence byte",
        "Sources/vaultbench/ChannelBenchmarks.swift": "a benchmark's synthetic bytes",
        // Not a paired device, caught by the same pattern: an MCP server's JSON-RPC ("tools/list",
        // "tools/call"), whose tool arguments pass the egress funnel first (Agents, SECURITY.md §17).
        "Sources/Agents/MCP/MCPClient+Tools.swift": "an MCP server's JSON-RPC, arguments released by the funnel",
    ]

    @Test("every file that sends to a paired device is listed with why its bytes may leave; a new raw send fails here")
    func everyChannelSenderIsKnown() throws {
        let pattern = try NSRegularExpression(pattern: #"(?<!ChannelMessage)\.requests?\(\s*("|[A-Za-z]+\.[A-Za-z]*[Kk]ind\b|kind\b)"#)
        let senders = Set(try Self.sources().filter { file in
            pattern.firstMatch(in: file.text, range: NSRange(file.text.startIndex..., in: file.text)) != nil
        }.map(\.path))
        #expect(senders == Set(Self.channelSenders.keys), "unlisted: \(senders.subtracting(Self.channelSenders.keys).sorted()); gone: \(Set(Self.channelSenders.keys).subtracting(senders).sorted())")
    }

    @Test("the sync exchange sends only what the funnel released: its transport and its answers take a SyncOutgoing, which no bytes make")
    func syncSendsOnlyReleasedPayloads() throws {
        let sources = try Self.sources()
        func text(_ suffix: String) throws -> String { try #require(sources.first { $0.path.hasSuffix(suffix) }).text }
        let initiator = try text("/Sync/Exchange/SyncInitiator.swift")
        #expect(initiator.contains("func request(_ kind: String, body: SyncOutgoing) throws -> [UInt8]"))
        #expect(!initiator.contains("body: [UInt8]) throws"))
        let responder = try text("/Sync/Exchange/SyncResponder.swift")
        #expect(responder.contains("public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> SyncOutgoing"))
        // SyncOutgoing: no initializer from bytes but its private one; made from a release in SyncEndpoint only.
        let outgoing = try text("/Sync/Exchange/SyncOutgoing.swift")
        let initializers = outgoing.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { $0.contains("init(") && !$0.hasPrefix("///") }
        #expect(initializers.filter { $0.contains("[UInt8]") }.allSatisfy { $0.hasPrefix("private init(bytes: [UInt8])") }, "\(initializers)")
        #expect(initializers.contains { $0.hasPrefix("init(released: ReleasedPayload)") })
        let releasers = sources.filter { $0.text.contains("SyncOutgoing(released:") }.map(\.path)
        #expect(releasers == ["Sources/Sync/Exchange/SyncEndpoint.swift"], "\(releasers)")
        let transport = try text("/Appliance/Daemon/SyncChannelService.swift")
        #expect(transport.contains("public func request(_ kind: String, body: SyncOutgoing) throws -> [UInt8]"))
    }
}
