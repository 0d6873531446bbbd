import CryptoVault

/// What one `replicate` did.
public struct ReplicationReport: Sendable, Equatable {
    /// Bundles the peer now holds that it did not hold complete before.
    public var sentBundles: [BundleID] = []
    /// Bundles the peer already held, byte for byte.
    public var unchangedBundles = 0
    /// Bundle bytes sent in chunks (what a resumed transfer did not have to send again is not counted).
    public var bytesSent: UInt64 = 0

    public init() {}
}

/// What one `restore` did.
public struct RestoreReport: Sendable {
    /// Bundles whose file was put back and verified.
    public var restoredBundles: [BundleID] = []
    /// Bundles that needed restoring but of which the peer holds no complete replica.
    public var unavailableBundles: [BundleID] = []
    /// Bundles whose copy from the peer was refused, with the reason.
    public var refusedBundles: [(bundleID: BundleID, reason: PeerChannelError)] = []
    public var bytesReceived: UInt64 = 0

    public init() {}

    /// Whether every bundle that needed it was restored.
    public var isComplete: Bool { unavailableBundles.isEmpty && refusedBundles.isEmpty }
}
