@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Sealed records in a vault's database: moved rows refused, the privileged rule, the audit entries,
/// and rotation, rewrap, retire and destroy covering them (SECURITY.md §4.8).
@Suite("Sealed records in the vault: identity, privileged rule, audit entries, key lifecycle")
struct SealedRecordStoreTests {
    final class Fixture {
        let vault = try! TestVault()  // a test fixture; its failure is the test's
        let journal = RecordingJournal()
        let unlocked: UnlockedVault
        let notes: VaultCompartment
        let chart: VaultCompartment

        init() throws {
            unlocked = try Vault.open(at: vault.directory, journal: journal).unlock(with: .passphrase(vault.passphrase))
            notes = try unlocked.createCompartment(named: "notes", register: .general)
            chart = try unlocked.createCompartment(named: "chart", register: .healthcare)
        }

        func seal(_ text: String, _ location: SealedRecordLocation, in compartment: VaultCompartment? = nil) throws {
            try unlocked.transaction { try $0.sealRecord(Array(text.utf8), at: location, in: compartment ?? notes) }
        }

        func open(_ location: SealedRecordLocation, in compartment: VaultCompartment? = nil, keyring: CompartmentKeyring? = nil) throws -> String {
            let value = try unlocked.transaction { tx in
                if let keyring { return try tx.openRecord(at: location, in: compartment ?? notes, keyring: keyring) }
                return try tx.openRecord(at: location, in: compartment ?? notes)
            }
            return value.withUnsafeBytes { String(decoding: $0, as: UTF8.self) }
        }

        /// Runs SQL with a separate connection, as someone editing the file would.
        func tamper(_ sql: String) throws { try vault.tamper(sql) }

        func events(_ action: AuditAction) -> [VaultEvent] { journal.events.withLock { $0.filter { $0.action == action } } }
    }

    static func location(_ id: UInt8, _ field: String = "text") throws -> SealedRecordLocation {
        try SealedRecordLocation(module: "writing", table: "blocks", recordID: [id], field: field)
    }

    @Test("a sealed record opens to its value after the vault is reopened; sealing again replaces it")
    func sealAndOpen() throws {
        let fixture = try Fixture()
        try fixture.seal("first paragraph", try Self.location(1))
        #expect(try fixture.open(try Self.location(1)) == "first paragraph")
        try fixture.seal("edited paragraph", try Self.location(1))
        let reopened = try Vault.open(at: fixture.vault.directory, journal: RecordingJournal()).unlock(with: .passphrase(fixture.vault.passphrase))
        let value = try reopened.transaction { try $0.openRecord(at: try Self.location(1), in: fixture.notes) }
        #expect(value.exposedCopy() == Array("edited paragraph".utf8))
        #expect(errorCode { try fixture.open(try Self.location(2)) } == .recordNotFound)
    }

    @Test("each seal and each open is recorded by the library: record.seal and record.open naming every record, 64 an entry")
    func auditEntries() throws {
        let fixture = try Fixture()
        let locations = try (0..<70).map { try Self.location(UInt8($0)) }
        try fixture.unlocked.transaction { tx in
            for location in locations { try tx.sealRecord(Array("v".utf8), at: location, in: fixture.notes) }
        }
        let seals = fixture.events(.recordSeal)
        #expect(seals.count == 2, "a run of 70 seals makes entries of 64 and 6")
        #expect(seals.allSatisfy { $0.compartmentID == fixture.notes.id })
        let sealed = seals.flatMap { $0.details.first { $0.name == "records" }?.value.split(separator: "\n").map(String.init) ?? [] }
        #expect(sealed == locations.map(\.description), "every record sealed is named, in order")
        #expect(seals.map { $0.details.first { $0.name == "records" }?.value.split(separator: "\n").count } == [64, 6])
        #expect(seals.allSatisfy { !$0.details.contains { $0.name == "count" } }, "the count is the names' (SECURITY.md §4.8)")
        #expect(seals.map { $0.details.first { $0.name == "bytes" }?.value } == ["64", "6"])
        var handed: [Int] = []
        try fixture.unlocked.transaction { tx in
            try tx.openRecords(at: locations, in: fixture.notes) { index, plaintext in
                #expect(Array(plaintext) == Array("v".utf8))
                handed.append(index)
            }
        }
        #expect(handed == Array(0..<70), "each record handed over once, in order")
        let opens = fixture.events(.recordOpen)
        #expect(opens.count == 2, "70 records make entries of 64 and 6")
        let named = opens.flatMap { $0.details.first { $0.name == "records" }?.value.split(separator: "\n").map(String.init) ?? [] }
        #expect(named == locations.map(\.description), "every record read is named, in order")
        #expect(opens.map { $0.details.first { $0.name == "records" }?.value.split(separator: "\n").count } == [64, 6])
        #expect(opens.allSatisfy { !$0.details.contains { $0.name == "count" } })
        // No plaintext in any detail.
        #expect(!fixture.journal.events.withLock { $0 }.contains { $0.details.contains { $0.value.contains("v") && $0.name != "records" } })
    }

