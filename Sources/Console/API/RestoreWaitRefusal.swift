import CryptoVault
import Sync
import Writing

/// A change the console refused because its project waits since a restore or a recover (SECURITY.md
/// §19.10): the answer names the devices still awaited and the way out, as vaultctl's refusal does
/// (`RestoredWaits.refusal`). Before (restore14's "left open") the console's 403 named none, and an
/// editor's refused save was told its owner had made this device a viewer, which is not why.
enum RestoreWaitRefusal {
    /// What the refusal of a change to `project` says, or nil when the project does not wait so
    /// (or no longer waits for any device: the next command's refusal is the plain one).
    static func message(for project: WritingProject, in vault: UnlockedVault) -> String? {
        guard let awaited = (try? RestoredOwnRecords.awaited(project.id, in: vault)) ?? nil, !awaited.isEmpty,
              let devices = try? RestoredOwnRecords.describe(awaited, in: vault) else { return nil }
        return "this project is view-only until this device's own records of it made after the backup it was restored from "
            + "('restore-backup' or 'recover') are back from every device that may hold them; still to sync with: "
            + devices.joined(separator: "; ") + ". Run 'vaultctl sync now --peer DEVICE' with each; if none of them holds this device's "
            + "records of it, 'vaultctl repair --write-anyway \(project.id)' lets it take changes now"
    }

    /// `error` in those words when it is the view-only refusal of a waiting project; else `error`.
    static func named(_ error: Error, for project: WritingProject, in vault: UnlockedVault) -> Error {
        guard let writing = error as? WritingError, writing.code == .viewOnly, let message = message(for: project, in: vault) else { return error }
        return WritingError(.viewOnly, message + ". Nothing was changed")
    }
}
