import CryptoVault
import Writing

/// The exchange's side of set-aside records (`VaultSync+SetAside`, SECURITY.md §19.5, §19.9): this
/// device's edits that the project's origin refused because it made this device a viewer after they
/// were signed.
extension SyncEndpoint {
    /// The peer refused this vault's push of `project` whole as `viewerCannotWrite`. When the peer is
    /// the project's origin and holds it here as viewer (it made this device a viewer), this device's
    /// records it lacks (`peerHeld`: its version vector) will never be taken while that stands: they
    /// are set aside, and the project shows the origin's document. Else nil: nothing changes.
    func setAsideRefused(_ project: WritingProject, peerHeld: [DeviceID: UInt64]) throws -> VaultSync.SetAside? {
        try withSync(project) { sync, store, _ in
            guard let origin = try sharedFrom(project.id, in: store), origin.device == peer.deviceID, origin.access == .viewer else { return nil }
            return try sync.setAsideRefused(in: project.id, peerHeld: peerHeld, refusedBy: peer.deviceID, named: peer.fingerprint)
        }
    }

    /// What of `project` is set aside here, from an earlier run; nil when nothing is.
    func setAsideKept(_ project: ProjectID) throws -> VaultSync.SetAside? {
        try vault.transaction { tx in try VaultSync.setAside(of: project, in: tx.database) }
    }

    /// After an offer: a project this device writes again (the origin made it an editor again) takes
    /// its set-aside records back, and its step sends them. A failure of the project's own records or
    /// data here is left to its step, as `commitBeforeViewOnly` does.
    func putBackIfWritable(_ held: WritingProject) throws {
        guard try setAsideKept(held.id) != nil else { return }
        do {
            try withSync(held) { sync, store, _ in
                guard try sharedFrom(held.id, in: store)?.access != .viewer else { return }
                try sync.putBackSetAside(in: held.id, from: peer.deviceID)
            }
        } catch let error where error is SyncError || SyncProjectDamage.isDamage(error) {}
    }
}
