import CryptoVault
import PrivilegedSession
import Writing

/// Which projects two devices sync, and how a project one holds comes to be held by the other
/// (SECURITY.md §19.9): the owner's own device is offered every project; another device only the
/// ordinary projects shared with it (viewer or editor), never a privileged one.
extension SyncEndpoint {
    /// This vault's projects the peer may sync, each with what it needs to make the project.
    /// `refusing` records a project not passed on (`refusePassingOn`); the responder charges it to
    /// the peer's refusal budget, since the peer asks as often as it likes (attack review s6, A7).
    /// `wanted`: which projects to describe (a privileged one's name is read in a session of its
    /// compartment, recorded: one not wanted is not opened; review 17 s10, N-s10-6).
    func offers(refusing: ((ProjectID, DeviceID) -> Void)? = nil, of wanted: (WritingProject) -> Bool = { _ in true }) throws -> [SyncProjectOffer] {
        try offers(after: nil, limit: Int.max, refusing: refusing, of: wanted).offers
    }

    /// One page of them: up to `limit` offers of the projects after `after`, in id order, and
    /// whether projects follow the page (review 17 s8, F15). Only the page's projects are described.
    /// The privileged projects of `held` (those the owner's own device asking says it holds) are
    /// offered without their name, so no session opens for one (review 17 s10, N-s10-6); an ordinary
    /// one's name opens none, and is read as ever (a name that no longer opens is found so, F8).
    func offers(after: ProjectID?, limit: Int, refusing: ((ProjectID, DeviceID) -> Void)? = nil,
                of wanted: (WritingProject) -> Bool = { _ in true },
                held: Set<ProjectID> = []) throws -> (offers: [SyncProjectOffer], more: Bool) {
        let projects = try vault.transaction { tx in try WritingStore(tx).projects() }
            .filter { project in wanted(project) && (after.map { $0.bytes.lexicographicallyPrecedes(project.id.bytes) } ?? true) }
            .sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }
        // Whose a project is as the vault core's grants say, whatever `sync_origins` says (N-s12-6).
        let granted = peerIsMine ? [:] : try ProjectGrants.someoneElses(vault, own: trusted.union([author.device]))
        var offers: [SyncProjectOffer] = []
        for (index, project) in projects.enumerated() {
            guard offers.count < limit else { return (offers, index < projects.count) }
            switch try vault.transaction({ tx in try self.access(to: project, in: SyncExchangeStore(database: tx.database)) }) {
            case .success where granted[project.id].map({ $0.device != peer.deviceID }) == true:
                // Someone else's project that only the vault core still says is: never passed on.
                refusePassingOn(project, from: granted[project.id]?.device, refusing)
            case .success(let access):
                // On the in-memory copy a privileged project cannot be read to be described: not offered.
                do {
                    let named = !(peerIsMine && project.isPrivileged && held.contains(project.id))
                    let made = try offer(of: project, access: access, named: named)
                    if try releasable(made, of: project) { offers.append(made) }
                } catch let error as SyncExchangeError where error.code == .inMemoryMode {
                    continue
                } catch where SyncProjectDamage.isTheProjects(error) {
                    // A project whose name does not open here is left out of the answer, never the
                    // whole answer with it (attack review s8, F8); why is recorded once.
                    let damage = SyncProjectDamage.damaged(project.id, error, on: "on this device")
                    recordSkipped(project.id, reason: damage.code.rawValue, message: damage.message, once: true)
                }
            case .failure(let refusal) where refusal.code == .notOwner: try refusePassingOn(project, refusing)
            case .failure: continue
            }
        }
        return (offers, false)
    }

    /// Whether the egress funnel releases `offer` to the peer on its own. A project whose name holds
    /// what the leak guard finds (an e-mail address, a phone number) is left out of the page, never
    /// the page's other offers with it (review 17 s8, F6: one such name stopped every offer to the
    /// device); why is kept for `sync status` (the finding's kind and count, never the words) and
    /// recorded once. Decided without an entry (`preview`): the page that goes is decided and
    /// recorded as ever. The owner's own devices take every name as it is.
    private func releasable(_ offer: SyncProjectOffer, of project: WritingProject) throws -> Bool {
        guard !peerIsMine else { return true }
        let page = SyncProjectsPage(more: false, offers: [offer]).serialized()
        let decided = try funnel.preview(EgressRequest(destination: EgressDestination(kind: .device, id: peer.deviceID.hex),
                                                       compartments: [project.compartment], payload: page))
        guard decided.decision != .allow else { return true }
        let found = decided.findings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        recordSkipped(project.id, reason: SyncExchangeErrorCode.egressRefused.rawValue,
                      message: "the egress funnel keeps project \(project.id)'s offer from device \(peer.fingerprint) "
                          + "(\(decided.decision), found in its name: \(found.isEmpty ? "nothing" : found))", once: true)
        return false
    }

    /// A project someone else shared with this vault, that this vault once shared with the peer
    /// too (a share recorded before only owners could share): not offered, and recorded, naming
    /// the project's owner (`origin`), so the owner of this vault sees that it was not passed on.
    /// So is one the vault core's grant says came from someone else's device when `sync_origins`
    /// no longer does (`ProjectGrants`; review 17 s12, N-s12-6): the peer may read it by a share
    /// recorded here, which only an owner grants.
    private func refusePassingOn(_ project: WritingProject, _ refusing: ((ProjectID, DeviceID) -> Void)?) throws {
        let origin = try vault.transaction { tx -> DeviceID? in
            let store = SyncExchangeStore(database: tx.database)
            guard try store.share(of: project.compartment.id, with: peer.deviceID) != nil else { return nil }
            return try sharedFrom(project.id, in: store)?.device
        }
        refusePassingOn(project, from: origin, refusing)
    }

    /// The refusal of passing on a project that came from `origin` (nil: nothing to record).
    private func refusePassingOn(_ project: WritingProject, from origin: DeviceID?, _ refusing: ((ProjectID, DeviceID) -> Void)?) {
        guard let origin else { return }
        if let refusing { return refusing(project.id, origin) }
        recordRefusal(SyncWire.projectsKind, reason: SyncExchangeErrorCode.notOwner.rawValue, project: project.id,
                      details: [.init("origin", origin.hex)])
    }

    /// The offer of `project` to the peer. To an own device it says whose project it is: the
    /// owner's own (`mine`), or the device it came from and the role that device gave, so the
    /// owner's other devices hold it as that device allowed. To another device, the access this
    /// vault gives it (with when its share was granted: the role's time), and the origin when the
    /// project came from that very device.
    /// Not `named`: without its name (an own device that holds it asked), from clear columns alone:
    /// no session opens for a privileged project.
    func offer(of project: WritingProject, access: SyncAccess, named: Bool = true) throws -> SyncProjectOffer {
        let me = try vault.deviceKeys().profile
        let (name, signers, from, since) = named ? try withSync(project) { sync, store, _ in
            (try sync.store.name(of: project), try self.roster(of: project, by: me, signers: sync.devices, in: store),
             try self.sharedFrom(project.id, in: store), try self.roleSince(of: project, in: store))
        } : try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            return ("", try self.roster(of: project, by: me, signers: try self.devices(for: project, in: tx), in: store),
                    try self.sharedFrom(project.id, in: store), try self.roleSince(of: project, in: store))
        }
        let offered = peerIsMine ? (from?.access ?? .mine) : access
        return SyncProjectOffer(project: project.id, access: offered, origin: from?.device, roleSince: since, privileged: project.isPrivileged,
                                kind: project.kind, register: project.register, name: name, roster: signers)
    }

    /// The role's time an offer of `project` gives (SECURITY.md §19.9): to another device, when
    /// this vault granted it its share; to an own device, the one kept with the project's origin
    /// (0 when not known).
    private func roleSince(of project: WritingProject, in store: SyncExchangeStore) throws -> UInt64 {
        if peerIsMine { return try store.roleSince(of: project.id) }
        guard let granted = try store.shareGranted(of: project.compartment.id, with: peer.deviceID) else { return 0 }
        return UInt64(max(0, granted))
    }

    /// Whose records the peer should take for the project: this device, the owner's own devices, and
    /// the project's other signers whose records this device relays (its editors, the device it came
    /// from, those an own device vouched for, and, in an ordinary project, the signers it ended: a
    /// revoked editor), so that their records, relayed by this device, verify there too. A signer
    /// is named with both its keys (the roster's id derives from them): a paired one by its pairing,
    /// one known from a roster (vouched for, not paired here) by the keys that roster gave
    /// (`sync_roster.noise_key`), so a third own device learns a project's editors from any own
    /// device that holds the project, paired with them or not.
    ///
    /// An ended signer is named because the records this vault took from it stay in the project,
    /// and every later record of the owner's is built on them: left out, an own device that first
    /// gets the project after the revoke could verify neither (`unknownDevice`, then
    /// `missingParents`) and waited for ever (reviewer s17, F17-16). Naming it lets it write
    /// nothing: this vault relays only its records stored here, refusing any past the highest
    /// counter stored (`accessEnded`, `withoutEndedSigners`). Not in a privileged project, whose
    /// ended signers are devices no longer `mine`, which an own device refuses in a roster.
    func roster(of project: WritingProject, by me: DeviceProfile, signers: [DeviceID: [UInt8]], in store: SyncExchangeStore) throws -> [SyncRosterEntry] {
        var entries = [me.deviceID: Self.entry(of: me)]
        for pairing in pairings where trusted.contains(pairing.peer.deviceID) { entries[pairing.peer.deviceID] = Self.entry(of: pairing.peer) }
        let ended = project.isPrivileged ? try endedSigners(of: project, among: signers, in: store) : []
        let paired = Set(pairings.map(\.peer.deviceID))
        for kept in try store.rosterEntries(of: project.id)
        where !paired.contains(kept.device) && signers[kept.device] == kept.signingKey && entries[kept.device] == nil {
            entries[kept.device] = kept
        }
        for pairing in pairings where signers[pairing.peer.deviceID] == pairing.peer.signingPublicKey && !ended.contains(pairing.peer.deviceID) {
            entries[pairing.peer.deviceID] = Self.entry(of: pairing.peer)
        }
        entries[peer.deviceID] = nil
        return offered(entries, origin: try sharedFrom(project.id, in: store)?.device)
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
        if !peerIsMine, let origin = offer.origin, origin != author.device {
            return refuse(offer, request: request, SyncExchangeError(.notOwner, "device \(peer.fingerprint) offers project \(offer.project), which device \(origin.hex) shared with it: only a project's owner shares it, so its offer makes nothing"),
                          details: [.init("origin", origin.hex)])
        }
        if let held = try project(offer.project) { return try recognise(held, from: offer, request: request) }
        // A row here that makes no project (one flipped bit; review 17 s14, N-s14-8, N-s14-9) is that
        // project's damage: nothing is made over it, and it is never taken for a shred.
        if let damage = try damagedRow(of: offer.project) {
            return refuse(offer, request: request, SyncExchangeError(.projectDamaged, damage.problem + "; 'vaultctl repair' on this device mends it"))
        }
        // Shredded here (`compartment destroy`): never made again, whoever offers it (N-s13-1).
        if try vault.transaction({ tx in try WritingStore(tx).isShredded(offer.project) }) {
            return refuse(offer, request: request, SyncExchangeError(.projectDestroyed, "this vault destroyed project \(offer.project)'s compartment (the project is shredded here): its offer makes nothing; destroy it on each device that still holds it ('vaultctl compartment destroy \"project \(offer.project)\" --yes')"))
        }
        // An offer without a name is of a project this vault said it holds: one it lacks cannot be made from it.
        if offer.name.isEmpty {
            return refuse(offer, request: request, SyncExchangeError(.malformedMessage, "device \(peer.fingerprint) offers project \(offer.project) without its name, which only a project this vault holds may: nothing is made"))
        }
        if !peerIsMine {
            if offer.privileged {
                return refuse(offer, request: request, SyncExchangeError(.privilegedRefused, "device \(peer.fingerprint) is not the owner's own: a privileged project \(offer.project) is never made from its offer"))
            }
            guard try grantedByPeer(offer.project) else {
                return refuse(offer, request: request, SyncExchangeError(.offerRefused, "device \(peer.fingerprint) never shared project \(offer.project)'s compartment with this vault: its offer makes nothing"))
            }
        }
        let from = ownersView(of: offer)
        if offer.privileged, let from {
            return refuse(offer, request: request, SyncExchangeError(.privilegedRefused, "the owner's device \(peer.fingerprint) offers privileged project \(offer.project) as device \(from.device.hex)'s: a privileged project is never someone else's"),
                          details: [.init("origin", from.device.hex)])
        }
        let roster = takenRoster(of: offer, privileged: offer.privileged, request: request)
        // A name the writing store would refuse (a space at an end, say) refuses this offer only,
        // recorded; the exchange goes on with the others.
        do { return .success(try make(offer, from: from, roster: roster, request: request)) } catch let error as WritingError where error.code == .invalidName {
            return refuse(offer, request: request, SyncExchangeError(.malformedMessage, "project \(offer.project)'s offered name is not one the writing store keeps"))
        } catch let error as CryptoVaultError where error.code == .compartmentExists {
            // Neither name its compartment takes here is free or its own (rows14): this offer alone
            // is refused, recorded; the exchange goes on with the others.
            return refuse(offer, request: request, SyncExchangeError(.compartmentTaken, "project \(offer.project) is not made here: \(error.message)"))
        }
    }

    /// Whose project an offer says it is, as this vault takes it: nil for the owner's own; else the
    /// device it came from and the role that device gave. From someone else's device the project
    /// is that device's (the offer's origin, when any, named this vault: `adopt` refused the rest);
    /// from an own device, the origin it names, unless that is this device or another own one
    /// (a project of the owner's, whatever the own device was told).
    private func ownersView(of offer: SyncProjectOffer) -> (device: DeviceID, access: SyncAccess)? {
        guard peerIsMine else { return (peer.deviceID, offer.access == .viewer ? .viewer : .editor) }
        guard let origin = offer.origin, origin != author.device, !trusted.contains(origin) else { return nil }
        return (origin, offer.access == .viewer ? .viewer : .editor)
    }

    /// The held project of an offer, its roster and whose project it is updated as the offer may:
    /// the device it came from says what this vault may do with it; an own device relays the role
    /// that device gave, or says whose it is when this vault holds it as the owner's own and may
    /// learn it (`mayLearnOrigin`). Nothing an own device says makes someone else's project the
    /// owner's own (attack review s6, A1): that disagreement is `originMismatch`, like any other.
    /// Another device's offer changes nothing.
    private func recognise(_ held: WritingProject, from offer: SyncProjectOffer, request: String) throws -> Result<WritingProject, SyncExchangeError> {
        let offered = ownersView(of: offer)
        let (origin, rosterAllows) = try vault.transaction { tx -> ((device: DeviceID, access: SyncAccess)?, Bool) in
            let store = SyncExchangeStore(database: tx.database)
            let origin = try self.sharedFrom(held.id, in: store)
            let allows = try origin == nil && offered.map { try self.mayLearnOrigin($0.device, of: held, in: store) } == true
            return (origin, allows)
        }
        let learnable = try rosterAllows && madeFromPeer(held)
        if peerIsMine, let (refusal, details) = mismatch(of: offer, with: held, origin: origin?.device, offered: offered?.device, learnable: learnable) {
            return refuse(offer, request: request, refusal, details: details)
        }
        guard peerIsMine || origin?.device == peer.deviceID else { return .success(held) }
        if offered?.access == .viewer, !held.isViewOnly { try commitBeforeViewOnly(held) }
        let roster = takenRoster(of: offer, privileged: held.isPrivileged, request: request)
        let unkept = try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            if let offered { try follow(offered, since: offer.roleSince, of: held, heldFrom: origin, in: tx, store) }
            return try keepRoster(roster, of: held, in: tx, store)
        }
        recordRosterFull(unkept, of: held.id, request: request)
        // Made an editor again by the origin: the records it refused before are sent again.
        if offered != nil { try putBackIfWritable(held) }
        return .success(held)
    }

    /// This device's edits of `held` not yet signed, committed as a record before an offer may make
    /// the project view-only (review 17 s11, N-s11-3): signed while this device still has the role it
    /// wrote them in, they go to the origin, which takes them by that role. Committed after, they were
    /// signed in a project this device only views, and no device took them.
    /// A failure of the project's own records or data here is left to its step, which meets it
    /// again and skips the project with its reason; the offer is taken as ever.
    private func commitBeforeViewOnly(_ held: WritingProject) throws {
        do { try withSync(held) { sync, _, _ in _ = try sync.commitLocalChanges(in: held.id) } } catch let error
            where error is SyncError || SyncProjectDamage.isTheProjects(error) {}
    }

    /// Whether this vault, holding `held` as the owner's own, takes an own device's word that it
    /// is `device`'s: only when `device`'s records are already taken here (the project's roster
    /// names it) and this vault never shared the project with it (a project this vault shared is
    /// the owner's: only owners share). That is a project an own device passed on here before
    /// offers said whose a project is (they said `mine` of everything). It is not proof: the own
    /// device saying so must also be the one this vault made the project from (`madeFromPeer`), so
    /// a project this vault made, or shared, is never made someone else's by an own device's word.
    private func mayLearnOrigin(_ device: DeviceID, of held: WritingProject, in store: SyncExchangeStore) throws -> Bool {
        try store.roster(of: held.id)[device] != nil && store.share(of: held.compartment.id, with: device) == nil
    }

    /// Whether this vault made `held` from this peer's offer (attack review s6, A12). Only the own device a project came from may say
    /// whose it is: shares are per vault, so the roster names every device any own device shared
    /// it with, and an own device that someone else misled (it made the project from that device's
    /// offer, never having held it) would otherwise make the owner's own project view-only here.
    /// A project made here is the owner's, whatever any device says.
    /// Recorded when the project is made (`sync_project_sources`); for a project made before that
    /// table, the audit log says it (`ProjectProvenance`).
    private func madeFromPeer(_ held: WritingProject) throws -> Bool {
        try ProjectProvenance.of(held.id, in: vault) == .madeFromOffer(of: peer.deviceID)
    }

    /// A project held here as the offer says it is now: from the device it came from, in the role
    /// that device gave (said by it, or relayed by an own device that holds it from the same device),
    /// view-only exactly when that role is viewer. The newer role stands, by the time the origin set
    /// it (`since`, its clock, kept with the origin; attack review s7, A5): an offer whose role is
    /// older than the one kept here changes nothing, so an own device that holds a stale role
    /// cannot undo a newer one; at the same time the origin's own word stands, and between two roles
    /// of unknown time (0: kept before role times, or by a repair) the last word, as before. A
    /// project held here as the owner's own that `mismatch` let an own device name an origin for
    /// takes that origin, recorded (`sync.project-origin-learned`).
    private func follow(_ offered: (device: DeviceID, access: SyncAccess), since: UInt64, of held: WritingProject,
                        heldFrom origin: (device: DeviceID, access: SyncAccess)?, in tx: VaultTransaction, _ store: SyncExchangeStore) throws {
        if origin == nil {
            try store.setOrigin(of: held.id, device: offered.device, access: offered.access, since: since)
            try tx.record(.syncProjectOriginLearned, compartment: held.compartment.id, subject: held.id,
                          details: [.init("peer", peer.deviceID.hex), .init("origin", offered.device.hex), .init("access", offered.access.name)])
        } else {
            let kept = try store.roleSince(of: held.id)
            guard since > kept || (since == kept && (offered.device == peer.deviceID || since == 0)) else { return }
            if offered.access != origin?.access || since != kept {
                try store.setOrigin(of: held.id, device: offered.device, access: offered.access, since: since)
            }
        }
        // A project that waits for this device's own records (a repair's floor, a restore's wait)
        // stays view-only whatever role the origin gives (reviewer 14, N-s14-6: a restored laptop that
        // synced with the colleague first became writable while nothing could be committed there, and
        // its next edit was overwritten by the next record received). A damaged floor row waits too.
        let waits: Bool
        do { waits = try OwnRecordFloor(database: tx.database).floor(of: held.id) != nil } catch { waits = true }
        try WritingStore(tx, clock: clock).setSyncedViewOnly(held.id, offered.access == .viewer || waits, from: peer.deviceID.hex)
    }

    /// Why an own device's offer is not the project held here, or nil when it is. Its privileged
    /// flag must be the held one's; a project made here from someone else's device (its origin)
    /// must be offered as held from that same device, which the own device syncs it with too (its
    /// roster names it); a project held here as the owner's own must be offered so too, unless this
    /// vault may learn the origin the own device names (`learnable`). Else the two are different
    /// projects under one id, or one of the two devices was misled: refused until they agree.
    func mismatch(of offer: SyncProjectOffer, with held: WritingProject, origin stranger: DeviceID?,
                  offered: DeviceID?, learnable: Bool) -> (SyncExchangeError, [VaultEvent.Detail])? {
        let details = stranger.map { [VaultEvent.Detail("origin", $0.hex)] } ?? []
        let came = stranger.map { ", made here from device \($0.hex)'s offer" } ?? ""
        if offer.privileged != held.isPrivileged {
            let (offered, kept) = offer.privileged ? ("privileged", "ordinary") : ("ordinary", "privileged")
            return (SyncExchangeError(.privilegedMismatch, "the owner's device \(peer.fingerprint) offers project \(held.id) as \(offered); the one held here is \(kept)\(came): nothing of it is taken or sent until one of them is removed"), details)
        }
        if let stranger, !offer.roster.contains(where: { $0.device == stranger }) {
            return (SyncExchangeError(.originMismatch, "the owner's device \(peer.fingerprint) offers project \(held.id), which this vault made from device \(stranger.hex)'s offer and the owner's device does not sync with it: nothing of it is taken or sent until one of them is removed"), details)
        }
        // The own device holds it as the owner's own while this vault holds it from someone else's
        // device: never taken (an own device that got a colleague's project before offers said
        // whose it is would make it the owner's, to share on, with the colleague's edits refused).
        if let stranger, offered == nil {
            return (SyncExchangeError(.originMismatch, "the owner's device \(peer.fingerprint) holds project \(held.id) as the owner's own; this vault holds it as device \(stranger.hex)'s: nothing of it is taken or sent until they agree"),
                    details)
        }
        // The own device holds it as someone else's: from another device than this vault does, or
        // while this vault holds it as the owner's own and may not learn it from an own device.
        if let offered, offered != stranger, !(stranger == nil && learnable) {
            let kept = stranger.map { "as device \($0.hex)'s" } ?? "as the owner's own"
            return (SyncExchangeError(.originMismatch, "the owner's device \(peer.fingerprint) holds project \(held.id) as device \(offered.hex)'s; this vault holds it \(kept): nothing of it is taken or sent until they agree"),
                    details + [.init("offered-origin", offered.hex)])
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

    /// The projects this vault holds from the peer (it shared them, its origin) that the peer no
    /// longer offers (the share revoked, or the project gone there): each left for this exchange and
    /// recorded as `sync.project-skipped` with reason `notShared`, so this vault's log says why the
    /// project stopped syncing: once, when it stops, not at every exchange after (attack review
    /// s7, A7: the log would grow without bound and bury its other entries). The project's skip
    /// row (`sync_project_skips`, kept until it syncs with the peer again) says it was recorded.
    /// Its view-only mark stays (nothing the owner no longer sends becomes writable); a later share
    /// lifts it or sets it as the owner says. Returns each, `first` when this exchange recorded it.
    func recordNoLongerShared(besides offered: Set<ProjectID>) throws -> [(project: WritingProject, first: Bool)] {
        guard !peerIsMine else { return [] }
        let notShared = SyncExchangeErrorCode.notShared.rawValue
        let stopped = try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            return try WritingStore(tx).projects().filter { project in
                try !offered.contains(project.id) && self.sharedFrom(project.id, in: store)?.device == self.peer.deviceID
            }.map { project in
                (project, try store.skipReason(of: project.id, by: self.peer.deviceID)?.hasPrefix("\(notShared):") != true)
            }
        }
        for (project, first) in stopped where first {
            recordSkipped(project.id, reason: notShared,
                          message: "device \(peer.fingerprint) no longer offers project \(project.id): its share was revoked or the project is gone there")
        }
        return stopped
    }

    /// How many of this device's records of `project` (held here: `held`) the peer lacked at its
    /// last exchange with this vault: words that reach it no more once it stopped sharing the project.
    func undelivered(of project: WritingProject, held: [DeviceID: UInt64]) throws -> UInt64 {
        let mine = held[author.device] ?? 0
        let delivered = try vault.transaction { tx in
            try SyncExchangeStore(database: tx.database).peerVector(peer.deviceID, project: project.id)[author.device] ?? 0
        }
        return mine > delivered ? mine - delivered : 0
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

    /// Makes the offered project, the owner's own (`from` nil) or held from the device that shared
    /// it, in that device's role (view-only for a viewer).
    private func make(_ offer: SyncProjectOffer, from: (device: DeviceID, access: SyncAccess)?, roster: [SyncRosterEntry],
                      request: String) throws -> WritingProject {
        let (made, unkept) = try vault.transaction { tx -> (WritingProject, [DeviceID]) in
            let project = try WritingStore(tx, clock: clock).addSyncedProject(offer.project, named: offer.name, register: offer.register,
                                                                              kind: offer.kind, privileged: offer.privileged)
            let store = SyncExchangeStore(database: tx.database)
            if let from { try store.setOrigin(of: project.id, device: from.device, access: from.access, since: offer.roleSince) }
            try store.setSource(of: project.id, device: peer.deviceID, at: clock.now())
            if from?.access == .viewer { try WritingStore(tx, clock: clock).setSyncedViewOnly(project.id, true, from: peer.deviceID.hex) }
            var details: [VaultEvent.Detail] = [.init("peer", peer.deviceID.hex), .init("access", (from?.access ?? .mine).name)]
            if let from, from.device != peer.deviceID { details.append(.init("origin", from.device.hex)) }
            try tx.record(.syncProjectAdded, compartment: project.compartment.id, subject: project.id, details: details)
            let unkept = try keepRoster(roster, of: project, in: tx, store)
            return (try WritingStore(tx).project(project.id), unkept)
        }
        recordRosterFull(unkept, of: made.id, request: request)
        return made
    }
}
