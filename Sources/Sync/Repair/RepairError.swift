import CryptoVault

/// Why `vaultctl repair --from DEVICE` refused or stopped (SECURITY.md §19.10). Equality compares
/// codes only; a message never quotes document text.
public typealias RepairError = CodedError<RepairErrorCode>

public enum RepairErrorCode: String, Sendable, CaseIterable {
    /// The device is not trusted as the owner's own ('mine'): only an own device rebuilds the store.
    case notOwnDevice
    /// The device does not count this vault as its own (it refused an empty offer): it would offer
    /// none of the owner's projects, so a rebuild from it would drop them all (reviewer s17, F17-11).
    case notOwnThere
    /// A record the device sent does not verify (its §19.4 code is in the message): nothing changed.
    case recordRefused
    /// A record the device sent is not the one this vault's audit log recorded for that device and
    /// counter (another history): nothing changed.
    case auditMismatch
    /// The damaged store could not be kept aside: nothing changed.
    case copyFailed
    /// Documents here hold words the device does not (written here, never synced): named, and
    /// nothing changed, unless --discard-local (review 17 s9, N-s9-6).
    case localWordsAtRisk
}
