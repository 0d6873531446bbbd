import CryptoVault
import Writing

/// An own device that did not take this vault's offer of a project (`sync.offer` answered "not
/// taken"), asked why (review 17 s14, N-s14-5). The answer of an offer is a flag, so the asker never
/// learnt that the device had destroyed the project (`vaultctl compartment destroy` there): its run
/// said nothing, exited 0, and `sync status` said the project syncs, though the device declines it
/// for good. One pull of the project, the exchange's own request (no message added), brings the
/// device's refusal of it: `projectDestroyed` from a build that says so to its own device.
extension SyncInitiator {
    /// Refusals that end the run wherever they come (SECURITY.md §19.9): rethrown, never taken as
    /// the project's answer.
    static let endTheRun: Set<SyncExchangeErrorCode> = [.deadlineExceeded, .paused, .tooManyRefusals, .tooManyRequests]

    /// The report's entry of `project`, not taken by the device, when the device says it destroyed
    /// it: not synced there, said (with this vault's compartment of it, to destroy here too if the
    /// owner wants it gone everywhere), but no failure: the owner's choice, made there. Nil for any
    /// other answer (a build that does not say it, say): the run says of it what it said before.
    func whyNotTaken(_ project: WritingProject, by deadline: SyncDeadline) throws -> SyncRunReport.Project? {
        // What this vault holds, so that a device that does hold the project sends only what is missing here.
        let held = (try? vault.transaction { tx in try VaultSync.heldVector(of: project.id, in: tx.database) }) ?? [:]
        do {
            _ = try pull(SyncPullRequest(project: project.id, held: held), by: deadline)
            return nil
        } catch let refusal as SyncExchangeError where refusal.code == .projectDestroyed {
            var entry = SyncRunReport.Project(project: project.id, access: SyncAccess.mine.name)
            entry.refusedByPeer = [refusal.code.rawValue]
            entry.shreddedThere = project.compartment.name
            return entry
        } catch let refusal as SyncExchangeError where !Self.endTheRun.contains(refusal.code) {
            return nil
        } catch is SyncPeerFailure {
            return nil
        }
    }
}
