/// `vaultctl repair` for a sealed record whose `key_version` column is not the key version its
/// sealed header says (reviewer15's R15-7: one such bit refused every command, until
/// `VaultIntegrity` read `sealed_records` safely; now only that record does not open). The column is
/// a clear copy of the header's (so `retire` finds a version's records without opening them), and
/// the header is authenticated by every open (it is in the AD): the column is written again from
/// the header, which opens nothing, needs no session, and cannot make a record open that did not.
package enum SealedRecordKeyVersionMend {
    /// The locations whose column was written again, as `module/table/record id/field`.
    package static func mend(_ vault: UnlockedVault) throws -> [String] {
        try vault.transaction { tx in
            // Rows whose column is not their header's 4 key-version bytes (big-endian, after the format byte).
            let rows = try tx.database.query("""
                SELECT s.id, s.module, s.table_name, s.record_id, s.field, s.key_version, s.sealed, c.uuid
                FROM sealed_records s JOIN compartments c ON c.id = s.compartment_id
                WHERE length(s.sealed) >= \(SealedRecordCodec.headerSize) AND hex(substr(s.sealed, 2, 4)) != printf('%08X', s.key_version)
                """)
            var mended: [String] = []
            for row in rows {
                let sealed = try row.blob("sealed")
                guard let header = try? sealed.withUnsafeBytes({ try SealedRecordCodec.Header.keyVersion(parsing: $0) }),
                      let location = try? SealedRecordLocation(module: try row.text("module"), table: try row.text("table_name"),
                                                               recordID: try row.blob("record_id"), field: try row.text("field")) else { continue }
                try tx.database.query("UPDATE sealed_records SET key_version = ? WHERE id = ?", [.integer(Int64(header)), .integer(try row.integer("id"))])
                let compartment = try? CompartmentID(bytes: try row.blob("uuid"))
                try tx.record(.recordKeyVersionMended, compartment: compartment, subject: location.recordID,
                              details: [.init("table", location.table), .init("field", location.field),
                                        .init("from", String(try row.integer("key_version"))), .init("to", String(header))])
                mended.append("\(location)")
            }
            return mended
        }
    }
}
