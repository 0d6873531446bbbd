/// Where a shared compartment came from, as the device it was shared with records it: the owner's
/// vault and device, the role the grant gave, and when (SECURITY.md §9, "Sharing compartments").
public struct CompartmentShare: Sendable, Equatable {
    /// The owner's vault id: bundles of this compartment name it in their header.
    public let sourceVaultID: VaultID
    public let role: ShareRole
    /// The device that signed the grant (a paired device).
    public let senderDeviceID: DeviceID
    /// The grant's issue time, by the sender's clock.
    public let grantedAt: Int64
    /// When this device accepted it.
    public let receivedAt: Int64
}

extension VaultCompartment {
    /// Whether this device may seal into the compartment: its own compartments always, a shared one
    /// only as an editor.
    public var maySeal: Bool { sharing.map { $0.role == .editor } ?? true }
}
