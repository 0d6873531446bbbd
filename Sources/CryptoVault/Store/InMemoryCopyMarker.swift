import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The mark of the in-memory mode's copy of a vault (SECURITY.md §19.10): a file `in-memory-copy` in
/// the copy's folder, holding why the vault's writing store could not be opened. Whatever opens the
/// copy (a command, the daemon, the console, a library caller) can tell it is not the vault, and the
/// layers below the command line refuse there what needs a record the vault cannot keep: the
/// copy's audit log is removed with it, so a privileged session, an egress decision or a signed
/// checkpoint made on it would leave nothing an auditor could ever see (review 17, F3).
public enum InMemoryCopyMarker {
    public static let name = "in-memory-copy"
    /// Longer reasons are cut: the mark is read on every check, and its text is only shown.
    static let maximumBytes = 4096

    /// Marks `directory` (the copy's vault folder) as the in-memory copy, for `reason`.
    public static func mark(_ directory: String, reason: String) throws {
        let path = (directory as NSString).appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: path, contents: Data(reason.utf8.prefix(maximumBytes)),
                                             attributes: [.posixPermissions: 0o600]) else {
            throw CryptoVaultError(.io, "cannot write \(path) for the in-memory copy")
        }
    }

    /// Why `directory` is an in-memory copy, or nil when it is not one.
    public static func reason(in directory: String) -> String? {
        let path = (directory as NSString).appendingPathComponent(name)
        guard access(path, F_OK) == 0 else { return nil }
        let bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0.prefix(maximumBytes)) } ?? []
        let text = String(decoding: bytes, as: UTF8.self)
        return text.isEmpty ? "in-memory copy" : text
    }

    /// The refusal of something that needs a record the vault cannot keep: `what` ("a privileged
    /// session", "an egress") is not made on the copy.
    public static func refusal(of what: String, reason: String) -> String {
        "\(what) is refused in in-memory mode (\(reason)): its audit entry would be kept only in the copy in memory, removed "
            + "when the process ends; 'vaultctl repair --from DEVICE' rebuilds the writing store, then do it again"
    }
}

extension Vault {
    /// Why this vault is the in-memory mode's copy of one (SECURITY.md §19.10), or nil for a vault.
    public var inMemoryCopyReason: String? { InMemoryCopyMarker.reason(in: directory) }
}
