import CryptoVault

/// The owner's side of sharing (SECURITY.md §9, "Sharing compartments"): a grant for the device on
/// the other end of a channel, sent as `share.grant`.
public enum ShareSender {
    /// Wraps `compartment`'s keys for the channel's peer and sends them. Once the peer answers with
    /// the grant's receipt, records `compartment.share` (the peer, its name, the role and the key
    /// versions; never a key). A refusal by the peer is recorded as `compartment.share-failed` with
    /// its reason, then thrown.
    ///
    /// The caller applies `SharingPolicy` first (privileged compartments are refused and audited
    /// there); the vault refuses them again when wrapping. The grant then passes the egress funnel
    /// (`clearing`) as ciphertext bound for `share:` the peer, and is sent only once cleared.
    @discardableResult
    public static func share(_ compartment: VaultCompartment, role: ShareRole, vault: UnlockedVault,
                             over channel: ChannelRequesting, clearing: any EgressClearing) throws -> ShareGrant {
        let peer = channel.peer
        let grant = try vault.makeShareGrant(of: compartment, for: peer, role: role)
        let body = grant.serialized()
        _ = try OutboundClearance.require(CiphertextEgress(destination: .share(peer.deviceID), compartmentIDs: [compartment.id],
                                                           size: UInt64(body.count), sha256: SHA256.hash(body)), from: clearing)
        do {
            let answer = try channel.request(ShareGrantService.grantKind, body: body)
            guard answer == ShareGrantService.receipt(of: body) else {
                throw PeerChannelError(.shareGrantRefused, "the peer's answer is not the receipt of the grant sent")
            }
        } catch let error as PeerChannelError {
            try vault.record(VaultEvent(.compartmentShareFailed, compartmentID: compartment.id, subject: peer.deviceID,
                                        details: [.init("peer", peer.name), .init("reason", error.code.rawValue)]))
            throw error
        }
        try vault.record(VaultEvent(.compartmentShare, compartmentID: compartment.id, subject: peer.deviceID,
                                    details: [.init("peer", peer.name)] + grant.auditDetails))
        return grant
    }
}
