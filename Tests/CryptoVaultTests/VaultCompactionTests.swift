import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// `UnlockedVault.compact()` (SECURITY.md §4.9): the database rewritten without its free space, every
/// record as it was, the audit log verifying with one `vault.compact` entry, and the refusals.
@Suite("Compaction: the free space given back, nothing the vault holds changed, the entry recorded")
struct VaultCompactionTests {
    /// A vault whose records were sealed, resealed shorter and partly removed: free pages and
    /// half-empty ones, as a long edit history leaves. Returns what each kept record holds.
    static func vaultWithFreeSpace() throws -> (vault: AuditedVault, notes: VaultCompartment, kept: [SealedRecordLocation: String]) {
        let vault = try AuditedVault()
        let notes = try vault.command { try vault.unlocked.createCompartment(named: "notes", register: .general) }
        var kept: [SealedRecordLocation: String] = [:]
        let locations = try (0..<240).map { try SealedRecordLocation(module: "writing", table: "blocks", recordID: [UInt8($0)], field: "text") }
        try vault.command {
            try vault.unlocked.transaction { tx in
                for (index, location) in locations.enumerated() {
                    _ = try tx.sealRecord(Array(String(repeating: "paragraph \(index) ", count: 120).utf8), at: location, in: notes)
                }
            }
        }
        try vault.command {
            try vault.unlocked.transaction { tx in
                for (index, location) in locations.enumerated() {
                    if index % 3 == 0 { try tx.removeRecord(at: location, in: notes); continue }
                    let text = "edited \(index)"
                    _ = try tx.sealRecord(Array(text.utf8), at: location, in: notes)
                    kept[location] = text
                }
            }
        }
        return (vault, notes, kept)
    }

    static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? -1
    }

    static func compactEntries(_ vault: AuditedVault) throws -> [AuditEntry] {
        try vault.reader.entries().filter { $0.action == AuditAction.vaultCompact.name }
    }

    @Test("the database shrinks to the size it reports, every record opens to its value in the reopened vault, and the log verifies with one vault.compact naming both sizes")
    func compactionKeepsEverything() throws {
        let (vault, notes, kept) = try Self.vaultWithFreeSpace()
        let before = Self.fileSize(vault.vault.databasePath)
        let entriesBefore = try vault.reader.size()

        let compaction = try vault.command { try vault.unlocked.compact() }

        #expect(compaction.bytesBefore == before, "the size before is the file's (its log was empty)")
        #expect(compaction.bytesAfter < compaction.bytesBefore / 2, "\(compaction)")
        let after = Self.fileSize(vault.vault.databasePath)
        #expect(after < before / 2 && Self.fileSize(vault.vault.databasePath + "-wal") == 0, "\(before) -> \(after)")
        let entries = try Self.compactEntries(vault)
        #expect(entries.count == 1 && entries.first?.detailHashes.isEmpty == true)
        #expect(entries.first.flatMap { VaultCompaction(subject: $0.subjectID) } == compaction, "the subject holds both sizes, u64be each")
        #expect(try vault.reader.size() == entriesBefore + 1, "one entry (the checkpoint the command signed is not one)")
        _ = try vault.reader.verify()

        let reopened = try vault.unlock()
        let notesAgain = try reopened.compartment(named: "notes")
        #expect(notesAgain.id == notes.id)
        for (location, text) in kept {
            let value = try reopened.transaction { try $0.openRecord(at: location, in: notesAgain) }
            #expect(value.exposedCopy() == Array(text.utf8), "\(location)")
        }
        let removed = try SealedRecordLocation(module: "writing", table: "blocks", recordID: [0], field: "text")
        #expect(errorCode { try reopened.transaction { try $0.openRecord(at: removed, in: notesAgain) } } == .recordNotFound)
    }

    @Test("a second compaction right after the first finds nothing to give back, and records its own entry")
    func compactingACompactVault() throws {
        let (vault, _, _) = try Self.vaultWithFreeSpace()
        let first = try vault.command { try vault.unlocked.compact() }
        let second = try vault.command { try vault.unlocked.compact() }
        // The first one's entry and checkpoint are the only pages written in between.
        #expect(second.bytesFreed <= 4 * 4096 && second.bytesFreed >= 0, "\(first) then \(second)")
        #expect(try Self.compactEntries(vault).count == 2)
        _ = try vault.reader.verify()
    }

    @Test("a database larger than the memory allowed for its copy is refused with the sizes, and nothing changes")
    func refusedAboveTheMemoryCeiling() throws {
        let (vault, _, _) = try Self.vaultWithFreeSpace()
        let bytes = vault.databaseFileBytes()
        var refusal: CryptoVaultError?
        do { _ = try vault.unlocked.compact(memoryCeiling: 64 * 1024) } catch let error as CryptoVaultError { refusal = error }
        #expect(refusal?.code == .compactionRefused)
        #expect(refusal?.message.contains("makes a copy in memory") == true && refusal?.message.contains("nothing was changed") == true,
                "\(refusal?.message ?? "no refusal")")
        #expect(vault.databaseFileBytes() == bytes, "the refused compaction changed the database")
        #expect(try Self.compactEntries(vault).isEmpty)
    }

    @Test("inside a transaction it is refused as a nested transaction: SQLite rewrites a database only outside one")
    func refusedInsideATransaction() throws {
        let (vault, _, _) = try Self.vaultWithFreeSpace()
        let code = errorCode { try vault.unlocked.transaction { _ in try vault.unlocked.compact() } }
        #expect(code == .nestedTransaction)
        #expect(try Self.compactEntries(vault).isEmpty)
    }

    @Test("the in-memory mode's copy is refused: its entry would go with the copy")
    func refusedOnTheInMemoryCopy() throws {
        let (vault, _, _) = try Self.vaultWithFreeSpace()
        try InMemoryCopyMarker.mark(vault.directory, reason: "the writing store cannot be opened: test")
        let message = errorMessage { try vault.unlocked.compact() }
        #expect(errorCode { try vault.unlocked.compact() } == .compactionRefused)
        #expect(message?.contains("a compaction is refused in in-memory mode") == true, "\(message ?? "no refusal")")
        #expect(try Self.compactEntries(vault).isEmpty)
    }

    @Test("a vault.compact subject reads back only as exactly two u64be sizes")
    func subjectEncoding() {
        let compaction = VaultCompaction(bytesBefore: 2_109_440, bytesAfter: 1_740_800)
        #expect(compaction.subject == [0, 0, 0, 0, 0, 0x20, 0x30, 0, 0, 0, 0, 0, 0, 0x1A, 0x90, 0])
        #expect(VaultCompaction(subject: compaction.subject) == compaction)
        #expect(VaultCompaction(subject: Array(compaction.subject.dropLast())) == nil)
        #expect(VaultCompaction(subject: [0xFF] + Array(repeating: 0, count: 15)) == nil, "more than Int.max")
    }
}
