import CryptoVault

/// A payload that wants to leave the vault: where to, which compartments its content derives from,
/// the bytes, and the privileged session it was read in, if it was (a privileged export needs one).
public struct EgressRequest: Sendable {
    public let destination: EgressDestination
    public let compartments: [VaultCompartment]
    public let payload: [UInt8]
    public let session: PrivilegedProcessingSession?
    /// How a `redact` decision names what it took out: typed (`[EMAIL]`), or numbered (`[EMAIL-1]`)
    /// for a caller that puts the values back in an answer on the vault's side (a model call, §17.1).
    public let placeholders: PlaceholderStyle

    public init(destination: EgressDestination, compartments: [VaultCompartment], payload: [UInt8],
                session: PrivilegedProcessingSession? = nil, placeholders: PlaceholderStyle = .typed) {
        self.destination = destination
        self.compartments = compartments
        self.payload = payload
        self.session = session
        self.placeholders = placeholders
    }
}

/// Bytes the funnel let out, for one destination. Only `EgressFunnel` makes one (its initializer is
/// not public), and every transport that carries bytes out of the vault takes one instead of bytes:
/// so a payload that did not pass the funnel has no type in which it could be sent.
public struct ReleasedPayload: Sendable {
    public let destination: EgressDestination
    public let bytes: [UInt8]
    /// Whether any compartment the content came from is privileged: a transport to a model checks
    /// it against what it knows of its peer (a provider not marked local refuses it, SECURITY.md §17.2).
    public let carriesPrivilegedContent: Bool

    init(destination: EgressDestination, bytes: [UInt8], of compartments: [VaultCompartment]) {
        self.destination = destination
        self.bytes = bytes
        self.carriesPrivilegedContent = compartments.contains(where: \.isPrivileged)
    }
}

/// The funnel's answer: the decision, what the leak guard found, and the payload it lets out (the
/// original for allow, the redacted one for redact, nothing for refuse).
public struct EgressOutcome: Sendable {
    public let record: EgressRecord
    public let findings: [LeakHit]
    public let released: ReleasedPayload?
    /// For a numbered redaction, what each placeholder in the released bytes replaced (clear bytes
    /// that never leave: the caller uses them to restore an answer inside the vault); else empty.
    public let redactions: [String: [UInt8]]

    public var decision: EgressDecision { record.decision }
}
