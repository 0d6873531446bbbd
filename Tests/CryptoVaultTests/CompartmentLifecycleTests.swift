@testable import CryptoVault
import Foundation
import Synchronization
import Testing
import TestSupport

@Suite("Compartment lifecycle: destroy, retire and rewrap account for every stored bundle")
struct CompartmentLifecycleTests {
    func put(_ fixture: BundleFixture, _ text: String, in compartment: VaultCompartment) throws -> StoredBundle {
        let path = fixture.path(UUID().uuidString)
        try fixture.write(Array(text.utf8), to: path)
        return try fixture.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                        metadata: BundleMetadata(name: "x", modificationTime: 0))
    }

    @Test("destroy removes the compartment's bundle rows (recorded as bundle.rm) and files, and leaves other compartments' alone")
    func destroyRemovesBundles() throws {
        let fixture = try BundleFixture()
        let doomed = try fixture.unlocked.createCompartment(named: "doomed", register: .general)
        let gone = [try put(fixture, "one", in: doomed), try put(fixture, "two", in: doomed)]
        let kept = try put(fixture, "kept", in: fixture.compartment)
        let journal = RecordingJournal()
        let unlocked = try Vault.open(at: fixture.vault.directory, journal: journal).unlock(with: .passphrase(fixture.vault.passphrase))
        #expect(try unlocked.destroyCompartment(named: "doomed") == 2)
        #expect(journal.actions.suffix(3) == ["bundle.rm", "bundle.rm", "compartment.destroy"])
        let assets = AssetFolder(path: unlocked.vault.assetsPath)
        let rows = try unlocked.vault.read { try $0.query("SELECT bundle_id FROM bundles").map { try $0.blob("bundle_id") } }
        #expect(rows == [kept.bundleID.bytes])
        for bundle in gone { #expect(!FileManager.default.fileExists(atPath: assets.path(of: bundle.bundleID))) }
        #expect(FileManager.default.fileExists(atPath: assets.path(of: kept.bundleID)))
        #expect(try unlocked.openStored(kept.bundleID).plaintextLength == 4)
    }

    @Test("retire refuses while a stored bundle uses the version, naming it; after rewrap it retires")
    func retireRefusesInUse() throws {
        let fixture = try BundleFixture()
        let first = try put(fixture, "first", in: fixture.compartment)
        let second = try put(fixture, "second", in: fixture.compartment)
        try fixture.unlocked.rotateCompartment(named: "files")
        let message = errorMessage { try fixture.unlocked.retireCompartmentVersion(named: "files", version: 1) } ?? ""
        #expect(errorCode { try fixture.unlocked.retireCompartmentVersion(named: "files", version: 1) } == .keyVersionInUse)
        #expect(message.contains(first.idString) && message.contains(second.idString), "\(message)")
        #expect(try fixture.unlocked.compartment(named: "files").keyVersions.allSatisfy(\.isActive), "nothing was retired")
        #expect(try fixture.unlocked.rewrapStored(in: try fixture.unlocked.compartment(named: "files")).changed == 2)
        try fixture.unlocked.retireCompartmentVersion(named: "files", version: 1)
        #expect(try fixture.unlocked.openStored(first.bundleID).plaintextLength == 5)
    }

    @Test("rewrap skips a bundle it cannot open, names it, and still rewraps the ones after it")
    func rewrapSkipsUnreadable() throws {
        let fixture = try BundleFixture()
        let damaged = try put(fixture, "first", in: fixture.compartment)
        let fine = try put(fixture, "second", in: fixture.compartment)
        try fixture.unlocked.rotateCompartment(named: "files")
        let assets = AssetFolder(path: fixture.unlocked.vault.assetsPath)
        var bytes = try fixture.bytes(assets.path(of: damaged.bundleID))
        bytes[75] ^= 0x01   // the plaintext length: the header still parses, its MAC no longer holds
        try fixture.write(bytes, to: assets.path(of: damaged.bundleID))
        let outcome = try fixture.unlocked.rewrapStored(in: try fixture.unlocked.compartment(named: "files"))
        #expect(outcome.changed == 1)
        #expect(outcome.skipped.map(\.bundleID) == [damaged.bundleID])
        #expect(outcome.skipped.first.map { $0.error.code == .corruptBundle || $0.error.code == .truncatedBundle } == true)
        #expect(try fixture.unlocked.storedBundle(fine.bundleID).keyVersion == 2)
    }

    @Test("a put whose compartment was destroyed while it sealed stores nothing: no row and no file")
    func putIntoDestroyed() throws {
        let fixture = try BundleFixture()
        let doomed = try fixture.unlocked.createCompartment(named: "doomed", register: .general)
        // Another connection destroys it while the file is being sealed (at the first progress report).
        let other = try fixture.vault.reopen().unlock(with: .passphrase(fixture.vault.passphrase))
        let path = fixture.path("late")
        try fixture.write(Array("late".utf8), to: path)
        var destroyed = false
        #expect(errorCode {
            try fixture.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: doomed,
                                     metadata: BundleMetadata(name: "x", modificationTime: 0)) { _ in
                if !destroyed { destroyed = (try? other.destroyCompartment(named: "doomed")) != nil }
            }
        } == .compartmentNotFound)
        #expect(destroyed)
        let rows = try fixture.unlocked.vault.read { try $0.queryOne("SELECT count(*) AS n FROM bundles")?.integer("n") }
        #expect(rows == 0)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixture.unlocked.vault.assetsPath)
        #expect(files.isEmpty, "\(files)")
    }
}
