import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Durable file writes: write a temporary file beside the target, fsync it, rename it over the
/// target, then fsync the directory, so a crash leaves either the old file or the new one.
/// Every syscall is retried on EINTR and reports the call and errno.
public enum DurableFile {
    public static func write(_ bytes: UnsafeRawBufferPointer, to path: String, mode: mode_t = 0o600) throws {
        let directory = (path as NSString).deletingLastPathComponent
        let temporary = "\(path).tmp-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let descriptor = try retrying("open \(temporary)") { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        do {
            try writeAll(descriptor, bytes, path: temporary)
            _ = try retrying("fsync \(temporary)") { fsync(descriptor) }
            close(descriptor)
            _ = try retrying("rename \(temporary)") { rename(temporary, path) }
            try syncDirectory(directory.isEmpty ? "." : directory)
        } catch {
            close(descriptor)
            unlink(temporary)
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
        try syncDirectory((destination as NSString).deletingLastPathComponent)
    }

    public static func syncDirectory(_ directory: String) throws {
        let descriptor = try retrying("open \(directory)") { open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(descriptor) }
        _ = try retrying("fsync \(directory)") { fsync(descriptor) }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: UnsafeRawBufferPointer, path: String) throws {
        var offset = 0
        while offset < bytes.count {
            let written = try retrying("write \(path)") {
                Int32(truncatingIfNeeded: Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset))
            }
            offset += Int(written)
        }
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
