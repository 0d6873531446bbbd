internal import CSQLite
import Foundation

/// A small, honest wrapper over one SQLite connection.
///
/// Statements finalize when they go out of scope; `transaction` rolls back when its body throws.
/// Errors carry the SQLite result code and the SQL text, never bound values (they may be secrets).
/// A connection is used from one thread at a time: its owner (a `Vault`) serialises access.
///
/// Package-internal, with everything that hands one out: it runs any SQL on any table, so only this
/// package's modules use it, each on the tables it owns (OwnedSQLGuardTests); a library caller
/// reaches the vault through typed APIs (issue 12, PublicDatabaseGuardTests).
package final class Database: @unchecked Sendable {
    fileprivate let handle: OpaquePointer
    package let path: String
    /// The statements of `query`, `forEachRow` and `forEachRawRow`, kept prepared by their SQL
    /// (GRDB's cached statements): preparing one (parsing, planning) cost more than running most of
    /// them, and one writing edit ran dozens (prepares were a fifth of its instructions). Each is reset, its bindings cleared, before it is
    /// put back, so a kept statement holds no read snapshot and no bound value.
    private var preparedBySQL: [String: OpaquePointer] = [:]
    /// Enough for every statement the vault's code runs; past it, statements are not kept (SQL
    /// built with values in it would otherwise grow the cache without end).
    static let maximumKeptStatements = 256
    /// Whether the connection is inside `readingOnly` (a `Vault.read`), and the authorizer that enforces it.
    let readOnlyScope = ReadOnlyScope()

    /// Opens an existing database file (never creates one unless `create` is set).
    package convenience init(path: String, create: Bool) throws {
        try self.init(path: path, create: create, readOnly: false)
    }

    /// A `readOnly` connection never writes the file: no migration, no checkpoint of the write-ahead log on close.
    package init(path: String, create: Bool, readOnly: Bool) throws {
        var connection: OpaquePointer?
        let access = readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        let flags = access | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &connection, flags, nil)
        guard status == SQLITE_OK, let connection else {
            let message = connection.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close_v2(connection)
            throw CryptoVaultError(.database, "cannot open database \(path): \(message)")
        }
        self.handle = connection
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        // Writers from another process wait their turn instead of failing at once.
        sqlite3_busy_timeout(connection, 30_000)
        readOnlyScope.install(on: connection)
        // SQLite's temporary files (sorts and temporary b-trees too big for the cache, statement
        // journals past 64 KiB, temporary tables, VACUUM's copy) stay in this process's memory.
        // At the default they are unlinked files in /var/tmp or $TMPDIR: pieces of the vault's
        // rows, or the plaintext a search reads, on a disk the owner did not choose and that
        // `compartment destroy` never reaches (SECURITY.md §4.1, §5). Set on every connection,
        // the vault's, read-only ones and scratch ones in memory alike, before any statement runs.
        try execute("PRAGMA temp_store = MEMORY")
    }

    deinit {
        for statement in preparedBySQL.values { sqlite3_finalize(statement) }
        sqlite3_close_v2(handle)
    }

    /// Runs one or more statements that take no parameters and return nothing useful.
    package func execute(_ sql: String) throws {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        defer { sqlite3_free(errorMessage) }
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? lastErrorMessage
            throw databaseError(status, message, sql: sql)
        }
    }

    /// Runs `sql` with `parameters` bound and returns every row.
    @discardableResult
    package func query(_ sql: String, _ parameters: [SQLValue] = []) throws -> [Row] {
        try withKeptStatement(sql, parameters) { try $0.allRows() }
    }

    /// The first row of `sql`, or nil.
    package func queryOne(_ sql: String, _ parameters: [SQLValue] = []) throws -> Row? {
        try query(sql, parameters).first
    }

    /// A statement to run many times (bind, run, repeat), for hot loops such as appending log entries.
    /// It is taken from the kept statements and put back (reset, its bindings cleared) when released,
    /// as `query`'s are: the stores that prepare their statements once per transaction (sealed
    /// records, the audit tree) then prepare them once per connection.
    package func prepare(_ sql: String) throws -> PreparedStatement {
        PreparedStatement(try takeStatement(sql))
    }

    /// Calls `body` with each row of `sql` in turn, without holding all rows in memory.
    package func forEachRow(_ sql: String, _ parameters: [SQLValue] = [], _ body: (Row) throws -> Void) throws {
        try withKeptStatement(sql, parameters) { try $0.forEachRow(body) }
    }

    /// Like `forEachRow`, but columns are read by position straight from the statement: no per-row
    /// dictionary, for scans over millions of rows (audit verification).
    package func forEachRawRow(_ sql: String, _ parameters: [SQLValue] = [], _ body: (RawRow) throws -> Void) throws {
        try withKeptStatement(sql, parameters) { try $0.forEachRawRow(body) }
    }

    /// Runs `body` with `sql` prepared (the kept statement, or a new one) and `parameters` bound,
    /// then keeps it for the next call. The statement is taken out while it runs, so the same SQL
    /// run again inside `body` (a query in its own row loop) prepares one of its own.
    private func withKeptStatement<Result>(_ sql: String, _ parameters: [SQLValue], _ body: (Statement) throws -> Result) throws -> Result {
        let statement = try takeStatement(sql)
        defer { putBack(statement) }
        try statement.bind(parameters)
        return try body(statement)
    }

    /// The kept statement of `sql` (taken out: no one else runs it meanwhile), or a new one.
    private func takeStatement(_ sql: String) throws -> Statement {
        try preparedBySQL.removeValue(forKey: sql).map { Statement(database: self, prepared: $0, sql: sql) }
            ?? Statement(database: self, handle: handle, sql: sql)
    }

    /// Keeps `statement` for the next run of its SQL, reset and with no value bound. One kept per
    /// SQL: of two nested runs the inner finishes first and is kept; the outer one then finalizes
    /// (as does any past the cap).
    fileprivate func putBack(_ statement: Statement) {
        statement.reset()
        if preparedBySQL[statement.sql] == nil, preparedBySQL.count < Self.maximumKeptStatements {
            preparedBySQL[statement.sql] = statement.handOver()
        }
    }

    /// Set by an open `VaultTransaction` while it holds entries for its batch append: appends them.
    /// An entry journaled on this connection outside the transaction's own `record` runs it first, so
    /// the log's order is the order things were recorded in.
    var appendWaitingEntries: (() throws -> Void)?

    /// Whether a transaction is open on this connection (SQLite is out of autocommit mode).
    package var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    package var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }
    package var changes: Int { Int(sqlite3_changes(handle)) }

    /// Runs `body` in a write transaction taken up front (`BEGIN IMMEDIATE`), so two processes never
    /// both read-then-write on a stale view: the second waits for the first. Rolls back on throw.
    /// A second write transaction inside one is refused (`.nestedTransaction`) rather than joined:
    /// whoever opened it would believe its changes committed when it returned.
    package func writeTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        guard !isInTransaction else {
            throw CryptoVaultError(.nestedTransaction, "a vault write was started inside a transaction; make the change through the transaction itself")
        }
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `body` in a read transaction: every query inside sees one consistent snapshot.
    /// Inside a transaction already (a read made in a `VaultTransaction`'s body), it runs in that one:
    /// it sees that transaction's snapshot and its uncommitted changes.
    package func readTransaction<Result>(_ body: () throws -> Result) throws -> Result {
        if isInTransaction { return try body() }
        try execute("BEGIN DEFERRED")
        defer { try? execute("COMMIT") }
        return try body()
    }

    /// Runs `body` with the connection read-only (see `ReadOnlyScope`): a statement that would change
    /// the database, or turn the read-only state off, is refused with `.writeInsideRead`.
    package func readingOnly<Result>(_ body: () throws -> Result) throws -> Result {
        if readOnlyScope.depth == 0 { try execute("PRAGMA query_only = 1") }
        readOnlyScope.depth += 1
        defer {
            readOnlyScope.depth -= 1
            // If this fails the connection stays read-only: later writes fail, none slips through.
            if readOnlyScope.depth == 0 { try? execute("PRAGMA query_only = 0") }
        }
        return try body()
    }

    var lastErrorMessage: String { String(cString: sqlite3_errmsg(handle)) }

    func databaseError(_ status: Int32, _ message: String, sql: String) -> CryptoVaultError {
        let primary = status & 0xff
        if readOnlyScope.isActive, primary == SQLITE_READONLY || primary == SQLITE_AUTH {
            return CryptoVaultError(.writeInsideRead, "a read cannot change the vault: refused inside Vault.read (\(message)) in: \(sql); "
                + "change the vault through unlocked.transaction, which records the change")
        }
        let code: CryptoVaultErrorCode =
            (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) ? .corruptVault : .database
        return CryptoVaultError(code, "database error \(status) (\(message)) in: \(sql)")
    }
}

