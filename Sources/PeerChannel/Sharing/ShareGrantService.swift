import CryptoVault

/// The recipient's side of sharing (SECURITY.md §9, "Sharing compartments"): answers `share.grant`
/// from a paired device. The grant must be signed by the device on the channel; the vault checks the
/// rest (`UnlockedVault.acceptShareGrant`) and stores the compartment. The answer is the grant's
/// receipt; a refusal goes back with its reason and is recorded here as `share.grant-refused`.
public struct ShareGrantService: ChannelService {
    public static let grantKind = "share.grant"

    private let vault: UnlockedVault

    public init(vault: UnlockedVault) {
        self.vault = vault
    }

    public var requestKinds: [String] { [Self.grantKind] }

    public func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        guard kind == Self.grantKind else {
            throw PeerChannelError(.shareGrantRefused, "the sharing service does not answer '\(kind)'")
        }
        do {
            try accept(body, from: peer)
            return Self.receipt(of: body)
        } catch {
            let refusal = ShareGrantRefusal.refusal(for: error)
            try vault.record(VaultEvent(.shareGrantRefused, subject: peer.deviceID, details: [.init("reason", refusal.code.rawValue)]))
            throw refusal
        }
    }

    private func accept(_ body: [UInt8], from peer: DeviceProfile) throws {
        let grant = try ShareGrant(parsing: body)
        // The channel proved who `peer` is; a grant it relays from another device is not its to give.
        guard grant.senderDeviceID == peer.deviceID else {
            throw PeerChannelError(.shareSenderMismatch, "the grant was signed by device \(grant.senderDeviceID.fingerprint), not by the device that sent it")
        }
        try vault.acceptShareGrant(grant)
    }

    /// What the recipient answers to a grant it accepted: SHA-256 of the grant's bytes, so the sender
    /// knows this grant, and no other, was taken.
    public static func receipt(of grant: [UInt8]) -> [UInt8] { SHA256.hash(grant) }
}
