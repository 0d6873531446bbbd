import Dispatch
import CryptoVault
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// Plain TCP over loopback with blocking sockets: the ceiling the channel is compared with. The sender
/// writes `chunk`-byte buffers, the receiver reads into a 1 MiB buffer, as any bulk transfer would.
enum PlainTCPBaseline {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// MB/s of `totalBytes` from a client thread to a server thread, connection set-up excluded.
    static func throughput(totalBytes: Int, chunk: Int) throws -> Double {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(listener) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let ready = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, length) == 0 && listen(listener, 1) == 0 && getsockname(listener, $0, &length) == 0
            }
        }
        guard ready else { throw Failure(description: "plain TCP: cannot listen on loopback (errno \(errno))") }
        let received = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let connection = accept(listener, nil, nil)
            var buffer = [UInt8](repeating: 0, count: 1 << 20)
            var total = 0
            while connection >= 0 {
                let count = buffer.withUnsafeMutableBytes { recv(connection, $0.baseAddress, $0.count, 0) }
                if count <= 0 { break }
                total += count
            }
            close(connection)
            received.withLock { $0 = total }
            done.signal()
        }
        let sender = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(sender, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0 }
        }
        guard connected else { throw Failure(description: "plain TCP: cannot connect on loopback (errno \(errno))") }
        let buffer = [UInt8](repeating: 0xA5, count: chunk)
        let start = VaultClock.system.monotonic()
        var sent = 0
        while sent < totalBytes {
            let count = buffer.withUnsafeBytes { send(sender, $0.baseAddress, min($0.count, totalBytes - sent), Int32(MSG_NOSIGNAL)) }
            guard count > 0 else { break }
            sent += count
        }
        close(sender)
        done.wait()
        let seconds = VaultClock.system.monotonic() - start
        guard received.withLock({ $0 }) == totalBytes else { throw Failure(description: "plain TCP: the receiver got \(received.withLock { $0 }) bytes") }
        return Double(totalBytes) / 1e6 / seconds
    }
}
