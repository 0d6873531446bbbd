/// Sealed records (SECURITY.md §4.8) are sealed and opened only inside the audited transaction, and
/// each seal and open is recorded in it by the library: a `record.seal` entry per record sealed, a
/// `record.open` entry per call and compartment naming up to 64 records opened (more make more
/// entries). Whoever the caller is (a command, the daemon, the console), a read leaves its entry.
///
/// A privileged compartment's records open only with the keyring of a live privileged processing
/// session of that compartment (`CompartmentKeyring`, which only the PrivilegedSession module can
/// make), as bundles do; without one, `.privilegedSessionRequired`. Sealing needs no session.
extension VaultTransaction {
    /// Seals `plaintext` (at most 1 MiB) at `location` under `compartment`'s current key version,
    /// replacing the location's earlier value. A location holding another compartment's record is
    /// refused (`.recordLocationTaken`); a compartment shared with this vault is refused
    /// (`.sharedCompartmentReadOnly`).
    @discardableResult
    public func sealRecord(_ plaintext: [UInt8], at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> SealedRecordIdentity {
        try sealedRecords.seal(plaintext, at: location, in: compartment)
    }

    /// Opens the record at `location` of an ordinary (not privileged) compartment.
    public func openRecord(at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> [UInt8] {
        try sealedRecords.open([location], in: compartment, access: .vault)[0]
    }

    /// Opens the record at `location` of a privileged compartment with a live session's keyring.
    public func openRecord(at location: SealedRecordLocation, in compartment: VaultCompartment,
                           keyring: CompartmentKeyring) throws -> [UInt8] {
        try sealedRecords.open([location], in: compartment, access: .keyring(keyring))[0]
    }

    /// Opens several records of one ordinary compartment, all or none, in the order given.
    public func openRecords(at locations: [SealedRecordLocation], in compartment: VaultCompartment) throws -> [[UInt8]] {
        try sealedRecords.open(locations, in: compartment, access: .vault)
    }

    /// Opens several records of one privileged compartment with a live session's keyring.
    public func openRecords(at locations: [SealedRecordLocation], in compartment: VaultCompartment,
                            keyring: CompartmentKeyring) throws -> [[UInt8]] {
        try sealedRecords.open(locations, in: compartment, access: .keyring(keyring))
    }

    /// Deletes the record at `location` of `compartment` (`.recordNotFound` if it holds none of it).
    public func removeRecord(at location: SealedRecordLocation, in compartment: VaultCompartment) throws {
        try sealedRecords.remove(location, in: compartment)
    }
}
