import CProcessHardening
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Unix-domain stream sockets for the daemon's local side: a listening socket the daemon binds with
/// mode 0600, and client connections. Failures name the call and errno.
enum LocalSocket {
    /// sun_path holds 108 bytes with its terminating NUL.
    static let maximumPathLength = 107

    static func failure(_ call: String, _ path: String) -> ApplianceError {
        ApplianceError(.socketFailed, "\(call) \(path) failed: \(String(cString: strerror(errno)))")
    }

    /// Binds and listens at `path`, which must not exist. The socket is created with mode 0600 (the
    /// umask is narrowed around bind, since bind itself takes no mode) and checked afterwards.
    static func listen(at path: String, backlog: Int32 = 64) throws(ApplianceError) -> Int32 {
        let descriptor = try stream(path)
        var address = try socketAddress(path)
        let previousMask = umask(0o177)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        umask(previousMask)
        guard bound == 0 else {
            let error = failure("bind", path)
            close(descriptor)
            throw error
        }
        guard chmod(path, 0o600) == 0, Glibc.listen(descriptor, backlog) == 0 else {
            let error = failure("listen", path)
            close(descriptor)
            unlink(path)
            throw error
        }
        return descriptor
    }

    /// Connects to the daemon's socket; `.noDaemon` if nothing listens there.
    static func connect(to path: String) throws(ApplianceError) -> Int32 {
        let descriptor = try stream(path)
        var address = try socketAddress(path)
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard status == 0 else {
            let code = errno
            close(descriptor)
            switch code {
            case ENOENT, ECONNREFUSED:
                throw ApplianceError(.noDaemon, "no daemon serves this vault (nothing listens on \(path))")
            case EACCES, EPERM:
                throw ApplianceError(.notOwner, "the daemon's socket \(path) belongs to another user")
            default:
                errno = code
                throw failure("connect to", path)
            }
        }
        return descriptor
    }

    /// Waits up to `milliseconds` for a connection; nil if none came.
    static func accept(_ listener: Int32, milliseconds: Int32) throws(ApplianceError) -> Int32? {
        var entry = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
        let ready = poll(&entry, 1, milliseconds)
        if ready == 0 || (ready < 0 && errno == EINTR) { return nil }
        guard ready > 0 else { throw failure("poll", "on the daemon socket") }
        let accepted = Glibc.accept(listener, nil, nil)
        if accepted < 0 {
            if errno == EINTR || errno == EAGAIN || errno == ECONNABORTED { return nil }
            throw failure("accept", "on the daemon socket")
        }
        _ = fcntl(accepted, F_SETFD, FD_CLOEXEC)
        return accepted
    }

    private static func stream(_ path: String) throws(ApplianceError) -> Int32 {
        let descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw failure("socket for", path) }
        return descriptor
    }

    private static func socketAddress(_ path: String) throws(ApplianceError) -> sockaddr_un {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathLength, !bytes.contains(0) else {
            throw ApplianceError(.socketPathTooLong, "the socket path \(path) is longer than \(maximumPathLength) bytes")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }
}

/// Who is on the other end of a local connection, as the kernel recorded it at connect.
public struct PeerCredentials: Sendable, Equatable {
    public let uid: uid_t
    public let pid: pid_t

    static func of(_ descriptor: Int32) throws(ApplianceError) -> PeerCredentials {
        var uid: uid_t = 0
        var pid: pid_t = 0
        guard process_hardening_peer_credentials(descriptor, &uid, &pid) == 0 else {
            throw ApplianceError(.socketFailed, "SO_PEERCRED failed: \(String(cString: strerror(errno)))")
        }
        return PeerCredentials(uid: uid, pid: pid)
    }
}
