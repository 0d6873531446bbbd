import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

@Suite("Restore: a vault that lost bundle files gets them back from a paired device, verified")
struct RestoreTests {
    func restorer(_ pair: ReplicationPair) -> VaultRestorer {
        VaultRestorer(vault: pair.source.vault, channel: pair.channel())
    }

    @Test("deleted and damaged bundle files come back and open with the vault's keys")
    func deletedAndDamaged() throws {
        let pair = try ReplicationPair()
        let deleted = try pair.put(300_000, seed: 1, in: pair.general)
        let damaged = try pair.put(70_000, seed: 2, in: pair.memos)
        let intact = try pair.put(1000, seed: 3, in: pair.general)
        let plaintexts = try [deleted, damaged].map { try pair.plaintext($0) }
        _ = try pair.replicate()

        unlink(pair.sourceFile(deleted))
        let file = try #require(FileHandle(forUpdatingAtPath: pair.sourceFile(damaged)))
        file.seek(toFileOffset: 20_000)
        file.write(Data([0xAA]))
        try file.close()
        let needing = try pair.source.vault.storedBundlesNeedingRestore()
        #expect(needing.map(\.bundle.bundleID.bytes) == [deleted.bundleID.bytes, damaged.bundleID.bytes])
        #expect(needing.map(\.reason.code) == [.fileNotFound, .corruptBundle])

        let report = try restorer(pair).restore()
        #expect(report.restoredBundles == [deleted.bundleID, damaged.bundleID] && report.isComplete)
        #expect(report.bytesReceived == deleted.sealedLength + damaged.sealedLength)
        #expect(try [deleted, damaged].map { try pair.plaintext($0) } == plaintexts)
        #expect(try pair.source.vault.storedBundlesNeedingRestore().isEmpty)
        #expect(try pair.plaintext(intact).count == 1000)
    }

    @Test("a privileged compartment's bundle is replicated and restored without a session (no plaintext leaves CryptoVault)")
    func privilegedBundle() throws {
        let pair = try ReplicationPair()
        let chart = try pair.source.vault.createCompartment(named: "chart", register: .healthcare)
        let note = try pair.put(40_000, seed: 6, in: chart)
        #expect(try pair.replicate().sentBundles == [note.bundleID])
        unlink(pair.sourceFile(note))
        #expect(try pair.source.vault.storedBundlesNeedingRestore().map(\.bundle.bundleID.bytes) == [note.bundleID.bytes])
        #expect(try restorer(pair).restore().restoredBundles == [note.bundleID])
        #expect(try pair.source.vault.storedBundlesNeedingRestore().isEmpty)
        #expect(throws: CryptoVaultError(.privilegedSessionRequired, "")) { try pair.source.vault.openStored(note.bundleID) }
    }

    @Test("a vault with nothing missing asks for nothing")
    func nothingToRestore() throws {
        let pair = try ReplicationPair()
        _ = try pair.put(1000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        let channel = pair.channel()
        let report = try VaultRestorer(vault: pair.source.vault, channel: channel).restore()
        #expect(report.restoredBundles.isEmpty && report.isComplete && channel.requestCounts.isEmpty)
    }

    @Test("a bundle the peer never received is reported unavailable")
    func unavailable() throws {
        let pair = try ReplicationPair()
        let kept = try pair.put(1000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        let late = try pair.put(1000, seed: 2, in: pair.general)
        unlink(pair.sourceFile(kept))
        unlink(pair.sourceFile(late))
        let report = try restorer(pair).restore()
        #expect(report.restoredBundles == [kept.bundleID] && report.unavailableBundles == [late.bundleID])
    }

    @Test("a replica altered on the peer is refused for its SHA-256, and the vault keeps no copy of it")
    func alteredReplica() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(70_000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        var replica = try #require(pair.bytes(at: pair.replicaFile(bundle)))
        replica[60_000] ^= 0x04
        try Data(replica).write(to: URL(fileURLWithPath: pair.replicaFile(bundle)))
        unlink(pair.sourceFile(bundle))
        let report = try restorer(pair).restore()
        #expect(report.refusedBundles.map(\.reason.code) == [.replicaDigestMismatch])
        #expect(pair.bytes(at: pair.sourceFile(bundle)) == nil)
        #expect(try FileManager.default.contentsOfDirectory(atPath: pair.source.vault.vault.assetsPath).filter { $0.hasPrefix(".incoming") }.isEmpty)
    }

    @Test("a peer that serves another valid bundle under this one's id is refused by the vault's verification")
    func swappedReplica() throws {
        let pair = try ReplicationPair()
        let wanted = try pair.put(5000, seed: 1, in: pair.general)
        let other = try pair.put(5000, seed: 2, in: pair.general)
        _ = try pair.replicate()
        // A dishonest peer: the other bundle's bytes, listed with their own SHA-256, as `wanted`.
        let otherBytes = try #require(pair.bytes(at: pair.replicaFile(other)))
        try Data(otherBytes).write(to: URL(fileURLWithPath: pair.replicaFile(wanted)))
        try Database(path: pair.peer.vault.vault.databasePath, create: false)
            .query("UPDATE replicas SET sha256 = ? WHERE bundle_id = ?", [.blob(SHA256.hash(otherBytes)), .blob(wanted.bundleID.bytes)])
        unlink(pair.sourceFile(wanted))
        let report = try restorer(pair).restore()
        #expect(report.refusedBundles.map(\.reason.code) == [.restoreVerificationFailed])
        #expect(report.refusedBundles.first?.reason.message.contains("corruptBundle") == true)
        #expect(pair.bytes(at: pair.sourceFile(wanted)) == nil)
    }

    @Test("a device fetches only its own replicas")
    func onlyOwnReplicas() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(1000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        let other = try PairingDevice("tablet")
        try pair.peer.vault.storePairing(FamilyPairing(peer: other.keys.profile, role: .host, pairedAt: 2))
        let fetch = ReplicaFetch(vaultID: pair.source.vault.vault.vaultID, bundleID: bundle.bundleID, offset: 0, count: 100)
        #expect(throws: PeerChannelError(.replicaNotFound, "")) {
            try pair.service.respond(to: ReplicationWire.fetchKind, body: fetch.serialized(), from: other.keys.profile)
        }
        #expect(try pair.service.respond(to: ReplicationWire.fetchKind, body: fetch.serialized(), from: pair.source.keys.profile).count == 100)
    }

    @Test("restore is recorded on both sides")
    func auditEntries() throws {
        let pair = try ReplicationPair()
        let bundle = try pair.put(5000, seed: 1, in: pair.general)
        _ = try pair.replicate()
        unlink(pair.sourceFile(bundle))
        _ = try restorer(pair).restore()
        let restored = try pair.source.auditEntries("bundle.restore")
        #expect(restored.count == 1 && restored.first?.subject == bundle.bundleID.bytes)
        #expect(restored.first?.details == ["peer": pair.peer.keys.profile.fingerprint, "bytes": "5000"])
        let returned = try pair.peer.auditEntries("replica.return")
        #expect(returned.count == 1 && returned.first?.subject == bundle.bundleID.bytes)
        #expect(returned.first?.details == ["peer": pair.source.keys.profile.fingerprint, "bytes": String(bundle.sealedLength)])
    }
}
