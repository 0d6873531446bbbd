@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("Stored bundles: rows and files stay bound together")
struct BundleStoreTests {
    func put(_ fixture: BundleFixture, _ text: String, in compartment: VaultCompartment) throws -> StoredBundle {
        let path = fixture.path(UUID().uuidString)
        try fixture.write(Array(text.utf8), to: path)
        return try fixture.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                        metadata: BundleMetadata(name: "x", modificationTime: 0))
    }

    @Test("a file swapped under another bundle's name is refused, even within one compartment")
    func swappedFiles() throws {
        let fixture = try BundleFixture()
        let privileged = try fixture.unlocked.createCompartment(named: "chart", register: .healthcare)
        let public1 = try put(fixture, "newsletter draft", in: fixture.compartment)
        let public2 = try put(fixture, "another draft", in: fixture.compartment)
        let secret = try put(fixture, "diagnosis: ...", in: privileged)
        let assets = AssetFolder(path: fixture.unlocked.vault.assetsPath)
        for (victim, intruder) in [(public1, secret), (public1, public2)] {
            try FileManager.default.removeItem(atPath: assets.path(of: victim.bundleID))
            try FileManager.default.copyItem(atPath: assets.path(of: intruder.bundleID), toPath: assets.path(of: victim.bundleID))
            let message = errorMessage { try fixture.unlocked.openStored(victim.bundleID) } ?? ""
            #expect(message.contains("is a different bundle"), "\(message)")
        }
    }

    @Test("a planted rewrap journal that does not authenticate is refused and never applied")
    func plantedJournal() throws {
        let fixture = try BundleFixture()
        let first = try put(fixture, "first", in: fixture.compartment)
        let second = try put(fixture, "second", in: fixture.compartment)
        let assets = AssetFolder(path: fixture.unlocked.vault.assetsPath)
        let before = try fixture.bytes(assets.path(of: first.bundleID))
        // Another bundle's header, and this bundle's own header with an edited field (its MAC fails).
        let otherHeader = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(assets.path(of: second.bundleID)))
        var edited = Array(before[0..<otherHeader.size])
        edited[75] ^= 0x01   // the plaintext length: still parses, but the MAC no longer holds
        for (journal, expected) in [(otherHeader.serialized(), CryptoVaultErrorCode.corruptVault), (edited, .corruptBundle)] {
            try DurableFile.write(journal, to: assets.journalPath(of: first.bundleID))
            #expect(errorCode { try fixture.unlocked.openStored(first.bundleID) } == expected)
            #expect(try fixture.bytes(assets.path(of: first.bundleID)) == before)
        }
    }

    @Test("put records the bundle and its file together; rm removes both; sweep moves orphans aside only")
    func putRemoveSweep() throws {
        let fixture = try BundleFixture()
        let kept = try put(fixture, "kept", in: fixture.compartment)
        let removed = try put(fixture, "removed", in: fixture.compartment)
        let assets = AssetFolder(path: fixture.unlocked.vault.assetsPath)
        try fixture.unlocked.removeStored(removed.bundleID)
        #expect(!FileManager.default.fileExists(atPath: assets.path(of: removed.bundleID)))
        #expect(errorCode { try fixture.unlocked.storedBundle(removed.bundleID) } == .bundleNotFound)
        let orphan = assets.path(of: try BundleID(bytes: Array(repeating: 0xab, count: 16)))
        try fixture.write([1, 2, 3], to: orphan)
        #expect(try fixture.unlocked.sweepAssets() == 0, "nothing is deleted")
        #expect(!FileManager.default.fileExists(atPath: orphan))
        #expect(FileManager.default.contents(atPath: fixture.unlocked.vault.quarantinePath + "/" + String(repeating: "ab", count: 16) + ".vbundle") == Data([1, 2, 3]))
        var text: [UInt8] = []
        try fixture.unlocked.openStored(kept.bundleID).decrypt { text += $0 }
        #expect(text == Array("kept".utf8))
    }

    @Test("a readable bundle whose row the database lost (vault.db restored alone) is quarantined and recorded, never deleted; other names are left alone")
    func sweepQuarantinesUnknownBundles() throws {
        let fixture = try BundleFixture()
        let journal = RecordingJournal()
        let unlocked = try Vault.open(at: fixture.vault.directory, journal: journal).unlock(with: .passphrase(fixture.vault.passphrase))
        let forgotten = try put(fixture, "still readable", in: fixture.compartment)
        let assets = AssetFolder(path: unlocked.vault.assetsPath)
        let bytes = try #require(FileManager.default.contents(atPath: assets.path(of: forgotten.bundleID)))
        try fixture.vault.tamper("DELETE FROM bundles WHERE bundle_id = x'\(forgotten.idString)'")
        let upper = unlocked.vault.assetsPath + "/" + forgotten.idString.uppercased() + ".vbundle"
        try fixture.write([9], to: upper)
        let before = journal.actions.count
        #expect(try unlocked.sweepAssets() == 0)
        let moved = unlocked.vault.quarantinePath + "/" + forgotten.idString + ".vbundle"
        #expect(FileManager.default.contents(atPath: moved) == bytes, "the sealed file is kept, byte for byte")
        #expect(!FileManager.default.fileExists(atPath: assets.path(of: forgotten.bundleID)))
        #expect(FileManager.default.fileExists(atPath: upper), "only the lowercase form vaultctl writes is a bundle name")
        #expect(Array(journal.actions.dropFirst(before)) == ["bundle.quarantine"])
        let attributes = try FileManager.default.attributesOfItem(atPath: unlocked.vault.quarantinePath)
        #expect((attributes[.posixPermissions] as? Int) == 0o700)
    }
}
