import AuditChain
import CryptoVault
import Foundation
import PeerChannel
import PrivilegedSession

/// Replication of 1 GiB of bundles between two paired vaults through the replication service: the
/// source hashes and reads each bundle file, the keeper writes, fsyncs and hashes each chunk, and both
/// record audit entries. Once with a requester that hands requests straight to the keeper's service
/// (in memory: the replication path itself), once over the real channel on loopback (Noise, TCP,
/// the keeper's server thread), each to its own keeper.
/// The target is at least 300 MB/s.
enum ReplicationBenchmarks {
    static let bundleCount = 16
    static let bundleSize = 64 << 20

    static func run() throws {
        // tmpfs when there is one: the figure is then the replication path itself (hashing, copying,
        // syncing, verifying, auditing), not the disk's bandwidth, which bounds any durable copy.
        let onTmpfs = FileManager.default.fileExists(atPath: "/dev/shm")
        let parent = onTmpfs ? "/dev/shm/" : NSTemporaryDirectory()
        removeFoldersOfEndedRuns(in: parent)
        let root = parent + folderPrefix + "\(getpid())"
        defer { remove(root) }
        let source = try BenchDevice(root + "/source", name: "source")
        let keeper = try BenchDevice(root + "/keeper", name: "keeper")
        try pair(source, keeper)
        let compartment = try source.vault.createCompartment(named: "bench", register: .general)
        for index in 0..<bundleCount {
            let input = "\(root)/input-\(index)"
            try RandomFile.create(input, size: bundleSize)
            _ = try source.vault.put(from: try FileDescriptor.openForReading(input), compartment: compartment,
                                     metadata: BundleMetadata(name: "bench-\(index)", modificationTime: 0))
            unlink(input)
        }
        let direct = DirectRequester(from: source.profile, to: keeper.profile, service: ReplicationService(vault: keeper.vault))
        let inMemory = try measure(Replicator(vault: source.vault, channel: direct, clearing: try EgressFunnel(vault: source.vault)))
        // A second keeper, reached over the real channel (Noise over loopback TCP, its own thread).
        let distant = try BenchDevice(root + "/distant", name: "distant")
        try pair(source, distant)
        let server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: distant.keys,
                                       pinnedPeers: { [vault = distant.vault.vault] in try vault.familyPairings() },
                                       services: [ReplicationService(vault: distant.vault)])
        server.start()
        defer { server.stop() }
        let client = try ChannelClient(connectingTo: server.address, localKeys: source.keys, peer: distant.profile)
        let overChannel = try measure(Replicator(vault: source.vault, channel: client, clearing: try EgressFunnel(vault: source.vault)))
        Benchmark.section("Replication of \(bundleCount) bundles of \(bundleSize >> 20) MiB (1 GiB) to a paired vault")
        Benchmark.verdict("in-memory requester", inMemory.rate, "MB/s", atLeast: 300)
        Benchmark.verdict("over the channel on loopback", overChannel.rate, "MB/s", atLeast: 300)
        Benchmark.report("second run (hashes everything, sends nothing)", inMemory.again * 1000, "ms")
        Benchmark.note(onTmpfs ? "the vaults are on /dev/shm (tmpfs): a disk adds its own write bandwidth as a bound"
                               : "the vaults are in \(NSTemporaryDirectory()) (no /dev/shm): the disk's write bandwidth is part of the figure")
    }

    static let folderPrefix = "vaultbench-replication-"

    /// Removes the folders of earlier runs whose process has ended without removing its own (killed,
    /// out of memory): each holds about 2 GiB, on tmpfs in memory, so a few of them exhaust it.
    private static func removeFoldersOfEndedRuns(in parent: String) {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []
        for name in names where name.hasPrefix(folderPrefix) {
            guard let pid = pid_t(name.dropFirst(folderPrefix.count)), kill(pid, 0) != 0, errno == ESRCH else { continue }
            remove(parent + name)
        }
    }

    /// Removes a run's folder, saying so if it cannot: a folder left behind takes its memory with it.
    /// Tried again when a file vanishes under the removal (SQLite deletes a database's -shm and -wal
    /// files when its last connection closes), which makes FileManager give up on the whole folder.
    private static func remove(_ folder: String) {
        for attempt in 1...3 {
            do {
                try FileManager.default.removeItem(atPath: folder)
                return
            } catch {
                guard FileManager.default.fileExists(atPath: folder) else { return }
                if attempt == 3 { FileHandle.standardError.write(Data("vaultbench: cannot remove \(folder): \(error)\n".utf8)) }
            }
        }
    }

    /// MB/s of a first replication, and the seconds of a second one (which sends nothing).
    private static func measure(_ replicator: Replicator) throws -> (rate: Double, again: Double) {
        var report = ReplicationReport()
        let seconds = try Benchmark.seconds { report = try replicator.replicate() }
        let again = try Benchmark.seconds { _ = try replicator.replicate() }
        return (Double(report.bytesSent) / seconds / 1e6, again)
    }

    private static func pair(_ source: BenchDevice, _ keeper: BenchDevice) throws {
        try source.vault.storePairing(FamilyPairing(peer: keeper.profile, role: .join, pairedAt: 0))
        try keeper.vault.storePairing(FamilyPairing(peer: source.profile, role: .host, pairedAt: 0))
    }
}

/// An audited vault with its device identity.
private struct BenchDevice {
    let vault: UnlockedVault
    let keys: DeviceKeys
    var profile: DeviceProfile { keys.profile }

    init(_ directory: String, name: String) throws {
        vault = try Vault.create(at: directory, passphrase: try SecureBytes(copying: Array("bench passphrase".utf8)),
                                 kdf: .argon2idFloor, journal: AuditLog())
        keys = try vault.deviceKeys(nameIfNew: name)
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
