@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// A sealed record's keyed digest (`sealed_records.digest`, SECURITY.md §4.8): a writer asks whether
/// a location already holds the value it is about to write, without opening the record.
@Suite("Sealed record digests: a writer compares without opening, under the open's access rule")
struct SealedRecordDigestTests {
    typealias Fixture = SealedRecordStoreTests.Fixture

    static func location(_ id: UInt8, _ field: String = "text") throws -> SealedRecordLocation {
        try SealedRecordStoreTests.location(id, field)
    }

    func holds(_ fixture: Fixture, _ text: String, _ location: SealedRecordLocation, in compartment: VaultCompartment? = nil,
               keyring: CompartmentKeyring? = nil) throws -> Bool {
        try fixture.unlocked.transaction { tx in
            if let keyring { return try tx.recordHolds(Array(text.utf8), at: location, in: compartment ?? fixture.notes, keyring: keyring) }
            return try tx.recordHolds(Array(text.utf8), at: location, in: compartment ?? fixture.notes)
        }
    }

    @Test("a location holds exactly its sealed value: not another, not after a reseal, not at an empty location; nothing is opened")
    func holdsExactlyItsValue() throws {
        let fixture = try Fixture()
        try fixture.seal("first paragraph", try Self.location(1))
        #expect(try holds(fixture, "first paragraph", try Self.location(1)))
        #expect(try !holds(fixture, "first paragraph.", try Self.location(1)))
        #expect(try !holds(fixture, "first paragraph", try Self.location(2)))
        try fixture.seal("edited", try Self.location(1))
        #expect(try !holds(fixture, "first paragraph", try Self.location(1)))
        #expect(try holds(fixture, "edited", try Self.location(1)))
        #expect(fixture.events(.recordOpen).isEmpty)
    }

    @Test("the digest is bound to its location: the same value at another field, or a digest copied from another row, does not match")
    func boundToLocation() throws {
        let fixture = try Fixture()
        try fixture.seal("same", try Self.location(1))
        try fixture.seal("same", try Self.location(1, "title"))
        let digests = try fixture.vault.vault.read { try $0.query("SELECT digest FROM sealed_records ORDER BY id").map { try $0.blob("digest") } }
        #expect(digests.count == 2 && digests[0].count == 16 && digests[0] != digests[1])
        try fixture.tamper("UPDATE sealed_records SET digest = (SELECT digest FROM sealed_records WHERE field = 'title') WHERE field = 'text'")
        #expect(try !holds(fixture, "same", try Self.location(1)))
    }

    @Test("a row without a digest (sealed before digests were kept) or of another compartment answers no, so the writer opens it")
    func unknownAnswersNo() throws {
        let fixture = try Fixture()
        try fixture.seal("old row", try Self.location(1))
        try fixture.tamper("UPDATE sealed_records SET digest = NULL")
        #expect(try !holds(fixture, "old row", try Self.location(1)))
        try fixture.seal("chart value", try Self.location(2), in: fixture.chart)
        let keyring = try fixture.unlocked.privilegedKeyring(for: fixture.chart)
        #expect(try holds(fixture, "chart value", try Self.location(2), in: fixture.chart, keyring: keyring))
        #expect(try !holds(fixture, "chart value", try Self.location(2)))
    }

    @Test("a privileged compartment's record is compared only with a live session's keyring of it, as it is opened")
    func privilegedRule() throws {
        let fixture = try Fixture()
        try fixture.seal("diagnosis", try Self.location(1), in: fixture.chart)
        #expect(errorCode { try holds(fixture, "diagnosis", try Self.location(1), in: fixture.chart) } == .privilegedSessionRequired)
        let other = try fixture.unlocked.privilegedKeyring(for: try fixture.unlocked.createCompartment(named: "legal", register: .legal))
        #expect(errorCode { try holds(fixture, "diagnosis", try Self.location(1), in: fixture.chart, keyring: other) } == .privilegedSessionRequired)
        let keyring = try fixture.unlocked.privilegedKeyring(for: fixture.chart)
        #expect(try holds(fixture, "diagnosis", try Self.location(1), in: fixture.chart, keyring: keyring))
        keyring.wipe()
        #expect(errorCode { try holds(fixture, "diagnosis", try Self.location(1), in: fixture.chart, keyring: keyring) } == .privilegedSessionRequired)
    }

    @Test("rewrap keeps the digest right under the new key version")
    func rewrapKeepsDigest() throws {
        let fixture = try Fixture()
        try fixture.seal("old", try Self.location(1))
        try fixture.unlocked.rotateCompartment(named: "notes")
        let rotated = try fixture.unlocked.compartment(named: "notes")
        #expect(try holds(fixture, "old", try Self.location(1), in: rotated))
        _ = try fixture.unlocked.rewrapRecords(in: rotated)
        let version = try fixture.vault.vault.read { try $0.queryOne("SELECT key_version FROM sealed_records")?.integer("key_version") }
        #expect(version == 2)
        #expect(try holds(fixture, "old", try Self.location(1), in: rotated))
        #expect(try !holds(fixture, "new", try Self.location(1), in: rotated))
    }
}
