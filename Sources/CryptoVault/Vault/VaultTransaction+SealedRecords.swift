/// Sealed records (SECURITY.md §4.8) are sealed and opened only inside the audited transaction, and
/// each seal and open is recorded in it by the library: one `record.seal` and one `record.open` entry per
/// compartment and transaction, each naming up to 64 records sealed or opened (more make more
/// entries). Whoever the caller is (a command, the daemon, the console), a read leaves its entry.
///
/// A privileged compartment's records open only with the keyring of a live privileged processing
/// session of that compartment (`CompartmentKeyring`, which only the PrivilegedSession module can
/// make), as bundles do; without one, `.privilegedSessionRequired`. Sealing needs no session.
///
/// Opened plaintext is given only in locked memory (SecureBytes, SECURITY.md §5): one record as a
/// SecureBytes of its own; many as a sink, each record handed to `body` in a locked scratch buffer
/// reused from record to record and wiped after each call, so reading 100,000 records neither
/// allocates per record nor locks more than the largest one needs. Copy what you keep into a
/// SecureBytes (`SecureBytes(copying:)`).
extension VaultTransaction {
    /// Seals `plaintext` (at most 1 MiB) at `location` under `compartment`'s current key version,
    /// replacing the location's earlier value. A location holding another compartment's record is
    /// refused (`.recordLocationTaken`); a compartment shared with this vault is refused
    /// (`.sharedCompartmentReadOnly`).
    @discardableResult
    public func sealRecord(_ plaintext: [UInt8], at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> SealedRecordIdentity {
        try plaintext.withUnsafeBytes { try sealedRecords.seal(bytes: $0, at: location, in: compartment) }
    }

    /// `sealRecord` of a plaintext already in locked memory, read where it lies (never copied out).
    @discardableResult
    public func sealRecord(_ plaintext: SecureBytes, at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> SealedRecordIdentity {
        try plaintext.withUnsafeBytes { try sealedRecords.seal(bytes: $0, at: location, in: compartment) }
    }

    /// Opens the record at `location` of an ordinary (not privileged) compartment.
    public func openRecord(at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> SecureBytes {
        try sealedRecords.open(location, in: compartment, access: .vault)
    }

    /// Opens the record at `location` of a privileged compartment with a live session's keyring.
    public func openRecord(at location: SealedRecordLocation, in compartment: VaultCompartment,
                           keyring: CompartmentKeyring) throws -> SecureBytes {
        try sealedRecords.open(location, in: compartment, access: .keyring(keyring))
    }

    /// Opens several records of one ordinary compartment in the order given, calling `body` with each
    /// one's index in `locations` and its plaintext, which lies in locked memory valid only during
    /// the call. The first record that fails to open (or the first error `body` throws) ends the
    /// call with that error; the records handed over before it are recorded all the same.
    public func openRecords(at locations: [SealedRecordLocation], in compartment: VaultCompartment,
                            _ body: (_ index: Int, _ plaintext: UnsafeRawBufferPointer) throws -> Void) throws {
        try sealedRecords.open(locations, in: compartment, access: .vault, body)
    }

    /// Opens several records of one privileged compartment with a live session's keyring; see
    /// `openRecords(at:in:_:)`.
    public func openRecords(at locations: [SealedRecordLocation], in compartment: VaultCompartment, keyring: CompartmentKeyring,
                            _ body: (_ index: Int, _ plaintext: UnsafeRawBufferPointer) throws -> Void) throws {
        try sealedRecords.open(locations, in: compartment, access: .keyring(keyring), body)
    }

    /// Whether the record at `location` of an ordinary compartment holds exactly `plaintext`, told by
    /// its keyed digest without opening it (false for no record, or one sealed before digests were
    /// kept: open it to compare). A writer uses it to skip resealing a value it would write unchanged.
    public func recordHolds(_ plaintext: [UInt8], at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> Bool {
        try plaintext.withUnsafeBytes { try sealedRecords.holds($0, at: location, in: compartment, access: .vault) }
    }

    /// `recordHolds` for a privileged compartment, with a live session's keyring.
    public func recordHolds(_ plaintext: [UInt8], at location: SealedRecordLocation, in compartment: VaultCompartment,
                            keyring: CompartmentKeyring) throws -> Bool {
        try plaintext.withUnsafeBytes { try sealedRecords.holds($0, at: location, in: compartment, access: .keyring(keyring)) }
    }

    /// The ids of `module`'s records sealed in `compartment`, of each table of `fields` at that
    /// table's field (table → field), by table: the rows the compartment's records say are its, for a
    /// module that checks the links its tables keep in clear (the writing model's, SECURITY.md §14.2
    /// "Links"). Clear columns only (ids, never a sealed byte), so nothing is opened or recorded and a
    /// privileged compartment needs no session. Costs the compartment's records, not the vault's.
    public func recordIDs(ofModule module: String, fields: [String: String], in compartment: VaultCompartment) throws -> [String: Set<[UInt8]>] {
        try sealedRecords.store.recordIDs(module: module, fields: fields, compartmentRowID: compartment.rowID)
    }

    /// The row id (`VaultCompartment.rowID`) of the compartment the record at `location` is sealed
    /// in, or nil when the location holds no record. A clear column only: nothing is opened or recorded.
    public func recordCompartmentRowID(at location: SealedRecordLocation) throws -> Int64? {
        try sealedRecords.store.compartmentRowID(at: location)
    }

    /// Deletes every record `module` sealed, in every compartment but `kept`, for a module whose whole
    /// store is being rebuilt in this transaction (`vaultctl repair`, SECURITY.md §19.10; `kept`: the
    /// compartments of projects the repair keeps as they are); returns how many.
    public func removeRecords(ofModule module: String, keeping kept: [VaultCompartment] = []) throws -> Int {
        try sealedRecords.store.removeAll(module: module, keepingCompartmentRowIDs: kept.map(\.rowID))
    }

    /// Deletes the record at `location` of `compartment` (`.recordNotFound` if it holds none of it).
    public func removeRecord(at location: SealedRecordLocation, in compartment: VaultCompartment) throws {
        try sealedRecords.remove(location, in: compartment)
    }
}
