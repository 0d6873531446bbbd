import Dispatch
import Foundation
import Synchronization

/// Runs a per-chunk body on up to `threads` threads: `threads - 1` workers and the calling thread.
/// Chunks are independent (STREAM), so the only shared state is the disjoint slices of the batch
/// buffers each index touches, and a counter that hands out the next chunk.
///
/// The calling thread first runs `meanwhile` (the reads and writes of the neighbouring batches) and
/// then claims whatever chunks are left, so at most `threads` threads are ever busy: with one thread
/// there is no worker and everything runs in turn on the caller.
///
/// The workers are plain threads that live for one seal or open, not libdispatch's pool: libdispatch
/// gives its workers the priority of their QoS class (nice 0), so under `nice vaultctl ...` the
/// workers would not be nice, and they would lose to other processes while the caller waits on them.
final class ParallelChunks: @unchecked Sendable {
    private let workers: Int
    private let start = DispatchSemaphore(value: 0)
    private let finished = DispatchSemaphore(value: 0)
    /// Set by the caller while every worker is parked; read by the workers after `start`.
    private var job: ChunkJob?

    /// Runs `body` with `threads - 1` workers (no more than a batch has chunks to share), then stops them.
    static func with<Result>(threads: Int, batchChunks: Int, _ body: (ParallelChunks) throws -> Result) throws -> Result {
        let pool = ParallelChunks(workers: min(max(1, threads), batchChunks) - 1)
        defer { pool.stop() }
        return try body(pool)
    }

    private init(workers: Int) {
        self.workers = max(0, workers)
        for _ in 0..<self.workers {
            Thread.detachNewThread { [self] in work() }
        }
    }

    private func work() {
        while true {
            start.wait()
            guard let job else { break }
            job.drain()
            finished.signal()
        }
        finished.signal()
    }

    private func stop() {
        job = nil
        for _ in 0..<workers { start.signal() }
        for _ in 0..<workers { finished.wait() }
    }

    /// Runs `body` for every index in 0..<count, in parallel, and `meanwhile` on the calling thread
    /// before it joins in; returns once every index is done. If `meanwhile` throws, the workers stop
    /// after the chunks they hold (they use the caller's buffers) before the error propagates.
    func forEach<Result>(_ count: Int, _ body: @escaping @Sendable (Int) -> Void,
                         meanwhile: () throws -> Result) throws -> Result {
        let job = ChunkJob(count: count, body: body)
        self.job = job
        for _ in 0..<workers { start.signal() }
        let result: Result
        do {
            result = try meanwhile()
        } catch {
            job.cancel()
            for _ in 0..<workers { finished.wait() }
            throw error
        }
        job.drain()
        for _ in 0..<workers { finished.wait() }
        return result
    }
}

/// The chunks of one batch, handed out one at a time to whichever thread asks next.
private final class ChunkJob: Sendable {
    let count: Int
    let body: @Sendable (Int) -> Void
    let next = Atomic<Int>(0)

    init(count: Int, body: @escaping @Sendable (Int) -> Void) {
        self.count = count
        self.body = body
    }

    func drain() {
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
        }
    }

    func cancel() { next.store(count, ordering: .relaxed) }
}

/// Chunks per batch: 16 per thread (1 MiB per thread at the default 64 KiB chunk), so every thread has
/// work between two I/O calls; at most 4 MiB of plaintext (but at least one chunk), so memory stays
/// bounded whatever the thread count and input size. Sealer and opener keep two batches of plaintext
/// and two of ciphertext: 8 MiB with two threads at the default chunk size, at most about 16 MiB for
/// chunk sizes up to 4 MiB, and four chunks (64 MiB) at the largest chunk size, 16 MiB.
enum BatchSize {
    static let chunksPerThread = 16
    static let maximumBytes = 4 << 20

    static func chunks(chunkSize: Int, threads: Int) -> Int {
        max(1, min(max(threads, 1) * chunksPerThread, maximumBytes / chunkSize))
    }
}

/// Ordinary (not locked) memory for ciphertext batches, released with its owner.
final class CiphertextBuffer: @unchecked Sendable {
    let bytes: UnsafeMutableRawBufferPointer

    init(count: Int) {
        bytes = .allocate(byteCount: max(count, 1), alignment: 64)
    }

    deinit { bytes.deallocate() }
}

/// A buffer pointer handed to worker threads that each touch a disjoint part of it.
struct SharedBuffer: @unchecked Sendable {
    let pointer: UnsafeMutableRawBufferPointer

    func slice(_ range: Range<Int>) -> UnsafeMutableRawBufferPointer {
        UnsafeMutableRawBufferPointer(rebasing: pointer[range])
    }
}

/// How many cores bundle work uses by default: all of them.
public enum BundleThreads {
    public static var available: Int { max(1, ProcessInfoBridge.activeProcessorCount) }
}
