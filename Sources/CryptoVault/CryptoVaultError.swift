/// The one error type of CryptoVault: a code that tests and callers match on, and a message for
/// people. Messages never contain secret material; equality compares codes only.
public typealias CryptoVaultError = CodedError<CryptoVaultErrorCode>

/// What went wrong, for callers and tests to match on.
public enum CryptoVaultErrorCode: String, Sendable {
    case libraryUnavailable
    case outOfMemory
    case invalidKeySize
    case invalidNonceSize
    case invalidInput
    case authenticationFailure
    case invalidPublicKey
    case kdfParametersOutOfRange
    case kdfFailed
    case wrongPassphrase
    case wrongRecoveryKey
    case invalidRecoveryKey
    case invalidShare
    case insufficientShares
    case notAVault
    case vaultExists
    case newerSchema
    /// A read-only open of a vault whose schema is older than this build's: it is upgraded only by a write.
    case olderSchema
    case corruptVault
    case missingAssets
    /// A copy of the vault folder taken while the vault was being written: its database mixes pages
    /// of two moments. Not evidence of tampering; a backup ('vaultctl backup') is the consistent copy.
    case inconsistentCopy
    /// A backup file (SECURITY.md §13) that is not one, is truncated, or fails a length or digest check.
    case corruptBackup
    case database
    case io
    case compartmentExists
    case compartmentNotFound
    case invalidName
    case unknownKeyVersion
    case keyslotNotFound
    case lastKeyslot
    /// A recovery key or split exists already, and replacing it was not confirmed.
    case recoveryExists
    /// A keyslot changed between this command's unlock and its write (another `passwd` won the race).
    case keyslotChanged
    /// A key version still in use (stored bundles sealed under it) cannot be retired.
    case keyVersionInUse
    /// A compaction (`UnlockedVault.compact`) refused before it started: the database is larger than
    /// the copy it makes in memory may be, or the vault is a read-only or in-memory one.
    case compactionRefused

    // MARK: Sealed records (SECURITY.md §4.8)

    /// A sealed record's module, table or field name, or its id, outside the allowed forms.
    case invalidRecordLocation
    /// No sealed record at that location.
    case recordNotFound
    /// A seal at a location that holds a record of another compartment.
    case recordLocationTaken
    /// A sealed value that does not parse: its size, version or key version.
    case malformedRecord
    /// A sealed record that fails authentication although its tags name the expected identity: altered.
    case corruptRecord
    /// A sealed record that fails to open and was sealed in another vault.
    case recordFromAnotherVault
    /// ... in another compartment of this (or another) vault.
    case recordFromAnotherCompartment
    /// ... for another record (another module, table or record id): copied or moved to this row.
    case recordFromAnotherRow
    /// ... for another field of the same record.
    case recordFromAnotherField
    /// A bundle's header or a chunk fails authentication or is malformed.
    case corruptBundle
    /// A bundle is shorter or longer than its header says.
    case truncatedBundle
    /// A bundle belongs to another vault, or to a compartment or key version this vault no longer has.
    case foreignBundle
    case bundleNotFound
    case fileNotFound
    case fileExists
    /// An output path that is neither absent, a regular file, a character device nor a FIFO
    /// (a directory, a socket, a block device, a dangling symbolic link).
    case notWritableOutput
    /// A path to read that is not a regular file, where only one is meant (the daemon opens no FIFO or device).
    case notRegularFile
    /// A privileged compartment was to be read outside a privileged processing session, or with a
    /// session's keyring that was wiped or belongs to another compartment.
    case privilegedSessionRequired

    // MARK: Channel (revocation)

    /// No pairing with that device (to revoke, say).
    case pairingNotFound

    // MARK: Sharing (SECURITY.md §9, "Sharing compartments")

    /// A share grant that does not parse: bad magic or version, a field out of range, trailing bytes.
    case malformedShareGrant
    /// A share grant addressed to another device.
    case shareGrantMisaddressed
    /// A share grant from a device this vault has not paired with.
    case unpairedDevice
    /// A share grant whose signature is not the sender's, by its pinned key: forged or altered.
    case shareGrantBadSignature
    /// A signed share grant whose sealed key fails to open here (wrapped for another key or binding).
    case shareGrantKeyRejected
    /// A share grant older than the one already accepted for the same compartment.
    case staleShareGrant
    /// A seal into a compartment this device may only view, or a vault-side operation (put, rewrap)
    /// on a compartment that belongs to another vault.
    case sharedCompartmentReadOnly

    // MARK: The audited transaction

    /// A vault write started inside a `VaultTransaction`'s body: it would commit on its own, apart
    /// from the transaction; the body makes its changes through the transaction instead.
    case nestedTransaction
    /// An audit entry recorded through a `VaultTransaction` after its body returned.
    case transactionClosed
    /// A statement that would change the database (or lift the read-only state), run inside
    /// `Vault.read`: a read is read-only, and a change goes through `UnlockedVault.transaction`.
    case writeInsideRead

    // MARK: Typed ids

    /// An id of the wrong length (or, in hex, not hex): a bundle id is 16 bytes, exactly.
    case invalidIdentifier
}
