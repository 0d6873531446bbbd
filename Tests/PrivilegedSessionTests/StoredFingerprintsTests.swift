import AuditChain
import CryptoVault
import Foundation
@testable import PrivilegedSession
import Testing
import TestSupport

/// The egress funnel looks each payload's shingle fingerprints up in the vault's table instead of
/// loading every fingerprint first (SECURITY.md §11.7; review 17 s14, N-s14-2: with 1,000,000 that
/// load cost each funnel ~380 ms). Its findings must be exactly those of a guard holding them all.
@Suite("Stored fingerprints looked up per payload")
struct StoredFingerprintsTests {
    private final class Fixture: AuditedVaultFixture {
        /// Stores the fingerprints of `documents` as the writing app's privileged doors do.
        func remember(_ documents: [String]) throws {
            try unlocked.transaction { tx in
                try PrivilegedFingerprints.remember(try PrivilegedFingerprints.fingerprints(of: documents, in: tx), in: tx)
            }
        }

        func request(_ payload: [UInt8]) -> EgressRequest {
            EgressRequest(destination: EgressDestination(kind: .model, id: "summarizer"), compartments: [blog], payload: payload)
        }

        /// A funnel whose guard holds every stored fingerprint, as the default one did before.
        func loadedFunnel() throws -> EgressFunnel {
            try EgressFunnel(vault: unlocked, leakGuard: LeakGuard(fingerprints: PrivilegedFingerprints.index(of: unlocked)))
        }

        func decisions() throws -> Int {
            try AuditLogReader(vault: unlocked.vault).entries().filter { $0.action == "egress.decision" }.count
        }
    }

    @Test("on the labelled corpus every payload's hits are those of the guard that loads every fingerprint")
    func sameHitsAsTheLoadedIndex() throws {
        let fixture = try Fixture()
        let corpus = LeakCorpus(seed: 0x5EA1_ED0C, documents: 120, identifierNotes: 100, quoteNotes: 300, cleanNotes: 100)
        try fixture.remember(corpus.documents)
        let loaded = LeakGuard(fingerprints: try PrivilegedFingerprints.index(of: fixture.unlocked))
        #expect(loaded.fingerprints?.count ?? 0 > 1000)
        let stored = try StoredFingerprints(of: fixture.unlocked)
        var quotes = 0
        for sample in corpus.samples {
            let found = try LeakGuard.scan(sample.bytes, quoting: stored)
            #expect(found == loaded.scan(sample.bytes))
            quotes += found.filter { $0.kind == .privilegedQuote }.count
        }
        #expect(quotes >= 290, "the quote notes are found (\(quotes))")
        // All of it as one payload, and with a byte that is not UTF-8 between the samples.
        let whole: [UInt8] = corpus.samples.flatMap { sample -> [UInt8] in sample.bytes + [0xFF] }
        #expect(try LeakGuard.scan(whole, quoting: stored) == loaded.scan(whole))
    }

    @Test("the funnel's decision, findings and released bytes are those of a funnel holding every fingerprint")
    func sameOutcomeAsTheLoadedFunnel() throws {
        let fixture = try Fixture()
        let note = "The patient described recurring nightmares about the flood that destroyed her childhood home in Valmeyer."
        try fixture.remember([note])
        let payloads = ["Draft post: she described RECURRING nightmares about the flood,\nthat destroyed her childhood home. Call 555-867-5309.",
                        "The flood destroyed a home; nightmares followed for years.", "", "one two three four five six seven eight nine"]
        for payload in payloads.map({ Array($0.utf8) }) {
            let now = try EgressFunnel(vault: fixture.unlocked).submit(fixture.request(payload))
            let before = try fixture.loadedFunnel().submit(fixture.request(payload))
            #expect(now.decision == before.decision && now.findings == before.findings && now.released?.bytes == before.released?.bytes)
            #expect(now.record.findings == before.record.findings)
        }
        let caught = try EgressFunnel(vault: fixture.unlocked).submit(fixture.request(Array(payloads[0].utf8)))
        #expect(caught.decision == .redact && caught.record.findings == ["privilegedQuote": 1, "phone": 1])
    }

