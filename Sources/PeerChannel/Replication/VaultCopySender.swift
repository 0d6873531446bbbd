import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What a push of the whole-vault copy did.
public struct VaultCopyReport: Sendable {
    public let offer: VaultCopyOffer
    /// False when the keeper already held a copy of this very log.
    public let sent: Bool
}

/// The owner's side of whole-vault copies (SECURITY.md §13.6): takes a fresh version 2 backup of the
/// vault (or uses a given one), checks it as the keeper will, has the egress funnel clear its
/// ciphertext for the keeper, offers it and sends it, and records `vaultcopy.send` once the keeper
/// kept it. The keeper can check the copy but open nothing in it: the database is sealed to the
/// vault's backup key and the bundles are ciphertext.
public struct VaultCopySender {
    /// Chunks sent ahead of their answers, as replication does.
    static let chunksInFlight = 2

    public let vault: UnlockedVault
    public let channel: ChannelRequesting
    public let clearing: any EgressClearing

    public init(vault: UnlockedVault, channel: ChannelRequesting, clearing: any EgressClearing) {
        self.vault = vault
        self.channel = channel
        self.clearing = clearing
    }

    /// Takes a backup into a private file in the vault folder and sends it (the file is removed after).
    public func sendFreshCopy(progress: (UInt64) -> Void = { _ in }) throws -> VaultCopyReport {
        let path = (vault.vault.directory as NSString).appendingPathComponent(".vaultcopy-\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(8)))")
        defer { unlink(path) }
        _ = try BackupWriter.write(vault.vault, to: try FileDescriptor.createExclusive(path))
        return try send(path, progress: progress)
    }

    /// Sends the backup file at `path`, which must be a version 2 copy of this vault.
    public func send(_ path: String, progress: (UInt64) -> Void = { _ in }) throws -> VaultCopyReport {
        let offer = try VaultCopyCheck.facts(of: path).offer
        guard offer.vaultID == vault.vault.vaultID else {
            throw PeerChannelError(.vaultCopyRefused, "the backup file is of another vault than this one")
        }
        // The whole vault's ciphertext: the funnel decides on its metadata for every compartment in it.
        let compartments = try vault.compartments().map(\.id)
        _ = try OutboundClearance.require(CiphertextEgress(destination: .pairedDevice(channel.peer.deviceID), compartmentIDs: compartments,
                                                           size: offer.length, sha256: offer.sha256), from: clearing)
        let held = try ReplicationWire.parseReceived(try channel.request(VaultCopyWire.offerKind, body: offer.serialized()), atMost: offer.length)
        guard held == 0 else {
            guard held == offer.length else {
                throw PeerChannelError(.malformedReplicationMessage, "the keeper answered an offer with \(held) of \(offer.length) bytes")
            }
            return VaultCopyReport(offer: offer, sent: false)
        }
        try sendChunks(of: path, offer: offer, progress: progress)
        try vault.record(VaultEvent(.vaultCopySend, details: VaultCopyService.details(peer: channel.peer, offer: offer)))
        return VaultCopyReport(offer: offer, sent: true)
    }

    private func sendChunks(of path: String, offer: VaultCopyOffer, progress: (UInt64) -> Void) throws {
        let file = try FileDescriptor.openForReading(path)
        var next: UInt64 = 0
        let count = VaultCopyWire.maximumChunkDataCount
        try channel.requests(VaultCopyWire.chunkKind, window: Self.chunksInFlight, bodies: {
            guard next < offer.length else { return nil }
            let wanted = Int(min(UInt64(count), offer.length - next))
            var data = [UInt8](repeating: 0, count: wanted)
            guard try data.withUnsafeMutableBytes({ try file.read(into: $0, at: next) }) == wanted else {
                throw CryptoVaultError(.io, "the vault copy changed size while it was being sent")
            }
            defer { next += UInt64(wanted) }
            return VaultCopyWire.chunk(offset: next, data: data[...])
        }) { index, answer in
            let end = min(UInt64(index + 1) * UInt64(count), offer.length)
            guard try ReplicationWire.parseReceived(answer, atMost: offer.length) == end else {
                throw PeerChannelError(.malformedReplicationMessage, "the keeper acknowledged another count after a chunk ending at \(end)")
            }
            progress(end)
        }
    }
}
