import CryptoVault
import Writing

/// A project whose own data on one device cannot be read (attack review s8, F8): a sealed value of
/// its writing store (a block, a title, its name) that no longer opens, or a row the store finds
/// damaged. That is the project's alone (SECURITY.md §19.9): an exchange leaves it with the reason
/// (`damagedProject`, on either side) and goes on with the other projects, `sync status` shows it
/// local-only, and `vaultctl repair --from DEVICE` rebuilds it from one of the owner's own devices.
enum SyncProjectDamage {
    /// Whether `error`, met in one project's step, is that project's alone: an error of the writing
    /// store or of the vault's sealed records. A privileged project read without a session is not,
    /// nor is anything the channel or the exchange itself throws.
    static func isTheProjects(_ error: Error) -> Bool {
        switch error {
        case let error as WritingError: error.code != .privilegedSessionRequired
        case is CryptoVaultError: true
        default: false
        }
    }

    /// Whether such an error says the project's data is damaged (a sealed value or a row that does
    /// not open or decode), which `vaultctl repair --from DEVICE` mends. Any other error of the
    /// writing store refuses what the step asked of it (a bound, an archived or view-only project, a
    /// record of another project): no repair changes that (review 17 s9 on 8934d66, F8's hint).
    static func isDamage(_ error: Error) -> Bool {
        switch error {
        case let error as WritingError: error.code == .damagedRecord || error.code == .invalidIdentifier
        case is CryptoVaultError: true
        default: false
        }
    }

    /// The project's failure as the exchange says it, with the failure's code (never its message,
    /// which could name what was being opened) and where (`on this device`, or the answering
    /// device): damage as `damagedProject` (`damaged`), a refusal of the writing store as
    /// `writingRefused`, said not to be damage.
    static func error(_ project: ProjectID, _ error: Error, on device: String) -> SyncError {
        guard isDamage(error) else {
            return SyncError(.writingRefused, """
                project \(project.hex): the writing store \(device) refused what the exchange asked of it (\(VaultSync.reason(error))): \
                this is not damage, and no repair changes it; the project is left for this exchange
                """)
        }
        return damaged(project, error, on: device)
    }

    /// A project whose row of `writing_projects` makes no project (`DamagedProjectRow`), as
    /// `damagedProject`: plain `vaultctl repair` there mends the row (review 17 s14, N-s14-8).
    static func damagedRow(_ damage: DamagedProjectRow, on device: String) -> SyncError {
        SyncError(.damagedProject, """
            project \(damage.id?.hex ?? "?") does not open \(device): its row in writing_projects is damaged \
            (\(damage.columns.joined(separator: ", "))); it is left from every exchange until 'vaultctl repair' there mends it
            """)
    }

    /// The project's data that does not open, as `damagedProject`.
    static func damaged(_ project: ProjectID, _ error: Error, on device: String) -> SyncError {
        SyncError(.damagedProject, """
            project \(project.hex) does not open \(device) (\(VaultSync.reason(error))): it is left from every exchange until \
            'vaultctl repair --from DEVICE' rebuilds it there from one of your own devices
            """)
    }
}

extension VaultSync {
    /// Opens what every exchange opens of the project here (its name, its binder's titles, each
    /// document's blocks); throws `damagedProject` when any of it does not open, so `sync status`
    /// says so before an exchange meets it (`state(of:)`).
    func checkOpens(_ projectID: ProjectID) throws {
        // A damaged row of its writing tables (R15-1): said with its table and what mends it (ids and
        // names of tables and columns only), as the unlocking warning says it.
        do { try store.refuseDamagedRows(of: projectID) } catch let error as WritingError { throw SyncError(.damagedProject, error.message) }
        do {
            _ = try store.name(of: try store.project(projectID))
            for node in try store.nodes(in: projectID) where node.kind == .scene {
                _ = try store.documentContent(of: node.id, in: projectID)
            }
        } catch where SyncProjectDamage.isTheProjects(error) {
            // What every exchange opens that does not open here: whatever the code, it does not open.
            throw SyncProjectDamage.damaged(projectID, error, on: "on this device")
        }
    }
}
