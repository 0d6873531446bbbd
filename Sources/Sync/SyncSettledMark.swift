import CryptoVault
import Writing

/// Where a privileged project last had every change of its store committed as records (the end of
/// `VaultSync.commitLocalChanges`), kept by the process's `SyncReplicaCache` in place of the replica
/// it never keeps for one (SECURITY.md §19.5): a change mark, and a digest of the project's stored
/// rows' clear columns; no plaintext. While the mark holds, an exchange knows without opening a
/// session of the project's compartment that this vault has nothing of it to commit, and that what
/// it holds of it is what those clear columns say (review 17 s10, N-s10-6: every exchange opened and
/// recorded a session per privileged project on both devices, whatever had changed). It holds only
/// while it is sure to:
/// - the store changed nothing of the project since (`WritingChangeMarks`: on the same connection,
///   and no other connection, another process's above all, committed anything to the vault since);
/// - the project's stored records are the same rows, clear columns and order (a record taken, a row
///   gone or damaged since: the step opens them, and meets the damage as ever);
/// - no editor holds one of its documents (`sync_held_documents`) and no floor waits (`sync_own_floors`).
struct SyncSettledMark: Sendable {
    weak var vault: UnlockedVault?
    let changes: WritingChangeMarks.Mark
    let records: [UInt8]

    /// The mark of `project` now, in `transaction` (kept only once the transaction has committed).
    static func take(_ project: ProjectID, in transaction: VaultTransaction) throws -> SyncSettledMark {
        SyncSettledMark(vault: transaction.vault, changes: try WritingChangeMarks.shared.mark(project, in: transaction),
                        records: try VaultSync.storedRowsDigest(of: project, in: transaction.database))
    }

    /// Whether `project` is still as it was at the mark, read in `transaction`.
    func holds(_ project: ProjectID, in transaction: VaultTransaction) throws -> Bool {
        guard vault === transaction.vault, let written = try WritingChangeMarks.shared.written(since: changes, in: transaction),
              written.isEmpty else { return false }
        let database = transaction.database
        guard try !HeldBases.holdsAny(of: project, in: database), try OwnRecordFloor(database: database).floor(of: project) == nil else {
            return false
        }
        return try VaultSync.storedRowsDigest(of: project, in: database) == records
    }
}
