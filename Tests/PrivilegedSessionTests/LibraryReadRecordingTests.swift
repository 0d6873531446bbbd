import AuditChain
import CryptoVault
import Foundation
import Synchronization
import PrivilegedSession
import Testing
import TestSupport

/// Reads of sealed content are recorded by the library, whoever calls it (issue 12): these tests use
/// CryptoVault and PrivilegedSession directly, with no vaultctl and no Appliance, and find each read
/// in the real audit log with its action, compartment, bundle and byte count.
@Suite struct LibraryReadRecordingTests {
    /// A vault with the real audit log, an ordinary compartment and a privileged one, and in each a
    /// stored bundle and a bundle file.
    final class Fixture {
        let root = NSTemporaryDirectory() + "library-reads-\(UUID().uuidString)"
        let unlocked: UnlockedVault
        let newsletter: VaultCompartment, chart: VaultCompartment
        let newsletterText = "spring issue: the garden opens in May"
        let chartText = String(repeating: "Patient reports improved sleep. ", count: 100)

        init() throws {
            unlocked = try Vault.create(at: root + "/vault", passphrase: try TestVault.secret("correct horse battery staple"),
                                        kdf: TestVault.fastKDF, journal: AuditLog())
            newsletter = try unlocked.createCompartment(named: "newsletter", register: .general)
            chart = try unlocked.createCompartment(named: "chart", register: .healthcare)
        }

        deinit { try? FileManager.default.removeItem(atPath: root) }

        func plainFile(_ text: String) throws -> FileDescriptor {
            let path = root + "/plain-\(UUID().uuidString)"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return try FileDescriptor.openForReading(path)
        }

        func put(_ text: String, in compartment: VaultCompartment) throws -> StoredBundle {
            try unlocked.put(from: try plainFile(text), compartment: compartment, metadata: BundleMetadata(name: "a.txt", modificationTime: 0))
        }

        /// Seals `text` into a bundle file (chunks of 1 KiB, so a long text has several) and returns its path.
        func seal(_ text: String, in compartment: VaultCompartment) throws -> (path: String, header: BundleHeader) {
            let path = root + "/sealed-\(UUID().uuidString).vbundle"
            let header = try EncryptedBundle.seal(from: try plainFile(text), to: try FileDescriptor.createExclusive(path), compartment: compartment,
                                                  vault: unlocked, metadata: BundleMetadata(name: "b.txt", modificationTime: 0),
                                                  options: .init(chunkSize: 1024))
            return (path, header)
        }

        func session() throws -> PrivilegedProcessingSession {
            try PrivilegedProcessingSession.start(vault: unlocked, compartment: chart, actor: "dr.osei", purpose: "discharge summary")
        }

        var entries: [AuditEntry] { get throws { try AuditLogReader(vault: unlocked.vault).entries() } }

        /// The entries appended by `body`.
        func entries(during body: () throws -> Void) throws -> [AuditEntry] {
            let before = try entries.count
            try body()
            return Array(try entries.dropFirst(before))
        }

        func details(_ entry: AuditEntry) throws -> [String: String] {
            let details = try AuditLogReader.details(of: entry, vaultID: unlocked.vault.vaultID, keys: try unlocked.auditKeys())
            return Dictionary(uniqueKeysWithValues: details.map { ($0.name, $0.value) })
        }
    }

    @Test("reading a stored ordinary bundle leaves one bundle.get entry, with its compartment, bundle id and the bytes released")
    func getIsRecorded() throws {
        let fixture = try Fixture()
        let stored = try fixture.put(fixture.newsletterText, in: fixture.newsletter)
        var plaintext: [UInt8] = []
        let added = try fixture.entries { try fixture.unlocked.openStored(stored.bundleID).decrypt { plaintext += $0 } }
        #expect(String(decoding: plaintext, as: UTF8.self) == fixture.newsletterText)
        #expect(added.map(\.action) == ["bundle.get"])
        let entry = try #require(added.first)
        #expect(entry.compartmentID == fixture.newsletter.id && entry.subjectID == stored.bundleID.bytes)
        #expect(try fixture.details(entry) == ["bytes": "\(fixture.newsletterText.utf8.count)"])
    }

