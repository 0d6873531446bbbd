/// What happens to bundles, as the vault's journal (the audit log) records it: one `bundle.<action>`
/// event (`AuditAction.bundlePut` and its siblings) per operation, written in the same transaction
/// as the operation itself.
extension UnlockedVault {
    /// The detail that carries an operation's byte count (SECURITY.md §8.1), sealed like every detail.
    public static let bytesDetailName = "bytes"
    /// The detail that names the owner's vault when a shared compartment is used.
    public static let sourceVaultDetailName = "source-vault"

    /// Journals a bundle operation; call inside the write transaction of the operation it records.
    /// `bytes` (decimal) becomes the `bytes` detail: the plaintext length for seal, put and rm, the
    /// bytes written for open and get (a range reads fewer), nothing when unknown.
    func record(_ action: AuditAction, compartmentID: CompartmentID?, bundleID: BundleID?, bytes: UInt64?, in database: Database,
                details: [VaultEvent.Detail] = []) throws {
        let counted = details + (bytes.map { [VaultEvent.Detail(Self.bytesDetailName, String($0))] } ?? [])
        try journal(VaultEvent(action, compartmentID: compartmentID, subjectID: bundleID?.bytes, details: counted), in: database)
    }

    /// Records an operation that changed nothing else in the vault (an open, a get), in its own transaction.
    /// A bundle of a compartment shared with this device also gets the `source-vault` detail (the
    /// owner's vault id in hex), so every use of a shared compartment is told apart in the log.
    public func record(_ action: AuditAction, bundle header: BundleHeader, bytes: UInt64?, details: [VaultEvent.Detail] = []) throws {
        try transaction { try $0.record(action, bundle: header, bytes: bytes, details: details) }
    }
}

extension VaultTransaction {
    /// Records a bundle operation in this transaction, as `UnlockedVault.record(_:bundle:bytes:details:)`
    /// does in its own: the `bytes` detail after `details`, and `source-vault` for a shared compartment's bundle.
    public func record(_ action: AuditAction, bundle header: BundleHeader, bytes: UInt64?, details: [VaultEvent.Detail] = []) throws {
        let counted = details + (bytes.map { [VaultEvent.Detail(UnlockedVault.bytesDetailName, String($0))] } ?? [])
        let source = header.vaultID == vault.vaultID ? []
            : [VaultEvent.Detail(UnlockedVault.sourceVaultDetailName, header.vaultID.hex)]
        try record(action, compartment: header.compartmentID, subject: header.bundleID, details: counted + source)
    }
}
