import CryptoVault
import PrivilegedSession
import Writing

/// One side of an exchange with one paired device (SECURITY.md §19.9): what that device may do with
/// each project, the devices whose records a project takes, and the vault work of both roles, each
/// step in `unlocked.transaction` with its audit entries. Records leave only through the egress
/// funnel (destination `device:ID`); a privileged project's records are read in a session of its
/// compartment opened for the step and ended after it.
public struct SyncEndpoint {
    public let vault: UnlockedVault
    public let author: SyncAuthor
    /// This device's profile (both public keys: a roster entry names a device by them).
    let me: DeviceProfile
    public let peer: DeviceProfile
    /// The peer's trust level here (nil for an older pairing: someone else's); `other` when this
    /// vault holds its demotion (`sync_demotions`).
    public let peerTrust: DeviceTrust?
    /// The peer is, or was when a demotion of it was kept here, trusted `mine`: its demotion lists
    /// are read (each entry stands on its own signature).
    let peerWasMine: Bool
    let pairings: [FamilyPairing]
    let trusted: Set<DeviceID>
    let funnel: EgressFunnel
    let clock: VaultClock
    /// The replicas kept between steps (the process's, unless a test gives its own).
    let replicas: SyncReplicaCache
    /// The peer's budget of refusals recorded one by one (SECURITY.md §19.9): every refusal this
    /// endpoint records is charged to it; nil records each (a side no peer drives).
    var refusals: SyncRefusalBudget?
    /// What a device other than the owner's own may add to a project here in a day (`SyncDeviceQuota`).
    var quota = SyncDeviceQuota()

    public init(vault: UnlockedVault, peer: DeviceProfile, clock: VaultClock = .system, replicas: SyncReplicaCache = .shared) throws {
        self.vault = vault
        self.peer = peer
        self.clock = clock
        self.replicas = replicas
        let keys = try vault.deviceKeys()
        author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        me = keys.profile
        pairings = try vault.vault.familyPairings()
        // A device an own device demoted is not the owner's here, whatever its level says (F4).
        let demoted = Self.heldDemotions(in: vault)
        trusted = Set(try pairings.filter { try vault.vault.trust(of: $0.peer.deviceID) == .mine && demoted[$0.peer.deviceID] == nil }.map(\.peer.deviceID))
        let stored = try vault.vault.trust(of: peer.deviceID)
        peerTrust = demoted[peer.deviceID] != nil ? .other : stored
        peerWasMine = stored == .mine || demoted[peer.deviceID] == true
        funnel = try EgressFunnel(vault: vault, policy: Self.policy(ownDevice: peerTrust == .mine),
                                  leakGuard: peerTrust == .mine ? Self.ownDeviceGuard : nil)
    }

    /// The leak guard of an exchange with an own device: identifiers only. Its policy allows every
    /// finding (`policy(ownDevice:)`), so the privileged documents' fingerprints would decide
    /// nothing, and reading them all costs each exchange more as the owner writes: with a million (a
    /// clinician's years of notes) a saved edit took 775 ms of CPU to reach the desk instead of 62
    /// (`vaultbench sync`; review 17 s14, N-s14-2). Someone else's device still gets the whole guard.
    static let ownDeviceGuard = LeakGuard()

    var peerIsMine: Bool { peerTrust == .mine }

    /// To the owner's own device the words go as they are, as they would to this vault: an ordinary
    /// project's findings are not redacted (a signed record cannot be), and a privileged project's
    /// rule allows its owner's devices. To anyone else the default policy holds, and a redaction
    /// (what the leak guard found) keeps the records here (`release`).
    static func policy(ownDevice: Bool) -> EgressPolicy {
        guard ownDevice else { return EgressPolicy() }
        let asTheyAre = EgressRule(destinations: Set(EgressDestination.Kind.allCases), whenFound: .allow)
        return EgressPolicy(registerRules: Dictionary(uniqueKeysWithValues: Register.allCases.map { ($0, asTheyAre) }))
    }

    // MARK: Access

    /// What the peer may do with `project` here, or why it may do nothing.
    func access(to project: WritingProject, in store: SyncExchangeStore) throws -> Result<SyncAccess, SyncExchangeError> {
        try access(of: peer.deviceID, to: project, in: store)
    }

