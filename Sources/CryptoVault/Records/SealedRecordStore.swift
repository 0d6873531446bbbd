/// The `sealed_records` table, read and written by this type only (SECURITY.md §4.8).
///
/// One row per location (module, table, record id, field): the compartment it is sealed in, the key
/// version (a clear copy of the sealed value's, so `retire` can find the records still using a
/// version without unsealing anything) and the sealed value. Statements are prepared once per store,
/// which lives for one transaction.
final class SealedRecordStore {
    static let tableName = "sealed_records"
    /// The table, as CryptoVault's first named module migration.
    static let migrationName = "sealed-records"
    static let migrationSQL = """
        CREATE TABLE sealed_records (
            id             INTEGER PRIMARY KEY,
            compartment_id INTEGER NOT NULL REFERENCES compartments(id),
            module         TEXT NOT NULL CHECK (length(module) BETWEEN 1 AND 64),
            table_name     TEXT NOT NULL CHECK (length(table_name) BETWEEN 1 AND 64),
            record_id      BLOB NOT NULL CHECK (length(record_id) BETWEEN 1 AND 64),
            field          TEXT NOT NULL CHECK (length(field) BETWEEN 1 AND 64),
            key_version    INTEGER NOT NULL CHECK (key_version BETWEEN 1 AND 4294967295),
            sealed         BLOB NOT NULL CHECK (length(sealed) BETWEEN 61 AND 1048637),
            updated_at     INTEGER NOT NULL,
            UNIQUE (module, table_name, record_id, field)
        ) STRICT;
        CREATE INDEX sealed_records_by_key_version ON sealed_records (compartment_id, key_version);
        """
    /// The index lookups go by (`select`): 16 bytes an entry where the unique index's repeat the names.
    static let recordIDIndexMigrationName = "sealed-records-by-record-id"
    static let recordIDIndexMigrationSQL = """
        CREATE INDEX sealed_records_by_record_id ON sealed_records (substr(record_id, 1, 8));
        """
    /// The keyed digest of each value (`SealedRecordDigest`), written with every seal from this
    /// migration on; NULL in rows sealed before it (their writers then open them to compare, as before).
    static let digestMigrationName = "sealed-records-digest"
    static let digestMigrationSQL = """
        ALTER TABLE sealed_records ADD COLUMN digest BLOB CHECK (digest IS NULL OR length(digest) = 16);
        """

    private let database: Database
    private lazy var upsert = Result { try database.prepare("""
        INSERT INTO sealed_records (compartment_id, module, table_name, record_id, field, key_version, sealed, updated_at, digest)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
        ON CONFLICT (module, table_name, record_id, field) DO UPDATE
        SET key_version = excluded.key_version, sealed = excluded.sealed, updated_at = excluded.updated_at, digest = excluded.digest
        WHERE compartment_id = excluded.compartment_id
        """) }
    private lazy var selectDigest = Result { try database.prepare("""
        SELECT compartment_id, key_version, digest FROM sealed_records
        WHERE module = ? AND table_name = ? AND record_id = ? AND field = ?
        """) }
    /// A lookup goes by the compact index of the record id's first 8 bytes (random in the writing
    /// model's ids), the row's whole location then checked by SQLite: the unique index of the four
    /// columns, whose entries repeat the names, is three times larger and, with random ids, costs a
    /// cold page or two per lookup (vaultbench records).
    static let selectSQL = """
        SELECT compartment_id, key_version, sealed FROM sealed_records INDEXED BY sealed_records_by_record_id
        WHERE substr(record_id, 1, 8) = substr(?3, 1, 8) AND module = ?1 AND table_name = ?2 AND record_id = ?3 AND field = ?4
        """
    private lazy var select = Result { try database.prepare(Self.selectSQL) }

    init(_ database: Database) { self.database = database }

    deinit { lookupID.deallocate() }

    /// Calls `body` with the location's four columns bound in place (module, table, record id, field).
    private static func withBorrowed<Result>(_ location: SealedRecordLocation, _ body: ([SQLBorrowedValue]) throws -> Result) rethrows -> Result {
        var (module, table, field) = (location.module, location.table, location.field)
        return try module.withUTF8 { module in
            try table.withUTF8 { table in
                try field.withUTF8 { field in
                    try location.recordID.withUnsafeBytes { recordID in
                        try body([.text(UnsafeRawBufferPointer(module)), .text(UnsafeRawBufferPointer(table)), .blob(recordID),
                                  .text(UnsafeRawBufferPointer(field))])
                    }
                }
            }
        }
    }

