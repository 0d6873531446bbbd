/// A device's identity: the first 16 bytes of SHA-256("SealedVault device id v1" || signing key ||
/// Noise key) (SECURITY.md §4.7), so it names the device's two public keys. Pairing, sharing,
/// replication and witnessing pin and find a device by it; a person compares its `fingerprint`.
///
/// It is not the random `vault_meta.device_id` written into audit entries (`AuditDeviceID`); the
/// vault's `device.create` entry links the two (SECURITY.md §4.7.1).
public typealias DeviceID = TypedIdentifier<DeviceKind>

public enum DeviceKind: IdentifierKind { public static let name = "a device id" }

extension TypedIdentifier where Kind == DeviceKind {
    /// What a person compares between two devices: the hex in four groups of eight digits
    /// ("3f2a09c1-...").
    public var fingerprint: String {
        let digits = Array(hex)
        return stride(from: 0, to: digits.count, by: 8).map { String(digits[$0..<$0 + 8]) }.joined(separator: "-")
    }
}
