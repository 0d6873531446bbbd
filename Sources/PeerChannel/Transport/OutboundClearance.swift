import CryptoVault

/// The gate in front of every PeerChannel transport that carries the vault's bytes to another
/// device (replication, sharing): it asks the egress funnel, through `EgressClearing`, for a
/// clearance of exactly what is about to go, and sends nothing otherwise (SECURITY.md §10.5).
/// PeerChannel cannot make a clearance itself: only the funnel, above it, can.
enum OutboundClearance {
    static func require(_ egress: CiphertextEgress, from clearing: any EgressClearing) throws -> EgressClearance {
        let clearance = try clearing.clear(egress)
        guard clearance.egress == egress else {
            throw PeerChannelError(.egressNotCleared, "the egress funnel's clearance is for other bytes or another destination; nothing was sent")
        }
        return clearance
    }
}
