/// How much this device keeps for each paired device (SECURITY.md §9.10): a peer cannot make it store
/// more than this, whatever it announces.
public struct ReplicaPolicy: Sendable {
    /// The longest bundle file accepted from a peer.
    public var maximumBundleLength: UInt64
    /// The most bytes of replicas (complete and partial, by announced length) kept for one peer.
    public var maximumBytesPerSource: UInt64

    public static let defaultMaximumBundleLength: UInt64 = 16 << 30
    public static let defaultMaximumBytesPerSource: UInt64 = 256 << 30

    public init(maximumBundleLength: UInt64 = defaultMaximumBundleLength,
                maximumBytesPerSource: UInt64 = defaultMaximumBytesPerSource) {
        self.maximumBundleLength = maximumBundleLength
        self.maximumBytesPerSource = maximumBytesPerSource
    }
}
