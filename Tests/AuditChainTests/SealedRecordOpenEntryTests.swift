import AuditChain
import CryptoVault
import Testing
import TestSupport

/// `record.open` entries (SECURITY.md §4.8) under the real audit log, whose detail values are at most
/// 4096 bytes (§8.2): a read of records with long names is split into entries the log takes.
@Suite struct SealedRecordOpenEntryTests {
    /// The `record.open` entries the log holds from entry `from` on.
    func opens(_ audited: AuditedVault, from: Int) throws -> [AuditEntry] {
        try audited.storedEntries()[from...].map { try AuditEntry(decoding: $0.entry) }.filter { $0.action == AuditAction.recordOpen.name }
    }

    @Test("64 names of 65 bytes (a snapshot part's) and 20 of 323 (the longest) are each recorded in two entries, every record handed over",
          arguments: [(65, 64), (323, 20)])
    func longNamesSplitEntries(_ nameSize: Int, _ count: Int) throws {
        let audited = try AuditedVault()
        let compartment = try audited.unlocked.createCompartment(named: "notes", register: .general)
        let locations = try (0..<count).map { index in
            nameSize == 65
                ? try SealedRecordLocation(module: "writing", table: "writing_snapshots", recordID: [UInt8](repeating: UInt8(index), count: 16), field: "part-0")
                : try SealedRecordLocation(module: String(repeating: "m", count: 64), table: String(repeating: "t", count: 64),
                                           recordID: [UInt8](repeating: UInt8(index), count: 64), field: String(repeating: "f", count: 64))
        }
        #expect(locations.allSatisfy { $0.description.utf8.count == nameSize })
        try audited.unlocked.transaction { tx in
            for location in locations { try tx.sealRecord(Array("v".utf8), at: location, in: compartment) }
        }
        let before = try audited.storedEntries().count
        var handed: [Int] = []
        try audited.unlocked.transaction { tx in try tx.openRecords(at: locations, in: compartment) { index, _ in handed.append(index) } }
        #expect(handed == Array(0..<count))
        // 62 names of 65 bytes fit in 4096 (4,091 with the line feeds), 12 of 323 (3,887).
        #expect(try opens(audited, from: before).count == 2)
    }
}