    @Test("a value copied to another row, field or compartment's row fails to open, each with its own code")
    func movedRowsRefused() throws {
        let fixture = try Fixture()
        try fixture.seal("title one", try Self.location(1, "title"))
        try fixture.seal("body one", try Self.location(1, "body"))
        try fixture.seal("title two", try Self.location(2, "title"))
        let other = try fixture.unlocked.createCompartment(named: "other", register: .general)
        let elsewhere = try SealedRecordLocation(module: "writing", table: "blocks", recordID: [9], field: "title")
        try fixture.seal("other's", elsewhere, in: other)
        func copy(from source: (UInt8, String), to target: (UInt8, String)) throws {
            try fixture.tamper("""
                UPDATE sealed_records SET sealed = (SELECT sealed FROM sealed_records WHERE record_id = x'\(String(format: "%02x", source.0))' AND field = '\(source.1)')
                WHERE record_id = x'\(String(format: "%02x", target.0))' AND field = '\(target.1)'
                """)
        }
        try copy(from: (1, "title"), to: (2, "title"))
        #expect(errorCode { try fixture.open(try Self.location(2, "title")) } == .recordFromAnotherRow)
        try copy(from: (1, "title"), to: (1, "body"))
        #expect(errorCode { try fixture.open(try Self.location(1, "body")) } == .recordFromAnotherField)
        // Another compartment's value copied into a row of this one (row and key both differ: the compartment is named first).
        try copy(from: (9, "title"), to: (1, "title"))
        #expect(errorCode { try fixture.open(try Self.location(1, "title")) } == .recordFromAnotherCompartment)
        // A row whose compartment column was changed is refused before any key is used.
        try fixture.tamper("UPDATE sealed_records SET compartment_id = \(fixture.notes.rowID) WHERE record_id = x'09'")
        #expect(errorCode { try fixture.open(elsewhere, in: other) } == .recordFromAnotherCompartment)
        // An altered byte of a value in place.
        try fixture.seal("intact", try Self.location(3))
        var altered = try fixture.vault.vault.read { try $0.queryOne("SELECT sealed FROM sealed_records WHERE record_id = x'03'")?.blob("sealed") } ?? []
        altered[50] ^= 0x01
        try fixture.tamper("UPDATE sealed_records SET sealed = x'\(ByteEncoding.hex(altered))' WHERE record_id = x'03'")
        #expect(errorCode { try fixture.open(try Self.location(3)) } == .corruptRecord)
        // A row's key version column edited away from its value's.
        try fixture.seal("versioned", try Self.location(4))
        try fixture.tamper("UPDATE sealed_records SET key_version = 2 WHERE record_id = x'04'")
        #expect(errorCode { try fixture.open(try Self.location(4)) } == .corruptRecord)
    }

    @Test("a value from another vault whose compartment has the same uuid is refused as from another vault")
    func anotherVaultRefused() throws {
        let first = try Fixture()
        let second = try Fixture()
        try first.seal("from the first vault", try Self.location(1))
        try second.seal("second's own", try Self.location(1))
        // Give the second vault's compartment the first one's uuid (binding recomputed so it loads), then copy the value over.
        let sealed = try first.vault.vault.read { try $0.queryOne("SELECT sealed FROM sealed_records")?.blob("sealed") } ?? []
        try second.tamper("UPDATE sealed_records SET sealed = x'\(ByteEncoding.hex(sealed))'")
        #expect(errorCode { try second.open(try Self.location(1)) } == .recordFromAnotherVault)
    }

