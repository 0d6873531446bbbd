/// `vaultctl repair` for a key version row of `compartment_keys` whose number changed (reviewer15's
/// R15-9: version 1 read as 3, and every record of the compartment failed with `unknownKeyVersion`).
/// The number is an input of the key's derivation (§4.6), so a row's salt and the number the
/// records' authenticated headers name say together whether they belong: a row that no record and no
/// bundle uses is renumbered to a version its compartment's records name and no row has only when
/// the key derived from its salt under that number opens one of those records (the AEAD refuses
/// any other number). The opened value is wiped at once. An ordinary compartment only: a privileged
/// one's record opens only in a session (§10), so it is left and said.
package enum CompartmentKeyVersionMend {
    /// A version the compartment's records name and no row has: renumbered to (`mended`), or not.
    package struct Outcome: Sendable, Equatable {
        package let compartment: CompartmentID
        package let version: UInt32
        package let mended: Bool
    }

    package static func mend(_ vault: UnlockedVault) throws -> [Outcome] {
        try vault.transaction { tx in
            let missing = try tx.database.query("""
                SELECT s.compartment_id, c.uuid, c.privileged, s.key_version, MIN(s.id) AS sample
                FROM sealed_records s JOIN compartments c ON c.id = s.compartment_id
                WHERE c.destroyed_at IS NULL AND s.key_version BETWEEN 1 AND 4294967295
                AND NOT EXISTS (SELECT 1 FROM compartment_keys k WHERE k.compartment_id = s.compartment_id AND k.version = s.key_version)
                GROUP BY s.compartment_id, s.key_version
                """)
            return try missing.compactMap { row in
                guard let compartment = try? CompartmentID(bytes: try row.blob("uuid")) else { return nil }
                let version = UInt32(try row.integer("key_version"))
                let mended = try row.integer("privileged") == 0
                    && renumber(compartmentRowID: try row.integer("compartment_id"), compartment, to: version,
                                sample: try row.integer("sample"), in: tx)
                return Outcome(compartment: compartment, version: version, mended: mended)
            }
        }
    }

    /// Renumbers to `version` the unused row whose salt opens the sample record under it; whether one did.
    private static func renumber(compartmentRowID: Int64, _ compartment: CompartmentID, to version: UInt32, sample: Int64,
                                 in tx: VaultTransaction) throws -> Bool {
        let unused = try tx.database.query("""
            SELECT version, salt FROM compartment_keys k WHERE compartment_id = ? AND salt IS NOT NULL
            AND NOT EXISTS (SELECT 1 FROM sealed_records s WHERE s.compartment_id = k.compartment_id AND s.key_version = k.version)
            AND NOT EXISTS (SELECT 1 FROM bundles b WHERE b.compartment_id = k.compartment_id AND b.key_version = k.version)
            """, [.integer(compartmentRowID)])
        guard let record = try tx.database.queryOne("SELECT module, table_name, record_id, field, sealed FROM sealed_records WHERE id = ?",
                                                    [.integer(sample)]) else { return false }
        let location = try SealedRecordLocation(module: try record.text("module"), table: try record.text("table_name"),
                                                recordID: try record.blob("record_id"), field: try record.text("field"))
        let identity = SealedRecordIdentity(vaultID: tx.vault.vaultID, compartmentID: compartment, keyVersion: version, location: location)
        for row in unused {
            let key = try KeyHierarchy.compartmentKey(masterKey: tx.vault.masterKey, vaultID: tx.vault.vaultID, compartmentID: compartment,
                                                      version: version, salt: try row.blob("salt"))
            // Opened only to learn whether it opens: the SecureBytes is wiped when it goes.
            guard (try? SealedRecordCodec.open(try record.blob("sealed"), identity: identity,
                                               recordKey: try SealedRecordCodec.recordKey(compartmentKey: key))) != nil else { continue }
            let from = try row.integer("version")
            try tx.database.query("UPDATE compartment_keys SET version = ? WHERE compartment_id = ? AND version = ?",
                                  [.integer(Int64(version)), .integer(compartmentRowID), .integer(from)])
            try tx.record(.compartmentKeyVersionMended, compartment: compartment, details: [.init("from", String(from)), .init("to", String(version))])
            return true
        }
        return false
    }
}