/// The current row of a running statement, read by column position; valid only inside the callback.
package struct RawRow {
    let handle: OpaquePointer

    package func integer(at column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    package func blob(at column: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(handle, column))
        guard count > 0, let base = sqlite3_column_blob(handle, column) else { return [] }
        return Array(UnsafeRawBufferPointer(start: base, count: count))
    }

    /// The blob's bytes where SQLite holds them, without a copy (empty for NULL or an empty blob).
    /// Valid only until the callback returns: a scan over millions of rows copies nothing.
    package func blobBytes(at column: Int32) -> UnsafeRawBufferPointer {
        // Blob first, then its size: the order SQLite documents (no type conversion can move the bytes).
        let base = sqlite3_column_blob(handle, column)
        let count = Int(sqlite3_column_bytes(handle, column))
        return UnsafeRawBufferPointer(start: count > 0 ? base : nil, count: base == nil ? 0 : count)
    }
}

/// A value bound to or read from a statement.
public enum SQLValue: Sendable, Equatable {
    case integer(Int64)
    case text(String)
    case blob([UInt8])
    case null
}

/// One result row, addressed by column name.
public struct Row: Sendable {
    let columns: [String: SQLValue]

    public subscript(_ name: String) -> SQLValue { columns[name] ?? .null }

    public func integer(_ name: String) throws -> Int64 {
        guard case .integer(let value) = self[name] else { throw malformed(name, "an integer") }
        return value
    }

