@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// Sealed records are looked up through the compact index of their record ids' first 8 bytes
/// (`sealed_records_by_record_id`, SECURITY.md §4.8), each row's whole location then checked.
@Suite("Sealed record lookups: the record-id index finds a record, its whole location decides")
struct SealedRecordLookupTests {
    typealias Fixture = SealedRecordStoreTests.Fixture

    @Test("ids that share their first 8 bytes, ids that are prefixes of others, and one id at several fields and tables each open to their own value")
    func sharedPrefixesOpenTheirOwn() throws {
        let fixture = try Fixture()
        let prefix: [UInt8] = [1, 2, 3, 4, 5, 6, 7, 8]
        let locations = try [
            SealedRecordLocation(module: "writing", table: "blocks", recordID: prefix, field: "text"),
            SealedRecordLocation(module: "writing", table: "blocks", recordID: prefix + [9], field: "text"),
            SealedRecordLocation(module: "writing", table: "blocks", recordID: prefix + [10], field: "text"),
            SealedRecordLocation(module: "writing", table: "blocks", recordID: [1, 2, 3], field: "text"),
            SealedRecordLocation(module: "writing", table: "blocks", recordID: prefix + [9], field: "title"),
            SealedRecordLocation(module: "writing", table: "notes", recordID: prefix + [9], field: "text"),
            SealedRecordLocation(module: "other", table: "blocks", recordID: prefix + [9], field: "text"),
        ]
        for (index, location) in locations.enumerated() { try fixture.seal("value \(index)", location) }
        for (index, location) in locations.enumerated() { #expect(try fixture.open(location) == "value \(index)", "\(location)") }
        var batch: [String] = []
        try fixture.unlocked.transaction { tx in
            try tx.openRecords(at: locations.reversed(), in: fixture.notes) { _, plaintext in batch.append(String(decoding: plaintext, as: UTF8.self)) }
        }
        #expect(batch == (0..<locations.count).reversed().map { "value \($0)" })
        let missing = try SealedRecordLocation(module: "writing", table: "blocks", recordID: prefix + [11], field: "text")
        #expect(errorCode { try fixture.open(missing) } == .recordNotFound)
    }

    @Test("the store's lookup goes through the record-id index by its expression, not the unique index of the four columns")
    func lookupUsesTheRecordIDIndex() throws {
        let fixture = try Fixture()
        try fixture.seal("v", try SealedRecordStoreTests.location(1))
        let plan = try fixture.vault.vault.read { database in
            try database.query("EXPLAIN QUERY PLAN " + SealedRecordStore.selectSQL,
                               [.text("writing"), .text("blocks"), .blob([1]), .text("text")]).map { try $0.text("detail") }
        }
        #expect(plan.count == 1 && plan[0].contains("USING INDEX sealed_records_by_record_id (<expr>=?)"), "\(plan)")
    }
}
