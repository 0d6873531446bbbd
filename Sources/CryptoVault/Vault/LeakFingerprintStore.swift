/// The leak guard's fingerprints of privileged documents, kept in the vault (SECURITY.md §11.7).
/// Only the PrivilegedSession module computes and reads them, so this API is `package`.
///
/// The key is derived from the master key:
///     HKDF-SHA-256(IKM = MK, salt = vault id, info = "vaultctl leak guard fingerprints v2", L = 32)
/// so fingerprints are worthless without the vault's secret (a shingle of 8 common words could
/// otherwise be confirmed by anyone who guesses it). "v2" is the fingerprint format of §11.3 version
/// 2; version 1's values were deleted by migration 11 and can never mix with these.
extension UnlockedVault {
    static let leakFingerprintInfo = Array("vaultctl leak guard fingerprints v2".utf8)

    package func leakFingerprintKey() throws -> SecureBytes {
        try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: Self.leakFingerprintInfo, outputCount: 32)
    }

    /// Which of `fingerprints` are stored, written to `answers` (as many): one lookup by key each
    /// (the table's primary key), in the table's order so that its pages are read from start to
    /// end. The egress funnel asks this of each payload's shingles (SECURITY.md §11.7): its cost
    /// grows with the payload, not with the table, which grows with every privileged word.
    package func storedLeakFingerprints(_ fingerprints: UnsafeBufferPointer<UInt64>, into answers: UnsafeMutablePointer<Bool>) throws {
        let order = fingerprints.indices.sorted { Int64(bitPattern: fingerprints[$0]) < Int64(bitPattern: fingerprints[$1]) }
        try vault.read { database in
            let lookup = try database.prepare("SELECT 1 FROM leak_fingerprints WHERE fingerprint = ?")
            for index in order {
                let key = SQLBorrowedValue.integer(Int64(bitPattern: fingerprints[index]))
                answers[index] = try lookup.firstRawRow(binding: key, at: 1) { _ in true } ?? false
            }
        }
    }

    /// Every stored fingerprint when the table holds fewer than `limit`, else nil; counted and read in
    /// one read, so what is counted is what is read. Counting stops at `limit`, so asking costs no more
    /// than a payload of `limit` shingles would cost to look up: the egress funnel loads a small table
    /// for a large payload instead of looking up each of its shingles (SECURITY.md §11.7).
    package func leakFingerprints(ifFewerThan limit: Int) throws -> [UInt64]? {
        try vault.read { database in
            let held = try database.queryOne("SELECT count(*) AS held FROM (SELECT 1 FROM leak_fingerprints LIMIT ?)", [.integer(Int64(limit))])
            guard let held, try held.integer("held") < limit else { return nil }
            var fingerprints: [UInt64] = []
            try database.forEachRawRow("SELECT fingerprint FROM leak_fingerprints") { row in
                fingerprints.append(UInt64(bitPattern: row.integer(at: 0)))
            }
            return fingerprints
        }
    }

    /// Every stored fingerprint. Read by column position (no per-row dictionary): a leak guard built
    /// with them all (`PrivilegedFingerprints.index`) waits for it (20,000 rows: 8.4 ms by name).
    package func leakFingerprints() throws -> [UInt64] {
        try vault.read { database in
            var fingerprints: [UInt64] = []
            try database.forEachRawRow("SELECT fingerprint FROM leak_fingerprints") { row in
                fingerprints.append(UInt64(bitPattern: row.integer(at: 0)))
            }
            return fingerprints
        }
    }
}

extension VaultTransaction {
    /// Adds fingerprints (duplicates are ignored) in this transaction: the one that stores the
    /// document they describe, so a crash never leaves a privileged document unfingerprinted.
    package func storeLeakFingerprints(_ fingerprints: [UInt64]) throws {
        let insert = try database.prepare("INSERT OR IGNORE INTO leak_fingerprints (fingerprint) VALUES (?)")
        for fingerprint in fingerprints { _ = try insert.run([.integer(Int64(bitPattern: fingerprint))]) }
    }
}
