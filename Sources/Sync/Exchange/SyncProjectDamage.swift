import CryptoVault
import Writing

/// A project whose own data on one device cannot be read (attack review s8, F8): a sealed value of
/// its writing store (a block, a title, its name) that no longer opens, or a row the store finds
/// damaged. That is the project's alone (SECURITY.md §19.9): an exchange leaves it with the reason
/// (`damagedProject`, on either side) and goes on with the other projects, `sync status` shows it
/// local-only, and `vaultctl repair --from DEVICE` rebuilds it from one of the owner's own devices.
enum SyncProjectDamage {
    /// Whether `error`, met in one project's step, says that project's data is damaged: an error of
    /// the writing store or of the vault's sealed records. A privileged project read without a
    /// session is not damage, nor is anything the channel or the exchange itself throws.
    static func isDamage(_ error: Error) -> Bool {
        switch error {
        case let error as WritingError: error.code != .privilegedSessionRequired
        case is CryptoVaultError: true
        default: false
        }
    }

    /// The project's damage as `damagedProject`, with the failure's code (never its message, which
    /// could name what was being opened) and where (`on this device`, or the answering device).
    static func error(_ project: ProjectID, _ error: Error, on device: String) -> SyncError {
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
        do {
            _ = try store.name(of: try store.project(projectID))
            for node in try store.nodes(in: projectID) where node.kind == .scene {
                _ = try store.documentContent(of: node.id, in: projectID)
            }
        } catch where SyncProjectDamage.isDamage(error) {
            throw SyncProjectDamage.error(projectID, error, on: "on this device")
        }
    }
}
