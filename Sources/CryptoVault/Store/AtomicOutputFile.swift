import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file that appears at its path only complete: written to a temporary file beside it (private to
/// the owner), fsynced, then renamed into place and the directory fsynced. `abandon` removes the
/// temporary file, so a failed operation leaves nothing, and no partial plaintext, behind.
public final class AtomicOutputFile {
    public let path: String
    public let temporaryPath: String
    public let descriptor: FileDescriptor

    /// Refuses an existing `path` unless `replacing` is set.
    public init(path: String, replacing: Bool, mode: mode_t = 0o600) throws {
        if FileManager.default.fileExists(atPath: path) && !replacing {
            throw CryptoVaultError(.fileExists, "\(path) already exists")
        }
        self.path = path
        let directory = Self.directory(of: path)
        temporaryPath = "\(directory)/.\(Self.fileName(of: path)).vaultctl-\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(4))).tmp"
        descriptor = try FileDescriptor.createExclusive(temporaryPath, mode: mode)
    }

    public func commit() throws {
        try descriptor.sync()
        _ = try DurableFile.retrying("rename \(temporaryPath)") { rename(temporaryPath, path) }
        try DurableFile.syncDirectory(Self.directory(of: path))
    }

    public func abandon() {
        unlink(temporaryPath)
    }

    /// The folder holding `path` ("." for a bare name). Written out rather than taken from
    /// NSString, whose Linux version traps on some one-character names.
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    static func fileName(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
