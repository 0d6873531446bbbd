internal import CSQLite

/// Makes a stretch of a connection's use read-only (`Database.readingOnly`): `Vault.read` hands its
/// caller the connection itself, and a read must not become a write that no audit entry records.
///
/// Two locks, because each alone has a gap:
/// - `PRAGMA query_only` refuses, when a statement runs, every change to the file, including by a
///   statement prepared earlier and kept (`Database`'s kept statements are not prepared again);
/// - an authorizer, consulted when a statement is prepared, refuses everything but reading, so the
///   body cannot turn `query_only` off, end the read transaction (COMMIT) or attach another file.
/// The authorizer stays installed for the connection's life and looks at `depth`: installing and
/// removing one expires every prepared statement, which would undo the kept statements' saving.
final class ReadOnlyScope {
    /// How many read-only stretches are open (a read inside a read nests).
    var depth = 0
    var isActive: Bool { depth > 0 }

    /// Installs the authorizer on `connection`; this scope must outlive it (the `Database` owns both).
    func install(on connection: OpaquePointer) {
        sqlite3_set_authorizer(connection, readOnlyAuthorizer, Unmanaged.passUnretained(self).toOpaque())
    }

    /// What a read may prepare: SELECTs, reading tables and columns, functions, recursive CTEs, and a
    /// pragma that is asked (no value), such as `PRAGMA journal_mode`. Everything else is refused.
    static func allows(_ action: Int32, pragmaValue: UnsafePointer<CChar>?) -> Bool {
        switch action {
        case SQLITE_SELECT, SQLITE_READ, SQLITE_FUNCTION, SQLITE_RECURSIVE: return true
        case SQLITE_PRAGMA: return pragmaValue == nil
        default: return false
        }
    }
}

/// SQLite's authorizer callback: `context` is the connection's `ReadOnlyScope`.
private func readOnlyAuthorizer(_ context: UnsafeMutableRawPointer?, _ action: Int32, _ first: UnsafePointer<CChar>?,
                                _ second: UnsafePointer<CChar>?, _ schema: UnsafePointer<CChar>?,
                                _ trigger: UnsafePointer<CChar>?) -> Int32 {
    guard let context else { return SQLITE_OK }
    let scope = Unmanaged<ReadOnlyScope>.fromOpaque(context).takeUnretainedValue()
    guard scope.isActive else { return SQLITE_OK }
    return ReadOnlyScope.allows(action, pragmaValue: second) ? SQLITE_OK : SQLITE_DENY
}
