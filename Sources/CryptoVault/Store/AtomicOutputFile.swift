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

    /// Refuses an existing `path` unless `replacing` is set, and anything at `path` that is not a
    /// regular file (a device node, FIFO, directory or symbolic link, dangling or not) always: the
    /// rename would put a regular file in its place (see `OutputPath` for writing into a device).
    public init(path: String, replacing: Bool, mode: mode_t = 0o600) throws {
        if try Self.existingRegularFile(at: path) && !replacing {
            throw CryptoVaultError(.fileExists, "\(path) already exists")
        }
        self.path = path
        let directory = Self.directory(of: path)
        temporaryPath = "\(directory)/.\(Self.fileName(of: path)).vaultctl-\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(4))).tmp"
        descriptor = try FileDescriptor.createExclusive(temporaryPath, mode: mode)
    }

    public func commit() throws {
        try descriptor.sync()
        // Checked again at the last moment: something other than a regular file put there while the
        // output was written is not replaced either.
        _ = try Self.existingRegularFile(at: path)
        _ = try DurableFile.retrying("rename \(temporaryPath)") { rename(temporaryPath, path) }
        try DurableFile.syncDirectory(Self.directory(of: path))
    }

    public func abandon() {
        unlink(temporaryPath)
    }

    /// True for a regular file at `path`, false for nothing; throws `notWritableOutput` for anything
    /// else, without following a symbolic link.
    static func existingRegularFile(at path: String) throws -> Bool {
        var status = stat()
        guard lstat(path, &status) == 0 else {
            guard errno == ENOENT else { throw CryptoVaultError(.io, "cannot examine \(path): \(String(cString: strerror(errno)))") }
            return false
        }
        guard status.st_mode & S_IFMT == S_IFREG else {
            throw CryptoVaultError(.notWritableOutput, "\(path) is not a regular file; only a regular file is ever replaced")
        }
        return true
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

extension AtomicOutputFile {
    /// Deletes, from the folder of `path`, the temporary files of atomic outputs whose process is gone
    /// (".NAME.vaultctl-PID-RANDOM.tmp" left by a process killed before it could commit or abandon):
    /// `vaultctl open -o` writes verified plaintext there, which must not outlive the command. Only
    /// regular files of this user with exactly that name form go. Returns the names removed.
    @discardableResult
    public static func removeAbandonedTemporaries(besides path: String) -> [String] {
        let folder = directory(of: path)
        var removed: [String] = []
        for name in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let pid = writingProcess(ofTemporary: name), ProcessLiveness.isGone(pid) else { continue }
            let file = "\(folder)/\(name)"
            var status = stat()
            guard lstat(file, &status) == 0, status.st_mode & S_IFMT == S_IFREG, status.st_uid == getuid() else { continue }
            if unlink(file) == 0 { removed.append(name) }
        }
        return removed
    }

    /// The process id in a temporary file name ".NAME.vaultctl-PID-RANDOM.tmp" (NAME non-empty, PID
    /// canonical decimal, RANDOM 8 lowercase hex digits, as `init` makes them), or nil for any other name.
    static func writingProcess(ofTemporary name: String) -> Int32? {
        guard name.hasPrefix("."), name.hasSuffix(".tmp") else { return nil }
        let stem = name.dropLast(".tmp".count)
        guard let marker = stem.range(of: ".vaultctl-", options: .backwards), stem.distance(from: stem.startIndex, to: marker.lowerBound) > 1 else {
            return nil
        }
        let parts = stem[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
        let hexDigits = Set("0123456789abcdef")
        guard parts.count == 2, parts[1].count == 8, parts[1].allSatisfy(hexDigits.contains),
              let pid = Int32(parts[0]), pid > 0, String(pid) == parts[0] else { return nil }
        return pid
    }
}
