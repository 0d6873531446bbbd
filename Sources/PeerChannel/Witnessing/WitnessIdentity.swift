import AuditChain
import CryptoVault

/// How a device signs as a witness (SECURITY.md §9.11): with its device Ed25519 key, under a name
/// derived from its device id, so that one key has exactly one witness name (tlog-cosignature's rule)
/// and a log can compute the verifier key of any device it paired with from the pinned keys alone.
public enum WitnessIdentity {
    static let namePrefix = "vaultctl-witness/"

    /// "vaultctl-witness/" followed by the device id in lowercase hex (49 ASCII bytes).
    public static func name(deviceID: DeviceID) -> String {
        namePrefix + deviceID.hex
    }

    /// The key that verifies `device`'s cosignatures: its pinned signing key under its witness name.
    public static func verifierKey(of device: DeviceProfile) throws(AuditChainError) -> CosignatureVerifierKey {
        try CosignatureVerifierKey(name: name(deviceID: device.deviceID), publicKey: device.signingPublicKey)
    }

    /// This device's cosigner.
    static func cosigner(_ keys: DeviceKeys) throws(AuditChainError) -> Cosigner {
        try Cosigner(name: name(deviceID: keys.profile.deviceID), privateKey: keys.signingKey)
    }
}
