/// The recipient's side of sharing: a grant is checked in the order SECURITY.md §9 ("Sharing
/// compartments") gives, and only a grant that passes every check changes the vault.
extension UnlockedVault {
    /// Checks `grant` and stores its compartment as shared with this device (recording
    /// `share.receive`). Throws, changing nothing:
    /// - `.shareGrantMisaddressed`: it names another device as recipient, or this vault as its source;
    /// - `.unpairedDevice`: its sender is not a device this vault paired with;
    /// - `.shareGrantBadSignature`: the sender's pinned key did not sign it (forged or altered);
    /// - `.shareGrantKeyRejected`: a key does not open (wrapped for another key or binding);
    /// - `.staleShareGrant`: an older grant than the one already accepted for the compartment;
    /// - `.compartmentExists`: another compartment here has its name.
    @discardableResult
    public func acceptShareGrant(_ grant: ShareGrant) throws -> VaultCompartment {
        guard let profile = try vault.deviceProfile(), profile.deviceID == grant.recipientDeviceID else {
            throw CryptoVaultError(.shareGrantMisaddressed, "share grant: it is addressed to device \(grant.recipientDeviceID.fingerprint), not this one")
        }
        let sender = try pinnedPeer(grant.senderDeviceID)
        try ShareGrantWrapping.verifySignature(grant, signingPublicKey: sender.peer.signingPublicKey)
        guard grant.sourceVaultID != vaultID else {
            throw CryptoVaultError(.shareGrantMisaddressed, "share grant: it shares a compartment of this very vault")
        }
        let keys = try ShareGrantWrapping.openKeys(grant, recipient: try deviceKeys())
        try storeSharedCompartment(grant, keys: keys)
        guard let stored = try sharedCompartment(sourceVaultID: grant.sourceVaultID, compartmentID: grant.compartmentID) else {
            throw CryptoVaultError(.database, "the shared compartment just stored cannot be read back")
        }
        return stored
    }
}