    private static func parameters(_ location: SealedRecordLocation) -> [SQLValue] {
        [.text(location.module), .text(location.table), .blob(location.recordID), .text(location.field)]
    }

    /// Inserts or replaces the value at `location`. A location already holding another compartment's
    /// record is refused (`recordLocationTaken`): sealing over it would move data between compartments.
    /// `digest` is the value's `SealedRecordDigest` under `keyVersion`.
    func write(_ sealed: [UInt8], digest: [UInt8], at location: SealedRecordLocation, compartmentRowID: Int64, keyVersion: UInt32) throws {
        let now = VaultClock.system.now()
        try Self.withBorrowed(location) { location in
            try sealed.withUnsafeBytes { sealed in
                try digest.withUnsafeBytes { digest in
                    try upsert.get().execute(borrowing: [.integer(compartmentRowID)] + location
                                             + [.integer(Int64(keyVersion)), .blob(sealed), .integer(now), .blob(digest)])
                }
            }
        }
        guard database.changes == 1 else {
            throw CryptoVaultError(.recordLocationTaken, "that location holds a record of another compartment; remove it first")
        }
    }

    /// The module, table and field bound (copied) to `select` by the last `withRow`: a batch of
    /// opens names one module, table and field for many record ids, so only the id is bound per record.
    private var selectModule = "", selectTable = "", selectField = ""
    /// The record id of the lookup in progress, bound in place (a location's id is at most 64 bytes).
    private let lookupID = UnsafeMutableRawBufferPointer.allocate(byteCount: SealedRecordLocation.maximumRecordIDSize, alignment: 1)

    /// Calls `body` with the row at `location` (its compartment row, key version and sealed bytes, lent
    /// from SQLite's row buffer: valid only during the call) and returns its result, or nil if the
    /// location holds no record.
    func withRow<Result>(_ location: SealedRecordLocation,
                         _ body: (_ compartmentRowID: Int64, _ keyVersion: UInt32, _ sealed: UnsafeRawBufferPointer) throws -> Result) throws -> Result? {
        defer { endLookup() }
        guard let row = try beginLookup(location) else { return nil }
        return try body(row.compartmentRowID, row.keyVersion, row.sealed)
    }

    /// The row at `location` (as `withRow` gives it), without a closure, for a batch of opens: its
    /// sealed bytes are lent from SQLite's row buffer until `endLookup()`, which must be called before
    /// the next lookup (and at the end, even after a throw); `location`'s record id is read by SQLite in place until then.
    func beginLookup(_ location: SealedRecordLocation) throws -> (compartmentRowID: Int64, keyVersion: UInt32, sealed: UnsafeRawBufferPointer)? {
        let select = try select.get()
        // Names are never empty, so the first lookup always binds them.
        if location.module != selectModule || location.table != selectTable || location.field != selectField {
            (selectModule, selectTable, selectField) = ("", "", "")
            try select.keepBound(.text(location.module), at: 1)
            try select.keepBound(.text(location.table), at: 2)
            try select.keepBound(.text(location.field), at: 4)
            (selectModule, selectTable, selectField) = (location.module, location.table, location.field)
        }
        // The id is bound in place from this store's own copy, which stays put until the next lookup.
        let count = location.recordID.count
        location.recordID.withUnsafeBytes { lookupID.baseAddress!.copyMemory(from: $0.baseAddress!, byteCount: count) }
        // The location is unique: one step finds its row or that there is none.
        guard let row = try select.beginLookup(binding: .blob(UnsafeRawBufferPointer(rebasing: lookupID[0..<count])), at: 3) else { return nil }
        return (row.integer(at: 0), UInt32(clamping: row.integer(at: 1)), row.blobBytes(at: 2))
    }

    /// Ends the lookup `beginLookup` began: the row's bytes are no longer lent.
    func endLookup() {
        if case .success(let select) = select { select.endLookup(unbinding: 3) }
    }

    /// The row at `location`'s compartment row, key version and digest (nil for a row sealed before
    /// digests were kept), or nil if the location holds no record. Reads no sealed bytes.
    func digest(at location: SealedRecordLocation) throws -> (compartmentRowID: Int64, keyVersion: UInt32, digest: [UInt8]?)? {
        let select = try selectDigest.get()
        var found: (compartmentRowID: Int64, keyVersion: UInt32, digest: [UInt8]?)?
        try Self.withBorrowed(location) { location in
            // The location is unique: at most one row. A NULL digest reads as no bytes (a digest is never empty).
            try select.forEachRawRow(borrowing: location) { row in
                let digest = row.blobBytes(at: 2)
                found = (row.integer(at: 0), UInt32(clamping: row.integer(at: 1)), digest.isEmpty ? nil : Array(digest))
            }
        }
        return found
    }

