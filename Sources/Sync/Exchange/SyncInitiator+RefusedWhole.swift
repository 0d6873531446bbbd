import CryptoVault
import Writing

/// An exchange the peer refused whole for a reason of its own change records or sync state: a
/// `SyncPeerFailure` out of a request no project's step answers for (`sync.projects`, `sync.offer`,
/// `sync.demotions`), as when its exchange tables, or its rows of this device, are damaged there
/// (review 17 s13, LOW 5: the asker printed a Swift value, and `sync status` said each project
/// "syncs"). Said as that device's refusal in words, with what mends it; and every project this
/// vault syncs with the device is kept as left by it (`sync_project_skips`), so `sync status` says
/// each NOT IN SYNC with it until an exchange with it completes.
extension SyncInitiator {
    /// What such a refusal's text holds after the device's name: a completed exchange with the
    /// device forgets the projects left with it (`forgetRefusedWhole`).
    static let refusedWholeMark = " refuses every sync with this device: "

    /// `failure` said as the peer's refusal of every exchange; each project synced with the peer but
    /// `damaged` (local-only here, said so already) kept as left by it, recorded once.
    func refusedWhole(_ failure: SyncPeerFailure, besides damaged: Set<ProjectID>) -> SyncPeerFailure {
        let said = SyncPeerFailure(failure.code, Self.refusedWholeText(failure, peer: peer.name))
        endpoint.recordLeftByPeer(reason: "peer-\(failure.code.rawValue)", message: said.message, besides: damaged)
        return said
    }

    /// Which device refused, why, and what to do: the mend is that device's own.
    static func refusedWholeText(_ failure: SyncPeerFailure, peer: String) -> String {
        let damage = failure.code == .damagedSyncState || failure.code == .damagedProject
        let why = damage ? "its sync state there is damaged" : "a failure of its own records there (\(failure.code.rawValue))"
        let remedy = damage
            ? "'vaultctl repair' on \(peer) mends it (its owner's, if it is not your device); nothing on this device needs mending. Then sync again"
            : "sync again later; 'vaultctl sync status' on \(peer) says more"
        return "\(peer)\(refusedWholeMark)\(why) (\(failure.message)). \(remedy)"
    }
}

extension SyncEndpoint {
    /// Every project this vault syncs with the peer (`access(to:in:)` allows it), but `besides`,
    /// kept as left by the peer with `reason: message`, in one transaction; `sync.project-skipped`
    /// is recorded once per project (the daemon asks every minute).
    func recordLeftByPeer(reason: String, message: String, besides: Set<ProjectID>) {
        try? vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            for project in try WritingStore(tx).projects() where !besides.contains(project.id) {
                guard case .success = try access(to: project, in: store) else { continue }
                let known = try store.skipReason(of: project.id, by: peer.deviceID)?.hasPrefix("\(reason):") == true
                try store.setSkipped(project.id, by: peer.deviceID, reason: "\(reason): \(message)", at: clock.now())
                if !known {
                    try tx.record(.syncProjectSkipped, details: [.init("peer", peer.deviceID.hex), .init("project", project.id.hex), .init("reason", reason)])
                }
            }
        }
    }

    /// An exchange with the peer completed: the projects its refusal of every exchange left are
    /// left no longer (each project that ran forgot its own already).
    func forgetRefusedWhole() {
        try? vault.transaction { tx in try SyncExchangeStore(database: tx.database).clearSkips(by: peer.deviceID, saying: SyncInitiator.refusedWholeMark) }
    }
}
