@testable import CryptoVault
import Foundation
import Testing

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

    @Test("put records the bundle and its file together; rm removes both; sweep removes orphans only")
    func putRemoveSweep() throws {
        let fixture = try BundleFixture()
        let kept = try put(fixture, "kept", in: fixture.compartment)
        let removed = try put(fixture, "removed", in: fixture.compartment)
        let assets = AssetFolder(path: fixture.unlocked.vault.assetsPath)
        try fixture.unlocked.removeStored(removed.bundleID)
        #expect(!FileManager.default.fileExists(atPath: assets.path(of: removed.bundleID)))
        #expect(errorCode { try fixture.unlocked.storedBundle(removed.bundleID) } == .bundleNotFound)
        let orphan = assets.path(of: Array(repeating: 0xab, count: 16))
        try fixture.write([1, 2, 3], to: orphan)
        #expect(try fixture.unlocked.sweepAssets() == 1)
        #expect(!FileManager.default.fileExists(atPath: orphan))
        var text: [UInt8] = []
        try fixture.unlocked.openStored(kept.bundleID).decrypt { text += $0 }
        #expect(text == Array("kept".utf8))
    }
}
