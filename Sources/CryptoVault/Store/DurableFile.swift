import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Durable file writes: write a temporary file beside the target, fsync it, rename it over the
/// target, then fsync the directory, so a crash leaves either the old file or the new one.
/// Every syscall is retried on EINTR and reports the call and errno.
public enum DurableFile {
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String, mode: mode_t = 0o600) throws {
        let output = try AtomicOutputFile(path: path, replacing: true, mode: mode)
        do {
            try output.descriptor.write(bytes)
            try output.commit()
        } catch {
            output.abandon()
            throw error
        }
    }

    public static func write(_ bytes: [UInt8], to path: String, mode: mode_t = 0o600) throws {
        try bytes.withUnsafeBytes { try write($0, to: path, mode: mode) }
    }

    public static func write(_ secret: SecureBytes, to path: String, mode: mode_t = 0o600) throws {
        try secret.withUnsafeBytes { try write($0, to: path, mode: mode) }
    }

    /// Moves a finished file into place, failing (rather than replacing) if `destination` exists:
    /// link(2) is atomic and refuses an existing name; the temporary name is then removed.
    public static func renameWithoutReplacing(_ source: String, to destination: String) throws {
        let descriptor = try retrying("open \(source)") { open(source, O_RDONLY | O_CLOEXEC) }
        defer { close(descriptor) }
        _ = try retrying("fsync \(source)") { fsync(descriptor) }
        _ = try retrying("link \(destination)") { link(source, destination) }
        unlink(source)
        try syncDirectory(AtomicOutputFile.directory(of: destination))
    }

    /// Moves a finished, synced file over `destination` (replacing it) and makes the rename durable.
    public static func renameReplacing(_ source: String, to destination: String) throws {
        _ = try retrying("rename \(source)") { rename(source, destination) }
        try syncDirectory(AtomicOutputFile.directory(of: destination))
    }

    public static func syncDirectory(_ directory: String) throws {
        let descriptor = try retrying("open \(directory)") { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(descriptor) }
        _ = try retrying("fsync \(directory)") { fsync(descriptor) }
    }

    /// Calls `body` until it does not fail with EINTR; a negative result becomes an `.io` error.
    @discardableResult
    static func retrying(_ call: String, _ body: () -> Int32) throws -> Int32 {
        while true {
            let result = body()
            if result >= 0 { return result }
            if errno == EINTR { continue }
            throw CryptoVaultError(.io, "\(call) failed: \(String(cString: strerror(errno)))")
        }
    }
}
