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

    /// A stored value that is no level (attack review s8, F10: it was `corruptVault`, and stopped every
    /// egress and sync) reads as `other`, the level that grants nothing; the device is listed so the
    /// owner is warned, and setting a level overwrites the row, recorded with `previous=damaged`.
    @Test func anUnknownLevelInTheTableReadsAsOtherIsListedAndIsOverwrittenAsDamaged() throws {
        let fixture = try TestVault()
        let peer = try TestVault().unlocked.deviceKeys(nameIfNew: "laptop").profile
        try fixture.unlocked.storePairing(FamilyPairing(peer: peer, role: .join, pairedAt: 100))
        try fixture.unlocked.setTrust(.mine, of: peer.deviceID)
        try fixture.tamper("DROP TABLE peer_trust; CREATE TABLE peer_trust (peer_device_id BLOB PRIMARY KEY, trust TEXT, set_at INTEGER); "
                           + "INSERT INTO peer_trust VALUES (x'\(peer.deviceID.hex)', 'everyone', 0)")
        let reopened = try fixture.reopen()
        #expect(try reopened.trust(of: peer.deviceID) == .other)
        #expect(try reopened.devicesWithDamagedTrust() == [peer.deviceID])
        #expect(try fixture.unlocked.setTrust(.other, of: peer.deviceID), "a damaged row is not the level it reads as")
        #expect(try fixture.reopen().devicesWithDamagedTrust().isEmpty)
        #expect(try fixture.reopen().trust(of: peer.deviceID) == .other)
        let entries = fixture.recording.events.withLock { $0.filter { $0.action == .peerTrust } }
        #expect(entries.last.map { $0.details.map { "\($0.name)=\($0.value)" } } == ["trust=other", "previous=damaged", "at-pairing=no"])
    }
}
