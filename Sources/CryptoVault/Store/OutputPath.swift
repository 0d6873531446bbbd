import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What an output path (`-o PATH`) names, decided before anything is written (SECURITY.md §6.6):
/// nothing yet or a regular file, which are written atomically beside it; or a character device or
/// FIFO (`/dev/null`, a pipe a reader waits on), which are written into and never replaced. Anything
/// else is refused: replacing a device node with a regular file (as root, `/dev/null`) would break the
/// system and leave plaintext where a sink was meant, and a dangling symbolic link is never followed
/// or replaced, since what it would create is not what the user named.
public enum OutputPath: Equatable, Sendable {
    /// Nothing is at the path: a new file is created there.
    case absent(String)
    /// A regular file is at the path (reached through symbolic links, this is the final target):
    /// replaced only when the caller allows it.
    case regularFile(String)
    /// A character device or FIFO: written into in place.
    case stream(String)

    /// Classifies `path`, following symbolic links to their final target. Throws
    /// `notWritableOutput` for a directory, socket, block device or dangling link.
    public static func classify(_ path: String) throws -> OutputPath {
        var link = stat()
        guard lstat(path, &link) == 0 else {
            guard errno == ENOENT else { throw CryptoVaultError(.io, "cannot examine \(path): \(String(cString: strerror(errno)))") }
            return .absent(path)
        }
        if link.st_mode & S_IFMT != S_IFLNK { return try kind(of: link, at: path, named: path) }
        var target = stat()
        guard stat(path, &target) == 0, let resolved = realpath(path, nil) else {
            throw CryptoVaultError(.notWritableOutput, "\(path) is a symbolic link to nothing; it is neither followed nor replaced")
        }
        defer { free(resolved) }
        return try kind(of: target, at: String(cString: resolved), named: path)
    }

    private static func kind(of status: stat, at path: String, named name: String) throws -> OutputPath {
        switch status.st_mode & S_IFMT {
        case S_IFREG: return .regularFile(path)
        case S_IFCHR, S_IFIFO: return .stream(path)
        case S_IFDIR: throw CryptoVaultError(.notWritableOutput, "\(name) is a directory")
        default: throw CryptoVaultError(.notWritableOutput, "\(name) is neither a regular file, a character device nor a FIFO")
        }
    }

    /// Opens a character device or FIFO for writing, without creating, truncating or following a
    /// link it did not resolve, and checks that what opened is still one (not a file swapped in).
    /// Opening a FIFO waits for its reader, as any writer of a pipe does.
    public static func openStream(_ path: String) throws -> FileDescriptor {
        let descriptor = try DurableFile.retrying("open \(path)") { open(path, O_WRONLY | O_NOCTTY | O_NOFOLLOW | O_CLOEXEC) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, [S_IFCHR, S_IFIFO].contains(status.st_mode & S_IFMT) else {
            close(descriptor)
            throw CryptoVaultError(.notWritableOutput, "\(path) changed while it was opened; it is no longer a device or FIFO")
        }
        return FileDescriptor(rawValue: descriptor, path: path, ownsDescriptor: true)
    }
}
