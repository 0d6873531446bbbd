import AuditChain
import CryptoVault
import Foundation
@testable import PeerChannel
import Synchronization
import Testing

/// The asking side of a channel, in memory: each request goes straight to the peer's service, as
/// `caller` (what the channel would have authenticated). Requests are kept so a test can read them,
/// and `alter` may change one on its way (an attacker's log, a broken proof).
final class DirectChannel: ChannelRequesting {
    let peer: DeviceProfile
    let caller: DeviceProfile
    let service: any ChannelService
    var alter: ([UInt8]) throws -> [UInt8] = { $0 }
    private(set) var requests: [WitnessRequest] = []

    init(to witness: DeviceProfile, service: any ChannelService, as caller: DeviceProfile) {
        self.peer = witness
        self.caller = caller
        self.service = service
    }

    func request(_ kind: String, body: [UInt8]) throws -> [UInt8] {
        let sent = try alter(body)
        requests.append(try WitnessRequest(parsing: sent))
        return try service.respond(to: kind, body: sent, from: caller)
    }
}

/// Two paired devices: `log` asks `witness` to cosign its checkpoints.
final class WitnessPair {
    let log: PairingDevice
    let witness: PairingDevice
    let service: WitnessService
    let clock = WitnessClock()

    init() throws {
        log = try PairingDevice("laptop")
        witness = try PairingDevice("desk")
        try log.vault.storePairing(FamilyPairing(peer: witness.keys.profile, role: .join, pairedAt: 1))
        try witness.vault.storePairing(FamilyPairing(peer: log.keys.profile, role: .host, pairedAt: 1))
        let clock = self.clock
        service = try WitnessService(vault: witness.vault, keys: witness.keys, clock: VaultClock { clock.now })
    }

    func channel() -> DirectChannel { DirectChannel(to: witness.keys.profile, service: service, as: log.keys.profile) }

    /// Asks for a cosignature of the log's latest checkpoint over a fresh channel.
    @discardableResult
    func cosign(_ channel: DirectChannel? = nil) throws -> ReceivedCosignature {
        try WitnessClient(vault: log.vault).requestCosignature(over: channel ?? self.channel())
    }

    /// Appends `count` entries to the log and, unless told not to, checkpoints them as a command would.
    func grow(_ count: Int = 3, checkpoint: Bool = true) throws {
        for index in 0..<count { try log.vault.record(VaultEvent(AuditAction("test.event"), details: [.init("n", String(index))])) }
        if checkpoint { try log.vault.vault.finishCommand() }
    }

    var pinned: WitnessedLog? {
        get throws { try witness.vault.vault.read { try WitnessedLogStore(database: $0).log(of: log.keys.profile.deviceID) } }
    }

    var latestCheckpoint: StoredCheckpoint { get throws { try #require(try AuditLogReader(vault: log.vault.vault).checkpoints().last) } }

    /// (action, details) of each audit entry of `device` whose action is one of `actions`.
    static func entries(of device: PairingDevice, _ actions: Set<String>) throws -> [(action: String, details: [String: String])] {
        let keys = try device.vault.auditKeys()
        return try AuditLogReader(vault: device.vault.vault).entries().filter { actions.contains($0.action) }.map { entry in
            let details = try AuditLogReader.details(of: entry, vaultID: device.vault.vault.vaultID, keys: keys)
            return (entry.action, Dictionary(details.map { ($0.name, $0.value) }) { first, _ in first })
        }
    }

    /// What someone holding the log's current signing key (anyone who can read vault.db, SECURITY.md
    /// §8.6) can send: a checkpoint of `size` entries with `root`, signed by the newest key, with the
    /// transition that introduced it.
    func forgedRequest(oldSize: UInt64, size: UInt64, root: [UInt8], proof: [[UInt8]] = []) throws -> [UInt8] {
        let vault = log.vault.vault
        let (seed, introduction, genesis) = try vault.read { database in
            let newest = try #require(try database.queryOne("SELECT private_key, introduction FROM audit_signing_keys ORDER BY epoch DESC LIMIT 1"))
            let genesis = try #require(try database.queryOne("SELECT public_key FROM audit_signing_keys WHERE epoch = 0"))
            return (try newest.blob("private_key"), try newest.text("introduction"), try genesis.blob("public_key"))
        }
        let origin = AuditLogReader(vault: vault).origin
        let signer = try NoteSigner(name: origin, privateKey: try Ed25519PrivateKey(seed: try SecureBytes(copying: seed)))
        let note = try SignedNote.sign(body: try Checkpoint(origin: origin, treeSize: size, rootHash: root).body, signers: [signer])
        return try WitnessRequest(oldSize: oldSize, genesisPublicKey: genesis, consistencyProof: proof,
                                  keyTransitions: [Array(introduction.utf8)], checkpointNote: Array(note.serialized().utf8)).serialized()
    }
}

/// Runs `body` and returns the `PeerChannelError` it threw (a test fails if it threw nothing else).
func peerChannelError(_ body: () throws -> Void) -> PeerChannelError? {
    do { try body() } catch let error as PeerChannelError { return error } catch { return nil }
    return nil
}

/// The witness's wall clock, moved by the tests.
final class WitnessClock: Sendable {
    private let seconds = Mutex<Int64>(1_790_000_000)

    var now: Int64 { seconds.withLock { $0 } }
    func advance(_ by: Int64) { seconds.withLock { $0 += by } }
}
