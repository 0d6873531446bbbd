import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The damaged writing store kept aside for inspection before a repair rebuilds it (SECURITY.md
/// §19.10): the vault's database and its write-ahead log, byte for byte as they are, copied into
/// `VAULT/damaged/<UTC time>-<pid>/` (folders 0700, files 0600). The copy is written under a
/// temporary name, each file fsynced, the folder renamed into place and its parent fsynced, so a
/// crash leaves either no copy or a whole one. It is never deleted by vaultctl.
enum DamagedStoreCopy {
    static let folder = "damaged"

    /// Copies the files while a read transaction holds the database still; returns the kept
    /// folder's name under `damaged/` and the bytes copied.
    static func keep(_ vault: Vault, at time: Int64) throws -> (name: String, bytes: Int) {
        let parent = (vault.directory as NSString).appendingPathComponent(folder)
        try makeFolder(parent)
        let name = "\(stamp(time))-\(getpid())"
        let partial = (parent as NSString).appendingPathComponent(".partial-\(name)")
        try makeFolder(partial)
        let bytes = try vault.read { database -> Int in
            _ = try database.query("SELECT count(*) AS tables FROM sqlite_master")
            var total = 0
            for suffix in ["", "-wal"] {
                guard let data = FileManager.default.contents(atPath: vault.databasePath + suffix) else { continue }
                try DurableFile.write([UInt8](data), to: (partial as NSString).appendingPathComponent(Vault.databaseName + suffix))
                total += data.count
            }
            return total
        }
        try DurableFile.renameReplacing(partial, to: (parent as NSString).appendingPathComponent(name))
        try DurableFile.syncDirectory(vault.directory)
        return (name, bytes)
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
