import CryptoVault
import Testing
import TestSupport

/// A paired device's trust level (issue 17, SECURITY.md §19.8): set at pairing or later, each change
/// one `peer.trust` entry naming the level and the one before; only a paired device has one.
@Suite struct DeviceTrustTests {
    @Test func trustIsSetChangedAndAuditedOnlyForAPairedDevice() throws {
        let fixture = try TestVault()
        let peer = try TestVault().unlocked.deviceKeys(nameIfNew: "laptop").profile
        #expect(errorCode { try fixture.unlocked.setTrust(.mine, of: peer.deviceID) } == .pairingNotFound)
        try fixture.unlocked.storePairing(FamilyPairing(peer: peer, role: .host, pairedAt: 100))
        #expect(try fixture.vault.trust(of: peer.deviceID) == nil)
        #expect(try fixture.unlocked.setTrust(.mine, of: peer.deviceID, atPairing: true))
        #expect(try fixture.unlocked.setTrust(.mine, of: peer.deviceID) == false)
        #expect(try fixture.unlocked.setTrust(.other, of: peer.deviceID))
        #expect(try fixture.reopen().trust(of: peer.deviceID) == .other)
        let entries = fixture.recording.events.withLock { $0.filter { $0.action == .peerTrust } }
        #expect(entries.map { $0.details.map { "\($0.name)=\($0.value)" } } == [
            ["trust=mine", "previous=none", "at-pairing=yes"], ["trust=other", "previous=mine", "at-pairing=no"],
        ])
        #expect(entries.allSatisfy { $0.subjectID == peer.deviceID.bytes })
    }

    @Test func anUnknownLevelInTheTableIsDamage() throws {
        let fixture = try TestVault()
        let peer = try TestVault().unlocked.deviceKeys(nameIfNew: "laptop").profile
        try fixture.unlocked.storePairing(FamilyPairing(peer: peer, role: .join, pairedAt: 100))
        try fixture.unlocked.setTrust(.other, of: peer.deviceID)
        try fixture.tamper("DROP TABLE peer_trust; CREATE TABLE peer_trust (peer_device_id BLOB PRIMARY KEY, trust TEXT, set_at INTEGER); "
                           + "INSERT INTO peer_trust VALUES (x'\(peer.deviceID.hex)', 'everyone', 0)")
        #expect(errorCode { try fixture.reopen().trust(of: peer.deviceID) } == .corruptVault)
    }
}
