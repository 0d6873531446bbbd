import CryptoVault
import Sync
import Writing

/// Why a change of a project this vault holds view-only was refused, said as the one reason that
/// holds (F17-8). The writing store knows only the mark (`WritingError.viewOnly`), so its message
/// gave two reasons; vaultctl reads the sync tables that know which: someone else's device shared
/// the project to view only, or this device's own records of it are awaited since a restore
/// (`RestoredWaits.refusal`, naming the devices) or a repair.
enum ViewOnlyRefusal {
    /// The refusal of a change to `project`, or nil when no reason is found (a damaged row: the
    /// store's own message is said).
    static func refusal(of project: WritingProject, in vault: UnlockedVault) throws -> CommandError? {
        let name = "\(WritingContext.term(.project, project.register)) \(project.id)"
        // First: a viewer stays one whatever comes back, so a wait's "sync, then write" would not hold.
        if let origin = try SharedProjectOrigin.all(in: vault)[project.id], origin.role == ShareRole.viewer.rawValue {
            return viewer(name, origin: origin)
        }
        if let waiting = try RestoredWaits.refusal(of: project, in: vault) { return waiting }
        guard try OwnRecordsAwaited.projects(in: vault).contains(project.id) else { return nil }
        return ownRecordsAwaited(name, project: project)
    }

    private static func viewer(_ name: String, origin: SharedProjectOrigin) -> CommandError {
        CommandError(message: "\(name) is someone else's, shared with you to view only by device \(origin.name): "
                     + "its owner's device takes no changes from this one. Nothing was changed",
                     exitCode: .permissionDenied,
                     hint: "its owner can make this device an editor ('vaultctl share ... --role editor' on the owner's device), "
                     + "or copy the text into a project of your own")
    }

    /// A repair (or a restore's wait without named devices) left this device's latest records of
    /// the project on another own device: a change now would reuse their numbers (§19.10).
    private static func ownRecordsAwaited(_ name: String, project: WritingProject) -> CommandError {
        CommandError(message: "\(name) is view-only here until this device's own records of it come back from one of your own devices: "
                     + "the store here was rebuilt without the latest of them, and a change now would reuse their numbers. Nothing was changed",
                     exitCode: .permissionDenied,
                     hint: "'vaultctl sync now --peer DEVICE' with your own device that holds them; if none does, "
                     + "'vaultctl repair --write-anyway \(project.id)' lets it take changes now")
    }
}
