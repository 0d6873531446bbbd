import CryptoVault
import Foundation
@testable import PeerChannel
import Synchronization
import Testing
import PrivilegedSession

/// `share.grant` between two paired vaults, over an in-memory channel that hands each request to
/// the peer's service as the real channel does once the peer's static key is authenticated.
struct ShareGrantServiceTests {
    /// A channel whose far end is `service`, which sees the requests as coming from `requester`.
    final class DirectChannel: ChannelRequesting {
        let peer: DeviceProfile
        let requester: DeviceProfile
        let service: any ChannelService
        var answerOverride: (([UInt8]) -> [UInt8])?

        init(peer: DeviceProfile, requester: DeviceProfile, service: any ChannelService) {
            self.peer = peer
            self.requester = requester
            self.service = service
        }

        func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
            #expect(service.requestKinds.contains(kind) && kind.utf8.count <= ChannelLimits.maximumKindLength)
            #expect(body.count <= ChannelLimits.maximumBodyLength)
            let answer = try service.respond(to: kind, body: body, from: requester)
            return answerOverride?(answer) ?? answer
        }
    }

    /// A journal that keeps the events it is given.
    final class Events: VaultJournal {
        let recorded = Mutex<[VaultEvent]>([])
        func append(_ event: VaultEvent, in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
            recorded.withLock { $0.append(event) }
        }
        func commandFinished(in database: Database, vaultID: VaultID) throws {}
        func last(_ action: String) -> VaultEvent? { recorded.withLock { $0.last { $0.action.name == action } } }
    }

    /// Two vaults in a temporary directory; the owner has an ordinary "Memos" and a privileged "Charts".
    final class Devices {
        let root = NSTemporaryDirectory() + "share-service-test-\(UUID().uuidString)"
        let ownerEvents = Events(), recipientEvents = Events()
        let owner: UnlockedVault, recipient: UnlockedVault
        let ownerDevice: DeviceKeys, recipientDevice: DeviceKeys
        let memos: VaultCompartment

        init(pairRecipientWithOwner: Bool = true) throws {
            owner = try Self.vault(at: root + "/owner", journal: ownerEvents)
            recipient = try Self.vault(at: root + "/recipient", journal: recipientEvents)
            ownerDevice = try owner.deviceKeys(nameIfNew: "front-desk")
            recipientDevice = try recipient.deviceKeys(nameIfNew: "laptop")
            try owner.storePairing(FamilyPairing(peer: recipientDevice.profile, role: .host, pairedAt: 1))
            if pairRecipientWithOwner {
                try recipient.storePairing(FamilyPairing(peer: ownerDevice.profile, role: .join, pairedAt: 1))
            }
            memos = try owner.createCompartment(named: "Memos", register: .general)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        static func vault(at path: String, journal: Events) throws -> UnlockedVault {
            let passphrase = try SecureBytes(copying: Array("correct horse battery staple".utf8))
            _ = try Vault.create(at: path, passphrase: passphrase, kdf: .argon2idFloor, journal: journal)
            return try Vault.open(at: path, journal: journal).unlock(with: .passphrase(passphrase))
        }

        /// The owner's channel to the recipient's sharing service.
        func channel(from requester: DeviceProfile? = nil) -> DirectChannel {
            DirectChannel(peer: recipientDevice.profile, requester: requester ?? ownerDevice.profile,
                          service: ShareGrantService(vault: recipient))
        }
    }

    @Test func aShareIsAcceptedAndRecordedOnBothSides() throws {
        let devices = try Devices()
        let grant = try ShareSender.share(devices.memos, role: .editor, vault: devices.owner, over: devices.channel(), clearing: try EgressFunnel(vault: devices.owner))
        let shared = try #require(try devices.recipient.sharedCompartment(named: "Memos"))
        #expect(shared.sharing?.role == .editor && shared.id == devices.memos.id)
        let share = try #require(devices.ownerEvents.last("compartment.share"))
        #expect(share.compartmentID == devices.memos.id && share.subjectID == devices.recipientDevice.profile.deviceID.bytes)
        #expect(share.details == [.init("peer", "laptop"), .init("name", "Memos"), .init("role", "editor"), .init("key-versions", "1")])
        let received = try #require(devices.recipientEvents.last("share.receive"))
        #expect(received.subjectID == devices.ownerDevice.profile.deviceID.bytes && received.details == grant.auditDetails)
        #expect(devices.ownerEvents.last("compartment.share-failed") == nil)
    }

    @Test func aRefusalComesBackWithItsReasonAndIsRecordedOnBothSides() throws {
        let devices = try Devices(pairRecipientWithOwner: false)
        #expect(throws: PeerChannelError(.shareSenderNotPaired, "")) {
            try ShareSender.share(devices.memos, role: .viewer, vault: devices.owner, over: devices.channel(), clearing: try EgressFunnel(vault: devices.owner))
        }
        #expect(try devices.recipient.sharedCompartments().isEmpty)
        let failed = try #require(devices.ownerEvents.last("compartment.share-failed"))
        #expect(failed.details.contains(.init("reason", "shareSenderNotPaired")))
        #expect(devices.ownerEvents.last("compartment.share") == nil)
        let refused = try #require(devices.recipientEvents.last("share.grant-refused"))
        #expect(refused.subjectID == devices.ownerDevice.profile.deviceID.bytes && refused.details == [.init("reason", "shareSenderNotPaired")])
    }

    /// Each reason the vault gives reaches the sender as its own channel code.
    @Test func eachGrantRefusalKeepsItsReasonOverTheChannel() throws {
        let devices = try Devices()
        let service = ShareGrantService(vault: devices.recipient)
        let grant = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .viewer).serialized()
        var badSignature = grant
        badSignature[grant.count - 1] ^= 1
        var misaddressed = grant
        misaddressed[67] ^= 1
        let cases: [([UInt8], PeerChannelErrorCode)] = [
            (Array(grant.dropLast()), .shareGrantMalformed), (badSignature, .shareGrantBadSignature), (misaddressed, .shareGrantMisaddressed),
        ]
        for (body, code) in cases {
            let error = try #require(throws: PeerChannelError.self) { try service.respond(to: ShareGrantService.grantKind, body: body, from: devices.ownerDevice.profile) }
            #expect(error.code == code)
            #expect(devices.recipientEvents.last("share.grant-refused")?.details == [.init("reason", code.rawValue)])
        }
        _ = try service.respond(to: ShareGrantService.grantKind, body: grant, from: devices.ownerDevice.profile)
        try devices.recipient.createCompartment(named: "Other", register: .general)
        let clash = try devices.owner.makeShareGrant(of: try devices.owner.createCompartment(named: "Other", register: .general),
                                                     for: devices.recipientDevice.profile, role: .viewer)
        #expect(throws: PeerChannelError(.shareNameTaken, "")) {
            try service.respond(to: ShareGrantService.grantKind, body: clash.serialized(), from: devices.ownerDevice.profile)
        }
    }

    @Test func aGrantRelayedByAnotherPairedDeviceIsRefused() throws {
        let devices = try Devices()
        let relay = try DeviceKeys(signingKey: try Ed25519PrivateKey(), noiseKey: try X25519PrivateKey(), name: "relay", createdAt: 0)
        try devices.recipient.storePairing(FamilyPairing(peer: relay.profile, role: .host, pairedAt: 2))
        #expect(throws: PeerChannelError(.shareSenderMismatch, "")) {
            try ShareSender.share(devices.memos, role: .viewer, vault: devices.owner, over: devices.channel(from: relay.profile), clearing: try EgressFunnel(vault: devices.owner))
        }
        #expect(try devices.recipient.sharedCompartments().isEmpty)
        #expect(devices.recipientEvents.last("share.grant-refused")?.subjectID == relay.profile.deviceID.bytes)
    }

    @Test func anAnswerThatIsNotTheReceiptIsAFailure() throws {
        let devices = try Devices()
        let channel = devices.channel()
        channel.answerOverride = { Array($0.reversed()) }
        #expect(throws: PeerChannelError(.shareGrantRefused, "")) {
            try ShareSender.share(devices.memos, role: .viewer, vault: devices.owner, over: channel, clearing: try EgressFunnel(vault: devices.owner))
        }
        #expect(devices.ownerEvents.last("compartment.share") == nil)
        #expect(devices.ownerEvents.last("compartment.share-failed")?.details.contains(.init("reason", "shareGrantRefused")) == true)
    }

    @Test func thePrivilegedCompartmentNeverLeavesEvenWithoutThePolicyCheck() throws {
        let devices = try Devices()
        let charts = try devices.owner.createCompartment(named: "Charts", register: .healthcare)
        #expect(throws: CryptoVaultError(.privilegedSessionRequired, "")) {
            try ShareSender.share(charts, role: .viewer, vault: devices.owner, over: devices.channel(), clearing: try EgressFunnel(vault: devices.owner))
        }
        #expect(try devices.recipient.sharedCompartments().isEmpty)
        #expect(devices.recipientEvents.last("share.receive") == nil && devices.recipientEvents.last("share.grant-refused") == nil)
    }
}
