/// How much this device keeps for each paired device (SECURITY.md §9.13): a peer cannot make it store
/// more than this, whatever it announces. And how often a transfer is made durable.
public struct ReplicaPolicy: Sendable {
    /// The longest bundle file accepted from a peer.
    public var maximumBundleLength: UInt64
    /// The most bytes of replicas (complete and partial, by announced length) kept for one peer.
    public var maximumBytesPerSource: UInt64
    /// The most replicas (rows and files) kept for one peer, however small each one is.
    public var maximumReplicasPerSource: Int

    /// How many bytes of a transfer may be written before the keeper fsyncs them and counts them as
    /// received: what an interrupted transfer may have to send again. Fsyncing every chunk would make
    /// the disk's sync latency, not its bandwidth, the limit.
    public var syncInterval: UInt64

    public static let defaultMaximumBundleLength: UInt64 = 16 << 30
    public static let defaultMaximumBytesPerSource: UInt64 = 256 << 30
    public static let defaultMaximumReplicasPerSource = 1 << 20
    public static let defaultSyncInterval: UInt64 = 64 << 20

    public init(maximumBundleLength: UInt64 = defaultMaximumBundleLength, maximumBytesPerSource: UInt64 = defaultMaximumBytesPerSource,
                maximumReplicasPerSource: Int = defaultMaximumReplicasPerSource, syncInterval: UInt64 = defaultSyncInterval) {
        self.maximumBundleLength = maximumBundleLength
        self.maximumBytesPerSource = maximumBytesPerSource
        self.maximumReplicasPerSource = maximumReplicasPerSource
        self.syncInterval = syncInterval
    }
}
