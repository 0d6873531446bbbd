import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// The mark of the in-memory mode's copy of a vault (SECURITY.md §19.10): a file `in-memory-copy` in
/// the copy's folder, holding a random token and why the vault's writing store could not be opened.
/// Whatever opens the copy in the process that made it (a command, the daemon, the console, a
/// library caller) can tell it is not the vault, and the layers below the command line refuse there
/// what needs a record the vault cannot keep: the copy's audit log is removed with it, so a
/// privileged session, an egress decision or a signed checkpoint made on it would leave nothing an
/// auditor could ever see (review 17, F3).
///
/// The file alone proves nothing (review 17, in-memory item 5a): anyone who can write the vault's folder could plant
/// one there and so make the real vault refuse every session and egress. A mark counts only where
/// this process made it: the process keeps each copy's folder and token in memory, and the file must
/// hold the same token. A copy whose process is gone is no one's copy (`InMemoryStore` sweeps it).
public enum InMemoryCopyMarker {
    public static let name = "in-memory-copy"
    /// Longer reasons are cut: the mark is read on every check, and its text is only shown.
    static let maximumBytes = 4096
    /// The token's length in hex digits (16 random bytes), then a newline, then the reason.
    static let tokenDigits = 32

    /// The copies this process marked: each copy folder's real path, with its token.
    private static let made = Mutex<[String: String]>([:])

    /// Marks `directory` (the copy's vault folder) as the in-memory copy, for `reason`; the mark
    /// counts in this process only.
    public static func mark(_ directory: String, reason: String) throws {
        let token = ByteEncoding.hex(try SecureRandom.bytes(tokenDigits / 2))
        let path = (directory as NSString).appendingPathComponent(name)
        guard FileManager.default.createFile(atPath: path, contents: Data((token + "\n" + reason).utf8.prefix(maximumBytes)),
                                             attributes: [.posixPermissions: 0o600]),
              let real = realPath(directory) else {
            throw CryptoVaultError(.io, "cannot write \(path) for the in-memory copy")
        }
        made.withLock { $0[real] = token }
    }

    /// This process no longer holds the copy in `directory` (it is being removed).
    public static func forget(_ directory: String) {
        guard let real = realPath(directory) else { return }
        _ = made.withLock { $0.removeValue(forKey: real) }
    }

    /// Why `directory` is an in-memory copy this process made, or nil when it is not one: a vault,
    /// or a folder holding a mark this process did not make (planted, or another process's).
    public static func reason(in directory: String) -> String? {
        let path = (directory as NSString).appendingPathComponent(name)
        guard access(path, F_OK) == 0, let real = realPath(directory), let token = made.withLock({ $0[real] }) else { return nil }
        let bytes = FileManager.default.contents(atPath: path).map { [UInt8]($0.prefix(maximumBytes)) } ?? []
        let text = String(decoding: bytes, as: UTF8.self)
        guard text.hasPrefix(token + "\n") else { return nil }
        let reason = String(text.dropFirst(tokenDigits + 1))
        return reason.isEmpty ? "in-memory copy" : reason
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
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
