import AuditChain
import CryptoVault
import Foundation
import PeerChannel

/// Replication of 1 GiB of bundles between two paired vaults through the replication service: the
/// source hashes and reads each bundle file, the keeper writes, fsyncs and hashes each chunk, and both
/// record audit entries. The requester hands requests straight to the keeper's service (in memory),
/// so the figure is the replication path itself; over the loopback channel it adds the channel's cost.
/// The target is at least 300 MB/s.
enum ReplicationBenchmarks {
    static let bundleCount = 16
    static let bundleSize = 64 << 20

    static func run() throws {
        // tmpfs when there is one: the figure is then the replication path itself (hashing, copying,
        // syncing, verifying, auditing), not the disk's bandwidth, which bounds any durable copy.
        let inMemory = FileManager.default.fileExists(atPath: "/dev/shm")
        let root = (inMemory ? "/dev/shm/" : NSTemporaryDirectory()) + "vaultbench-replication-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let (source, keeper) = try pairedVaults(in: root)
        let compartment = try source.vault.createCompartment(named: "bench", register: .general)
        for index in 0..<bundleCount {
            let input = "\(root)/input-\(index)"
            try RandomFile.create(input, size: bundleSize)
            _ = try source.vault.put(from: try FileDescriptor.openForReading(input), compartment: compartment,
                                     metadata: BundleMetadata(name: "bench-\(index)", modificationTime: 0))
            unlink(input)
        }
        let channel = DirectRequester(from: source.profile, to: keeper.profile, service: ReplicationService(vault: keeper.vault))
        let replicator = Replicator(vault: source.vault, channel: channel)
        var report = ReplicationReport()
        let seconds = try Benchmark.seconds { report = try replicator.replicate() }
        let again = try Benchmark.seconds { _ = try replicator.replicate() }
        Benchmark.section("Replication of \(bundleCount) bundles of \(bundleSize >> 20) MiB (1 GiB) to a paired vault, in-memory requester")
        Benchmark.verdict("replicate (hash, send, fsync, verify, audit)", Double(report.bytesSent) / seconds / 1e6, "MB/s", atLeast: 300)
        Benchmark.report("second run (hashes everything, sends nothing)", again * 1000, "ms")
        Benchmark.note(inMemory ? "both vaults on /dev/shm (tmpfs): a disk adds its own write bandwidth as a bound"
                                : "both vaults in \(NSTemporaryDirectory()) (no /dev/shm): the disk's write bandwidth is part of the figure")
    }

    private static func pairedVaults(in root: String) throws -> (source: BenchDevice, keeper: BenchDevice) {
        let source = try BenchDevice(root + "/source", name: "source")
        let keeper = try BenchDevice(root + "/keeper", name: "keeper")
        try source.vault.storePairing(FamilyPairing(peer: keeper.profile, role: .join, pairedAt: 0))
        try keeper.vault.storePairing(FamilyPairing(peer: source.profile, role: .host, pairedAt: 0))
        return (source, keeper)
    }
}

/// An audited vault with its device identity.
private struct BenchDevice {
    let vault: UnlockedVault
    let profile: DeviceProfile

    init(_ directory: String, name: String) throws {
        vault = try Vault.create(at: directory, passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                 kdf: .argon2idFloor, journal: AuditLog())
        profile = try vault.deviceKeys(nameIfNew: name).profile
    }
}

/// Hands each request to the peer's service in this process, as the channel does after it
/// authenticated both sides.
private final class DirectRequester: ChannelRequesting {
    let peer: DeviceProfile
    private let local: DeviceProfile
    private let service: any ChannelService

    init(from local: DeviceProfile, to peer: DeviceProfile, service: any ChannelService) {
        self.local = local
        self.peer = peer
        self.service = service
    }

    func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
        try service.respond(to: kind, body: body, from: local)
    }
}