    /// An integer column that numbers or counts something (a seq, a size, an epoch, a time): a
    /// negative value is refused as damage, so that no caller turns a hostile row into a trap when it
    /// converts the value to an unsigned type or does arithmetic on it.
    public func nonNegativeInteger(_ name: String) throws -> Int {
        let value = try integer(name)
        guard value >= 0 else { throw malformed(name, "a non-negative integer (it is \(value))") }
        return Int(value)
    }

    public func text(_ name: String) throws -> String {
        guard case .text(let value) = self[name] else { throw malformed(name, "text") }
        return value
    }

    public func blob(_ name: String) throws -> [UInt8] {
        switch self[name] {
        case .blob(let value): return value
        case .null: return []   // SQLite returns an empty blob as NULL.
        default: throw malformed(name, "a blob")
        }
    }

    private func malformed(_ name: String, _ expected: String) -> CryptoVaultError {
        CryptoVaultError(.corruptVault, "the vault database is damaged: column \(name) is not \(expected)")
    }
}

/// A value bound without a copy, for `PreparedStatement.execute(borrowing:)`.
package enum SQLBorrowedValue {
    case integer(Int64)
    /// Bytes SQLite reads in place (SQLITE_STATIC); an empty buffer binds an empty blob.
    case blob(UnsafeRawBufferPointer)
    /// UTF-8 text SQLite reads in place (SQLITE_STATIC), its length given (no terminator needed).
    case text(UnsafeRawBufferPointer)
}

