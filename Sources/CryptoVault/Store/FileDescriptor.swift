import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// An open file: every read, write and sync goes through here, retried on EINTR, with errors that
/// name the call, the path and errno. Closed when released.
public final class FileDescriptor: @unchecked Sendable {
    public let rawValue: Int32
    public let path: String
    private let ownsDescriptor: Bool

    public init(rawValue: Int32, path: String, ownsDescriptor: Bool) {
        self.rawValue = rawValue
        self.path = path
        self.ownsDescriptor = ownsDescriptor
    }

    deinit {
        if ownsDescriptor { close(rawValue) }
    }

    public static let standardInput = FileDescriptor(rawValue: STDIN_FILENO, path: "standard input", ownsDescriptor: false)
    public static let standardOutput = FileDescriptor(rawValue: STDOUT_FILENO, path: "standard output", ownsDescriptor: false)

    public static func openForReading(_ path: String) throws -> FileDescriptor {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code: CryptoVaultErrorCode = errno == ENOENT ? .fileNotFound : .io
            throw CryptoVaultError(code, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        return FileDescriptor(rawValue: descriptor, path: path, ownsDescriptor: true)
    }

    /// Opens a regular file for reading without ever blocking on what the path names: the open is
    /// non-blocking (a FIFO with no writer, a device, would otherwise wait forever), and anything but
    /// a regular file is refused with `notRegularFile` before a byte is read. A server opening a path
    /// its client chose uses this.
    public static func openRegularFileForReading(_ path: String) throws -> FileDescriptor {
        let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code: CryptoVaultErrorCode = errno == ENOENT ? .fileNotFound : .io
            throw CryptoVaultError(code, "cannot open \(path): \(String(cString: strerror(errno)))")
        }
        let file = FileDescriptor(rawValue: descriptor, path: path, ownsDescriptor: true)
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG else {
            throw CryptoVaultError(.notRegularFile, "\(path) is not a regular file (a FIFO, device or directory is not opened)")
        }
        // Reads of a regular file never block anyway; the flag is cleared so that they behave as usual.
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
        return file
    }

    /// A new file that must not exist yet, private to the owner.
    public static func createExclusive(_ path: String, mode: mode_t = 0o600) throws -> FileDescriptor {
        let descriptor = try DurableFile.retrying("create \(path)") { open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        return FileDescriptor(rawValue: descriptor, path: path, ownsDescriptor: true)
    }

    /// An existing file opened for positional writes, or a new one private to the owner when `creating`.
    public static func openForWriting(_ path: String, creating: Bool = false, mode: mode_t = 0o600) throws -> FileDescriptor {
        let flags = O_WRONLY | O_CLOEXEC | (creating ? O_CREAT : 0)
        let descriptor = open(path, flags, mode)
        guard descriptor >= 0 else {
            let code: CryptoVaultErrorCode = errno == ENOENT ? .fileNotFound : .io
            throw CryptoVaultError(code, "cannot open \(path) for writing: \(String(cString: strerror(errno)))")
        }
        return FileDescriptor(rawValue: descriptor, path: path, ownsDescriptor: true)
    }

    /// Cuts or extends the file to `length` bytes.
    public func truncate(to length: UInt64) throws {
        _ = try DurableFile.retrying("ftruncate \(path)") { ftruncate(rawValue, off_t(length)) }
    }

    /// The size of a regular file, or nil for a pipe, terminal or socket.
    public func regularFileSize() -> UInt64? {
        var status = stat()
        guard fstat(rawValue, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG else { return nil }
        return UInt64(status.st_size)
    }

    /// The bytes left to read from the current position of a regular file; nil for a stream.
    public func remainingBytes() -> UInt64? {
        guard let size = regularFileSize() else { return nil }
        let position = lseek(rawValue, 0, SEEK_CUR)
        return position >= 0 && UInt64(position) <= size ? size - UInt64(position) : nil
    }

    /// Where the next write lands, if this is a regular file that positional writes can revisit
    /// (not a pipe, not opened for appending); nil otherwise.
    public func rewritableOffset() -> UInt64? {
        guard regularFileSize() != nil, fcntl(rawValue, F_GETFL) & O_APPEND == 0 else { return nil }
        let offset = lseek(rawValue, 0, SEEK_CUR)
        return offset >= 0 ? UInt64(offset) : nil
    }

    /// Reads until `buffer` is full or the input ends; returns how many bytes were read.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = Glibc.read(rawValue, buffer.baseAddress! + filled, buffer.count - filled)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("read") }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    /// Reads exactly `buffer.count` bytes at `offset`, or fewer only at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws -> Int {
        var filled = 0
        while filled < buffer.count {
            let count = pread(rawValue, buffer.baseAddress! + filled, buffer.count - filled, off_t(offset) + off_t(filled))
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("read") }
            if count == 0 { break }
            filled += count
        }
        return filled
    }

    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var written = 0
        while written < bytes.count {
            let count = Glibc.write(rawValue, bytes.baseAddress! + written, bytes.count - written)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("write") }
            written += count
        }
    }

    public func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var written = 0
        while written < bytes.count {
            let count = pwrite(rawValue, bytes.baseAddress! + written, bytes.count - written, off_t(offset) + off_t(written))
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw failure("write") }
            written += count
        }
    }

    public func sync() throws {
        _ = try DurableFile.retrying("fsync \(path)") { fsync(rawValue) }
    }

    private func failure(_ call: String) -> CryptoVaultError {
        CryptoVaultError(.io, "cannot \(call) \(path): \(String(cString: strerror(errno)))")
    }
}
