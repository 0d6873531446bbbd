import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport

/// Documents sealed into privileged compartments are fingerprinted in the vault, and the egress
/// funnel catches a payload quoting them, from any compartment.
@Suite("Privileged fingerprints kept in the vault")
struct PrivilegedFingerprintsTests {
    static let note = "The patient described recurring nightmares about the flood that destroyed her childhood home in Valmeyer."
    static let quote = "Draft post: she described RECURRING nightmares about the flood,\nthat destroyed her childhood home. We write about resilience."

    private final class Fixture: AuditedVaultFixture {
        /// Puts `text` as vaultctl put does: a privileged document's fingerprints in the bundle's transaction.
        @discardableResult
        func put(_ text: String, in compartment: VaultCompartment,
                 beforeCommit: (VaultTransaction) throws -> Void = { _ in }) throws -> StoredBundle {
            let path = root + "/\(UUID().uuidString).txt"
            try Data(text.utf8).write(to: URL(fileURLWithPath: path))
            return try PrivilegedFingerprints.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                                  metadata: BundleMetadata(name: "note.txt", modificationTime: 0),
                                                  options: EncryptedBundle.Options(chunkSize: 1024, threads: 2), in: unlocked,
                                                  beforeCommit: beforeCommit)
        }

        /// What a put leaves: stored bundles, fingerprints, `bundle.put` entries, bundle files in assets/.
        func stored() throws -> (bundles: Int, fingerprints: Int, entries: Int, files: Int) {
            let files = try FileManager.default.contentsOfDirectory(atPath: unlocked.vault.assetsPath).filter { $0.hasSuffix(".vbundle") }
            return (try unlocked.storedBundles().count, try unlocked.leakFingerprints().count,
                    try AuditLogReader(vault: unlocked.vault).entries().filter { $0.action == "bundle.put" }.count, files.count)
        }

        func check(_ payload: String) throws -> EgressOutcome {
            try EgressFunnel(vault: unlocked).submit(EgressRequest(destination: EgressDestination(kind: .model, id: "summarizer"),
                                                                   compartments: [blog], payload: Array(payload.utf8)))
        }
    }

    @Test("a quote of a privileged document is caught by the funnel and redacted; unquoted text is not")
    func quoteCaught() throws {
        let fixture = try Fixture()
        #expect(try fixture.check(Self.quote).findings.isEmpty, "nothing is fingerprinted yet")
        try fixture.put(Self.note, in: fixture.chart)
        let outcome = try fixture.check(Self.quote)
        #expect(outcome.decision == .redact && outcome.findings.map(\.kind) == [.privilegedQuote])
        #expect(String(decoding: outcome.released?.bytes ?? [], as: UTF8.self) == "Draft post: she [PRIVILEGED]. We write about resilience.")
        #expect(try fixture.check("The flood destroyed a home; nightmares followed for years.").findings.isEmpty,
                "fewer than 8 consecutive words of the note are not a quote")
    }

    @Test("ordinary compartments are not fingerprinted; the vault keeps only keyed 64-bit values")
    func onlyPrivileged() throws {
        let fixture = try Fixture()
        try fixture.put(Self.note, in: fixture.blog)
        #expect(try fixture.check(Self.quote).findings.isEmpty)
        #expect(try fixture.unlocked.leakFingerprints().isEmpty)
        try fixture.put(Self.note, in: fixture.chart)
        // 15 words: 8 shingles of 8.
        #expect(try fixture.unlocked.leakFingerprints().count == 8)
        let database = try Data(contentsOf: URL(fileURLWithPath: fixture.unlocked.vault.databasePath))
        #expect(database.range(of: Data("nightmares".utf8)) == nil)
    }

    @Test("the collector keeps the first 16 MiB of a document and no more, across sealing batches")
    func collectorBound() throws {
        let fixture = try Fixture()
        let collector = try #require(try PrivilegedFingerprints.collector(for: fixture.chart))
        #expect(try PrivilegedFingerprints.collector(for: fixture.blog) == nil)
        let words = Array("alpha bravo charlie delta echo foxtrot golf hotel india juliet ".utf8)
        var document: [UInt8] = []
        while document.count < PrivilegedFingerprints.collectedBytes { document += words }
        let tail = Array(" zulu yankee xray whiskey victor uniform tango sierra romeo quebec".utf8)
        document += tail
        for start in stride(from: 0, to: document.count, by: 1 << 20) {
            document[start..<min(start + (1 << 20), document.count)].withUnsafeBytes { collector.observe($0) }
        }
        try fixture.unlocked.transaction { try PrivilegedFingerprints.remember(collector, in: $0) }
        let head = try fixture.check("alpha bravo charlie delta echo foxtrot golf hotel india")
        #expect(head.findings.map(\.kind) == [.privilegedQuote])
        #expect(try fixture.check(String(decoding: tail, as: UTF8.self)).findings.isEmpty, "text past 16 MiB is not fingerprinted")
    }

    // MARK: One transaction for the bundle and its fingerprints (issue 12)

    @Test("a failure after the privileged bundle is written but before commit leaves neither it, nor its fingerprints, nor its entry")
    func failureBeforeCommitRollsBackBoth() throws {
        struct Injected: Error {}
        let fixture = try Fixture()
        #expect(throws: Injected.self) {
            try fixture.put(Self.note, in: fixture.chart) { tx in
                // Both are written, uncommitted: the transaction sees them.
                #expect(try tx.database.queryOne("SELECT count(*) AS n FROM bundles")?.integer("n") == 1)
                #expect(try tx.database.queryOne("SELECT count(*) AS n FROM leak_fingerprints")?.integer("n") == 8)
                throw Injected()
            }
        }
        #expect(try fixture.stored() == (0, 0, 0, 0))
        try fixture.put(Self.note, in: fixture.chart)
        #expect(try fixture.stored() == (1, 8, 1, 1), "a normal put leaves the bundle and its fingerprints")
    }

    @Test("when storing the fingerprints fails, the bundle is not stored either: they are one transaction, not two")
    func fingerprintFailureKeepsOutTheBundle() throws {
        let fixture = try Fixture()
        // Another connection makes every fingerprint insert fail, as a full disk or a crash between the
        // two writes would: with a second transaction the bundle would stay, unfingerprinted.
        let database = try Database(path: fixture.unlocked.vault.databasePath, create: false)
        try database.execute("CREATE TRIGGER refuse_fingerprints BEFORE INSERT ON leak_fingerprints BEGIN SELECT RAISE(ABORT, 'injected'); END")
        #expect(throws: (any Error).self) { try fixture.put(Self.note, in: fixture.chart) }
        #expect(try fixture.stored() == (0, 0, 0, 0))
        try database.execute("DROP TRIGGER refuse_fingerprints")
        try fixture.put(Self.note, in: fixture.chart)
        #expect(try fixture.stored() == (1, 8, 1, 1))
    }
}
