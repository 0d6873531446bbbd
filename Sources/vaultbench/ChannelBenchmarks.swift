import AuditChain
import CryptoVault
import Dispatch
import Foundation
import PeerChannel
import Synchronization

/// The channel between paired devices on loopback (SECURITY.md §9.9): 1 GiB of request bodies through
/// Noise (ChaCha20-Poly1305, 64 KiB records) beside 1 GiB over plain TCP in the same run, and a full
/// pairing (CPace, Noise_XXpsk3, confirmations, both vaults storing the pairing with its audit entry).
/// Targets from the issue: at least 0.5x plain TCP, pairing under 50 ms.
enum ChannelBenchmarks {
    static let totalBytes = 1 << 30

    /// Rounds of (plain TCP, channel), alternated so that a moment of load on a shared machine
    /// slows both rather than one; the best round of each is compared.
    static let rounds = 3

    static func run() throws {
        var plain: [Transfer] = [], oneByOne: [Transfer] = [], pipelined: [Transfer] = []
        for _ in 0..<rounds {
            plain.append(try Transfer.measure {
                try PlainTCPBaseline.throughput(totalBytes: totalBytes, chunk: ChannelLimits.maximumBodyLength)
            })
            oneByOne.append(try Transfer.measure { try channelThroughput(window: 1) })
            pipelined.append(try Transfer.measure { try channelThroughput(window: 2) })
        }
        let bestPlain = best(plain), bestOneByOne = best(oneByOne), bestPipelined = best(pipelined)
        Benchmark.section("Channel on loopback: 1 GiB as 256 requests of 4 MiB, beside plain TCP, best of \(rounds) alternated rounds")
        Benchmark.report("plain TCP loopback", bestPlain.rate, "MB/s")
        Benchmark.report("channel, each request waits for its answer", bestOneByOne.rate, "MB/s")
        Benchmark.report("channel, two requests in flight", bestPipelined.rate, "MB/s")
        Benchmark.verdict("channel (two in flight) / plain TCP", bestPipelined.rate / bestPlain.rate, "x", atLeast: 0.5)
        Benchmark.note("ChaCha20-Poly1305 via \(BulkChaChaPoly.preferredEngine); rounds in MB/s, plain: \(rates(plain)); one by one: \(rates(oneByOne)); two in flight: \(rates(pipelined))")
        reportCeiling(plain: bestPlain, channel: bestPipelined)
        let pairing = try pairingTime()
        Benchmark.section("Pairing on loopback (median of 11; two vaults, both store the pairing durably)")
        Benchmark.verdict("pair host + pair join, connect to stored", pairing, "ms", atMost: 50)
    }

    static func best(_ transfers: [Transfer]) -> Transfer {
        transfers.max { $0.rate < $1.rate }!
    }

    static func rates(_ transfers: [Transfer]) -> String {
        transfers.map { Benchmark.format($0.rate) }.joined(separator: ", ")
    }

    /// What bounds the channel on a loopback pair: every byte is sealed once and opened once (one
    /// AEAD pass each) and also costs what plain TCP costs, and both ends share this machine's cores.
    /// So no channel here can go faster than cores ÷ (two AEAD passes + plain TCP's CPU time) per byte.
    static func reportCeiling(plain: Transfer, channel: Transfer) {
        let megabytes = Double(totalBytes) / 1e6
        let aead = CipherCeiling.sealRate(threads: 1, engine: BulkChaChaPoly.preferredEngine, total: 256 << 20) / 1e6
        let cores = Double(ProcessInfo.processInfo.activeProcessorCount)
        let ceiling = cores / (2 / aead + plain.cpuSeconds / megabytes)
        Benchmark.section("Where the channel's time goes (CPU time of both ends together)")
        Benchmark.report("plain TCP, MB per CPU second", megabytes / plain.cpuSeconds, "MB/s")
        Benchmark.report("channel, MB per CPU second", megabytes / channel.cpuSeconds, "MB/s")
        Benchmark.report("ChaCha20-Poly1305 seal, one core, 64 KiB records", aead, "MB/s")
        Benchmark.report("ceiling: \(Int(cores)) cores / (seal + open + plain TCP's CPU)", ceiling, "MB/s")
        Benchmark.report("ceiling / plain TCP", ceiling / plain.rate, "x")
        Benchmark.report("channel / ceiling", channel.rate / ceiling, "x")
    }

