/// Something that happened to the vault, as the audit log records it.
///
/// `details` are the sensitive specifics (a compartment's name, a file name, a purpose): the journal
/// seals them and records a keyed hash of each, never the value in clear.
public struct VaultEvent: Sendable, Equatable {
    public let action: AuditAction
    public let compartmentID: CompartmentID?
    public let subjectID: [UInt8]?
    public let details: [Detail]

    public struct Detail: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    public init(_ action: AuditAction, compartmentID: CompartmentID? = nil, subjectID: [UInt8]? = nil, details: [Detail] = []) {
        self.action = action
        self.compartmentID = compartmentID
        self.subjectID = subjectID
        self.details = details
    }

    /// An event about one of the vault's typed ids (a bundle, a keyslot, a device, a session, a writing
    /// record): its bytes are the entry's subject id, the one place they leave the id (SECURITY.md §8.2).
    public init<Kind>(_ action: AuditAction, compartmentID: CompartmentID? = nil, subject: TypedIdentifier<Kind>, details: [Detail] = []) {
        self.init(action, compartmentID: compartmentID, subjectID: subject.bytes, details: details)
    }
}

/// The keys that seal audit details and key their hashes, derived from the master key:
///     HKDF-SHA-256(IKM = MK, salt = vault id, info = "vaultctl audit keys v1", L = 64)
///       = sealing key (32) || hashing key (32)
/// Events recorded while the vault is locked (a failed unlock) have no details, so need no keys.
public struct AuditKeys: Sendable {
    public let sealingKey: SecureBytes
    public let hashingKey: SecureBytes
    /// `hashingKey` made ready for many messages, when these keys are an unlocked vault's (kept with
    /// them): every transaction's append would otherwise make it again, a locked allocation each time.
    public let hasher: HMACSHA256Key?

    static let info = Array("vaultctl audit keys v1".utf8)

    init(masterKey: SecureBytes, vaultID: VaultID) throws {
        let both = try HKDF.deriveKey(inputKeyMaterial: masterKey, salt: vaultID.bytes, info: Self.info, outputCount: 64)
        sealingKey = try both.slice(0..<32)
        hashingKey = try both.slice(32..<64)
        hasher = try HMACSHA256Key(hashingKey)
    }

    public init(sealingKey: SecureBytes, hashingKey: SecureBytes) {
        self.sealingKey = sealingKey
        self.hashingKey = hashingKey
        hasher = nil
    }
}

/// Where vault events go. `append` runs inside the write transaction of the operation it records, so
/// the operation and its record commit together or not at all. `commandFinished` runs after a
/// command's last write (the audit log makes a signed checkpoint there).
///
/// `package`, not public: a caller outside this package cannot hand a vault a journal of its own
/// (one that records nothing); it opens a vault with the audit log (`Vault.open(at:)` in AuditChain).
/// Inside the package the journal is AuditLog, ReadOnlyJournal, or a test's recording one.
package protocol VaultJournal: Sendable {
    func append(_ event: VaultEvent, in database: Database, vaultID: VaultID, keys: AuditKeys?) throws
    /// Appends `events` in order, as the same number of single appends would (a `VaultTransaction`
    /// hands over its entries this way when it commits, so the audit log updates its tree once).
    func append(_ events: [VaultEvent], in database: Database, vaultID: VaultID, keys: AuditKeys?) throws
    /// Throws what `append` would throw for `event` itself (an invalid action, details without keys),
    /// so that a transaction refuses it where it is recorded, not later at commit.
    func check(_ event: VaultEvent, keys: AuditKeys?) throws
    func commandFinished(in database: Database, vaultID: VaultID) throws
}

extension VaultJournal {
    package func append(_ events: [VaultEvent], in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        for event in events { try append(event, in: database, vaultID: vaultID, keys: keys) }
    }

    package func check(_ event: VaultEvent, keys: AuditKeys?) throws {}
}

/// The journal of a vault opened read-only: it has nothing to record, so an entry is refused rather
/// than dropped (there is no journal that records nothing: every change to a vault is recorded).
struct ReadOnlyJournal: VaultJournal {
    func append(_ event: VaultEvent, in database: Database, vaultID: VaultID, keys: AuditKeys?) throws {
        throw CryptoVaultError(.database, "the vault was opened read-only; '\(event.action)' cannot be recorded")
    }
    func commandFinished(in database: Database, vaultID: VaultID) throws {}
}
