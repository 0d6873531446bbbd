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

    /// The owner's own device refused this vault's push of `project` naming records it holds set
    /// aside (`recordSetAside`: its records the project's origin refused after making it a viewer,
    /// taken here before). When this vault holds the project as that origin's, as viewer too (it
    /// follows the own device's role), that device's records it lacks (`peerHeld`), and those built
    /// on them, are set aside here as well, refused by the origin: this device then shows the
    /// origin's document as that device does, the words kept in branches, and both put them back
    /// when the origin makes that device an editor again (closing note s13: the desk that took the
    /// laptop's edit first kept showing it, both saying "syncs"). Else nil.
    func setAsideAsOwnDevice(_ project: WritingProject, peerHeld: [DeviceID: UInt64]) throws -> VaultSync.SetAside? {
        guard peerIsMine else { return nil }
        return try withSync(project) { sync, store, _ in
            guard let origin = try sharedFrom(project.id, in: store), origin.access == .viewer else { return nil }
            return try sync.setAsideRefused(in: project.id, peerHeld: peerHeld, refusedBy: origin.device, named: origin.device.fingerprint,
                                            writtenBy: peer.deviceID, madeViewer: "device \(peer.fingerprint), your own,")
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