    @Test("a payload with more shingles than the table holds fingerprints is checked against the table read whole, with the same hits")
    func largePayloadReadsASmallTableWhole() throws {
        let fixture = try Fixture()
        let note = "The patient described recurring nightmares about the flood that destroyed her childhood home in Valmeyer."
        try fixture.remember([note])
        let held = try fixture.unlocked.leakFingerprints()
        #expect((7...20).contains(held.count), "\(held.count) fingerprints")
        // The count stops at the limit: the table is read whole only below it.
        #expect(try fixture.unlocked.leakFingerprints(ifFewerThan: held.count) == nil)
        #expect(try fixture.unlocked.leakFingerprints(ifFewerThan: held.count + 1).map(Set.init) == Set(held))
        // 8 KB and more, with more possible shingles than the table holds: read whole; shorter: looked
        // up. Each finds what the guard holding every fingerprint finds.
        let loaded = LeakGuard(fingerprints: try PrivilegedFingerprints.index(of: fixture.unlocked))
        let stored = try StoredFingerprints(of: fixture.unlocked)
        let padding = String(repeating: "x ", count: StoredFingerprints.wholeTableFloor / 2)
        for payload in ["about the flood that destroyed her childhood home", note, padding + note, padding + "the flood " + padding] {
            #expect(try LeakGuard.scan(Array(payload.utf8), quoting: stored) == loaded.scan(Array(payload.utf8)), "\(payload.utf8.count) bytes")
        }
        #expect(try LeakGuard.scan(Array(note.utf8), quoting: stored).map(\.kind) == [.privilegedQuote])
    }

    @Test("a funnel made before privileged words are stored catches them in its next payload")
    func seesFingerprintsStoredAfterItWasMade() throws {
        let fixture = try Fixture()
        let funnel = try EgressFunnel(vault: fixture.unlocked)
        let quote = Array("alpha bravo charlie delta echo foxtrot golf hotel".utf8)
        #expect(try funnel.submit(fixture.request(quote)).findings.isEmpty)
        try fixture.remember(["alpha bravo charlie delta echo foxtrot golf hotel india"])
        #expect(try funnel.submit(fixture.request(quote)).findings.map(\.kind) == [.privilegedQuote])
    }

    @Test("must reject: when the fingerprints cannot be read the funnel releases nothing and records no decision")
    func unreadableTableReleasesNothing() throws {
        let fixture = try Fixture()
        try fixture.remember(["alpha bravo charlie delta echo foxtrot golf hotel india"])
        let funnel = try EgressFunnel(vault: fixture.unlocked)
        let decided = try fixture.decisions()
        // Another connection takes the table away, as damage would.
        let database = try Database(path: fixture.unlocked.vault.databasePath, create: false)
        try database.execute("ALTER TABLE leak_fingerprints RENAME TO leak_fingerprints_gone")
        let error = #expect(throws: CryptoVaultError.self) {
            try funnel.submit(fixture.request(Array("alpha bravo charlie delta echo foxtrot golf hotel".utf8)))
        }
        #expect(error?.code == .database && error?.message.contains("leak_fingerprints") == true, "\(String(describing: error))")
        #expect(try fixture.decisions() == decided)
        // A payload long enough to read the table whole fails alike.
        let long = Array(String(repeating: "alpha bravo charlie delta echo foxtrot golf hotel ", count: 200).utf8)
        let whole = #expect(throws: CryptoVaultError.self) { try funnel.submit(fixture.request(long)) }
        #expect(whole?.code == .database && whole?.message.contains("leak_fingerprints") == true, "\(String(describing: whole))")
        #expect(try fixture.decisions() == decided)
        // A payload of fewer than 8 words has no shingle to look up: identifiers only, as before.
        #expect(try funnel.submit(fixture.request(Array("Call 555-867-5309.".utf8))).findings.map(\.kind) == [.phone])
    }
}
