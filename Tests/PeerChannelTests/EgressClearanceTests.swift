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
}