    /// What `device` may do with `project` here (SECURITY.md §19.9), decided by this vault alone,
    /// whichever side asked: the owner's own device everything; any other nothing with a privileged
    /// project, and with an ordinary one what this vault's share grant gave it, or editor when the
    /// project came from it. Never what a peer's offer claims.
    func access(of device: DeviceID, to project: WritingProject, in store: SyncExchangeStore) throws -> Result<SyncAccess, SyncExchangeError> {
        let name = device == peer.deviceID ? peer.fingerprint : device.hex
        if device == peer.deviceID ? peerIsMine : trusted.contains(device) { return .success(.mine) }
        if project.isPrivileged {
            return .failure(SyncExchangeError(.privilegedRefused, "project \(project.id) is privileged: it syncs only with the owner's own devices, not \(name)"))
        }
        // A project someone else shared with this vault is its owner's to share (review of 17:
        // else a colleague's device could pass the owner's project on, to the owner's own devices
        // too, as view-only): it syncs with that device and the owner's own devices, none other,
        // whatever share this vault once recorded.
        if let from = try sharedFrom(project.id, in: store), from.device != device {
            return .failure(SyncExchangeError(.notOwner, "project \(project.id) was shared with this vault by device \(from.device.hex): only its owner shares it, never this vault with \(name)"))
        }
        if let role = try store.share(of: project.compartment.id, with: device) { return .success(role == .editor ? .editor : .viewer) }
        // The project came from the device (its owner shared it with this device): the owner syncs it.
        if let origin = try store.origin(of: project.id), origin.device == device { return .success(.editor) }
        return .failure(SyncExchangeError(.notShared, "project \(project.id) is not shared with device \(name)"))
    }

    /// Whose project `project` is here: nil when it is the owner's own (made on one of the owner's
    /// devices, or received from one as such); else the device it came from (someone else's, which
    /// shared it with the owner) and the role that device gave. An origin that is this device or
    /// is trusted `mine` now is the owner's own.
    func sharedFrom(_ project: ProjectID, in store: SyncExchangeStore) throws -> (device: DeviceID, access: SyncAccess)? {
        guard let origin = try store.origin(of: project), origin.device != author.device, !trusted.contains(origin.device) else { return nil }
        return origin
    }