    @Test("a privileged compartment's record opens only with a live session's keyring of that compartment; sealing needs none")
    func privilegedRule() throws {
        let fixture = try Fixture()
        #expect(fixture.chart.isPrivileged)
        try fixture.seal("diagnosis", try Self.location(1), in: fixture.chart)
        #expect(errorCode { try fixture.open(try Self.location(1), in: fixture.chart) } == .privilegedSessionRequired)
        let keyring = try fixture.unlocked.privilegedKeyring(for: fixture.chart)
        #expect(try fixture.open(try Self.location(1), in: fixture.chart, keyring: keyring) == "diagnosis")
        let otherKeyring = try fixture.unlocked.privilegedKeyring(for: try fixture.unlocked.createCompartment(named: "legal", register: .legal))
        #expect(errorCode { try fixture.open(try Self.location(1), in: fixture.chart, keyring: otherKeyring) } == .privilegedSessionRequired)
        keyring.wipe()
        #expect(errorCode { try fixture.open(try Self.location(1), in: fixture.chart, keyring: keyring) } == .privilegedSessionRequired)
        // A key derived earlier in the same transaction is not a way around the rule.
        let live = try fixture.unlocked.privilegedKeyring(for: fixture.chart)
        let code = errorCode {
            try fixture.unlocked.transaction { tx in
                _ = try tx.openRecord(at: try Self.location(1), in: fixture.chart, keyring: live)
                _ = try tx.openRecord(at: try Self.location(1), in: fixture.chart)
            }
        }
        #expect(code == .privilegedSessionRequired)
    }

    @Test("rotate: new seals use the new version; rewrap re-seals older records (record.rewrap), retire refuses while records use the version, naming them")
    func rotationRewrapRetire() throws {
        let fixture = try Fixture()
        try fixture.seal("old", try Self.location(1))
        try fixture.unlocked.rotateCompartment(named: "notes")
        let rotated = try fixture.unlocked.compartment(named: "notes")
        try fixture.seal("new", try Self.location(2), in: rotated)
        let versions = try fixture.vault.vault.read { try $0.query("SELECT key_version FROM sealed_records ORDER BY id").map { try $0.integer("key_version") } }
        #expect(versions == [1, 2])
        let refusal = try #require(throws: CryptoVaultError.self) { try fixture.unlocked.retireCompartmentVersion(named: "notes", version: 1) }
        let named = try Self.location(1).description
        #expect(refusal.code == .keyVersionInUse && refusal.message.contains(named), "\(refusal.message)")
        let outcome = try fixture.unlocked.rewrapStored(in: rotated)
        #expect(outcome.records.changed == 1 && outcome.records.skipped.isEmpty)
        #expect(fixture.events(.recordRewrap).count == 1)
        try fixture.unlocked.retireCompartmentVersion(named: "notes", version: 1)
        let retired = try fixture.unlocked.compartment(named: "notes")
        #expect(try fixture.open(try Self.location(1), in: retired) == "old")
        #expect(try fixture.open(try Self.location(2), in: retired) == "new")
    }

    @Test("a record still under a retired version cannot be opened (its key is gone), and rewrap names it as skipped")
    func retiredVersionUnreadable() throws {
        let fixture = try Fixture()
        try fixture.seal("stranded", try Self.location(1))
        try fixture.unlocked.rotateCompartment(named: "notes")
        // Retire behind the vault's back, as a damaged or hostile file would have it.
        try fixture.tamper("UPDATE compartment_keys SET salt = NULL, retired_at = 1 WHERE compartment_id = \(fixture.notes.rowID) AND version = 1")
        let notes = try fixture.unlocked.compartment(named: "notes")
        #expect(errorCode { try fixture.open(try Self.location(1), in: notes) } == .unknownKeyVersion)
        let outcome = try fixture.unlocked.rewrapRecords(in: notes)
        #expect(outcome.changed == 0 && outcome.skipped.map(\.error.code) == [.unknownKeyVersion])
    }

