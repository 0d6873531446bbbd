/// The owner's side of sharing: a grant of one of this vault's compartments for a paired device.
extension UnlockedVault {
    /// Wraps every active key version of `compartment` for `recipient` (which must be paired with
    /// this vault, with the keys pinned then) and signs the grant with this device's key. Records
    /// nothing: the caller records `compartment.share` once the recipient has accepted it.
    ///
    /// A privileged compartment is refused here too (`.privilegedSessionRequired`), whatever the
    /// caller checked: its key never leaves the vault. A compartment shared with this device is not
    /// passed on (`.sharedCompartmentReadOnly`): only its owner grants it.
    public func makeShareGrant(of compartment: VaultCompartment, for recipient: DeviceProfile, role: ShareRole) throws -> ShareGrant {
        guard compartment.sharing == nil else {
            throw CryptoVaultError(.sharedCompartmentReadOnly, "compartment '\(compartment.name)' was shared with this device; only its owner can share it")
        }
        // The caller's copy may predate a rotation, a retirement or a change of the privileged flag.
        let current = try self.compartment(withID: compartment.id)
        guard !current.isPrivileged else {
            throw CryptoVaultError(.privilegedSessionRequired, "compartment '\(current.name)' is privileged: its key is never shared")
        }
        let versions = current.keyVersions.filter(\.isActive).map(\.version).sorted()
        guard ShareGrant.keyCounts.contains(versions.count) else {
            throw CryptoVaultError(.invalidInput, "compartment '\(current.name)' has \(versions.count) active key versions; a grant carries 1 to \(ShareGrant.keyCounts.upperBound) (retire old versions first)")
        }
        let contents = ShareGrantWrapping.Contents(role: role, issuedAt: VaultClock.system.now(), sourceVaultID: vaultID, compartmentID: current.id,
                                                   compartmentName: current.name,
                                                   keys: try versions.map { ($0, try compartmentKey(for: current, version: $0)) })
        return try ShareGrantWrapping.seal(contents, from: try deviceKeys(), to: try pinnedPeer(recipient.deviceID).peer,
                                           ephemeralKey: try X25519PrivateKey())
    }

    /// The pairing with `deviceID`, or `.unpairedDevice`. Its keys are the ones pinned at pairing.
    func pinnedPeer(_ deviceID: DeviceID) throws -> FamilyPairing {
        guard let pairing = try vault.familyPairings().first(where: { $0.peer.deviceID == deviceID }) else {
            throw CryptoVaultError(.unpairedDevice, "device \(deviceID.fingerprint) is not paired with this vault")
        }
        return pairing
    }
}
