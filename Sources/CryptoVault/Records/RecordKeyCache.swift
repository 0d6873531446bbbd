import Synchronization

/// The record key and the digest key of one compartment key version (SECURITY.md §4.8). Both are
/// HKDF-SHA-256 of the compartment key with an empty salt, so they share one HKDF-Extract; each is a
/// locked allocation of its own, made once.
final class RecordKeys: Sendable {
    let record: SecureBytes
    let digest: SecureBytes

    init(compartmentKey: SecureBytes) throws {
        let pseudoRandomKey = try HKDF.extract(salt: [], inputKeyMaterial: compartmentKey)
        record = try SealedRecordCodec.recordKey(pseudoRandomKey: pseudoRandomKey)
        digest = try SealedRecordDigest.key(pseudoRandomKey: pseudoRandomKey)
    }
}

/// The record keys an unlocked vault derived from its master key (SECURITY.md §5), kept in locked
/// memory for as long as the master key is and released (wiped) with it. Deriving them took five
/// locked allocations, several system calls each, in every transaction that sealed or opened a
/// record: a third of a one-block edit's time.
///
/// Kept by compartment, key version *and salt*: the salt is read from the database inside each
/// transaction (`UnlockedVault.recordKeys`), so a version retired or a compartment destroyed since is
/// refused exactly as before, and a key is only ever found for the salt it was derived from (the
/// keys are a function of the master key, the vault id, the compartment, the version and the salt).
/// At most `maximumEntries` versions are kept (past that, all are dropped and derived again); a
/// compartment's are dropped as soon as this process retires one of its versions or destroys it.
final class RecordKeyCache: Sendable {
    static let maximumEntries = 64

    private struct Name: Hashable {
        let compartment: CompartmentID
        let version: UInt32
        let salt: [UInt8]
    }

    private let entries = Mutex<[Name: RecordKeys]>([:])

    /// The keys kept for this compartment, version and salt, or those `derive` makes (then kept).
    func keys(compartment: CompartmentID, version: UInt32, salt: [UInt8], derive: () throws -> RecordKeys) throws -> RecordKeys {
        let name = Name(compartment: compartment, version: version, salt: salt)
        if let kept = entries.withLock({ $0[name] }) { return kept }
        let derived = try derive()
        entries.withLock { entries in
            if entries.count >= Self.maximumEntries { entries.removeAll() }
            entries[name] = derived
        }
        return derived
    }

    /// Drops (and so wipes, once no transaction holds them) every key kept for `compartment`.
    func forget(_ compartment: CompartmentID) {
        entries.withLock { entries in entries = entries.filter { $0.key.compartment != compartment } }
    }

    var count: Int { entries.withLock { $0.count } }
}
