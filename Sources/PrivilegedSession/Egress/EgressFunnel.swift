import CryptoVault

/// The one way out of the vault. Every byte bound for outside (a plaintext export, a share, a model
/// call, a sync) passes `submit`, which scans the payload with the leak guard, applies the policy of
/// every compartment the content derives from, records the decision in the audit log, and only then
/// hands back a `ReleasedPayload`, the type every outbound transport takes.
///
/// A destination must also be one the vault knows: `vault:` names this vault (its id in hex, or
/// `self`), and `device:` one of the owner's paired devices (its device id in hex, as `vaultctl peers
/// list` shows it); any other id there is refused. A privileged compartment's content (or keys) goes
/// to a device only if it is the owner's own (`DeviceTrust.mine`, set at pairing or by `vaultctl peers
/// trust`): to someone else's paired device it is refused, and the refusal recorded (SECURITY.md §19.8).
public final class EgressFunnel: Sendable {
    public let policy: EgressPolicy
    let vault: UnlockedVault
    private let leakGuard: LeakGuard
    /// The vault's fingerprints of privileged documents, looked up for each payload: when no
    /// `leakGuard` was given (`StoredFingerprints`; loading them all cost each funnel more with every
    /// privileged word, review 17 s14, N-s14-2).
    private let storedFingerprints: StoredFingerprints?
    private let pairedDevices: Set<String>
    private let ownDevices: Set<String>

    /// `leakGuard` defaults to one with the vault's fingerprints of privileged documents (§11.7),
    /// `pairedDevices` to the vault's pairings (§9.7), `ownDevices` to those of them trusted as the
    /// owner's own (§19.8).
    public init(vault: UnlockedVault, policy: EgressPolicy = EgressPolicy(), leakGuard: LeakGuard? = nil,
                pairedDevices: Set<String>? = nil, ownDevices: Set<String>? = nil) throws {
        self.vault = vault
        self.policy = policy
        self.leakGuard = leakGuard ?? LeakGuard()
        self.storedFingerprints = leakGuard == nil ? try StoredFingerprints(of: vault) : nil
        let pairings = try vault.vault.familyPairings()
        self.pairedDevices = pairedDevices ?? Set(pairings.map(\.peer.deviceID.hex))
        self.ownDevices = try ownDevices ?? Set(pairings.filter { try vault.vault.trust(of: $0.peer.deviceID) == .mine }.map(\.peer.deviceID.hex))
    }

    /// Decides, records, and releases what may leave. Throws only when the request is malformed or
    /// the decision cannot be recorded; in that case nothing is released.
    public func submit(_ request: EgressRequest) throws -> EgressOutcome {
        try refuseOnInMemoryCopy()
        let (record, findings) = try decide(request)
        let single = request.compartments.count == 1 ? request.compartments[0].id : nil
        try vault.record(VaultEvent(.egressDecision, compartmentID: single, details: record.details))
        return release(request, record: record, findings: findings)
    }

    /// Nothing leaves from the in-memory mode's copy of a vault (SECURITY.md §19.10): the decision's
    /// audit entry would be kept only in the copy, removed when the process ends (review 17, F3).
    func refuseOnInMemoryCopy() throws {
        guard let reason = vault.vault.inMemoryCopyReason else { return }
        throw PrivilegedSessionError(.inMemoryMode, InMemoryCopyMarker.refusal(of: "an egress", reason: reason))
    }

    /// What `submit` would decide for `request`, without recording it or releasing anything: for a
    /// screen that shows the decision before a person confirms the send (which then passes `submit`,
    /// and is decided and recorded again there).
    public func preview(_ request: EgressRequest) throws -> EgressRecord {
        try decide(request).record
    }

    private func decide(_ request: EgressRequest) throws -> (record: EgressRecord, findings: [LeakHit]) {
        guard !request.compartments.isEmpty else {
            throw PrivilegedSessionError(.invalidEgressRequest, "an egress request names the compartments its content derives from")
        }
        let findings = try storedFingerprints.map { try LeakGuard.scan(request.payload, quoting: $0) } ?? leakGuard.scan(request.payload)
        var decision = policy.decide(request.destination, compartments: request.compartments, found: !findings.isEmpty,
                                     session: Self.openCompartment(of: request.session))
        if !isKnown(request.destination) { decision = .refuse }
        // Privileged content reaches a device only if it is the owner's own.
        if request.destination.kind == .device, request.compartments.contains(where: \.isPrivileged),
           !ownDevices.contains(request.destination.id) { decision = .refuse }
        let record = EgressRecord(destination: request.destination.description, compartmentIDs: request.compartments.map(\.id),
                                  decision: decision, findings: Self.counts(findings),
                                  payloadSHA256: SHA256.hash(request.payload), payloadSize: request.payload.count,
                                  sessionID: request.session?.idString)
        return (record, findings)
    }

    private func release(_ request: EgressRequest, record: EgressRecord, findings: [LeakHit]) -> EgressOutcome {
        func outcome(_ bytes: [UInt8]?, _ redactions: [String: [UInt8]] = [:]) -> EgressOutcome {
            EgressOutcome(record: record, findings: findings,
                          released: bytes.map { ReleasedPayload(destination: request.destination, bytes: $0, of: request.compartments) },
                          redactions: redactions)
        }
        switch (record.decision, request.placeholders) {
        case (.allow, _): return outcome(request.payload)
        // The hits of the scan the decision was made on (the payload is not scanned twice).
        case (.redact, .typed): return outcome(request.payload.withUnsafeBufferPointer { Redaction.apply(findings, to: $0) })
        case (.redact, .numbered):
            let (redacted, values) = request.payload.withUnsafeBufferPointer { Redaction.numbered(findings, in: $0) }
            return outcome(redacted, values)
        case (.refuse, _): return outcome(nil)
        }
    }

    func isKnown(_ destination: EgressDestination) -> Bool {
        switch destination.kind {
        case .vault: destination.id == "self" || destination.id == vault.vault.vaultID.hex
        case .device: pairedDevices.contains(destination.id)
        case .file, .share, .model, .sync: true
        }
    }

    /// The compartment of `session` if it is still open: an ended or expired one vouches for nothing
    /// (checking it counts as a use, as a read would, and ends it if a limit has passed).
    private static func openCompartment(of session: PrivilegedProcessingSession?) -> CompartmentID? {
        guard let session, (try? session.beginUse()) != nil else { return nil }
        return session.compartment.id
    }

    static func counts(_ findings: [LeakHit]) -> [String: Int] {
        findings.reduce(into: [:]) { counts, hit in counts[hit.kind.rawValue, default: 0] += 1 }
    }
}
