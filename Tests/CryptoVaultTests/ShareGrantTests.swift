@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// The share grant as the recipient meets it: every field bound, every wrong sender, recipient or
/// key refused with its reason, and nothing stored unless every check passed.
struct ShareGrantTests {
    @Test func aGrantParsesBackToItselfAndRefusesAByteMoreOrLess() throws {
        let devices = try PairedVaults()
        let grant = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .viewer)
        let bytes = grant.serialized()
        #expect(try ShareGrant(parsing: bytes) == grant)
        #expect(grant.keyVersions == [1] && grant.compartmentName == "Memos" && grant.role == .viewer)
        #expect(throws: CryptoVaultError(.malformedShareGrant, "")) { try ShareGrant(parsing: bytes + [0]) }
        for length in 0..<bytes.count {
            #expect(throws: CryptoVaultError(.malformedShareGrant, ""), "cut to \(length) bytes") { try ShareGrant(parsing: Array(bytes.prefix(length))) }
        }
        #expect(throws: CryptoVaultError(.malformedShareGrant, "")) {
            try ShareGrant(parsing: [UInt8](repeating: 0, count: ShareGrant.maximumSize + 1))
        }
    }

    /// The viewer grant of "Memos" (5 name bytes, one key version): each field's first byte changed
    /// (XOR), and the reason the recipient gives.
    @Test(arguments: [
        ("magic", 0, 0x01, CryptoVaultErrorCode.malformedShareGrant),
        ("version", 9, 0x02, .malformedShareGrant),
        ("role viewer to editor", 10, 0x03, .shareGrantBadSignature),
        ("role to an unknown value", 10, 0x02, .malformedShareGrant),
        ("issued at", 18, 0x01, .shareGrantBadSignature),
        ("source vault id", 19, 0x01, .shareGrantBadSignature),
        ("compartment id", 35, 0x01, .shareGrantBadSignature),
        ("sender device id", 51, 0x01, .unpairedDevice),
        ("recipient device id", 67, 0x01, .shareGrantMisaddressed),
        ("name length", 83, 0x01, .malformedShareGrant),
        ("name", 84, 0x20, .shareGrantBadSignature),
        ("ephemeral public key", 89, 0x01, .shareGrantBadSignature),
        ("key count", 121, 0x02, .malformedShareGrant),
        ("key version 1 to 0", 125, 0x01, .malformedShareGrant),
        ("key version 1 to 3", 125, 0x02, .shareGrantBadSignature),
        ("sealed key", 126, 0x01, .shareGrantBadSignature),
        ("signature", 174, 0x01, .shareGrantBadSignature),
        ("signature's last byte", 237, 0x01, .shareGrantBadSignature),
    ] as [(String, Int, UInt8, CryptoVaultErrorCode)])
    func anAlteredFieldIsRefusedForItsReason(field: String, offset: Int, mask: UInt8, reason: CryptoVaultErrorCode) throws {
        let devices = try PairedVaults()
        var bytes = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .viewer).serialized()
        #expect(bytes.count == 238)
        bytes[offset] ^= mask
        #expect(errorCode { try devices.recipient.acceptShareGrant(try ShareGrant(parsing: bytes)) } == reason, "\(field)")
        #expect(try devices.recipient.sharedCompartments().isEmpty)
        #expect(!devices.recipientJournal.actions.contains("share.receive"))
    }

    @Test func noSingleByteOfAGrantCanBeAltered() throws {
        let devices = try PairedVaults()
        let bytes = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .editor).serialized()
        let grantCodes: Set<CryptoVaultErrorCode> = [.malformedShareGrant, .shareGrantBadSignature, .unpairedDevice, .shareGrantMisaddressed]
        for offset in bytes.indices {
            var altered = bytes
            altered[offset] ^= 0x80
            let code = errorCode { try devices.recipient.acceptShareGrant(try ShareGrant(parsing: altered)) }
            #expect(code.map(grantCodes.contains) == true, "byte \(offset): \(String(describing: code))")
        }
        #expect(try devices.recipient.sharedCompartments().isEmpty)
    }

    @Test func aGrantSignedByAnotherKeyIsRefused() throws {
        let devices = try PairedVaults()
        let genuine = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .editor)
        for signer in [try PairedVaults.strangerDevice().signingKey, devices.recipientDevice.signingKey] {
            let forged = try genuine.resigned(by: signer) { _ in }
            #expect(errorCode { try devices.recipient.acceptShareGrant(forged) } == .shareGrantBadSignature)
        }
        #expect(try devices.recipient.sharedCompartments().isEmpty)
    }

    /// The sender signs whatever it binds: a grant that names another role, compartment, version or
    /// ephemeral key than the keys were sealed for is refused by the sealed keys' AD, signature or not.
    @Test(arguments: [("role", 10, 0x03), ("source vault id", 19, 0x01), ("compartment id", 35, 0x01),
                      ("ephemeral public key", 89, 0x01), ("key version", 125, 0x02)] as [(String, Int, UInt8)])
    func theSealedKeysAreBoundToTheGrantsFields(field: String, offset: Int, mask: UInt8) throws {
        let devices = try PairedVaults()
        let genuine = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .viewer)
        let rebound = try genuine.resigned(by: devices.ownerDevice.signingKey) { $0[offset] ^= mask }
        #expect(errorCode { try devices.recipient.acceptShareGrant(rebound) } == .shareGrantKeyRejected, "\(field)")
        #expect(try devices.recipient.sharedCompartments().isEmpty)
    }

    @Test func aGrantForAnotherDeviceIsRefusedHere() throws {
        let devices = try PairedVaults()
        let third = try PairedVaults.strangerDevice(named: "tablet")
        try devices.owner.storePairing(FamilyPairing(peer: third.profile, role: .host, pairedAt: 2))
        let grant = try devices.owner.makeShareGrant(of: devices.memos, for: third.profile, role: .viewer)
        #expect(errorCode { try devices.recipient.acceptShareGrant(grant) } == .shareGrantMisaddressed)
        // Made for the tablet, it opens with the tablet's key only.
        #expect(try ShareGrantWrapping.openKeys(grant, recipient: third).count == 1)
        #expect(errorCode { try ShareGrantWrapping.openKeys(grant, recipient: devices.recipientDevice) } == .shareGrantKeyRejected)
    }

    @Test func aGrantFromAnUnpairedDeviceIsRefused() throws {
        let devices = try PairedVaults(pairRecipientWithOwner: false)
        let grant = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .viewer)
        #expect(errorCode { try devices.recipient.acceptShareGrant(grant) } == .unpairedDevice)
        #expect(try devices.recipient.sharedCompartments().isEmpty)
    }

    @Test func theOwnerGrantsOnlyToPairedDevicesAndNeverAPrivilegedCompartment() throws {
        let devices = try PairedVaults()
        #expect(errorCode { try devices.owner.makeShareGrant(of: devices.memos, for: try PairedVaults.strangerDevice().profile, role: .viewer) }
                == .unpairedDevice)
        let charts = try devices.owner.createCompartment(named: "Charts", register: .healthcare)
        #expect(errorCode { try devices.owner.makeShareGrant(of: charts, for: devices.recipientDevice.profile, role: .viewer) }
                == .privilegedSessionRequired)
        let shared = try devices.share(role: .editor)
        try devices.recipient.storePairing(FamilyPairing(peer: try PairedVaults.strangerDevice().profile, role: .host, pairedAt: 3))
        #expect(errorCode { try devices.recipient.makeShareGrant(of: shared, for: devices.ownerDevice.profile, role: .viewer) }
                == .sharedCompartmentReadOnly)
    }

    @Test func anOlderGrantCannotReplaceANewerOne() throws {
        let devices = try PairedVaults()
        let older = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .editor)
        // A second later the owner makes the device a viewer (a role taken away).
        let viewer = try ShareGrantWrapping.seal(
            .init(role: .viewer, issuedAt: older.issuedAt + 1, sourceVaultID: older.sourceVaultID, compartmentID: older.compartmentID,
                  compartmentName: "Memos", keys: [(UInt32(1), try devices.owner.compartmentKey(for: devices.memos, version: 1))]),
            from: devices.ownerDevice, to: devices.recipientDevice.profile, ephemeralKey: try X25519PrivateKey())
        #expect(try devices.recipient.acceptShareGrant(viewer).sharing?.role == .viewer)
        #expect(errorCode { try devices.recipient.acceptShareGrant(older) } == .staleShareGrant)
        #expect(try devices.recipient.sharedCompartment(named: "Memos")?.sharing?.role == .viewer)
    }

    @Test func aSharedNameMayNotBeAnotherCompartmentsHere() throws {
        let devices = try PairedVaults()
        _ = try devices.recipient.createCompartment(named: "Memos", register: .general)
        let grant = try devices.owner.makeShareGrant(of: devices.memos, for: devices.recipientDevice.profile, role: .viewer)
        #expect(errorCode { try devices.recipient.acceptShareGrant(grant) } == .compartmentExists)
        let other = try PairedVaults()
        try other.share(role: .viewer)
        #expect(errorCode { try other.recipient.createCompartment(named: "Memos", register: .general) } == .compartmentExists)
    }

    /// testvectors/peer/share-grant.json, made by testvectors/independent/share_grant.py from
    /// SECURITY.md alone: the same fixed keys give the same grant here, byte for byte, and it opens.
    @Test func theKnownAnswerGrantIsMadeAndOpenedByteForByte() throws {
        let vector = try ShareGrantVector.load(), inputs = vector.inputs
        let sender = try DeviceKeys(signingKey: try Ed25519PrivateKey(seed: try inputs.senderSigningSeed.secret()),
                                    noiseKey: try X25519PrivateKey(rawRepresentation: try inputs.senderNoisePrivateKey.secret()),
                                    name: "sender", createdAt: 0)
        let recipient = try DeviceKeys(signingKey: try Ed25519PrivateKey(seed: try inputs.recipientSigningSeed.secret()),
                                       noiseKey: try X25519PrivateKey(rawRepresentation: try inputs.recipientNoisePrivateKey.secret()),
                                       name: "recipient", createdAt: 0)
        #expect(sender.profile.deviceID.bytes == vector.intermediates.senderDeviceId.bytes)
        #expect(recipient.profile.deviceID.bytes == vector.intermediates.recipientDeviceId.bytes)
        let keys = try inputs.compartmentKeys.map { (version: $0.version, key: try $0.key.secret()) }
        #expect(keys.map(\.version) == [1, 3])
        let contents = ShareGrantWrapping.Contents(
            role: try #require(ShareRole(grantByte: inputs.role)), issuedAt: inputs.issuedAt,
            sourceVaultID: try VaultID(bytes: inputs.sourceVaultId.bytes), compartmentID: try CompartmentID(bytes: inputs.compartmentId.bytes),
            compartmentName: inputs.name, keys: keys)
        let ephemeral = try X25519PrivateKey(rawRepresentation: try inputs.ephemeralPrivateKey.secret())
        let grant = try ShareGrantWrapping.seal(contents, from: sender, to: recipient.profile, ephemeralKey: ephemeral)
        let expected = vector.grant.bytes
        #expect(grant.serialized() == expected)
        #expect(expected.count == vector.grantSize)
        #expect(ShareGrantWrapping.signatureContext + grant.unsignedBytes() == vector.intermediates.signedMessage.bytes)
        let parsed = try ShareGrant(parsing: expected)
        try ShareGrantWrapping.verifySignature(parsed, signingPublicKey: sender.signingKey.publicKey)
        let opened = try ShareGrantWrapping.openKeys(parsed, recipient: recipient)
        #expect(opened.count == 2)
        for (version, key) in keys { #expect(opened[version] == key) }
    }
}

/// testvectors/peer/share-grant.json, decoded by the one vector loader (a file that does not match
/// this shape fails to load).
struct ShareGrantVector: Decodable {
    struct Inputs: Decodable {
        let senderSigningSeed, senderNoisePrivateKey, recipientSigningSeed, recipientNoisePrivateKey: HexBytes
        let ephemeralPrivateKey, sourceVaultId, compartmentId: HexBytes
        let compartmentKeys: [CompartmentKey]
        let role: UInt8
        let issuedAt: Int64
        let name: String
    }

    struct CompartmentKey: Decodable {
        let version: UInt32
        let key: HexBytes
    }

    struct Intermediates: Decodable {
        let senderDeviceId, recipientDeviceId, signedMessage: HexBytes
    }

    let inputs: Inputs
    let intermediates: Intermediates
    let grant: HexBytes
    let grantSize: Int

    static func load() throws -> ShareGrantVector {
        try PackageFiles.decode("testvectors/peer/share-grant.json", keys: .convertFromSnakeCase)
    }
}

extension HexBytes {
    /// The bytes in locked memory (a vector's private keys and compartment keys).
    func secret() throws -> SecureBytes { try SecureBytes(copying: bytes) }
}