/// A statement prepared once and run many times.
package final class PreparedStatement {
    private let statement: Statement

    init(_ statement: Statement) { self.statement = statement }

    /// Back to the connection's kept statements (which finalize it if one of its SQL is kept already).
    deinit { statement.database.putBack(statement) }

    /// Runs a statement that returns no rows (an INSERT in a hot loop) with `parameters` bound in
    /// place: no copy of any blob, no row read back. The caller's bytes must stay valid until it returns.
    package func execute(borrowing parameters: [SQLBorrowedValue]) throws {
        defer { statement.reset() }
        try statement.bind(borrowing: parameters)
        try statement.forEachRawRow { _ in }
    }

    /// `forEachRawRow` with `parameters` bound in place (no copy of any text or blob).
    package func forEachRawRow(borrowing parameters: [SQLBorrowedValue], _ body: (RawRow) throws -> Void) throws {
        defer { statement.reset() }
        try statement.bind(borrowing: parameters)
        try statement.forEachRawRow(body)
    }

    /// Runs the statement with `parameters` and calls `body` with each row, read by column position
    /// (no per-row dictionary: for hot reads such as opening sealed records).
    package func forEachRawRow(_ parameters: [SQLValue], _ body: (RawRow) throws -> Void) throws {
        defer { statement.reset() }
        try statement.bind(parameters)
        try statement.forEachRawRow(body)
    }

    /// Binds `value` at parameter `index` (from 1), copied by SQLite: it stays bound across the runs
    /// of `firstRawRow(binding:at:_:)` that follow, until it is bound again (a run of lookups whose
    /// other parameter changes from one to the next: the names of a batch of sealed-record opens).
    func keepBound(_ value: SQLValue, at index: Int32) throws {
        try statement.bind(value, at: index)
    }

    /// One lookup by a unique key: binds `parameter` in place at `index` (the others stay as
    /// `keepBound` left them), steps once and calls `body` with the row if there is one (valid only
    /// during the call), then resets. The in-place parameter is unbound again before returning, so
    /// no pointer to the caller's bytes outlives the call; the kept ones stay.
    func firstRawRow<Result>(binding parameter: SQLBorrowedValue, at index: Int32, _ body: (RawRow) throws -> Result) throws -> Result? {
        defer { statement.resetKeepingBindings(unbinding: index) }
        try statement.bind(borrowing: parameter, at: index)
        return try statement.firstRawRow(body)
    }

    /// `firstRawRow(binding:at:_:)` without the closure, for the hottest loop (a batch of record
    /// opens): the row is returned and stays valid, and the statement stays stepped, until
    /// `endLookup(unbinding:)`, which the caller must call (before the next lookup, and at the end).
    /// `parameter`'s bytes must stay valid until then too.
    func beginLookup(binding parameter: SQLBorrowedValue, at index: Int32) throws -> RawRow? {
        do {
            try statement.bind(borrowing: parameter, at: index)
            return try statement.firstRawRow { $0 }
        } catch {
            endLookup(unbinding: index)
            throw error
        }
    }

    func endLookup(unbinding index: Int32) {
        statement.resetKeepingBindings(unbinding: index)
    }

    /// Runs the statement with `parameters` and returns its rows.
    @discardableResult
    package func run(_ parameters: [SQLValue]) throws -> [Row] {
        defer { statement.reset() }
        try statement.bind(parameters)
        return try statement.allRows()
    }
}

/// A prepared statement, finalized when released (unless handed over to the database's kept statements).
final class Statement {
    private let handle: OpaquePointer
    fileprivate let database: Database
    fileprivate let sql: String
    private var isOwned = true

    init(database: Database, handle connection: OpaquePointer, sql: String) throws {
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v2(connection, sql, -1, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            throw database.databaseError(status, database.lastErrorMessage, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    /// A statement prepared earlier (a kept one), reset and with no bindings.
    init(database: Database, prepared statement: OpaquePointer, sql: String) {
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit {
        if isOwned { sqlite3_finalize(handle) }
    }

    /// Gives up the statement (reset first) to a new owner, which finalizes it: this one no longer will.
    func handOver() -> OpaquePointer {
        isOwned = false
        return handle
    }

    /// SQLite copies bound values (SQLITE_TRANSIENT), so the Swift buffers may go away afterwards.
    func bind(_ parameters: [SQLValue]) throws {
        for (offset, value) in parameters.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    func bind(_ value: SQLValue, at index: Int32) throws {
        let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
        let status: Int32
        switch value {
        case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
        case .text(let string): status = sqlite3_bind_text(handle, index, string, -1, transient)
        case .blob(let bytes):
            status = bytes.withUnsafeBytes { sqlite3_bind_blob(handle, index, $0.baseAddress, Int32($0.count), transient) }
        case .null: status = sqlite3_bind_null(handle, index)
        }
        guard status == SQLITE_OK else { throw database.databaseError(status, database.lastErrorMessage, sql: sql) }
    }

    /// SQLITE_STATIC (a nil destructor): SQLite reads the bytes where they are, during the step.
    func bind(borrowing parameters: [SQLBorrowedValue]) throws {
        for (offset, value) in parameters.enumerated() { try bind(borrowing: value, at: Int32(offset + 1)) }
    }

    func bind(borrowing value: SQLBorrowedValue, at index: Int32) throws {
        let status: Int32
        switch value {
        case .integer(let number): status = sqlite3_bind_int64(handle, index, number)
        case .blob(let bytes) where bytes.isEmpty: status = sqlite3_bind_zeroblob(handle, index, 0)
        case .blob(let bytes):
            guard let count = Int32(exactly: bytes.count) else { throw database.databaseError(SQLITE_TOOBIG, "a blob is too large", sql: sql) }
            status = sqlite3_bind_blob(handle, index, bytes.baseAddress, count, nil)
        case .text(let utf8):
            guard let count = Int32(exactly: utf8.count) else { throw database.databaseError(SQLITE_TOOBIG, "a text is too large", sql: sql) }
            // An empty text still needs a non-null pointer, or SQLite binds NULL.
            status = utf8.isEmpty ? sqlite3_bind_text(handle, index, "", 0, nil)
                : sqlite3_bind_text(handle, index, utf8.baseAddress!.assumingMemoryBound(to: CChar.self), count, nil)
        }
        guard status == SQLITE_OK else { throw database.databaseError(status, database.lastErrorMessage, sql: sql) }
    }

    func allRows() throws -> [Row] {
        var rows: [Row] = []
        try forEachRow { rows.append($0) }
        return rows
    }

    func forEachRow(_ body: (Row) throws -> Void) throws {
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw database.databaseError(status, database.lastErrorMessage, sql: sql) }
            try body(currentRow())
        }
    }

    func forEachRawRow(_ body: (RawRow) throws -> Void) throws {
        while true {
            let status = sqlite3_step(handle)
            if status == SQLITE_DONE { return }
            guard status == SQLITE_ROW else { throw database.databaseError(status, database.lastErrorMessage, sql: sql) }
            try body(RawRow(handle: handle))
        }
    }

    /// The first row only (a lookup by a unique key: no second step to find there is no other).
    func firstRawRow<Result>(_ body: (RawRow) throws -> Result) throws -> Result? {
        let status = sqlite3_step(handle)
        if status == SQLITE_DONE { return nil }
        guard status == SQLITE_ROW else { throw database.databaseError(status, database.lastErrorMessage, sql: sql) }
        return try body(RawRow(handle: handle))
    }

    /// Back to the start with the bindings kept, but parameter `index` unbound (NULL).
    func resetKeepingBindings(unbinding index: Int32) {
        sqlite3_reset(handle)
        sqlite3_bind_null(handle, index)
    }

    /// Back to the start, bindings cleared, ready to run again.
    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    private func currentRow() -> Row {
        var columns: [String: SQLValue] = [:]
        for column in 0..<sqlite3_column_count(handle) {
            let name = String(cString: sqlite3_column_name(handle, column))
            columns[name] = value(at: column)
        }
        return Row(columns: columns)
    }

    private func value(at column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_INTEGER: return .integer(sqlite3_column_int64(handle, column))
        case SQLITE_TEXT: return .text(String(cString: sqlite3_column_text(handle, column)))
        case SQLITE_BLOB:
            let count = Int(sqlite3_column_bytes(handle, column))
            guard count > 0, let base = sqlite3_column_blob(handle, column) else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: base, count: count)))
        default: return .null
        }
    }
}

