import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Files of random bytes for the throughput runs. The bytes come from a fast non-cryptographic
/// generator (wyrand) seeded from the system: incompressible and unpredictable enough for a
/// benchmark, and 4 GiB take a second instead of the ~18 s /dev/urandom needs here.
enum RandomFile {
    /// Creates `path` with `size` random bytes and flushes it to disk, so no writeback of dirty pages
    /// runs during the timed runs.
    static func create(_ path: String, size: Int) throws {
        let file = try FileDescriptor.createExclusive(path)
        let block = 8 << 20
        let words = UnsafeMutableBufferPointer<UInt64>.allocate(capacity: block / 8)
        defer { words.deallocate() }
        var state = UInt64.random(in: .min ... .max)
        var remaining = size
        while remaining > 0 {
            for index in words.indices {
                state &+= 0xa076_1d64_78bd_642f
                let product = state.multipliedFullWidth(by: state ^ 0xe703_7ed1_a0b4_28db)
                words[index] = product.high ^ product.low
            }
            let count = min(remaining, block)
            try file.write(UnsafeRawBufferPointer(start: words.baseAddress, count: count))
            remaining -= count
        }
        try file.sync()
    }

    /// The last `count` bytes of a file.
    static func tail(_ path: String, count: Int) throws -> [UInt8] {
        let file = try FileDescriptor.openForReading(path)
        let size = Int(file.regularFileSize() ?? 0)
        var bytes = [UInt8](repeating: 0, count: min(count, size))
        _ = try bytes.withUnsafeMutableBytes { try file.read(into: $0, at: UInt64(size - $0.count)) }
        return bytes
    }

    /// fsyncs a file written by another process.
    static func sync(_ path: String) throws {
        try FileDescriptor.openForReading(path).sync()
    }

    /// Free bytes on the file system holding `path`.
    static func freeSpace(at path: String) -> UInt64 {
        var stats = statvfs()
        guard statvfs(path, &stats) == 0 else { return 0 }
        return UInt64(stats.f_bavail) * UInt64(stats.f_frsize)
    }
}
