import AuditChain
import CryptoVault
import Foundation
@testable import PeerChannel
import PrivilegedSession

/// Two paired devices, each with its own audited vault: `source` replicates to `peer`, whose
/// replication service keeps the replicas.
final class ReplicationPair {
    let source: PairingDevice
    let peer: PairingDevice
    let service: ReplicationService
    let general: VaultCompartment
    let memos: VaultCompartment

    init(policy: ReplicaPolicy = ReplicaPolicy()) throws {
        source = try PairingDevice("laptop")
        peer = try PairingDevice("desk")
        try source.vault.storePairing(FamilyPairing(peer: peer.keys.profile, role: .join, pairedAt: 1))
        try peer.vault.storePairing(FamilyPairing(peer: source.keys.profile, role: .host, pairedAt: 1))
        service = ReplicationService(vault: peer.vault, policy: policy)
        general = try source.vault.createCompartment(named: "general", register: .general)
        memos = try source.vault.createCompartment(named: "memos", register: .general)
    }

    func channel() -> InMemoryChannel {
        InMemoryChannel(from: source.keys.profile, to: peer.keys.profile, services: [service])
    }

    func replicate(compartment: VaultCompartment? = nil, over channel: InMemoryChannel? = nil) throws -> ReplicationReport {
        try Replicator(vault: source.vault, channel: channel ?? self.channel(), clearing: try EgressFunnel(vault: source.vault)).replicate(compartment: compartment)
    }

    /// Replicates over a connection that breaks when the second chunk is sent (the first arrived),
    /// and checks that the run failed for that reason.
    func replicateBreakingAtSecondChunk() throws {
        let broken = channel()
        broken.intercept = { kind, _ in
            if kind == ReplicationWire.chunkKind, broken.requestCounts[kind] == 1 {
                throw PeerChannelError(.connectionClosed, "the cable was pulled")
            }
        }
        do {
            _ = try replicate(over: broken)
            throw ReplicationTestFailure(message: "replication over a broken connection succeeded")
        } catch let error as PeerChannelError where error.code == .connectionClosed {}
        broken.intercept = nil
    }

    /// Stores `count` bytes of deterministic content (its first byte `seed`) in `compartment`.
    func put(_ count: Int, seed: UInt8, in compartment: VaultCompartment) throws -> StoredBundle {
        let path = source.root + "/input-\(UUID().uuidString)"
        let content = (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed)) }
        FileManager.default.createFile(atPath: path, contents: Data(content))
        return try source.vault.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                    metadata: BundleMetadata(name: "note-\(seed)", modificationTime: 0))
    }

    func sourceFile(_ bundle: StoredBundle) -> String { "\(source.vault.vault.assetsPath)/\(bundle.idString).vbundle" }

    func replicaFile(_ bundle: StoredBundle, suffix: String = "replica") -> String {
        "\(peer.vault.vault.directory)/replicas/\(source.keys.profile.deviceID.hex)/\(bundle.idString).\(suffix)"
    }

    func bytes(at path: String) -> [UInt8]? { FileManager.default.contents(atPath: path).map { [UInt8]($0) } }

    /// The plaintext of a stored bundle of the source.
    func plaintext(_ bundle: StoredBundle) throws -> [UInt8] {
        var plaintext: [UInt8] = []
        try source.vault.openStored(bundle.bundleID).decrypt { plaintext += $0 }
        return plaintext
    }

    /// The peer's inventory of the source's vault, as the source sees it.
    func inventory() throws -> [BundleID: ReplicaInventory.Entry] {
        try channel().replicaInventory(of: source.vault.vault.vaultID)
    }
}

extension PairingDevice {
    /// (action, details) of each audit entry whose action starts with `prefix`.
    func auditEntries(_ prefix: String) throws -> [(action: String, subject: [UInt8], details: [String: String])] {
        let keys = try vault.auditKeys()
        return try AuditLogReader(vault: vault.vault).entries().filter { $0.action.hasPrefix(prefix) }.map { entry in
            let details = try AuditLogReader.details(of: entry, vaultID: vault.vault.vaultID, keys: keys)
            return (entry.action, entry.subjectID, Dictionary(details.map { ($0.name, $0.value) }) { first, _ in first })
        }
    }
}

struct ReplicationTestFailure: Error {
    let message: String
}
