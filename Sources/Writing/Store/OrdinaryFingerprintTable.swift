import CryptoVault

/// The `writing_ordinary_fingerprints` table, read and written here only: the leak guard's keyed
/// fingerprints (SECURITY.md §11.3, §11.7) of the words written into this vault's ordinary projects.
/// They say which eight-word runs were ordinary before a privileged project quoted them, so a
/// colleague's paragraph copied into a chart does not become a privileged quote that refuses every
/// later pull of the colleague's own project (review 17 s13, lg3 on N-s13-2's fix).
struct OrdinaryFingerprintTable {
    let database: Database

    /// Whether the table is there: every vault vaultctl opens is migrated to `leak-1` first; only a
    /// store made on a vault held at an older writing schema (the upgrade tests build them) lacks it.
    func exists() throws -> Bool {
        try !database.query("SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = 'writing_ordinary_fingerprints'").isEmpty
    }

    /// Adds `fingerprints` (duplicates ignored).
    func insert(_ fingerprints: [UInt64]) throws {
        let insert = try database.prepare("INSERT OR IGNORE INTO writing_ordinary_fingerprints (fingerprint) VALUES (?)")
        for fingerprint in fingerprints { _ = try insert.run([.integer(Int64(bitPattern: fingerprint))]) }
    }

    /// The fingerprints of `fingerprints` this table does not hold, in order.
    func notHeld(_ fingerprints: [UInt64]) throws -> [UInt64] {
        let find = try database.prepare("SELECT 1 FROM writing_ordinary_fingerprints WHERE fingerprint = ?")
        return try fingerprints.filter { try find.run([.integer(Int64(bitPattern: $0))]).isEmpty }
    }
}
