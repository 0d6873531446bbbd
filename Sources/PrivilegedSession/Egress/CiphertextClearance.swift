import CryptoVault

/// The funnel's decision on bytes it cannot read (SECURITY.md §10.5): a bundle's ciphertext for a
/// replica, a share grant for another device. It decides on the metadata alone, as the policy of
/// every compartment the bytes come from says for that destination (the leak guard has nothing to
/// scan), records the decision as an `egress.decision` entry like any other (with `content` =
/// `ciphertext`), and only for an allow hands back the `EgressClearance` the transport demands.
/// This is the one place an `EgressClearance` is made.
extension EgressFunnel: EgressClearing {
    public func clear(_ egress: CiphertextEgress) throws -> EgressClearance {
        try refuseOnInMemoryCopy()
        guard !egress.compartmentIDs.isEmpty else {
            throw PrivilegedSessionError(.invalidEgressRequest, "an egress request names the compartments its content derives from")
        }
        let compartments = try egress.compartmentIDs.map { try vault.compartment(withID: $0) }
        let destination = Self.destination(of: egress)
        var decision = policy.decide(destination, compartments: compartments, found: false)
        if !isKnown(destination) { decision = .refuse }
        let record = EgressRecord(destination: destination.description, compartmentIDs: egress.compartmentIDs, decision: decision,
                                  findings: [:], payloadSHA256: egress.sha256, payloadSize: Int(clamping: egress.size))
        let single = egress.compartmentIDs.count == 1 ? egress.compartmentIDs[0] : nil
        try vault.record(VaultEvent(.egressDecision, compartmentID: single, details: record.details + [.init("content", "ciphertext")]))
        guard decision == .allow else {
            throw PrivilegedSessionError(.egressRefused, "the egress policy keeps this content from \(destination): nothing was sent")
        }
        return EgressClearance(recordedDecisionFor: egress)
    }

    static func destination(of egress: CiphertextEgress) -> EgressDestination {
        switch egress.destination {
        case .pairedDevice(let deviceID): EgressDestination(kind: .device, id: deviceID.hex)
        case .share(let deviceID): EgressDestination(kind: .share, id: deviceID.hex)
        }
    }
}