    /// What this vault does with `project` in an exchange it asked for: pull only from a device that
    /// may write the project here, push to any that may read it (`SyncPlan`). Decided here by
    /// `access(to:in:)`; the access the answerer's offer claims is never used (it could say `mine`
    /// of anything).
    func plan(for project: WritingProject) throws -> Result<SyncPlan, SyncExchangeError> {
        try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            switch try access(to: project, in: store) {
            case .failure(let refusal): return .failure(refusal)
            case .success(let access): return .success(SyncPlan(access: access, pulls: access.writes))
            }
        }
    }

    /// The devices whose records `project` takes here: this one, the owner's own, the devices the
    /// project's offers vouched for, its editors, and the device it came from. Each is kept in the
    /// project's roster as it is taken (and the addition recorded), so the records it signed still
    /// verify when the replica is rebuilt after its share is revoked or its pairing removed.
    func devices(for project: WritingProject, in tx: VaultTransaction) throws -> [DeviceID: [UInt8]] {
        let store = SyncExchangeStore(database: tx.database)
        var allowed: [DeviceID: SyncRosterEntry] = [author.device: Self.entry(of: me)]
        let byID = Dictionary(uniqueKeysWithValues: pairings.map { ($0.peer.deviceID, Self.entry(of: $0.peer)) })
        for device in trusted { allowed[device] = byID[device] }
        if !project.isPrivileged {
            for editor in try store.editors(of: project.compartment.id) { allowed[editor] = byID[editor] }
            if let origin = try store.origin(of: project.id) { allowed[origin.device] = byID[origin.device] }
        }
        var keys = try store.roster(of: project.id)
        // Both keys kept (a device known before without its Noise key gains it), so the roster can
        // name each signer in this vault's own offers.
        try store.addSigners(Array(allowed.values), of: project.id)
        // This vault's own decision: if it ends, the device is ended here (`endedSigners`).
        try store.grantHere(allowed.keys.filter { $0 != author.device }, of: project.id, at: clock.now())
        let fresh = allowed.filter { keys[$0.key] == nil }
        try recordSigners(Array(fresh.keys), of: project, vouchedBy: nil, in: tx)
        keys.merge(fresh.mapValues(\.signingKey)) { kept, _ in kept }
        return keys
    }

    static func entry(of profile: DeviceProfile) -> SyncRosterEntry {
        SyncRosterEntry(device: profile.deviceID, signingKey: profile.signingPublicKey, noiseKey: profile.noisePublicKey)
    }

    /// The signers of `project` (its roster) that no longer write it here: devices paired with this
    /// vault that its own rule gives no write access now, where this vault decided so (`decided`: a
    /// revoked editor, a demoted own device, a viewer). Their records already stored keep verifying;
    /// a new one is refused (`accessEnded`). A device this vault is not paired with, or paired but
    /// never granted nor ended the project here, is taken on the word of the roster an own device
    /// or the project's owner offered, and reaches this vault only through one that still grants it
    /// (review 17 s8, F19: a colleague the desk shared the project with, paired with the laptop for
    /// another reason, would else be ended on the laptop, and every later record of the owner's
    /// built on the colleague's first edit would wait there for ever).
    ///
    /// `sentByOrigin`: the records come from the project's origin itself. The owner's own devices
    /// are not ended for those (attack review s6, A4): the origin took them (an own device that
    /// wrote while it was an editor there), and its own later records are built on them, so
    /// refusing them would leave everything the origin writes after them waiting for ever.
    func endedSigners(of project: WritingProject, among keys: [DeviceID: [UInt8]], in store: SyncExchangeStore,
                      sentByOrigin: Bool = false) throws -> Set<DeviceID> {
        let paired = Set(pairings.map(\.peer.deviceID))
        // The owner only views a project someone shared so: none of the owner's devices writes it,
        // so an own device (whose view-only mark other software ignored) is no back door to write.
        let ownerViews = try !sentByOrigin && sharedFrom(project.id, in: store)?.access == .viewer
        let granted = try store.grantedHere(project.id)
        var ended = Set<DeviceID>()
        for device in keys.keys where device != author.device && paired.contains(device) {
            if ownerViews && trusted.contains(device) {
                ended.insert(device)
                continue
            }
            if case .success(let access) = try access(of: device, to: project, in: store), access.writes { continue }
            if try decided(device, of: project, granted: granted, in: store) { ended.insert(device) }
        }
        return ended
    }

    /// The details a refused request of the peer for project `id` is recorded with: the project,
    /// and `share` `revoked` when this vault shared the project's compartment with the peer and
    /// revoked it (the request of a device whose share ended: reviewer s17, F17-7).
    func refusalDetails(of id: ProjectID) throws -> [VaultEvent.Detail] {
        let project: [VaultEvent.Detail] = [.init("project", id.hex)]
        let revoked = try vault.transaction { tx -> Bool in
            guard let held = try? WritingStore(tx).project(id) else { return false }
            let store = SyncExchangeStore(database: tx.database)
            return try store.everShared(held.compartment.id, with: peer.deviceID) && store.share(of: held.compartment.id, with: peer.deviceID) == nil
        }
        return revoked ? project + [.init("share", "revoked")] : project
    }

    /// Whether this vault itself decided that `device`, which may not write `project` here now, does
    /// not: its trust levels or grants once let it (`granted`), it holds a share of the project's
    /// compartment for it (a viewer, or one revoked), or the project is privileged (only the
    /// owner's own devices ever write one).
    private func decided(_ device: DeviceID, of project: WritingProject, granted: Set<DeviceID>, in store: SyncExchangeStore) throws -> Bool {
        try project.isPrivileged || granted.contains(device) || store.everShared(project.compartment.id, with: device)
    }

    /// One `sync.roster-add` entry per device a project now takes records from (details: device, and
    /// the peer that vouched for it, or none when this vault's own grants or pairings gave it).
    func recordSigners(_ devices: [DeviceID], of project: WritingProject, vouchedBy voucher: DeviceID?, in tx: VaultTransaction) throws {
        for device in devices.sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) {
            try tx.record(.syncRosterAdd, compartment: project.compartment.id, subject: project.id,
                          details: [.init("device", device.hex), .init("vouched-by", voucher?.hex ?? "none")])
        }
    }

    // MARK: Vault work

    /// The project, or nil when this vault holds none with that id.
    /// This vault's row of project `id` when it makes no project (`DamagedProjectRow`); nil when it
    /// is whole or there is none.
    func damagedRow(of id: ProjectID) throws -> DamagedProjectRow? {
        try vault.transaction { tx in try WritingStore(tx).damagedProject(id) }
    }

    func project(_ id: ProjectID) throws -> WritingProject? {
        try vault.transaction { tx in try? WritingStore(tx).project(id) }
    }

    /// Runs `body` in one transaction with the project's sync, inside a session of its compartment
    /// when it is privileged (opened for this step, ended after it, both recorded). The replica
    /// is the one this process keeps (`replicas`), extended, and kept again if the step commits.
    func withSync<Result>(_ project: WritingProject, _ body: (VaultSync, SyncExchangeStore, RecordAccess) throws -> Result) throws -> Result {
        try inSession(project) { session in try withSync(project, in: session, body) }
    }

    /// Runs `body` inside a session of the project's compartment when it is privileged (opened for
    /// it, ended after it, both recorded), nil for an ordinary project. What `body` reads of the
    /// project in it and releases to the peer is released in that session, so the egress decision
    /// names the session the records were read in (review 17 F17-9: it came after the session's end,
    /// `session: null`, and an auditor could not match the two).
    func inSession<Result>(_ project: WritingProject, _ body: (PrivilegedProcessingSession?) throws -> Result) throws -> Result {
        var session: PrivilegedProcessingSession?
        if project.isPrivileged {
            session = try Self.refusingInMemory {
                try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "sync",
                                                      purpose: "sync with paired device \(peer.fingerprint)")
            }
        }
        defer { try? session?.end() }
        return try body(session)
    }

    /// `withSync` in `session` (nil: outside one), opened by the caller (`inSession`).
    func withSync<Result>(_ project: WritingProject, in session: PrivilegedProcessingSession?,
                          _ body: (VaultSync, SyncExchangeStore, RecordAccess) throws -> Result) throws -> Result {
        let access: RecordAccess = session.map { .session($0) } ?? .vault
        return try replicas.transaction(in: vault) { tx, staging in
            let store = SyncExchangeStore(database: tx.database)
            let sync = VaultSync(WritingStore(tx, access: access, clock: clock), author: author, devices: try devices(for: project, in: tx),
                                 replicas: staging)
            return try body(sync, store, access)
        }
    }

    /// This vault's own edits of the project committed as a record, then its version vector. A
    /// document held for an editor that none of `coordinator`'s clients has open (one a killed
    /// daemon held, SECURITY.md §19.9) is then written as the records make it, and said changed.
    func commitAndHeld(_ project: WritingProject, coordinator: SyncCoordinator?) throws -> [DeviceID: UInt64] {
        try commitAndHeldWithTips(project, coordinator: coordinator).held
    }

    /// `commitAndHeld`, with the hash of the record held at each device's counter (a pull's `tips`).
    func commitAndHeldWithTips(_ project: WritingProject, coordinator: SyncCoordinator?) throws -> (held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]]) {
        let (vector, tips, written) = try withSync(project) { sync, _, _ -> ([DeviceID: UInt64], [DeviceID: [UInt8]], Set<NodeID>) in
            var sync = sync
            sync.hold = hold(of: project, coordinator: coordinator)
            var written: Set<NodeID> = []
            if try HeldBases(sync: sync).documents(of: project.id).isEmpty {
                try sync.commitLocalChanges(in: project.id)
            } else {
                written = try sync.writeReleased(in: project.id)
            }
            let vector = try sync.heldVector(of: project.id)
            return (vector, try sync.tips(of: project.id, at: vector), written)
        }
        if !written.isEmpty { coordinator?.changed(project.id, documents: written) }
        return (vector, tips)
    }

    /// What this vault holds of `project` when it is privileged and settled here (`SyncSettledMark`:
    /// nothing of it changed since its every change was committed as records): its version vector and tips,
    /// read from its stored records' clear columns, no session opened (review 17 s10, N-s10-6); nil
    /// otherwise, when the step works in a session as ever (also when the mark cannot be read: the
    /// step then meets whatever is wrong). An ordinary project opens no session: it takes its step.
    func settledVector(of project: WritingProject) -> (held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]])? {
        guard project.isPrivileged, let mark = replicas.settled(project.id, of: vault) else { return nil }
        return try? vault.transaction { tx -> (held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]])? in
            guard try mark.holds(project.id, in: tx) else { return nil }
            let vector = try VaultSync.heldVector(of: project.id, in: tx.database)
            let tips = try VaultSync(WritingStore(tx, clock: clock), author: author, devices: [:]).tips(of: project.id, at: vector)
            return (vector, tips)
        }
    }

    /// Whether this vault stores a record of `project` that a device at `held` lacks (the clear
    /// columns: no step, no session).
    func storesMissing(_ project: WritingProject, from held: [DeviceID: UInt64]) throws -> Bool {
        try vault.transaction { tx in Self.lacks(held, any: try VaultSync.heldVector(of: project.id, in: tx.database)) }
    }

    /// Whether a device at `held` lacks a record of one at `vector`.
    static func lacks(_ held: [DeviceID: UInt64], any vector: [DeviceID: UInt64]) -> Bool {
        vector.contains { $0.value > held[$0.key] ?? 0 }
    }

    /// The records `held` lacks (a batch of them, parents first), whether more remain, and this
    /// vault's version vector and tips; local edits are committed first. Where the asker's `tips`
    /// name, at its counter, another record than this vault holds there (a device signed two
    /// histories, N-s10-4 (c)), the answer also carries this vault's record of that number and
    /// those after it, so the asker meets the fork in this answer rather than hearing "syncs".
    /// A privileged project settled here of which the asker lacks nothing, and whose tips show no
    /// fork, is answered from the clear columns, no session opened (N-s10-6).
    func missing(_ project: WritingProject, from held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]] = [:]) throws -> SyncPullAnswer {
        try missing(project, from: held, tips: tips) { answer, _ in answer }
    }

    /// `missing`'s answer given to `use` inside the session its records were read in (nil: none
    /// was opened), where the answer is released (`release(_:of:in:)`).
    func missing<Result>(_ project: WritingProject, from held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]],
                         then use: (SyncPullAnswer, PrivilegedProcessingSession?) throws -> Result) throws -> Result {
        if let settled = settledVector(of: project), !Self.lacks(held, any: settled.held),
           try forksSeen(of: project, held: held, tips: tips).isEmpty {
            return try use(SyncPullAnswer(more: false, held: settled.held, tips: settled.tips, records: []), nil)
        }
        return try inSession(project) { session in
            let (records, vector, ownTips) = try withSync(project, in: session) { sync, _, _ in
                try sync.commitLocalChanges(in: project.id)
                var asked = held
                for (device, counter) in try sync.forksSeen(of: project.id, held: held, tips: tips) { asked[device] = counter - 1 }
                let vector = try sync.heldVector(of: project.id)
                return (try sync.storedRecords(of: project, missingFrom: asked), vector, try sync.tips(of: project.id, at: vector))
            }
            let batch = try SyncWire.batch(records[...])
            return try use(SyncPullAnswer(more: batch.count < records.count, held: vector, tips: ownTips, records: Array(batch)), session)
        }
    }

    /// The devices whose record at the counter the peer's `tips` name is held here under another
    /// hash (`VaultSync.forksSeen`), with that counter. Clear columns only: no session is opened.
    func forksSeen(of project: WritingProject, held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]]) throws -> [DeviceID: UInt64] {
        guard !tips.isEmpty else { return [:] }
        return try vault.transaction { tx in
            try VaultSync(WritingStore(tx, clock: clock), author: author, devices: [:]).forksSeen(of: project.id, held: held, tips: tips)
        }
    }

    /// Takes the peer's records of the project (after committing local edits), and tells the
    /// coordinator what changed. A record of a signer that no longer writes the project here, past
    /// what is stored of it, is refused (`accessEnded`) and recorded before the rest are verified.
    /// With `skippingHeld`, a record this vault holds (the same hash) is passed over unrecorded: the
    /// asker asked for records it may hold (looking for a fork), so one is no replay.
    /// Refusals are recorded one by one while the peer's budget lasts, the rest as one summary.
    /// `answering`: a push this vault answers (the asker keeps its run's refusals itself, `keepRefusals`).
    func receive(_ records: [[UInt8]], for project: WritingProject, coordinator: SyncCoordinator?, skippingHeld: Bool = false,
                 answering: Bool = false) throws -> SyncReceipt {
        let receipt: SyncReceipt
        let allowance = refusals?.allowance(for: peer.deviceID) ?? .unbounded
        do {
            receipt = try receiveVerified(records, for: project, skippingHeld: skippingHeld, allowance: allowance, coordinator: coordinator,
                                          answering: answering)
            refusals?.spent(peer.deviceID, allowance)
        } catch let error as WritingError where error.code != .privilegedSessionRequired {
            // The receive rolled back, its entries with it: the refusals are recorded afresh.
            let again = refusals?.allowance(for: peer.deviceID) ?? .unbounded
            defer { refusals?.spent(peer.deviceID, again) }
            throw try refuseWriting(records, of: project, error, allowance: again)
        }
        if receipt.stored > 0 {
            coordinator?.changed(project.id, documents: receipt.documents)
            SyncReceiveObservers.shared.stored(in: vault.vault.vaultID, compartment: project.compartment.id, from: peer.deviceID)
        }
        return receipt
    }

    /// The writing store refused what `records` make: the receive rolled back, so none is kept.
    /// Each is recorded as refused (`writingRefused`, with the store's code), and the project is
    /// skipped for this exchange with the reason, never the whole exchange (SECURITY.md §19.9).
    private func refuseWriting(_ records: [[UInt8]], of project: WritingProject, _ error: WritingError,
                               allowance: SyncRefusalAllowance) throws -> SyncError {
        try vault.transaction { tx in
            for bytes in records where allowance.admit() {
                try tx.record(.syncRecordRefused, compartment: project.compartment.id, subject: project.id,
                              details: [.init("reason", SyncErrorCode.writingRefused.rawValue), .init("hash", ByteEncoding.hex(SHA256.hash(bytes))),
                                        .init("writing", error.code.rawValue)])
            }
            if allowance.unrecorded > 0 {
                try tx.record(.syncRecordRefused, compartment: project.compartment.id, subject: project.id,
                              details: [.init("reason", "tooManyRefusals"), .init("unrecorded", String(allowance.unrecorded))])
            }
        }
        return SyncError(.writingRefused, "project \(project.id): the writing store refused what device \(peer.fingerprint)'s records make (\(error.code.rawValue)); none was kept")
    }

    /// A pull of `project` from the peer completed: a restored vault's project no longer waits for
    /// it, and takes changes again once it waits for no device (`restoredPullCompleted`; review 17
    /// s10, N-s10-4; s12, N-s12-3; reviewer 13, N-s13-3: an own device's or a colleague's alike). The
    /// floor is read first, so a project that does not wait opens no session.
    func pulledAll(_ project: WritingProject) throws {
        guard try vault.vault.read({ try OwnRecordFloor(database: $0).floor(of: project.id) }) == OwnRecordFloor.untilOwnPull else { return }
        try withSync(project) { sync, store, _ in
            _ = try sync.restoredPullCompleted(in: project.id, viewOnly: sharedFrom(project.id, in: store)?.access == .viewer,
                                               from: peer.deviceID, mine: peerIsMine)
        }
    }

    /// Ends the wait of every restored project whose awaited devices are all revoked, demoted (an own
    /// device may pass a demotion on in the exchange) or no longer share it (`RestoredOwnRecords.settle`).
    func settleRestoreWaits() throws {
        try vault.transaction { tx in _ = try RestoredOwnRecords.settle(in: tx) }
    }

    private func receiveVerified(_ records: [[UInt8]], for project: WritingProject, skippingHeld: Bool,
                                 allowance: SyncRefusalAllowance, coordinator: SyncCoordinator?, answering: Bool) throws -> SyncReceipt {
        try withSync(project) { sync, store, _ in
            var sync = sync
            sync.hold = hold(of: project, coordinator: coordinator)
            try sync.commitLocalChanges(in: project.id)
            var fresh = skippingHeld ? try records.filter { try !sync.holds(SHA256.hash($0)) } : records
            // This device's set-aside records, sent back by a device that took them, stay set aside,
            // named in the answer, so that an own device sets them aside too (`SyncInitiator.push`).
            let aside = try sync.setAsideHashes(of: project.id)
            let passedOver = aside.isEmpty ? [] : fresh.map { SHA256.hash($0) }.filter(aside.contains).map { hash in
                SyncRefusal(record: hash, error: SyncError(.recordSetAside, "record \(CausalHistory.short(hash)) is set aside here: the project's origin refused it"))
            }
            if !aside.isEmpty { fresh = fresh.filter { !aside.contains(SHA256.hash($0)) } }
            try refuseOverQuota(fresh, of: project, in: store)
            let (signed, ended) = try withoutEndedSigners(fresh, of: project, sync: sync, store: store, allowance: allowance)
            // A device found forking is weighed by the fork rule like any other (SECURITY.md §19.4):
            // refusing its records at once would keep the winner from a vault holding the loser.
            let receipt = try sync.receive(signed, for: project.id, allowance: allowance)
            try chargeQuota(signed, refused: receipt.refused, of: project, in: store)
            // This device's own records a repair lacked are back: it writes the project again (F14).
            _ = try sync.ownRecordsBack(in: project.id, viewOnly: sharedFrom(project.id, in: store)?.access == .viewer, from: peer.deviceID)
            try rememberForks(in: receipt.refused, of: project, sync: sync, store: store)
            if answering { try keepForkRefusals(receipt.refused, pushed: signed, of: project, sync: sync, store: store) }
            guard !(ended + passedOver).isEmpty else { return receipt }
            return SyncReceipt(stored: receipt.stored, refused: ended + passedOver + receipt.refused, documentsWritten: receipt.documentsWritten,
                               branchesMade: receipt.branchesMade, documents: receipt.documents)
        }
    }

    /// The documents a coordinator's clients have open editors on, held by a receive, and how their
    /// held changes are written when the editors close (SECURITY.md §19.9, review 17 F10).
    private func hold(of project: WritingProject, coordinator: SyncCoordinator?) -> SyncHold? {
        guard let coordinator else { return nil }
        let endpoint = HeldStep(endpoint: self)
        return SyncHold(documents: coordinator.openDocuments) { endpoint.writeReleased(project, coordinator: coordinator) }
    }

    /// Writes what was held for `project`'s documents whose editors closed, in a step of its own,
    /// and tells the coordinator; one that fails is left to the project's next step (every receive
    /// writes released documents too).
    func writeReleased(_ project: WritingProject, coordinator: SyncCoordinator) {
        guard let written = try? withSync(project, { sync, _, _ -> Set<NodeID> in
            var sync = sync
            sync.hold = hold(of: project, coordinator: coordinator)
            return try sync.writeReleased(in: project.id)
        }) else { return }
        if !written.isEmpty { coordinator.changed(project.id, documents: written) }
    }

    /// `records` without those signed by an ended signer past its highest counter stored here, and
    /// those, refused and recorded (`sync.record-refused`, reason `accessEnded`).
    private func withoutEndedSigners(_ records: [[UInt8]], of project: WritingProject, sync: VaultSync,
                                     store: SyncExchangeStore, allowance: SyncRefusalAllowance) throws -> ([[UInt8]], [SyncRefusal]) {
        let sentByOrigin = try sharedFrom(project.id, in: store)?.device == peer.deviceID
        let ended = try endedSigners(of: project, among: sync.devices, in: store, sentByOrigin: sentByOrigin)
        guard !ended.isEmpty else { return (records, []) }
        let held = try sync.heldVector(of: project.id)
        var taken: [[UInt8]] = [], refused: [SyncRefusal] = []
        for bytes in records {
            guard let record = try? ChangeRecordCodec.parse(bytes), ended.contains(record.device), record.counter > held[record.device] ?? 0 else {
                taken.append(bytes)
                continue
            }
            let refusal = SyncRefusal(record: record.hash, error: SyncError(.accessEnded,
                "device \(record.device) no longer writes project \(project.id) here: only its \(held[record.device] ?? 0) records stored verify"),
                                      device: record.device)
            if allowance.admit() {
                try sync.transaction.record(.syncRecordRefused, compartment: project.compartment.id, subject: project.id,
                                            details: [.init("reason", refusal.error.code.rawValue), .init("hash", ByteEncoding.hex(record.hash)),
                                                      .init("device", record.device.hex)])
            }
            refused.append(refusal)
        }
        return (taken, refused)
    }

    /// On a push this vault answers: the pushed records it refused by the fork rule (`equivocation`:
    /// a record built on a copy that lost, or such a copy of a number none is held of here) and does
    /// not hold are kept as refused here with the
    /// pushing device (`sync_refusals`), so `sync status` says NOT IN SYNC with it while they are
    /// refused (reviewer 13's fk5: the answering desk said "syncs" while it refused every later record
    /// of a colleague's device built on the copy it left out); a push that has none forgets such a
    /// refusal. Other refusals of an answered push are kept by the asker alone, as before.
    private func keepForkRefusals(_ refusals: [SyncRefusal], pushed: [[UInt8]], of project: WritingProject, sync: VaultSync,
                                  store: SyncExchangeStore) throws {
        var sent: [[UInt8]: [UInt8]] = [:]
        for bytes in pushed { sent[SHA256.hash(bytes)] = bytes }
        var refused = Set<[UInt8]>()
        for refusal in refusals where refusal.error.code == .equivocation {
            guard let hash = refusal.record, let bytes = sent[hash], try !sync.holds(hash),
                  let record = try? ChangeRecordCodec.parse(bytes) else { continue }
            // A copy of a number held here (the other side of a fork, sent so that this vault meets
            // it) is the fork line's to say: only records the walk refuses beyond the fork count.
            guard try sync.tips(of: project.id, at: [record.device: record.counter]).isEmpty else { continue }
            refused.insert(hash)
        }
        let reason = SyncErrorCode.equivocation.rawValue
        guard refused.isEmpty else {
            return try store.keepRefusal(of: project.id, by: peer.deviceID, side: .here, records: refused.count, reasons: [reason], at: clock.now())
        }
        if try store.refusals(of: project.id).contains(where: { $0.peer == peer.deviceID && $0.side == .here && $0.reasons == [reason] }) {
            try store.forgetRefusal(of: project.id, by: peer.deviceID, side: .here)
        }
    }

    /// Remembers each device the receive found forking the project (`equivocation`, naming it),
    /// recorded once per device and project (`sync.fork-found`).
    private func rememberForks(in refusals: [SyncRefusal], of project: WritingProject, sync: VaultSync, store: SyncExchangeStore) throws {
        for device in Set(refusals.filter { $0.error.code == .equivocation }.compactMap(\.device))
            .sorted(by: { $0.bytes.lexicographicallyPrecedes($1.bytes) }) where try store.rememberFork(of: device, in: project.id, at: clock.now()) {
            try sync.transaction.record(.syncForkFound, compartment: project.compartment.id, subject: project.id,
                                        details: [.init("device", device.hex)])
        }
    }

    /// A message carrying `projects`' records or offers (`message`, serialized whole), as the egress
    /// funnel released it for the peer: the only way such a message becomes a `SyncOutgoing`, so
    /// what a transport sends is what the funnel decided on. A refusal or a redaction keeps it here
    /// (the funnel recorded its decision): a signed record cannot be redacted.
    func release(_ message: [UInt8], of projects: [WritingProject], in session: PrivilegedProcessingSession? = nil) throws -> SyncOutgoing {
        let outcome = try Self.refusingInMemory { try funnel.submit(EgressRequest(destination: EgressDestination(kind: .device, id: peer.deviceID.hex),
                                                      compartments: projects.map(\.compartment), payload: message, session: session)) }
        guard outcome.decision == .allow, let released = outcome.released, released.bytes == message else {
            let named = projects.map { "\($0.id)" }.joined(separator: ", ")
            throw SyncExchangeError(.egressRefused, "the egress funnel kept project \(named)'s records from device \(peer.fingerprint) (\(outcome.decision))")
        }
        return SyncOutgoing(released: released)
    }

    /// `body`, its refusal on the in-memory mode's copy (a session or an egress, whose entry the
    /// vault could not keep) thrown as the exchange's `inMemoryMode`, which leaves one project (or
    /// the offer) for the run rather than ending it (SECURITY.md §19.10, review 17 in-memory item 5c).
    static func refusingInMemory<Result>(_ body: () throws -> Result) throws -> Result {
        do { return try body() } catch let error as PrivilegedSessionError where error.code == .inMemoryMode {
            throw SyncExchangeError(.inMemoryMode, error.message)
        }
    }

    /// Records a refusal of the peer's request in the audit log (ids, codes and counts in `details`),
    /// as the peer's budget allows, and the one summary once it is passed (`tooManyRefusals`).
    /// Returns whether this refusal's own entry was written.
    @discardableResult
    func recordRefusal(_ request: String, reason: String, project: ProjectID? = nil, details extra: [VaultEvent.Detail] = []) -> Bool {
        guard let refusals else { return writeRefusal(request, reason: reason, project: project, details: extra) }
        let charge = refusals.charge(peer.deviceID, 1)
        let written = charge.record && writeRefusal(request, reason: reason, project: project, details: extra)
        if charge.summarise { recordRefusalSummary(request) }
        return written
    }

    /// The one entry of a budget's window saying the peer's refusals passed its bound.
    func recordRefusalSummary(_ request: String) {
        guard let refusals else { return }
        writeRefusal(request, reason: SyncExchangeErrorCode.tooManyRefusals.rawValue,
                     details: [.init("bound", String(refusals.bound)), .init("seconds", String(Int(refusals.seconds)))])
    }

    /// The entry itself, unbudgeted; whether the vault kept it.
    @discardableResult
    func writeRefusal(_ request: String, reason: String, project: ProjectID? = nil, details extra: [VaultEvent.Detail] = []) -> Bool {
        var details: [VaultEvent.Detail] = [.init("peer", peer.deviceID.hex), .init("request", request), .init("reason", reason)]
        if let project { details.append(.init("project", project.hex)) }
        return (try? vault.record(VaultEvent(.syncExchangeRefused, details: details + extra))) != nil
    }

    /// Records that `project` was left for this exchange, and why (its code), and keeps the reason
    /// for `sync status` (`sync_project_skips`) until the project next syncs with this device.
    /// `once`: not recorded again while the kept reason has the same code.
    func recordSkipped(_ project: ProjectID, reason: String, message: String, once: Bool = false) {
        try? vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            let known = try once && store.skipReason(of: project, by: peer.deviceID)?.hasPrefix("\(reason):") == true
            try store.setSkipped(project, by: peer.deviceID, reason: "\(reason): \(message)", at: clock.now())
            guard !known else { return }
            try tx.record(.syncProjectSkipped, details: [.init("peer", peer.deviceID.hex), .init("project", project.hex), .init("reason", reason)])
        }
    }

    /// The project synced with this device: the reason it was left before (if any) is forgotten.
    func clearSkipped(_ project: ProjectID) {
        try? vault.transaction { tx in try SyncExchangeStore(database: tx.database).clearSkipped(project, by: peer.deviceID) }
    }

    /// Records that the peer refused `records` of this vault's records of `project`, and why (the
    /// peer names the reasons: charged to its budget like a refusal here).
    func recordPushRefused(_ project: ProjectID, reason: String, records: Int) {
        if let refusals {
            let charge = refusals.charge(peer.deviceID, 1)
            if charge.summarise { recordRefusalSummary(SyncWire.pushKind) }
            guard charge.record else { return }
        }
        try? vault.record(VaultEvent(.syncPushRefused, details: [.init("peer", peer.deviceID.hex), .init("project", project.hex),
                                                                 .init("reason", reason), .init("records", String(records))]))
    }
}