extension Database {
    /// Writes one consistent snapshot of this database to a new file at `path` with SQLite's online
    /// backup API, in a single step: the copy is one moment of the database (a read transaction), while
    /// other connections go on writing (WAL readers do not block writers). The file is synced.
    package func snapshot(to path: String) throws {
        let destination = try Database(path: path, create: true, readOnly: false)
        guard let backup = sqlite3_backup_init(destination.handle, "main", handle, "main") else {
            throw databaseError(sqlite3_errcode(destination.handle), destination.lastErrorMessage, sql: "sqlite3_backup_init")
        }
        // Bounded: a busy or locked source is retried for at most about 30 s.
        var status = sqlite3_backup_step(backup, -1)
        var attempts = 0
        while (status == SQLITE_BUSY || status == SQLITE_LOCKED) && attempts < 300 {
            usleep(100_000)
            attempts += 1
            status = sqlite3_backup_step(backup, -1)
        }
        let finished = sqlite3_backup_finish(backup)
        guard status == SQLITE_DONE, finished == SQLITE_OK else {
            throw databaseError(status == SQLITE_DONE ? finished : status, destination.lastErrorMessage, sql: "sqlite3_backup_step")
        }
        // The snapshot stands alone: rollback journal, no write-ahead log beside it.
        try destination.execute("PRAGMA journal_mode = DELETE")
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CryptoVaultError(.io, "cannot open \(path): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        _ = try DurableFile.retrying("fsync \(path)") { fsync(descriptor) }
    }

    /// Copies the write-ahead log into the database and truncates it to zero bytes, so data deleted
    /// with secure_delete no longer survives in old log frames. Retries while readers hold it.
    package func truncateLog() throws { try checkpointAndTruncateLog() }

    func checkpointAndTruncateLog() throws {
        for _ in 0..<50 {
            let row = try queryOne("PRAGMA wal_checkpoint(TRUNCATE)")
            if try row?.integer("busy") == 0 { return }
            usleep(100_000)
        }
        throw CryptoVaultError(.database, "could not truncate the write-ahead log: another process keeps reading the vault")
    }
}
