import CryptoVault

/// Sealed records of a privileged compartment (SECURITY.md §4.8) are read the way its bundles are:
/// only through a live session, with its keyring, which no caller outside this module can hold.
extension PrivilegedProcessingSession {
    /// Opens records of the session's compartment inside `transaction`, which records them as
    /// `record.open` entries, handing each to `body` in locked memory valid only during the call
    /// (see `VaultTransaction.openRecords(at:in:_:)`). Fails as `read` does if the session has ended
    /// or expired.
    public func openRecords(at locations: [SealedRecordLocation], in transaction: VaultTransaction,
                            _ body: (_ index: Int, _ plaintext: UnsafeRawBufferPointer) throws -> Void) throws {
        try beginUse()
        try transaction.openRecords(at: locations, in: compartment, keyring: keyring, body)
    }

    /// One record of the session's compartment, in a SecureBytes of its own; see `openRecords(at:in:_:)`.
    public func openRecord(at location: SealedRecordLocation, in transaction: VaultTransaction) throws -> SecureBytes {
        try beginUse()
        return try transaction.openRecord(at: location, in: compartment, keyring: keyring)
    }

    /// Whether a record of the session's compartment holds exactly `plaintext`, without opening it;
    /// see `VaultTransaction.recordHolds(_:at:in:)`. Fails as `read` does if the session has ended.
    public func recordHolds(_ plaintext: [UInt8], at location: SealedRecordLocation, in transaction: VaultTransaction) throws -> Bool {
        try beginUse()
        return try transaction.recordHolds(plaintext, at: location, in: compartment, keyring: keyring)
    }
}
