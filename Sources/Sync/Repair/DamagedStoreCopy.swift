import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The damaged writing store kept aside for inspection before a repair rebuilds it (SECURITY.md
/// §19.10): the vault's database and its write-ahead log, byte for byte as they are, copied into
/// `VAULT/damaged/<UTC time>-<pid>/`. The copy is written under a temporary name (`.partial-…`),
/// each file fsynced, the folder renamed into place and its parent fsynced, so a crash leaves either
/// no copy or a whole one; a partial copy a killed repair left is removed by the next repair.
///
/// The copy is the whole vault as it was: every compartment's keys and every sealed record,
/// privileged ones included, under the keyslots of that moment (attack review s8, F2). So it is kept
/// read-only (files 0400, folder 0500), vaultctl refuses to open it read-write (a first look would
/// change it, and it would be a second instance of this device), and `compartment destroy` and
/// `passwd`, whose promise it would break, name it and remove it only when told to (`removeAll`,
/// recorded). vaultctl deletes it at no other time.
public enum DamagedStoreCopy {
    public static let folder = "damaged"
    static let partialPrefix = ".partial-"

    /// Copies the files while a read transaction holds the database still; returns the kept
    /// folder's name under `damaged/` and the bytes copied.
    static func keep(_ vault: Vault, at time: Int64) throws -> (name: String, bytes: Int) {
        let parent = (vault.directory as NSString).appendingPathComponent(folder)
        try makeFolder(parent)
        try removePartials(in: parent)
        let name = "\(stamp(time))-\(getpid())"
        let partial = (parent as NSString).appendingPathComponent(partialPrefix + name)
        try makeFolder(partial)
        let bytes = try vault.read { database -> Int in
            _ = try database.query("SELECT count(*) AS tables FROM sqlite_master")
            var total = 0
            for suffix in ["", "-wal"] {
                guard let data = FileManager.default.contents(atPath: vault.databasePath + suffix) else { continue }
                try DurableFile.write([UInt8](data), to: (partial as NSString).appendingPathComponent(Vault.databaseName + suffix), mode: 0o400)
                total += data.count
            }
            return total
        }
        let kept = (parent as NSString).appendingPathComponent(name)
        try DurableFile.renameReplacing(partial, to: kept)
        guard chmod(kept, 0o500) == 0 else {
            throw RepairError(.copyFailed, "cannot make \(kept) read-only: \(String(cString: strerror(errno)))")
        }
        try DurableFile.syncDirectory(vault.directory)
        return (name, bytes)
    }

    /// The kept copies of the vault in `directory`, whole ones and partial ones a killed repair left
    /// (full paths, by name).
    public static func kept(in directory: String) -> [String] {
        let parent = (directory as NSString).appendingPathComponent(folder)
        return ((try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? []).sorted().map { (parent as NSString).appendingPathComponent($0) }
    }

    /// Whether `directory` is a kept copy: a folder of a vault's `damaged/` (its parent's parent holds
    /// a vault's database).
    public static func isKeptCopy(_ directory: String) -> Bool {
        let path = URL(fileURLWithPath: directory).resolvingSymlinksInPath().standardizedFileURL.path
        let parent = (path as NSString).deletingLastPathComponent
        guard (parent as NSString).lastPathComponent == folder else { return false }
        let vault = (parent as NSString).deletingLastPathComponent
        return FileManager.default.fileExists(atPath: (vault as NSString).appendingPathComponent(Vault.databaseName))
    }

    /// Removes every kept copy of the vault, whole or partial, then records `sync.repair-kept-remove`
    /// (details: kept (the names), because (the command that asked)). Returns the paths removed.
    public static func removeAll(_ vault: UnlockedVault, because command: String) throws -> [String] {
        let copies = kept(in: vault.vault.directory)
        guard !copies.isEmpty else { return [] }
        for copy in copies { try remove(copy) }
        try DurableFile.syncDirectory((vault.vault.directory as NSString).appendingPathComponent(folder))
        try vault.record(VaultEvent(.syncRepairKeptRemove, details: [
            .init("kept", copies.map { ($0 as NSString).lastPathComponent }.joined(separator: ",")), .init("because", command),
        ]))
        return copies
    }

    /// A partial copy is one a repair killed while copying left: never whole, never inspected.
    private static func removePartials(in parent: String) throws {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: parent)) ?? [] where name.hasPrefix(partialPrefix) {
            try remove((parent as NSString).appendingPathComponent(name))
        }
    }

    /// Its folder made writable again (it is 0500), then removed with its files.
    private static func remove(_ copy: String) throws {
        _ = chmod(copy, 0o700)
        do { try FileManager.default.removeItem(atPath: copy) } catch {
            throw RepairError(.copyFailed, "cannot remove the kept copy \(copy): \(error.localizedDescription)")
        }
    }

    private static func makeFolder(_ path: String) throws {
        guard mkdir(path, 0o700) == 0 || errno == EEXIST else {
            throw RepairError(.copyFailed, "cannot make \(path): \(String(cString: strerror(errno)))")
        }
    }

    /// `YYYYMMDDTHHMMSSZ` of a Unix time (UTC).
    static func stamp(_ time: Int64) -> String {
        var seconds = time_t(time), parts = tm()
        gmtime_r(&seconds, &parts)
        return String(format: "%04d%02d%02dT%02d%02d%02dZ", Int(parts.tm_year) + 1900, Int(parts.tm_mon) + 1, Int(parts.tm_mday),
                      Int(parts.tm_hour), Int(parts.tm_min), Int(parts.tm_sec))
    }
}
