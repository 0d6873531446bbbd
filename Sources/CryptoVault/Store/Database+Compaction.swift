import Foundation

extension Database {
    /// The database's size: its pages, whether they are in the file or still in the write-ahead log.
    package func sizeInBytes() throws -> Int {
        let pages = try queryOne("PRAGMA page_count")?.integer("page_count") ?? 0
        let pageSize = try queryOne("PRAGMA page_size")?.integer("page_size") ?? 0
        return Int(pages * pageSize)
    }

    /// Rewrites the database without its free space (SQLite's `VACUUM`): every table and index is
    /// copied page by page into a fresh database, then written back over this one in one
    /// transaction of the write-ahead log, so a crash leaves the old database or the new one.
    ///
    /// The fresh copy is made in memory (`temp_store = MEMORY`, which every connection is opened
    /// with). Left at its default, SQLite would write it to an unlinked file in /var/tmp or $TMPDIR:
    /// a whole copy of the vault's database outside the vault's folder, on a disk the owner did not
    /// choose and that `compartment destroy` never reaches. Set again here so that nothing between
    /// the open and the rewrite can have changed it.
    func vacuumInMemory() throws {
        try execute("PRAGMA temp_store = MEMORY")
        try execute("VACUUM")
    }
}
