import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The in-memory mode's copy of a vault whose writing store cannot be opened (SECURITY.md §19.10):
/// the vault's database and write-ahead log copied into a private folder in memory (`/dev/shm`, a
/// tmpfs, when it is there; the temporary folder otherwise), 0700, marked as the copy
/// (`InMemoryCopyMarker`), with `assets/` holding a symbolic link to each of the vault's bundle files
/// so they read as ever, and the copy's writing store emptied and made again
/// (`WritingStoreReset.resetScratch`). A command then opens the copy, not the vault, and the copy
/// is removed when the process ends; a copy left by a process that was killed is removed by the next
/// one that makes a copy (`sweepAbandoned`).
///
/// What the copy holds: the vault's database as it is on disk (every sealed record sealed, the audit
/// details sealed or keyed-hashed, §4.8, §8.3) with its writing store emptied; what `sync now` then
/// brings is stored sealed as on disk. No plaintext of a document, title or privileged record is
/// ever written into it: a privileged compartment cannot even be opened on the copy (no session),
/// and a search index lives in the process's memory, never in a file.
///
/// Links, not copies (a vault's bundles may not fit in memory), so nothing may write through them:
/// a bundle written in this mode is a new file of the copy's folder (a rename replaces the link,
/// never its target), and the one write in place, a rewrap's new header, opens its file with
/// `O_NOFOLLOW` and so fails on a link (`AssetFolder`); the commands that would rewrap are refused
/// in this mode anyway. Only `<id>.vbundle` files are linked: a rewrap journal or a half-written
/// file of the vault is the vault's own to finish, never the copy's.
public enum InMemoryStore {
    /// Makes the copy of the vault in `directory`; returns the folder to remove afterwards and the
    /// copy's vault folder inside it.
    /// `reason` is why the vault's store cannot be opened, kept in the copy's mark.
    /// `emptyingWritingStore: false` keeps the copy's writing store as it was: for reading a copy a
    /// repair kept (`vaultctl doc show --read-only`), which is never opened itself.
    public static func makeCopy(of directory: String, reason: String, emptyingWritingStore: Bool = true) throws -> (root: String, vault: String) {
        sweepAbandoned()
        let root = (base as NSString).appendingPathComponent("\(prefix)\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(8)))")
        let copy = (root as NSString).appendingPathComponent("vault")
        for folder in [root, copy, copy + "/assets"] where mkdir(folder, 0o700) != 0 {
            throw CryptoVaultError(.io, "cannot make \(folder) for the in-memory copy: \(String(cString: strerror(errno)))")
        }
        for suffix in ["", "-wal"] {
            guard let data = FileManager.default.contents(atPath: (directory as NSString).appendingPathComponent(Vault.databaseName + suffix)) else { continue }
            let path = (copy as NSString).appendingPathComponent(Vault.databaseName + suffix)
            guard FileManager.default.createFile(atPath: path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CryptoVaultError(.io, "cannot write \(path) for the in-memory copy")
            }
        }
        try InMemoryCopyMarker.mark(copy, reason: reason)
        let assets = (directory as NSString).appendingPathComponent("assets")
        for name in (try? FileManager.default.contentsOfDirectory(atPath: assets)) ?? [] where name.hasSuffix(".vbundle") && !name.hasPrefix(".") {
            _ = symlink((assets as NSString).appendingPathComponent(name), (copy as NSString).appendingPathComponent("assets/" + name))
        }
        if emptyingWritingStore {
            let database = try Database(path: (copy as NSString).appendingPathComponent(Vault.databaseName), create: false, readOnly: false)
            try WritingStoreReset.resetScratch(database)
        }
        return (root, copy)
    }

    /// Removes a copy made by `makeCopy` (its links only point at the vault's files; they go, the files stay).
    public static func remove(_ root: String) {
        InMemoryCopyMarker.forget((root as NSString).appendingPathComponent("vault"))
        try? FileManager.default.removeItem(atPath: root)
    }

    /// Every copy's folder starts with this, then the pid of the process that made it.
    static let prefix = "vaultctl-in-memory-"

    /// Where copies are made: memory (`/dev/shm`) when it is there, else the temporary folder.
    static var base: String { access("/dev/shm", W_OK) == 0 ? "/dev/shm" : NSTemporaryDirectory() }

    /// Removes the copies a killed process left (kill -9 runs no exit handler): folders named as
    /// `makeCopy` names them, in `/dev/shm` and the temporary folder, owned by this user, whose
    /// process is gone. A live process's copy, or another user's, is never touched; a pid reused
    /// since keeps its copy until that process is gone too. Returns the folders removed.
    @discardableResult
    public static func sweepAbandoned(in bases: [String] = ["/dev/shm", NSTemporaryDirectory()]) -> [String] {
        var removed: [String] = []
        for base in Set(bases.map { ($0 as NSString).standardizingPath }) {
            for name in (try? FileManager.default.contentsOfDirectory(atPath: base)) ?? [] {
                guard let pid = abandonedCopyOwner(name), ProcessLiveness.isGone(pid) else { continue }
                let path = (base as NSString).appendingPathComponent(name)
                var status = stat()
                guard lstat(path, &status) == 0, status.st_uid == getuid(), (status.st_mode & S_IFMT) == S_IFDIR else { continue }
                if (try? FileManager.default.removeItem(atPath: path)) != nil { removed.append(path) }
            }
        }
        return removed
    }

    /// The pid in a copy folder's name (`vaultctl-in-memory-PID-RANDOM`), or nil for any other name.
    static func abandonedCopyOwner(_ name: String) -> Int32? {
        guard name.hasPrefix(prefix) else { return nil }
        let parts = name.dropFirst(prefix.count).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, parts[1].count == 16, parts[1].allSatisfy(\.isHexDigit), let pid = Int32(parts[0]), pid > 0 else { return nil }
        return pid
    }
}
