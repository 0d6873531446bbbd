import CryptoVault
import PrivilegedSession
import Writing

/// Which projects two devices sync, and how a project one holds comes to be held by the other
/// (SECURITY.md §19.9): the owner's own device is offered every project; another device only the
/// ordinary projects shared with it (viewer or editor), never a privileged one.
extension SyncEndpoint {
    /// This vault's projects the peer may sync, each with what it needs to make the project.
    func offers() throws -> [SyncProjectOffer] {
        let projects = try vault.transaction { tx in try WritingStore(tx).projects() }
        var offers: [SyncProjectOffer] = []
        for project in projects {
            guard let access = try? vault.transaction({ tx in try self.access(to: project, in: SyncExchangeStore(database: tx.database)).get() })
            else { continue }
            offers.append(try offer(of: project, access: access))
        }
        return offers
    }

    func offer(of project: WritingProject, access: SyncAccess) throws -> SyncProjectOffer {
        let me = try vault.deviceKeys().profile
        let (name, signers): (String, [SyncRosterEntry]) = try withSync(project) { sync, store, _ in
            (try sync.store.name(of: project), try self.roster(of: project, by: me, signers: sync.devices, in: store))
        }
        return SyncProjectOffer(project: project.id, access: access, privileged: project.isPrivileged, kind: project.kind,
                                register: project.register, name: name, roster: signers)
    }

    /// Whose records the peer should take for the project: this device, the owner's own devices, and
    /// the project's other signers that still write it here (its editors, the device it came from,
    /// those an own device vouched for), so that their records, relayed by this device, verify
    /// there too. A signer is named with both its keys (the roster's id derives from them): a paired
    /// one by its pairing, one known from a roster (vouched for, not paired here) by the keys that
    /// roster gave (`sync_roster.noise_key`), so a third own device learns a project's editors from
    /// any own device that holds the project, paired with them or not.
    func roster(of project: WritingProject, by me: DeviceProfile, signers: [DeviceID: [UInt8]], in store: SyncExchangeStore) throws -> [SyncRosterEntry] {
        var entries = [me.deviceID: Self.entry(of: me)]
        for pairing in pairings where trusted.contains(pairing.peer.deviceID) { entries[pairing.peer.deviceID] = Self.entry(of: pairing.peer) }
        let ended = try endedSigners(of: project, among: signers, in: store)
        let paired = Set(pairings.map(\.peer.deviceID))
        for kept in try store.rosterEntries(of: project.id)
        where !paired.contains(kept.device) && signers[kept.device] == kept.signingKey && entries[kept.device] == nil {
            entries[kept.device] = kept
        }
        for pairing in pairings where signers[pairing.peer.deviceID] == pairing.peer.signingPublicKey && !ended.contains(pairing.peer.deviceID) {
            entries[pairing.peer.deviceID] = Self.entry(of: pairing.peer)
        }
        entries[peer.deviceID] = nil
        return Array(entries.values)
    }

    /// Makes (or recognises) the project of a peer's offer. A project this vault holds gains the
    /// devices the offer vouches for only from the owner's own device or from the device the project
    /// came from (its owner); from any other device nothing: what that device may do with it is
    /// this vault's decision (`plan(for:)`), whatever the offer claims. A project this vault lacks is
    /// made from the owner's own device's offer, or from another device's ordinary one, which this
    /// vault then syncs with it alone, as its viewer or editor. Each device added to a roster is
    /// recorded. Returns the project, or nil when the offer was refused (and recorded).
    func adopt(_ offer: SyncProjectOffer, request: String) throws -> WritingProject? {
        if let held = try project(offer.project) {
            try vault.transaction { tx in
                let store = SyncExchangeStore(database: tx.database)
                let origin = try store.origin(of: held.id)
                guard peerIsMine || origin?.device == peer.deviceID else { return }
                // What this vault may do with its owner's project is the owner's to say (and to enforce).
                if let origin, origin.device == peer.deviceID, !peerIsMine {
                    let access: SyncAccess = offer.access == .viewer ? .viewer : .editor
                    if access != origin.access { try store.setOrigin(of: held.id, device: peer.deviceID, access: access) }
                    try WritingStore(tx, clock: clock).setSyncedViewOnly(held.id, access == .viewer, from: peer.deviceID.hex)
                }
                try recordSigners(try store.addRoster(offer.roster, of: held.id), of: held, vouchedBy: peer.deviceID, in: tx)
            }
            return held
        }
        if offer.privileged && !peerIsMine {
            recordRefusal(request, reason: SyncExchangeErrorCode.privilegedRefused.rawValue, project: offer.project)
            return nil
        }
        let access: SyncAccess = peerIsMine ? .mine : (offer.access == .viewer ? .viewer : .editor)
        // A name the writing store would refuse (a space at an end, say) refuses this offer only,
        // recorded; the exchange goes on with the others.
        do { return try make(offer, access: access) } catch let error as WritingError where error.code == .invalidName {
            recordRefusal(request, reason: SyncExchangeErrorCode.malformedMessage.rawValue, project: offer.project)
            return nil
        }
    }

    private func make(_ offer: SyncProjectOffer, access: SyncAccess) throws -> WritingProject {
        try vault.transaction { tx in
            let project = try WritingStore(tx, clock: clock).addSyncedProject(offer.project, named: offer.name, register: offer.register,
                                                                              kind: offer.kind, privileged: offer.privileged)
            let store = SyncExchangeStore(database: tx.database)
            if !peerIsMine { try store.setOrigin(of: project.id, device: peer.deviceID, access: access) }
            if access == .viewer { try WritingStore(tx, clock: clock).setSyncedViewOnly(project.id, true, from: peer.deviceID.hex) }
            try tx.record(.syncProjectAdded, compartment: project.compartment.id, subject: project.id,
                          details: [.init("peer", peer.deviceID.hex), .init("access", access.name)])
            try recordSigners(try store.addRoster(offer.roster, of: project.id), of: project, vouchedBy: peer.deviceID, in: tx)
            return try WritingStore(tx).project(project.id)
        }
    }
}
