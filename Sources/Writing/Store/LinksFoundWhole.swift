import CryptoVault

/// The projects whose links (`DamagedLink`) a connection found whole, kept between its transactions,
/// so that a transaction does not read every row of a project and every id its compartment holds
/// again to learn what the last one learnt (`WritingStore.links(of:)`; perf18: the check was 27.5%
/// of `vaultbench sync`'s CPU, once per transaction per project, on both devices of a saved edit).
///
/// Only a whole verdict is kept: a project with any damage or stray is checked again every time,
/// as before, so what is refused and named is unchanged. A verdict holds for the connection, the
/// project's compartment and SQLite's `PRAGMA data_version` it was found at, because nothing but
/// another connection can make a whole project's links damaged:
/// - another connection's commit (a hostile edit of the file through SQLite, another process such as
///   `vaultctl` beside the daemon, a second vault object on the same file) moves this connection's
///   `data_version`: the verdict no longer answers and the next door checks again;
/// - this connection's own writes keep whole links whole. A sealed record never changes compartment
///   (sealing over another compartment's location is refused, `recordLocationTaken`); every writer
///   adds a row linked to the project whose compartment it seals the row's records in (every call
///   names the project; another project's id is `.notInProject`), and the foreign keys refuse a
///   link naming no row; taking a row or a record away leaves neither damage nor a stray (a record
///   with no row, or a row with no record, is neither: `findLinks`). The only writers of a link
///   column, or of rows from elsewhere, are the repairs (`LinkMend`, `WritingRowMend`,
///   `ProjectRowMend`, and `WritingStoreReset` with the rows it puts back), and each forgets every
///   verdict (`forget`) in its transaction. LinksFoundWholeTests runs the ordinary writers and
///   compares each kept verdict with a fresh check.
/// - only a committed verdict counts: the verdicts are rows of a TEMP table of the connection, part
///   of its transactions, so one found in a transaction that rolls back (after writes the rollback
///   undoes: a mend, or the deletion of another project's stray row) goes with it.
/// A write to the file that bypasses SQLite while the connection is open moves nothing SQLite sees;
/// it is found when another connection commits, or by the next process (each starts empty).
/// A connection that may not write (a read-only stretch, `PRAGMA query_only`) keeps nothing: each of
/// its checks reads everything, as before.
enum LinksFoundWhole {
    /// The connection's own table (TEMP: never in the vault file, gone with the connection).
    static let create = """
        CREATE TEMP TABLE IF NOT EXISTS links_found_whole (
            project_id BLOB PRIMARY KEY, compartment_row INTEGER NOT NULL, data_version INTEGER NOT NULL)
        """

    /// Whether `project`'s links were found whole on this connection, in its compartment, and no
    /// other connection has committed since. False when the table cannot be read (none kept yet):
    /// the check then reads everything, as it would without it.
    static func holds(_ project: WritingProject, in transaction: VaultTransaction) -> Bool {
        let found = try? transaction.database.queryOne("""
            SELECT 1 AS found FROM temp.links_found_whole
            WHERE project_id = ? AND compartment_row = ? AND data_version = (SELECT data_version FROM pragma_data_version)
            """, [.blob(project.id.bytes), .integer(project.compartment.rowID)])
        return found != nil
    }

    /// Keeps the verdict that `project`'s links are whole now (found in `transaction`). Not kept when
    /// the connection may not write: the next check reads everything again.
    static func keep(_ project: WritingProject, in transaction: VaultTransaction) {
        let database = transaction.database
        guard (try? database.query(create)) != nil else { return }
        _ = try? database.query("""
            INSERT OR REPLACE INTO temp.links_found_whole (project_id, compartment_row, data_version)
            SELECT ?, ?, data_version FROM pragma_data_version
            """, [.blob(project.id.bytes), .integer(project.compartment.rowID)])
    }

    /// Forgets every verdict of the connection, for a writer that moves links or puts rows back from
    /// elsewhere (the repairs). Part of its transaction: a rollback brings them back with the rows.
    static func forget(in transaction: VaultTransaction) throws {
        try transaction.database.query(create)
        try transaction.database.query("DELETE FROM temp.links_found_whole")
    }
}

extension WritingStore {
    /// Forgets every project's links found whole on this store's connection (`LinksFoundWhole`), for
    /// a repair outside this module that puts rows back (`WritingStoreReset`).
    public static func forgetLinksFoundWhole(in transaction: VaultTransaction) throws {
        try LinksFoundWhole.forget(in: transaction)
    }
}
