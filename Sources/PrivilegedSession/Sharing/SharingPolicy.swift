import CryptoVault

/// The rule every share passes before anything is wrapped for another device: privileged material
/// never leaves this vault. A privileged compartment's key is not wrapped for any device, whatever
/// its role, and the refusal itself is an audit entry, so an attempt is visible to an auditor.
public enum SharingPolicy {
    /// Returns when `compartment` may be shared; otherwise records `share.refused` (with the device
    /// and role, sealed) and throws `.sharingRefused`.
    public static func requireShareable(_ compartment: VaultCompartment, with device: String, role: ShareRole,
                                        vault: UnlockedVault) throws {
        guard compartment.isPrivileged else { return }
        try vault.record(VaultEvent(.shareRefused, compartmentID: compartment.id,
                                    details: [.init("device", device), .init("role", role.rawValue)]))
        throw PrivilegedSessionError(.sharingRefused,
                                     "compartment '\(compartment.name)' is privileged: privileged material is never shared with another device")
    }
}