    @Test("destroy shreds the compartment's records with it (rows gone, count in compartment.destroy) and leaves other compartments' records")
    func destroyShredsRecords() throws {
        let fixture = try Fixture()
        try fixture.seal("doomed one", try Self.location(1))
        try fixture.seal("doomed two", try Self.location(2))
        try fixture.seal("kept", try Self.location(3), in: fixture.chart)
        #expect(fixture.unlocked.recordKeyCache.count == 1, "one version's keys kept for the ordinary compartment; the privileged chart's never")
        #expect(try fixture.unlocked.destroyCompartment(named: "notes") == 0)
        #expect(fixture.unlocked.recordKeyCache.count == 0, "the destroyed compartment's keys are dropped at once")
        let left = try fixture.vault.vault.read { try $0.query("SELECT compartment_id FROM sealed_records").map { try $0.integer("compartment_id") } }
        #expect(left == [fixture.chart.rowID])
        #expect(fixture.events(.compartmentDestroy).last?.details.first { $0.name == "records" }?.value == "2")
        #expect(!fixture.vault.databaseFileBytes().contains(subsequence: Array("doomed".utf8)), "no plaintext was ever stored")
        #expect(errorCode { try fixture.open(try Self.location(1)) } != nil)
    }

    @Test("a location holding another compartment's record is not sealed over (recordLocationTaken); remove deletes and records record.rm")
    func locationsBelongToOneCompartment() throws {
        let fixture = try Fixture()
        try fixture.seal("chart entry", try Self.location(1), in: fixture.chart)
        #expect(errorCode { try fixture.seal("overwrite", try Self.location(1)) } == .recordLocationTaken)
        #expect(errorCode { try fixture.unlocked.transaction { try $0.removeRecord(at: try Self.location(1), in: fixture.notes) } } == .recordNotFound)
        try fixture.unlocked.transaction { try $0.removeRecord(at: try Self.location(1), in: fixture.chart) }
        #expect(fixture.events(.recordRm).count == 1)
        try fixture.seal("now free", try Self.location(1))
        #expect(try fixture.open(try Self.location(1)) == "now free")
    }

    @Test("a batch hands each record's own value to the sink from locked scratch memory; sealing from SecureBytes stores the same value")
    func batchOpensEachValue() throws {
        let fixture = try Fixture()
        let locations = try (0..<5).map { try Self.location(UInt8($0)) }
        let values = (0..<5).map { Array(String(repeating: "paragraph \($0) ", count: $0 * 300 + 1).utf8) }  // one past a page: the scratch grows
        try fixture.unlocked.transaction { tx in
            for (location, value) in zip(locations, values) { try tx.sealRecord(try SecureBytes(copying: value), at: location, in: fixture.notes) }
        }
        var opened: [[UInt8]] = Array(repeating: [], count: 5)
        try fixture.unlocked.transaction { tx in
            // A record opened inside the sink gets its own memory, not the batch's scratch.
            try tx.openRecords(at: locations.reversed(), in: fixture.notes) { index, plaintext in
                let single = try tx.openRecord(at: locations[0], in: fixture.notes)
                var inner: [UInt8] = []
                try tx.openRecords(at: [locations[1]], in: fixture.notes) { _, nested in inner = Array(nested) }
                #expect(single.exposedCopy() == values[0] && inner == values[1])
                opened[4 - index] = Array(plaintext)
            }
        }
        #expect(opened == values)
        #expect(fixture.events(.recordSeal).compactMap { $0.details.first { $0.name == "bytes" }?.value } == [String(values.reduce(0) { $0 + $1.count })])
    }

