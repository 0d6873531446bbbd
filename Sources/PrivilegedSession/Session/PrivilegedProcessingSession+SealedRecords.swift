import CryptoVault

/// Sealed records of a privileged compartment (SECURITY.md §4.8) are read the way its bundles are:
/// only through a live session, with its keyring, which no caller outside this module can hold.
extension PrivilegedProcessingSession {
    /// Opens records of the session's compartment inside `transaction`, which records them as
    /// `record.open` entries. Fails as `read` does if the session has ended or expired.
    public func openRecords(at locations: [SealedRecordLocation], in transaction: VaultTransaction) throws -> [[UInt8]] {
        try beginUse()
        return try transaction.openRecords(at: locations, in: compartment, keyring: keyring)
    }

    /// One record of the session's compartment; see `openRecords(at:in:)`.
    public func openRecord(at location: SealedRecordLocation, in transaction: VaultTransaction) throws -> [UInt8] {
        try openRecords(at: [location], in: transaction)[0]
    }
}