    /// The rate of a transfer and the CPU seconds (user and system, all threads) the process spent on it.
    struct Transfer {
        let rate: Double
        let cpuSeconds: Double

        static func measure(_ body: () throws -> Double) throws -> Transfer {
            let start = processCPUSeconds()
            let rate = try body()
            return Transfer(rate: rate, cpuSeconds: processCPUSeconds() - start)
        }
    }

    /// A service that takes a body and answers nothing, so the channel carries the bytes one way.
    struct Sink: ChannelService {
        var requestKinds: [String] { ["bench.sink"] }
        func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] { [] }
    }

    /// MB/s of request bodies from a client to a server on loopback, handshake excluded, with up to
    /// `window` requests unanswered (1: each waits for its answer; replication sends two ahead).
    static func channelThroughput(window: Int) throws -> Double {
        let desk = try keys("desk"), laptop = try keys("laptop")
        let laptopPairing = FamilyPairing(peer: laptop.profile, role: .host, pairedAt: 0)
        let server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: desk,
                                       pinnedPeers: { [laptopPairing] }, services: [Sink()])
        server.start()
        defer { server.stop() }
        let client = try ChannelClient(connectingTo: server.address, localKeys: laptop, peer: desk.profile)
        let body = [UInt8](repeating: 0xA5, count: ChannelLimits.maximumBodyLength)
        var remaining = totalBytes / body.count
        let start = VaultClock.system.monotonic()
        try client.requests("bench.sink", window: window, bodies: {
            guard remaining > 0 else { return nil }
            remaining -= 1
            return body
        }, answered: { _, _ in })
        return megabytesPerSecond(totalBytes, since: start)
    }

    static func processCPUSeconds() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) + Double(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec) / 1e6
    }

    static func keys(_ name: String) throws -> DeviceKeys {
        try DeviceKeys(signingKey: Ed25519PrivateKey(), noiseKey: X25519PrivateKey(), name: name, createdAt: 0)
    }

    static func megabytesPerSecond(_ bytes: Int, since start: Double) -> Double {
        Double(bytes) / 1e6 / (VaultClock.system.monotonic() - start)
    }

    /// Median milliseconds of a whole pairing between two vaults: connect, CPace, handshake,
    /// confirmations, and both sides storing the pairing with its audit entry.
    static func pairingTime() throws -> Double {
        let root = NSTemporaryDirectory() + "vaultbench-pairing-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let passphrase = try SecureBytes(copying: Array("bench passphrase".utf8))
        let desk = try Vault.create(at: root + "/desk", passphrase: passphrase, kdf: .argon2idFloor, journal: AuditLog())
        let laptop = try Vault.create(at: root + "/laptop", passphrase: passphrase, kdf: .argon2idFloor, journal: AuditLog())
        let deskKeys = try desk.deviceKeys(nameIfNew: "desk"), laptopKeys = try laptop.deviceKeys(nameIfNew: "laptop")
        let listener = try TCPListener(address: SocketAddress(parsing: "127.0.0.1:0"))
        return try Benchmark.median(11) {
            let lease = PairingCodeLease(code: try PairingCode.generate())
            let hosted = DispatchSemaphore(value: 0)
            let hostFailure = Mutex<String?>(nil)
            Thread.detachNewThread {
                do {
                    var host = PairingHost(vault: desk, keys: deskKeys, lease: lease)
                    guard let connection = try listener.accept(waitSeconds: 10, maximumFrameLength: PairingHost.maximumFrameLength,
                                                               timeoutSeconds: 10) else { throw PeerChannelError(.timedOut, "no joiner") }
                    _ = try host.serve(connection)
                } catch {
                    hostFailure.withLock { $0 = "\(error)" }
                }
                hosted.signal()
            }
            let connection = try TCPConnection.connect(to: listener.address, maximumFrameLength: PairingHost.maximumFrameLength,
                                                       timeoutSeconds: 10)
            _ = try PairingJoiner(vault: laptop, keys: laptopKeys).join(connection, code: lease.code)
            hosted.wait()
            if let failure = hostFailure.withLock({ $0 }) { throw PeerChannelError(.connectionFailed, "the host failed: \(failure)") }
        }
    }
}
