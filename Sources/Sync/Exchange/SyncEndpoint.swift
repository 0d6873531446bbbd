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
    public let peer: DeviceProfile
    /// The peer's trust level here (nil for an older pairing: someone else's).
    public let peerTrust: DeviceTrust?
    let pairings: [FamilyPairing]
    let trusted: Set<DeviceID>
    let funnel: EgressFunnel
    let clock: VaultClock

    public init(vault: UnlockedVault, peer: DeviceProfile, clock: VaultClock = .system) throws {
        self.vault = vault
        self.peer = peer
        self.clock = clock
        let keys = try vault.deviceKeys()
        author = SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey)
        pairings = try vault.vault.familyPairings()
        trusted = Set(try pairings.filter { try vault.vault.trust(of: $0.peer.deviceID) == .mine }.map(\.peer.deviceID))
        peerTrust = try vault.vault.trust(of: peer.deviceID)
        funnel = try EgressFunnel(vault: vault, policy: Self.policy(ownDevice: peerTrust == .mine))
    }

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
        if peerIsMine { return .success(.mine) }
        if project.isPrivileged {
            return .failure(SyncExchangeError(.privilegedRefused, "project \(project.id) is privileged: it syncs only with the owner's own devices"))
        }
        if let role = try store.share(of: project.compartment.id, with: peer.deviceID) { return .success(role == .editor ? .editor : .viewer) }
        // The project came from the peer (its owner shared it with this device): the owner syncs it.
        if let origin = try store.origin(of: project.id), origin.device == peer.deviceID { return .success(.editor) }
        return .failure(SyncExchangeError(.notShared, "project \(project.id) is not shared with device \(peer.fingerprint)"))
    }

    /// The devices whose records `project` takes here: this one, the owner's own, the devices the
    /// project's offers vouched for, its editors, and the device it came from. Each is kept in the
    /// project's roster as it is taken, so the records it signed still verify when the replica is
    /// rebuilt after its share is revoked or its pairing removed; what a device may still send is
    /// decided before any record is read (`access`), not by the roster.
    func devices(for project: WritingProject, in store: SyncExchangeStore) throws -> [DeviceID: [UInt8]] {
        var allowed: [DeviceID: [UInt8]] = [author.device: author.key.publicKey]
        let byID = Dictionary(uniqueKeysWithValues: pairings.map { ($0.peer.deviceID, $0.peer.signingPublicKey) })
        for device in trusted { allowed[device] = byID[device] }
        if !project.isPrivileged {
            for editor in try store.editors(of: project.compartment.id) { allowed[editor] = byID[editor] }
            if let origin = try store.origin(of: project.id) { allowed[origin.device] = byID[origin.device] }
        }
        var keys = try store.roster(of: project.id)
        let fresh = allowed.filter { keys[$0.key] == nil }
        try store.addSigners(fresh, of: project.id)
        keys.merge(fresh) { kept, _ in kept }
        return keys
    }

    // MARK: Vault work

    /// The project, or nil when this vault holds none with that id.
    func project(_ id: ProjectID) throws -> WritingProject? {
        try vault.transaction { tx in try? WritingStore(tx).project(id) }
    }

    /// Runs `body` in one transaction with the project's sync, inside a session of its compartment
    /// when it is privileged (opened for this step, ended after it, both recorded).
    func withSync<Result>(_ project: WritingProject, _ body: (VaultSync, SyncExchangeStore, RecordAccess) throws -> Result) throws -> Result {
        var session: PrivilegedProcessingSession?
        if project.isPrivileged {
            session = try PrivilegedProcessingSession.start(vault: vault, compartment: project.compartment, actor: "sync",
                                                            purpose: "sync with paired device \(peer.fingerprint)")
        }
        defer { try? session?.end() }
        let access: RecordAccess = session.map { .session($0) } ?? .vault
        return try vault.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            let sync = VaultSync(WritingStore(tx, access: access, clock: clock), author: author, devices: try devices(for: project, in: store))
            return try body(sync, store, access)
        }
    }

    /// This vault's own edits of the project committed as a record, then its version vector.
    func commitAndHeld(_ project: WritingProject) throws -> [DeviceID: UInt64] {
        try withSync(project) { sync, _, _ in
            try sync.commitLocalChanges(in: project.id)
            return try sync.heldVector(of: project.id)
        }
    }

    /// The records `held` lacks (a batch of them, parents first), whether more remain, and this
    /// vault's version vector; local edits are committed first.
    func missing(_ project: WritingProject, from held: [DeviceID: UInt64]) throws -> SyncPullAnswer {
        let (records, vector) = try withSync(project) { sync, _, _ in
            try sync.commitLocalChanges(in: project.id)
            return (try sync.storedRecords(of: project, missingFrom: held), try sync.heldVector(of: project.id))
        }
        let batch = try SyncWire.batch(records[...])
        return SyncPullAnswer(more: batch.count < records.count, held: vector, records: Array(batch))
    }

    /// Takes the peer's records of the project (after committing local edits), and tells the
    /// coordinator what changed.
    func receive(_ records: [[UInt8]], for project: WritingProject, coordinator: SyncCoordinator?) throws -> SyncReceipt {
        let receipt = try withSync(project) { sync, _, _ in
            try sync.commitLocalChanges(in: project.id)
            return try sync.receive(records, for: project.id)
        }
        if receipt.stored > 0 { coordinator?.changed(project.id, documents: receipt.documentsWritten) }
        return receipt
    }

    /// Records for a project this vault does not hold: refused (`unknownCompartment`) and recorded.
    func refuseUnknown(_ records: [[UInt8]], for project: ProjectID) throws -> SyncReceipt {
        let keys = try vault.deviceKeys()
        return try vault.transaction { tx in
            try VaultSync(WritingStore(tx), author: SyncAuthor(device: keys.profile.deviceID, key: keys.signingKey), devices: [:])
                .receive(records, for: project)
        }
    }

    /// The bytes of `records` for the peer, once the egress funnel released them unchanged; a
    /// refusal or a redaction keeps them here (the funnel recorded its decision).
    func release(_ records: [[UInt8]], of project: WritingProject) throws {
        guard !records.isEmpty else { return }
        var payload: [UInt8] = []
        for record in records { payload += record }
        let outcome = try funnel.submit(EgressRequest(destination: EgressDestination(kind: .device, id: peer.deviceID.hex),
                                                      compartments: [project.compartment], payload: payload))
        guard outcome.decision == .allow, outcome.released?.bytes.count == payload.count else {
            throw SyncExchangeError(.egressRefused, "the egress funnel kept project \(project.id)'s records from device \(peer.fingerprint) (\(outcome.decision))")
        }
    }

    /// Records a refusal of the peer's request in the audit log.
    func recordRefusal(_ request: String, reason: String, project: ProjectID? = nil) {
        var details: [VaultEvent.Detail] = [.init("peer", peer.deviceID.hex), .init("request", request), .init("reason", reason)]
        if let project { details.append(.init("project", project.hex)) }
        try? vault.record(VaultEvent(.syncExchangeRefused, details: details))
    }
}

extension SyncEndpoint {
    /// Every record of the project `held` lacks, parents first.
    func missingAll(_ project: WritingProject, from held: [DeviceID: UInt64]) throws -> [[UInt8]] {
        try withSync(project) { sync, _, _ in try sync.storedRecords(of: project, missingFrom: held) }
    }
}
