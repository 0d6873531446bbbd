import AuditChain
@testable import CryptoVault

/// A bundle operation as the vault's audit log records it (SECURITY.md §8.1): the tests' view of
/// "what did this command record", read back through the library with the vault's audit keys.
struct BundleAuditEvent: Equatable, CustomStringConvertible {
    /// "seal", "open", "put", "get", "rm" or "rewrap" (the entry's action without "bundle.").
    let action: String
    let compartmentID: CompartmentID?
    let bundleID: String
    /// The `bytes` detail, unsealed; nil when the entry has none.
    let bytes: UInt64?

    var description: String { "\(action) \(bundleID) \(bytes.map(String.init) ?? "-")" }

    /// Every `bundle.*` entry of the vault's log, in order. A `bytes` detail that is not a decimal
    /// count throws, so a malformed record cannot pass for a missing one.
    static func all(in unlocked: UnlockedVault) throws -> [BundleAuditEvent] {
        let keys = try unlocked.auditKeys()
        return try AuditLogReader(vault: unlocked.vault).entries().filter { $0.action.hasPrefix("bundle.") }.map { entry in
            let details = try AuditLogReader.details(of: entry, vaultID: unlocked.vault.vaultID, keys: keys)
            let bytes = try details.first { $0.name == UnlockedVault.bytesDetailName }.map { detail in
                guard let count = UInt64(detail.value), String(count) == detail.value else {
                    throw CLIError(message: "entry \(entry.seq): bytes detail '\(detail.value)' is not a decimal count")
                }
                return count
            }
            return BundleAuditEvent(action: String(entry.action.dropFirst("bundle.".count)), compartmentID: entry.compartmentID,
                                    bundleID: ByteEncoding.hex(entry.subjectID), bytes: bytes)
        }
    }
}