    /// The compartment row the record at `location` is sealed in, or nil if the location holds no
    /// record. Reads no sealed bytes.
    func compartmentRowID(at location: SealedRecordLocation) throws -> Int64? {
        try digest(at: location)?.compartmentRowID
    }

    /// The record ids of `module`'s records sealed in `compartmentRowID`, of each table of `fields`
    /// at that table's field (table → field), by table. One range of the compartment's index, so the
    /// cost is the compartment's records, never the vault's. Reads no sealed bytes.
    func recordIDs(module: String, fields: [String: String], compartmentRowID: Int64) throws -> [String: Set<[UInt8]>] {
        let tables = fields.keys.sorted()
        guard !tables.isEmpty else { return [:] }
        let either = tables.map { _ in "(table_name = ? AND field = ?)" }.joined(separator: " OR ")
        let pairs = tables.flatMap { [SQLValue.text($0), .text(fields[$0]!)] }
        var found = Dictionary(uniqueKeysWithValues: tables.map { ($0, Set<[UInt8]>()) })
        for row in try database.query("""
            SELECT table_name, record_id FROM sealed_records INDEXED BY sealed_records_by_key_version
            WHERE compartment_id = ? AND module = ? AND (\(either))
            """, [.integer(compartmentRowID), .text(module)] + pairs) {
            found[try row.text("table_name"), default: []].insert(try row.blob("record_id"))
        }
        return found
    }

    /// Deletes the row at `location` if it belongs to `compartmentRowID`; returns whether it did.
    func remove(_ location: SealedRecordLocation, compartmentRowID: Int64) throws -> Bool {
        try database.query("""
            DELETE FROM sealed_records WHERE module = ? AND table_name = ? AND record_id = ? AND field = ? AND compartment_id = ?
            """, Self.parameters(location) + [.integer(compartmentRowID)])
        return database.changes == 1
    }

    /// The locations of a compartment's records sealed under `keyVersion` (for `retire`), or under any
    /// version but it (for `rewrap`, with `excluding`), in row order.
    func locations(compartmentRowID: Int64, keyVersion: UInt32, excluding: Bool = false) throws -> [SealedRecordLocation] {
        try database.query("""
            SELECT module, table_name, record_id, field FROM sealed_records
            WHERE compartment_id = ? AND key_version \(excluding ? "!=" : "=") ? ORDER BY id
            """, [.integer(compartmentRowID), .integer(Int64(keyVersion))]).map { row in
            try SealedRecordLocation(module: try row.text("module"), table: try row.text("table_name"), recordID: try row.blob("record_id"),
                                     field: try row.text("field"))
        }
    }

    /// Deletes every record sealed by `module` (its store rebuilt by `vaultctl repair`), except those
    /// of the compartments `kept` names by row id (projects the repair keeps as they are); returns how
    /// many went. The database runs with secure_delete, so their pages are zeroed.
    func removeAll(module: String, keepingCompartmentRowIDs kept: [Int64] = []) throws -> Int {
        let keeping = kept.isEmpty ? "" : " AND compartment_id NOT IN (\(kept.map(String.init).joined(separator: ", ")))"
        try database.query("DELETE FROM sealed_records WHERE module = ?" + keeping, [.text(module)])
        return database.changes
    }

    /// Deletes every record of a compartment (destroy); returns how many went. The database runs
    /// with secure_delete, so their pages are zeroed.
    func removeAll(compartmentRowID: Int64) throws -> Int {
        try database.query("DELETE FROM sealed_records WHERE compartment_id = ?", [.integer(compartmentRowID)])
        return database.changes
    }
}

/// For a scratch copy of a vault that nothing will ever write back (the in-memory mode of SECURITY.md
/// §19.10): every record a module sealed removed from that copy's database, with no transaction of a
/// vault around it and nothing recorded. Never for a vault itself (`VaultTransaction.removeRecords`).
public enum ScratchSealedRecords {
    package static func removeAll(module: String, in database: Database) throws -> Int {
        try SealedRecordStore(database).removeAll(module: module)
    }
}

