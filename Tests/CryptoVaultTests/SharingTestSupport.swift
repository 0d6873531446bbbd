import TestSupport
@testable import CryptoVault
import Foundation

/// Two vaults whose devices paired with each other: the owner, with an ordinary compartment "Memos"
/// and a privileged one "Charts", and the recipient. Both journals record what happens.
final class PairedVaults {
    let ownerFixture: TestVault
    let recipientFixture: TestVault
    let owner: UnlockedVault
    let recipient: UnlockedVault
    let ownerJournal: RecordingJournal
    let recipientJournal: RecordingJournal
    let ownerDevice: DeviceKeys
    let recipientDevice: DeviceKeys
    let memos: VaultCompartment

    init(pairRecipientWithOwner: Bool = true) throws {
        ownerFixture = try TestVault()
        recipientFixture = try TestVault()
        (owner, ownerJournal) = try DeviceProfileTests.unlockRecording(ownerFixture)
        (recipient, recipientJournal) = try DeviceProfileTests.unlockRecording(recipientFixture)
        ownerDevice = try owner.deviceKeys(nameIfNew: "front-desk")
        recipientDevice = try recipient.deviceKeys(nameIfNew: "laptop")
        try owner.storePairing(FamilyPairing(peer: recipientDevice.profile, role: .host, pairedAt: 1))
        if pairRecipientWithOwner {
            try recipient.storePairing(FamilyPairing(peer: ownerDevice.profile, role: .join, pairedAt: 1))
        }
        memos = try owner.createCompartment(named: "Memos", register: .general)
    }

    /// The owner's grant of Memos for the recipient, accepted there; returns the recipient's view of it.
    @discardableResult
    func share(role: ShareRole) throws -> VaultCompartment {
        try recipient.acceptShareGrant(try owner.makeShareGrant(of: memos, for: recipientDevice.profile, role: role))
    }

    /// Seals `text` into `compartment` as `vault` sees it, to a new file under the owner's root.
    func seal(_ text: String, into compartment: VaultCompartment, by vault: UnlockedVault) throws -> String {
        let input = ownerFixture.root + "/plain-\(UUID().uuidString)"
        let output = ownerFixture.root + "/bundle-\(UUID().uuidString).vbundle"
        try Data(text.utf8).write(to: URL(fileURLWithPath: input))
        try EncryptedBundle.seal(from: try FileDescriptor.openForReading(input), to: try FileDescriptor.createExclusive(output),
                                 compartment: compartment, vault: vault,
                                 metadata: BundleMetadata(name: "memo.txt", contentType: "text/plain", modificationTime: 1_700_000_000))
        return output
    }

    /// The plaintext of the bundle at `path`, opened by `vault`.
    func open(_ path: String, by vault: UnlockedVault) throws -> String {
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: vault)
        var plaintext: [UInt8] = []
        try opened.decrypt { plaintext += $0 }
        return String(decoding: plaintext, as: UTF8.self)
    }

    /// A device neither vault made, with fresh keys.
    static func strangerDevice(named name: String = "stranger") throws -> DeviceKeys {
        try DeviceKeys(signingKey: try Ed25519PrivateKey(), noiseKey: try X25519PrivateKey(), name: name, createdAt: 0)
    }
}

extension ShareGrant {
    /// The grant's bytes with `edit` applied before the signature, signed again by `signer`: what a
    /// sender would make if it bound other values, used to show that the sealed keys' AD binds them.
    func resigned(by signer: Ed25519PrivateKey, _ edit: (inout [UInt8]) -> Void) throws -> ShareGrant {
        var unsigned = unsignedBytes()
        edit(&unsigned)
        return try ShareGrant(parsing: unsigned + (try signer.signature(for: ShareGrantWrapping.signatureContext + unsigned)))
    }
}