extension SyncEndpoint {
    /// Every record of the project `held` lacks, parents first.
    /// The records `held` lacks, then `extra`, cut into push batches, each released to the peer in
    /// the session they were read in (F17-9), with how many records it carries.
    func releasedPushes(_ project: WritingProject, from held: [DeviceID: UInt64], also extra: [[UInt8]]) throws -> [(message: SyncOutgoing, records: Int)] {
        try inSession(project) { session in
            let missing = try withSync(project, in: session) { sync, _, _ in try sync.storedRecords(of: project, missingFrom: held) } + extra
            var batches: [(message: SyncOutgoing, records: Int)] = []
            var rest = missing[...]
            while !rest.isEmpty {
                let batch = try SyncWire.batch(rest)
                rest = rest[batch.endIndex...]
                batches.append((try release(SyncPushRequest(project: project.id, records: Array(batch)).serialized(), of: [project], in: session), batch.count))
            }
            return batches
        }
    }

    /// The copies this vault's fork rule left out at each fork met (`VaultSync.leftOutCopies`).
    func leftOutCopies(_ project: WritingProject, at numbers: [DeviceID: UInt64]) throws -> [[UInt8]] {
        guard !numbers.isEmpty else { return [] }
        return try withSync(project) { sync, _, _ in try sync.leftOutCopies(of: project, at: numbers) }
    }
}

/// An endpoint kept for the step that writes what an editor held (`HeldDocuments`), run on the
/// thread that closed the editor.
private struct HeldStep: @unchecked Sendable {
    // Unchecked: the endpoint's vault, funnel and cache are safe to use from any thread, and the
    // step runs once per close, each in its own transaction.
    let endpoint: SyncEndpoint

    func writeReleased(_ project: WritingProject, coordinator: SyncCoordinator) {
        endpoint.writeReleased(project, coordinator: coordinator)
    }
}
