import Dispatch
import Foundation
import Synchronization

/// Runs a per-chunk body on up to `threads` threads: `threads - 1` workers and the calling thread.
/// Chunks are independent (STREAM), so the only shared state is the disjoint slices of the batch
/// buffers each index touches, and a counter that hands out the next chunk.
///
/// The calling thread first runs `meanwhile` (the reads and writes of the neighbouring batches) and
/// then claims whatever chunks are left, so at most `threads` threads are ever busy: with one thread
/// there is no worker and everything runs in turn on the caller. The caller waits only for chunks a
/// worker has claimed, never for a worker to wake up: on a machine whose cores are busy with other
/// processes, a worker that gets no CPU leaves its share to the caller instead of stalling every batch.
///
/// The workers are plain threads that live for one seal or open, not libdispatch's pool: libdispatch
/// gives its workers the priority of their QoS class (nice 0), so under `nice vaultctl ...` the
/// workers would not be nice.
final class ParallelChunks: Sendable {
    private let workers: Int
    private let wake = DispatchSemaphore(value: 0)
    private let exited = DispatchSemaphore(value: 0)
    /// The batch being processed; nil once the pool stops.
    private let current = Mutex<ChunkJob?>(nil)

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
            wake.wait()
            guard let job = current.withLock({ $0 }) else { break }
            job.drain()
        }
        exited.signal()
    }

    private func stop() {
        current.withLock { $0 = nil }
        for _ in 0..<workers { wake.signal() }
        for _ in 0..<workers { exited.wait() }
    }

    /// Runs `body` for every index in 0..<count (count > 0), in parallel, and `meanwhile` on the calling
    /// thread before it joins in; returns once every index is done. If `meanwhile` throws, the chunks
    /// workers already hold finish (they use the caller's buffers) before the error propagates.
    func forEach<Result>(_ count: Int, _ body: @escaping @Sendable (Int) -> Void,
                         meanwhile: () throws -> Result) throws -> Result {
        let job = ChunkJob(count: count, body: body)
        current.withLock { $0 = job }
        for _ in 0..<workers { wake.signal() }
        let result: Result
        do {
            result = try meanwhile()
        } catch {
            job.cancel()
            throw error
        }
        job.drain()
        job.waitUntilDone()
        return result
    }
}

/// The chunks of one batch, handed out one at a time to whichever thread asks next. A worker that
/// wakes after the batch is over finds nothing left and touches nothing.
private final class ChunkJob: Sendable {
    let count: Int
    let body: @Sendable (Int) -> Void
    private let next = Atomic<Int>(0)
    private let completed = Atomic<Int>(0)
    private let done = DispatchSemaphore(value: 0)

    init(count: Int, body: @escaping @Sendable (Int) -> Void) {
        precondition(count > 0, "a batch has at least one chunk")
        self.count = count
        self.body = body
    }

    func drain() {
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
            if completed.wrappingAdd(1, ordering: .acquiringAndReleasing).newValue == count { done.signal() }
        }
    }

    /// Blocks until every chunk is done (whoever finishes the last one signals).
    func waitUntilDone() { done.wait() }

    /// Hands out no more chunks and waits for those already claimed.
    func cancel() {
        let claimed = min(next.exchange(count, ordering: .relaxed), count)
        while completed.load(ordering: .acquiring) < claimed { usleep(100) }
    }
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
