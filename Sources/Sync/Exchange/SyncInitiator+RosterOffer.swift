import CryptoVault
import Writing

/// The roster an own device lacks, offered to it before this vault pushes (SECURITY.md §19.9, "The
/// asker's steps" (2); reviewer 20, F20-2). An answering device learns whose records a project
/// takes from offers alone: the owner's own device asked learns it from the answerer's `sync.projects`
/// answer, but an own device that answers only learns it from a `sync.offer`, and the asker offered
/// it only the projects it lacked. So a desk that shared a project with a colleague pushed the
/// colleague's record, and its own later ones built on it, to a laptop that refused them at every run
/// (`unknownDevice`, `missingParents`) until the laptop asked. Now the desk offers the laptop each
/// project both hold whose offered roster lacks a device the desk would name, and the laptop takes
/// the roster by the rule it takes an asked own device's offer by (`SyncEndpoint.adopt`): the same
/// devices are learnt whichever side asks. A project whose rosters agree is not offered again, so
/// an exchange with nothing new sends nothing (no egress decision, no session for a chart's name).
extension SyncInitiator {
    /// Offers the owner's own device the projects of its `offers` (made or recognised here: `held`)
    /// whose roster lacks a device this vault's offer names, in pages of `SyncWire.maximumOffers`.
    /// Whether the device takes each offer is its decision: a roster it refuses leaves the records
    /// those devices signed refused there, said by the push as before.
    func offerRostersLacked(_ offers: [SyncProjectOffer], held: [WritingProject], by deadline: SyncDeadline) throws {
        let lacked = try endpoint.rostersLacked(by: offers, held: held)
        guard !lacked.isEmpty else { return }
        let ours = try endpoint.offers(of: { lacked.contains($0.id) })
        let projects = held.filter { lacked.contains($0.id) }
        for start in stride(from: 0, to: ours.count, by: SyncWire.maximumOffers) {
            let page = Array(ours[start..<min(start + SyncWire.maximumOffers, ours.count)])
            let named = Set(page.map(\.project))
            let released: SyncOutgoing
            do {
                released = try endpoint.release(SyncOffers.serialize(page), of: projects.filter { named.contains($0.id) })
            } catch let error as SyncExchangeError where error.code == .inMemoryMode {
                return  // Nothing leaves the in-memory copy: its pushes are left for the run too.
            }
            _ = try SyncOffers.parseTaken(try ask(SyncWire.offerKind, released, by: deadline))
        }
    }
}
