@testable import CryptoVault
import Foundation
import Synchronization
import Testing
import TestSupport

struct DeviceProfileTests {
    static func unlockRecording(_ fixture: TestVault) throws -> (UnlockedVault, RecordingJournal) {
        let journal = RecordingJournal()
        let vault = try Vault.open(at: fixture.directory, journal: journal)
        return (try vault.unlock(with: .passphrase(fixture.passphrase)), journal)
    }

    @Test func keysAreMadeOnFirstNeedRecordedOnceAndKeptAcrossUnlocks() throws {
        let fixture = try TestVault()
        #expect(try fixture.vault.deviceProfile() == nil)
        let (unlocked, journal) = try Self.unlockRecording(fixture)
        let made = try unlocked.deviceKeys(nameIfNew: "front-desk")
        let again = try Self.unlockRecording(fixture).0.deviceKeys(nameIfNew: "ignored")
        #expect(again.profile == made.profile && again.profile.name == "front-desk")
        #expect(again.signingKey.seed == made.signingKey.seed && again.noiseKey.rawRepresentation == made.noiseKey.rawRepresentation)
        #expect(try fixture.reopen().deviceProfile() == made.profile)
        #expect(journal.actions.filter { $0 == "device.create" }.count == 1)
        #expect(journal.events.withLock { $0.last?.subjectID } == made.profile.deviceID.bytes)
    }

    @Test func theDeviceIdNamesBothPublicKeys() throws {
        let keys = try TestVault().unlocked.deviceKeys()
        let expected = SHA256.hash(Array("SealedVault device id v1".utf8) + keys.signingKey.publicKey + keys.noiseKey.publicKey)
        #expect(keys.profile.deviceID.bytes == Array(expected.prefix(16)))
        let hex = keys.profile.deviceID.hex
        #expect(keys.profile.fingerprint.split(separator: "-").map(String.init)
                == stride(from: 0, to: 32, by: 8).map { String(Array(hex)[$0..<$0 + 8]) })
        #expect(throws: CryptoVaultError(.invalidInput, "")) {
            try DeviceProfile(signingPublicKey: keys.signingKey.publicKey, noisePublicKey: keys.noiseKey.publicKey,
                               name: "x", createdAt: 0, deviceID: try DeviceID(bytes: [UInt8](repeating: 0, count: 16)))
        }
    }

    @Test func privateKeysAreOnlyStoredSealed() throws {
        let fixture = try TestVault()
        let keys = try fixture.unlocked.deviceKeys()
        let bytes = fixture.databaseFileBytes()
        #expect(!bytes.contains(subsequence: keys.signingKey.seed.exposedCopy()))
        #expect(!bytes.contains(subsequence: keys.noiseKey.rawRepresentation.exposedCopy()))
    }

    @Test func aSwappedPublicKeyOrAlteredSealIsRefusedAsDamage() throws {
        let fixture = try TestVault()
        _ = try fixture.unlocked.deviceKeys()
        let other = try X25519PrivateKey().publicKey
        try fixture.tamper("UPDATE device_identity SET noise_public_key = x'\(ByteEncoding.hex(other))'")
        #expect(errorCode { try fixture.reopen().deviceProfile() } == .corruptVault)

        let second = try TestVault()
        _ = try second.unlocked.deviceKeys()
        try second.tamper("UPDATE device_identity SET sealed_private_keys = zeroblob(104)")
        #expect(errorCode { try Self.unlockRecording(second).0.deviceKeys() } == .corruptVault)
    }

    @Test func namesAreBoundedAndTheDefaultIsTheHostName() {
        #expect(DeviceProfile.defaultName(hostName: "clinic-laptop") == "clinic-laptop")
        #expect(DeviceProfile.defaultName(hostName: String(repeating: "é", count: 40)).utf8.count == 64)
        #expect(DeviceProfile.defaultName(hostName: "") == "vault-device")
        #expect(errorCode { try DeviceProfile.validate(name: "tab\there") } == .invalidName)
        #expect(errorCode { try DeviceProfile.validate(name: String(repeating: "a", count: 65)) } == .invalidName)
    }

    @Test func pairingsAreStoredListedAndReplacedForTheSameDevice() throws {
        let fixture = try TestVault()
        let (unlocked, journal) = try Self.unlockRecording(fixture)
        let peer = try TestVault().unlocked.deviceKeys(nameIfNew: "reception").profile
        try unlocked.storePairing(FamilyPairing(peer: peer, role: .host, pairedAt: 100))
        #expect(try fixture.reopen().familyPairings() == [FamilyPairing(peer: peer, role: .host, pairedAt: 100)])
        try unlocked.storePairing(FamilyPairing(peer: peer, role: .join, pairedAt: 200))
        #expect(try fixture.reopen().familyPairings() == [FamilyPairing(peer: peer, role: .join, pairedAt: 200)])
        #expect(journal.actions == ["vault.unlock", "peer.pair", "peer.pair"])
    }

    @Test func aPairingWhoseIdDoesNotNameItsKeysIsRefusedAsDamage() throws {
        let fixture = try TestVault()
        let peer = try TestVault().unlocked.deviceKeys().profile
        try fixture.unlocked.storePairing(FamilyPairing(peer: peer, role: .host, pairedAt: 1))
        try fixture.tamper("UPDATE family_pairings SET peer_signing_public_key = x'\(ByteEncoding.hex(try Ed25519PrivateKey().publicKey))'")
        #expect(errorCode { try fixture.reopen().familyPairings() } == .corruptVault)
    }
}