    @Test("a transaction's seals are one record.seal per compartment, where its first seal was, and its opens one record.open; a rollback records no seal")
    func sealGroups() throws {
        let fixture = try Fixture()
        try fixture.unlocked.transaction { tx in
            try tx.sealRecord(Array("a".utf8), at: try Self.location(1), in: fixture.notes)
            try tx.sealRecord(Array("bb".utf8), at: try Self.location(2), in: fixture.chart)
            _ = try tx.openRecord(at: try Self.location(1), in: fixture.notes)
            try tx.sealRecord(Array("ccc".utf8), at: try Self.location(3), in: fixture.notes)
            try tx.record(.recordRm, compartment: fixture.notes.id)
            try tx.sealRecord(Array("dddd".utf8), at: try Self.location(4), in: fixture.notes)
            try tx.openRecords(at: [try Self.location(3), try Self.location(4)], in: fixture.notes) { _, _ in }
        }
        let batch = fixture.journal.events.withLock { Array($0.suffix(4)) }
        #expect(batch.map(\.action) == [.recordSeal, .recordSeal, .recordOpen, .recordRm])
        #expect(batch.map(\.compartmentID) == [fixture.notes.id, fixture.chart.id, fixture.notes.id, fixture.notes.id])
        let named = { (event: VaultEvent, name: String) in event.details.first { $0.name == name }?.value }
        let notes = try [1, 3, 4].map { try Self.location($0).description }.joined(separator: "\n")
        #expect(named(batch[0], "records") == notes)
        #expect(named(batch[0], "bytes") == "8" && named(batch[0], "count") == nil)
        #expect(named(batch[1], "records") == (try Self.location(2)).description)
        #expect(named(batch[2], "records") == notes,
                "every open is named, in order")
        #expect(named(batch[2], "bytes") == "8")
        let before = fixture.events(.recordSeal).count
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try fixture.unlocked.transaction { tx in
                try tx.sealRecord(Array("e".utf8), at: try Self.location(5), in: fixture.notes)
                throw Stop()
            }
        }
        #expect(fixture.events(.recordSeal).count == before)
    }

    @Test("a batch that moves between modules, tables and fields opens each location's own value, the same record id included")
    func batchAcrossNames() throws {
        // The batch keeps the module, table and field bound from one lookup to the next and binds
        // only the record id: a name left bound from the record before would find another row.
        let fixture = try Fixture()
        let locations = try [("writing", "blocks", "text"), ("writing", "blocks", "title"), ("writing", "notes", "text"),
                             ("registers", "blocks", "text"), ("writing", "blocks", "text")].enumerated().map { index, names in
            try SealedRecordLocation(module: names.0, table: names.1, recordID: [7, UInt8(index < 4 ? 1 : 2)], field: names.2)
        }
        let values = locations.indices.map { Array("value \($0)".utf8) }
        try fixture.unlocked.transaction { tx in
            for (location, value) in zip(locations, values) { try tx.sealRecord(value, at: location, in: fixture.notes) }
        }
        var opened: [[UInt8]] = []
        try fixture.unlocked.transaction { tx in
            try tx.openRecords(at: locations + [locations[0], locations[3]], in: fixture.notes) { _, plaintext in opened.append(Array(plaintext)) }
        }
        #expect(opened == values + [values[0], values[3]])
    }

    @Test("a batch stops at the first record that does not open; the records handed over before it are recorded, and so are those a throwing sink saw")
    func batchFailureRecordsWhatWasHanded() throws {
        struct Stop: Error {}
        let fixture = try Fixture()
        let locations = try (0..<3).map { try Self.location(UInt8($0)) }
        try fixture.unlocked.transaction { tx in for location in locations { try tx.sealRecord(Array("v".utf8), at: location, in: fixture.notes) } }
        var handed: [Int] = []
        let missing = try Self.location(9)
        let code = errorCode {
            try fixture.unlocked.transaction { tx in
                try tx.openRecords(at: [locations[0], locations[1], missing, locations[2]], in: fixture.notes) { index, _ in handed.append(index) }
            }
        }
        #expect(code == .recordNotFound && handed == [0, 1])
        let named = { (event: VaultEvent) in event.details.first { $0.name == "records" }?.value }
        #expect(fixture.events(.recordOpen).map(named) == [[locations[0], locations[1]].map(\.description).joined(separator: "\n")],
                "the two handed over are on the record after the rollback")
        #expect(throws: Stop.self) {
            try fixture.unlocked.transaction { tx in try tx.openRecords(at: locations, in: fixture.notes) { index, _ in if index == 1 { throw Stop() } } }
        }
        #expect(fixture.events(.recordOpen).last.map(named) == [locations[0], locations[1]].map(\.description).joined(separator: "\n"))
    }
}
