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

    /// Makes (or recognises) the project of a peer's offer (SECURITY.md §19.9, "Who makes a
    /// project"). A project this vault holds gains the devices the offer vouches for only from the
    /// owner's own device or from the device the project came from (its owner); from any other
    /// device nothing: what that device may do with it is this vault's decision (`plan(for:)`),
    /// whatever the offer claims. An own device's offer that is not the project held (another
    /// privileged flag; or a project made here from someone else's device that the own device does
    /// not sync with it) is refused, since merging the two would put the owner's words in a
    /// compartment someone else reads (review 17, F2). A project this vault lacks is made from the
    /// owner's own device's offer, or from another device's ordinary one when that device granted
    /// this vault the project's compartment (`vaultctl share` there), which this vault then syncs
    /// with it alone, as its viewer or editor. Each device added to a roster is recorded, and each
    /// refusal with its reason. Returns the project, or the refusal (recorded).
    func adopt(_ offer: SyncProjectOffer, request: String) throws -> Result<WritingProject, SyncExchangeError> {
        if let held = try project(offer.project) { return try recognise(held, from: offer, request: request) }
        if !peerIsMine {
            if offer.privileged {
                return refuse(offer, request: request, SyncExchangeError(.privilegedRefused, "device \(peer.fingerprint) is not the owner's own: a privileged project \(offer.project) is never made from its offer"))
            }
            guard try grantedByPeer(offer.project) else {
                return refuse(offer, request: request, SyncExchangeError(.offerRefused, "device \(peer.fingerprint) never shared project \(offer.project)'s compartment with this vault: its offer makes nothing"))
            }
        }
        let access: SyncAccess = peerIsMine ? .mine : (offer.access == .viewer ? .viewer : .editor)
        let roster = takenRoster(of: offer, privileged: offer.privileged, request: request)
        // A name the writing store would refuse (a space at an end, say) refuses this offer only,
        // recorded; the exchange goes on with the others.
        do { return .success(try make(offer, access: access, roster: roster)) } catch let error as WritingError where error.code == .invalidName {
            return refuse(offer, request: request, SyncExchangeError(.malformedMessage, "project \(offer.project)'s offered name is not one the writing store keeps"))
        }
    }

    /// The held project of an offer, its roster and its owner's access updated as the offer may.
    private func recognise(_ held: WritingProject, from offer: SyncProjectOffer, request: String) throws -> Result<WritingProject, SyncExchangeError> {
        let origin = try vault.transaction { tx in try SyncExchangeStore(database: tx.database).origin(of: held.id) }
        if peerIsMine, let (refusal, details) = mismatch(of: offer, with: held, origin: origin?.device) {
            return refuse(offer, request: request, refusal, details: details)
        }
        guard peerIsMine || origin?.device == peer.deviceID else { return .success(held) }
        let roster = takenRoster(of: offer, privileged: held.isPrivileged, request: request)
        try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            // What this vault may do with its owner's project is the owner's to say (and to enforce).
            if let origin, origin.device == peer.deviceID, !peerIsMine {
                let access: SyncAccess = offer.access == .viewer ? .viewer : .editor
                if access != origin.access { try store.setOrigin(of: held.id, device: peer.deviceID, access: access) }
                try WritingStore(tx, clock: clock).setSyncedViewOnly(held.id, access == .viewer, from: peer.deviceID.hex)
            }
            try recordSigners(try store.addRoster(roster, of: held.id), of: held, vouchedBy: peer.deviceID, in: tx)
        }
        return .success(held)
    }

    /// Why an own device's offer is not the project held here, or nil when it is. Its privileged
    /// flag must be the held one's; and a project made here from someone else's device (its origin,
    /// not the owner's own now) is the own device's only when the own device syncs it with that
    /// device too (its roster names it: the colleague shared it with both). Else the two are
    /// different projects under one id, one of them a stranger's claim.
    func mismatch(of offer: SyncProjectOffer, with held: WritingProject, origin: DeviceID?) -> (SyncExchangeError, [VaultEvent.Detail])? {
        let stranger = origin.flatMap { trusted.contains($0) ? nil : $0 }
        let details = stranger.map { [VaultEvent.Detail("origin", $0.hex)] } ?? []
        let came = stranger.map { ", made here from device \($0.hex)'s offer" } ?? ""
        if offer.privileged != held.isPrivileged {
            let (offered, kept) = offer.privileged ? ("privileged", "ordinary") : ("ordinary", "privileged")
            return (SyncExchangeError(.privilegedMismatch, "the owner's device \(peer.fingerprint) offers project \(held.id) as \(offered); the one held here is \(kept)\(came): nothing of it is taken or sent until one of them is removed"), details)
        }
        if let stranger, !offer.roster.contains(where: { $0.device == stranger }) {
            return (SyncExchangeError(.originMismatch, "the owner's device \(peer.fingerprint) offers project \(held.id), which this vault made from device \(stranger.hex)'s offer and the owner's device does not sync with it: nothing of it is taken or sent until one of them is removed"), details)
        }
        return nil
    }

    /// The offer's roster as this vault takes it: for a privileged project, never a device paired
    /// here that is not the owner's own (it could not write the project here, and named in this
    /// vault's own offers it would reach the owner's devices not paired with it); each left out is
    /// a refusal, recorded with the device. A device not paired here is taken on the own device's
    /// word (a third own device paired with that one only).
    private func takenRoster(of offer: SyncProjectOffer, privileged: Bool, request: String) -> [SyncRosterEntry] {
        guard privileged else { return offer.roster }
        let strangers = Set(pairings.map(\.peer.deviceID)).subtracting(trusted)
        for entry in offer.roster where strangers.contains(entry.device) {
            recordRefusal(request, reason: SyncExchangeErrorCode.privilegedRefused.rawValue, project: offer.project,
                          details: [.init("device", entry.device.hex)])
        }
        return offer.roster.filter { !strangers.contains($0.device) }
    }

    /// Whether the peer granted this vault the project's compartment: a share grant it signed, of
    /// a compartment named as a project's is (`project <id>`, or `project <id> (synced)` on a device
    /// that holds it synced), accepted here. Any device can send such a grant, so it makes a project
    /// only; an own device's offer of the same id is still checked against it (`mismatch`).
    private func grantedByPeer(_ project: ProjectID) throws -> Bool {
        let names: Set<String> = ["project \(project.hex)", "project \(project.hex) (synced)"]
        return try vault.sharedCompartments().contains { $0.sharing?.senderDeviceID == peer.deviceID && names.contains($0.name) }
    }

    /// Records the refusal of an offer (with its reason and `details`) and returns it.
    private func refuse(_ offer: SyncProjectOffer, request: String, _ refusal: SyncExchangeError,
                        details: [VaultEvent.Detail] = []) -> Result<WritingProject, SyncExchangeError> {
        recordRefusal(request, reason: refusal.code.rawValue, project: offer.project, details: details)
        return .failure(refusal)
    }

    private func make(_ offer: SyncProjectOffer, access: SyncAccess, roster: [SyncRosterEntry]) throws -> WritingProject {
        try vault.transaction { tx in
            let project = try WritingStore(tx, clock: clock).addSyncedProject(offer.project, named: offer.name, register: offer.register,
                                                                              kind: offer.kind, privileged: offer.privileged)
            let store = SyncExchangeStore(database: tx.database)
            if !peerIsMine { try store.setOrigin(of: project.id, device: peer.deviceID, access: access) }
            if access == .viewer { try WritingStore(tx, clock: clock).setSyncedViewOnly(project.id, true, from: peer.deviceID.hex) }
            try tx.record(.syncProjectAdded, compartment: project.compartment.id, subject: project.id,
                          details: [.init("peer", peer.deviceID.hex), .init("access", access.name)])
            try recordSigners(try store.addRoster(roster, of: project.id), of: project, vouchedBy: peer.deviceID, in: tx)
            return try WritingStore(tx).project(project.id)
        }
    }
}
