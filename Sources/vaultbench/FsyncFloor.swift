import CryptoVault

/// The disk's floor under any durable write, measured in the run it stands beside: 4 KiB appended
/// to a file and fsync'd, one sample at a time between the figure's own samples (so both see the
/// same load). A durable commit cannot be faster than one of these; an edit that is two of them
/// syncs twice.
final class FsyncFloor {
    private let file: FileDescriptor
    private let block = [UInt8](repeating: 7, count: 4096)
    private var samples: [Double] = []

    init(at path: String) throws { file = try FileDescriptor.createExclusive(path) }

    /// One write + fsync, timed.
    func sample() throws {
        let offset = UInt64(samples.count * block.count)
        samples.append(1000 * (try Benchmark.seconds {
            try block.withUnsafeBytes { try file.write($0, at: offset) }
            try file.sync()
        }))
    }

    var median: Double { samples.sorted()[samples.count / 2] }
    var p99: Double { samples.sorted()[samples.count * 99 / 100] }
}
