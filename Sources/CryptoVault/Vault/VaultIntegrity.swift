/// What SQLite's quick_check says of a vault's database when it is opened (SECURITY.md §4.1.1): a
/// truncated or bit-rotted file is refused up front rather than half-read later, unless every
/// finding is a damaged row (a CHECK or NOT NULL constraint broken, the table named) of a module
/// whose layer mends its own rows (`ModuleSchema.mendsDamagedRows`), or of the one core table read
/// safely whatever it holds (`coreTablesReadSafely`): then the vault opens and the
/// findings are handed up, by table, for that layer to say what is wrong and mend it (attack review
/// s8, F18: one flipped bit in a sync counter refused the whole vault, `repair` included).
package enum VaultIntegrity {
    /// The most findings read. A check that reaches it may have more to say than it said (a damaged
    /// page after a thousand damaged rows), so it refuses the vault as a whole.
    package static let findingLimit = 1_000

    /// CryptoVault's own tables whose damaged rows are read safely: a trust level that is no level
    /// reads as `other`, which grants nothing (`DeviceTrust.stored`; attack review s8, F10); a sealed
    /// record whose clear columns break a CHECK does not open, and only it: its key version column
    /// is checked against its authenticated header's, its sizes by its parser, its location by the
    /// AD (`SealedRecords.checkRow`; reviewer15's R15-7: one bit of a key version refused every
    /// command, `audit verify` and `repair` included).
    static let coreTablesReadSafely: Set<String> = [DeviceTrust.tableName, SealedRecordStore.tableName]

    /// The damaged rows of mending modules' tables (table: findings), empty for a whole database;
    /// throws `.corruptVault` with the first findings for anything else.
    static func check(_ database: Database, schema: VaultSchema) throws -> [String: [String]] {
        let findings: [String]
        do {
            findings = try database.query("PRAGMA quick_check(\(findingLimit))").compactMap { try? $0.text("quick_check") }
        } catch let error as CryptoVaultError {
            throw CryptoVaultError(.corruptVault, "the vault database is damaged: \(error.message)")
        }
        guard findings != ["ok"] else { return [:] }
        let refusal = CryptoVaultError(.corruptVault, "the vault database is damaged: \(findings.prefix(3).joined(separator: "; "))")
        guard !findings.isEmpty, findings.count < findingLimit, let owners = try? schema.tablesMendingDamagedRows() else { throw refusal }
        var damaged: [String: [String]] = [:]
        for finding in findings {
            guard let table = damagedRowTable(finding), owners[table] != nil || coreTablesReadSafely.contains(table) else { throw refusal }
            damaged[table, default: []].append(finding)
        }
        return damaged
    }

    /// The table a finding about one row's value names, or nil for any other finding (a page, a
    /// cell, the free list: damage to the file itself). SQLite 3.40 words them "CHECK constraint
    /// failed in TABLE", "NULL value in TABLE.COLUMN" and, for a STRICT table, "non-TYPE value in
    /// TABLE.COLUMN"; a vault's table names hold no space and no dot.
    package static func damagedRowTable(_ finding: String) -> String? {
        let named: Substring
        if finding.hasPrefix("CHECK constraint failed in ") {
            named = finding.dropFirst("CHECK constraint failed in ".count)
        } else if finding.hasPrefix("NULL value in ") || (finding.hasPrefix("non-") && finding.contains(" value in ")) {
            guard let range = finding.range(of: " value in "), let column = finding[range.upperBound...].firstIndex(of: ".") else { return nil }
            named = finding[range.upperBound..<column]
        } else {
            return nil
        }
        guard !named.isEmpty, named.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) else { return nil }
        return String(named)
    }
}
