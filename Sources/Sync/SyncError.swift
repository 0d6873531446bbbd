import CryptoVault

/// The one error type of Sync: a code that tests and callers match on, and a message for people.
/// Messages never quote document text; equality compares codes only.
public typealias SyncError = CodedError<SyncErrorCode>

/// Why a change record was refused, or what else went wrong. Each refusal of a peer's record is
/// also an audit entry naming this code (SECURITY.md §19.4).
public enum SyncErrorCode: String, Sendable {
    /// Bytes that are not a change record: a wrong magic or version, a length past the end, a value
    /// outside the grammar, trailing bytes, or a record over `ChangeRecord.maximumSize`.
    case malformedRecord
    /// A record signed by no device this vault knows for the project.
    case unknownDevice
    /// A signature that does not verify under the named device's key.
    case badSignature
    /// A record this replica already holds (the same hash): a replay.
    case replayedRecord
    /// A record this vault holds set aside (`VaultSync+SetAside`): its own, which the project's origin
    /// refused after making it a viewer, sent back by an own device that took it before. Passed
    /// over, as ever, and named so that device sets it aside too (closing note s13): held here,
    /// never a record missing here.
    case recordSetAside
    /// A record of a project this vault has no compartment key for.
    case unknownCompartment
    /// A record whose counter or Lamport time contradicts its parents (a causality cycle or a
    /// rewritten history).
    case causalityViolation
    /// A second record of one device with a counter already held under another hash: the device
    /// signed two histories (a fork). Refused, and so is every record built on it, naming the device
    /// (SECURITY.md §19.4); what is not built on the fork syncs on.
    case equivocation
    /// A record whose parents never arrived (held, then refused when the exchange ended).
    case missingParents
    /// A block op naming a document other than the one the block already belongs to.
    case blockMoved
    /// A record whose versions name as their maker an audit device that is not its signer's: this
    /// vault's own, signed by another device, or another than the signer's records held name
    /// (SECURITY.md §19.4, `RecordAttribution`).
    case attributionMismatch
    /// A record whose 0x03 records a conflict the records in its past do not make: a block that is
    /// not that document's, or a name that is no register, text or removal conflict of them
    /// (SECURITY.md §19.4, `ConflictClaims`).
    case unfoundedConflict
    /// A record of a device that no longer writes the project here (a revoked editor, a device no
    /// longer the owner's own), past its records already stored (SECURITY.md §19.9).
    case accessEnded
    /// Records that verified but make what the writing store refuses (a document over its size
    /// limit, a block another document holds, an archived project): none of them is kept, the
    /// project is skipped in this exchange, and the rest of it goes on (SECURITY.md §19.9).
    case writingRefused
    /// Too many records held waiting for their parents.
    case tooManyPending
    /// The stored sync records of a project cannot be rebuilt (a sealed record fails to open, a
    /// stored one no longer verifies, a row is gone): the project works local-only until repaired.
    case damagedSyncState
    /// A project's own data on a device does not open there (a sealed block, title or name; a row
    /// the writing store finds damaged): the exchange leaves that project, on either side, and goes
    /// on with the others; it works local-only until `vaultctl repair --from DEVICE` (attack review
    /// s8, F8; `SyncProjectDamage`).
    case damagedProject
    /// A local change that cannot be expressed (a document that does not exist, say).
    case invalidChange
}
