import CryptoVault
import Writing

/// A project this vault holds from the peer (its owner shared it) that the peer no longer offers:
/// its share revoked there, or the project gone (reviewer s17, F17-7). Before, the run said nothing
/// of it and exited 0, even when this device's words in it would never reach the owner, and the
/// owner's log had no entry of the revoked device's next request.
extension SyncInitiator {
    /// Says each project `stopped` names in `report`. At the first exchange that meets it (`first`,
    /// the one that records `sync.project-skipped`) the project is asked for once, a pull that
    /// carries no words, so the owner refuses it (`notShared`) and its log records the revoked
    /// device's request with the project; later exchanges do not ask (the owner's log would grow
    /// at each). Words of this device's that the owner does not hold are left: the project is left
    /// for the run (`skipped`, so `sync now` exits 75) naming how many records; with none, a note.
    func sayNoLongerShared(_ stopped: [(project: WritingProject, first: Bool)], into report: inout SyncRunReport,
                           by deadline: SyncDeadline) throws {
        for (project, first) in stopped {
            // Edits not yet signed are signed now (as any run does), so they are counted.
            let (held, tips) = try endpoint.commitAndHeldWithTips(project, coordinator: coordinator)
            if first { try askOnce(project, held: held, tips: tips, by: deadline) }
            let gone = "\(peer.name) no longer shares project \(project.id.hex) with this device (its share was revoked there, or the project is gone there)"
            let undelivered = try endpoint.undelivered(of: project, held: held)
            guard undelivered > 0 else {
                report.notes.append("\(gone): nothing of it syncs with \(peer.name)")
                continue
            }
            var entry = SyncRunReport.Project(project: project.id, access: "none")
            entry.skipped = "\(SyncExchangeErrorCode.notShared.rawValue): \(gone): \(undelivered) record(s) of this device's words in it "
                + "will not reach \(peer.name); 'vaultctl export' keeps a copy of them"
            report.projects.append(entry)
        }
    }

    /// The one request for a project the peer no longer offers: its refusal is what the owner's
    /// log records; any answer (an older build, say) is left unread. A refusal that ends the run
    /// ends it.
    private func askOnce(_ project: WritingProject, held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]], by deadline: SyncDeadline) throws {
        do {
            _ = try pull(SyncPullRequest(project: project.id, held: held, tips: tips), by: deadline)
        } catch let refusal as SyncExchangeError where !Self.endTheRun.contains(refusal.code) {
            return
        } catch is SyncPeerFailure {
            return
        }
    }
}
