import CryptoVault

/// The host's hold on its one-time code (SECURITY.md §9.7): it serves at most 3 failed attempts and
/// one successful pairing, and only for 5 minutes after it was shown. CPace gives an attacker one
/// guess per attempt, so these two bounds cap what guessing can achieve at 3 in 2^50.
public struct PairingCodeLease: Sendable {
    public static let lifetimeSeconds: Double = 300
    public static let maximumFailedAttempts = 3


    public let code: PairingCode
    public private(set) var failedAttempts = 0
    public private(set) var isUsed = false
    private let issuedAt: Double
    /// Read forward-only (`monotonic`), so setting the wall clock back cannot lengthen a code's
    /// life; tests pass their own.
    private let clock: VaultClock

    public init(code: PairingCode, clock: VaultClock = .system) {
        self.code = code
        self.clock = clock
        self.issuedAt = clock.monotonic()
    }

    /// Seconds left before the code expires (0 once it has).
    public var remainingSeconds: Double { max(0, Self.lifetimeSeconds - (clock.monotonic() - issuedAt)) }

    /// Whether the code can serve another attempt; throws the reason when it cannot.
    public func checkUsable() throws(PeerChannelError) {
        guard !isUsed, failedAttempts < Self.maximumFailedAttempts else {
            throw PeerChannelError(.pairingCodeExhausted, isUsed
                ? "this pairing code has already paired a device; show a new one"
                : "this pairing code failed \(Self.maximumFailedAttempts) times and is dead; show a new one")
        }
        guard remainingSeconds > 0 else {
            throw PeerChannelError(.pairingCodeExpired, "this pairing code expired after \(Int(Self.lifetimeSeconds / 60)) minutes; show a new one")
        }
    }

    mutating func recordFailure() { failedAttempts += 1 }

    mutating func recordSuccess() { isUsed = true }
}