    @Test("reading a range of an ordinary bundle file leaves one bundle.open entry that counts only the range")
    func openIsRecorded() throws {
        let fixture = try Fixture()
        let sealed = try fixture.seal(fixture.newsletterText, in: fixture.newsletter)
        var plaintext: [UInt8] = []
        let added = try fixture.entries {
            try EncryptedBundle.open(try FileDescriptor.openForReading(sealed.path), vault: fixture.unlocked).read(7..<12) { plaintext += $0 }
        }
        #expect(String(decoding: plaintext, as: UTF8.self) == "issue")
        #expect(added.map(\.action) == ["bundle.open"])
        let entry = try #require(added.first)
        #expect(entry.compartmentID == fixture.newsletter.id && entry.subjectID == sealed.header.bundleID.bytes)
        #expect(try fixture.details(entry) == ["bytes": "5"])
    }

    @Test("a read the caller stops part way was recorded before its first byte, with the bytes it was to release")
    func anInterruptedReadIsRecorded() throws {
        struct Stop: Error {}
        let fixture = try Fixture()
        // 47 chunks of 1 KiB: one thread opens them in batches of 16; the sink takes the first batch
        // and refuses the second, as a full disk would.
        let text = String(repeating: "0123456789abcdef", count: 3000)
        let sealed = try fixture.seal(text, in: fixture.newsletter)
        var received: UInt64 = 0
        let added = try fixture.entries {
            let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(sealed.path), vault: fixture.unlocked)
            #expect(throws: Stop.self) {
                try opened.decrypt(threads: 1) { bytes in
                    if received > 0 { throw Stop() }
                    received += UInt64(bytes.count)
                }
            }
        }
        #expect(received > 0 && received < UInt64(text.utf8.count))
        #expect(added.map(\.action) == ["bundle.open"])
        #expect(try fixture.details(try #require(added.first)) == ["bytes": "\(text.utf8.count)"])
    }

    @Test("the read's entry is in the log before the first plaintext byte reaches the caller (ordinary and privileged)")
    func readsAreRecordedBeforeTheirPlaintext() throws {
        let fixture = try Fixture()
        let ordinary = try fixture.put(fixture.newsletterText, in: fixture.newsletter)
        let privileged = try fixture.put(fixture.chartText, in: fixture.chart)
        // What the log holds at the moment the sink first sees plaintext: as a process killed right
        // then would leave it.
        var atFirstByte: [[String]] = []
        func sink() -> (UnsafeRawBufferPointer) throws -> Void {
            var first = true
            return { _ in
                if first { atFirstByte.append(try fixture.entries.map(\.action)) }
                first = false
            }
        }
        let before = try fixture.entries.count
        try fixture.unlocked.openStored(ordinary.bundleID).decrypt(sink: sink())
        let session = try fixture.session()
        try session.read(.stored(privileged.bundleID), sink: sink())
        #expect(atFirstByte.count == 2)
        #expect(atFirstByte.first.map { Array($0.dropFirst(before)) } == ["bundle.get"])
        #expect(atFirstByte.last?.last == "session.read")
    }

    @Test("a sealed record opened in a transaction that then rolls back is on the record all the same; the body's changes are not")
    func aRolledBackReadIsRecorded() throws {
        struct Stop: Error {}
        let fixture = try Fixture()
        let location = try SealedRecordLocation(module: "writing", table: "blocks", recordID: [1], field: "text")
        try fixture.unlocked.transaction { try $0.sealRecord(Array("first draft".utf8), at: location, in: fixture.newsletter) }
        var opened: SecureBytes?
        let added = try fixture.entries {
            #expect(throws: Stop.self) {
                try fixture.unlocked.transaction { transaction in
                    opened = try transaction.openRecord(at: location, in: fixture.newsletter)
                    try transaction.sealRecord(Array("second draft".utf8), at: location, in: fixture.newsletter)
                    throw Stop()
                }
            }
        }
        #expect(opened?.exposedCopy() == Array("first draft".utf8))
        #expect(added.map(\.action) == ["record.open"], "the read survives the rollback, the seal does not")
        #expect(try added.first.map { try fixture.details($0)["records"]?.split(separator: "\n").count } == 1)
        let kept = try fixture.unlocked.transaction { try $0.openRecord(at: location, in: fixture.newsletter) }
        #expect(kept.exposedCopy() == Array("first draft".utf8))
    }

    @Test("a read whose entry cannot be written releases no plaintext, and says why")
    func anUnrecordableReadReleasesNothing() throws {
        let journal = FailingJournal()
        let root = NSTemporaryDirectory() + "library-reads-failing-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let unlocked = try Vault.create(at: root, passphrase: try TestVault.secret("correct horse battery staple"),
                                        kdf: TestVault.fastKDF, journal: journal)
        let compartment = try unlocked.createCompartment(named: "newsletter", register: .general)
        try Data("spring issue".utf8).write(to: URL(fileURLWithPath: root + "/plain"))
        let stored = try unlocked.put(from: try FileDescriptor.openForReading(root + "/plain"), compartment: compartment,
                                      metadata: BundleMetadata(name: "a.txt", modificationTime: 0))
        journal.failing.withLock { $0 = true }
        var released = 0
        #expect(errorCode { try unlocked.openStored(stored.bundleID).decrypt { released += $0.count } } == .database)
        #expect(released == 0, "no plaintext leaves without its entry")
    }

    @Test("a privileged bundle opens only in a live session, whose read is recorded as session.read (and not also as bundle.get or bundle.open)")
    func privilegedReadsAreTheSessions() throws {
        let fixture = try Fixture()
        let stored = try fixture.put(fixture.chartText, in: fixture.chart)
        let sealed = try fixture.seal(fixture.chartText, in: fixture.chart)
        let refused = try fixture.entries {
            #expect(errorCode { try fixture.unlocked.openStored(stored.bundleID) } == .privilegedSessionRequired)
            #expect(errorCode { try EncryptedBundle.open(try FileDescriptor.openForReading(sealed.path), vault: fixture.unlocked) }
                    == .privilegedSessionRequired)
        }
        #expect(refused.isEmpty)

        let session = try fixture.session()
        var plaintext: [UInt8] = []
        let reads = try fixture.entries {
            try session.read(.stored(stored.bundleID)) { plaintext += $0 }
            try session.read(.file(try FileDescriptor.openForReading(sealed.path)), range: 0..<8) { _ in }
        }
        #expect(String(decoding: plaintext, as: UTF8.self) == fixture.chartText)
        #expect(reads.map(\.action) == ["session.read", "session.read"])
        #expect(reads.map(\.subjectID) == [stored.bundleID.bytes, sealed.header.bundleID.bytes])
        #expect(reads.allSatisfy { $0.compartmentID == fixture.chart.id })
        #expect(try reads.map { try fixture.details($0)["bytes"] } == ["\(fixture.chartText.utf8.count)", "8"])

        try session.end()
        let afterEnd = try fixture.entries {
            #expect(throws: PrivilegedSessionError.self) { try session.read(.stored(stored.bundleID)) { _ in } }
        }
        #expect(!afterEnd.map(\.action).contains("session.read"), "an ended session reads nothing, so records no read")
    }
}

/// A journal that records nothing and, once `failing`, refuses every entry as a full disk would.
final class FailingJournal: VaultJournal {
    let failing = Mutex(false)

    func append(_ event: VaultEvent, in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        if failing.withLock({ $0 }) { throw CryptoVaultError(.database, "the journal refuses '\(event.action)' (a full disk)") }
    }

    func commandFinished(in database: Database, vaultID: VaultID) throws {}
}
