import CryptoVault
import Writing

/// Which committed transactions are a local save that the owner's other devices should get at once
/// (SECURITY.md §19.9, sync after a save; review 17, F11): one that changed the writing model
/// (an entry of a `writing.*` action that records a change) and was not sync's own work (no
/// `sync.*` entry: what a receive wrote came from a device, and sending it back would only echo; it
/// goes on to the other devices through `BackgroundSync.received`).
enum LocalSave {
    /// `writing.*` actions that record no change of the writing model.
    static let notChanges: Set<AuditAction> = [.writingSearch, .writingChangeRefused, .writingProjectViewOnly]

    static func isLocalSave(_ change: CommittedChange) -> Bool {
        guard !change.actions.contains(where: { $0.name.hasPrefix("sync.") }) else { return false }
        return change.actions.contains { $0.name.hasPrefix("writing.") && !notChanges.contains($0) }
    }
}
