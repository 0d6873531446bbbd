import Dispatch
import Synchronization

/// Runs a per-chunk body on up to `threads` threads: `threads - 1` workers and the calling thread.
/// Chunks are independent (STREAM), so the only shared state is the disjoint slices of the batch
/// buffers each index touches, and a counter that hands out the next chunk.
///
/// The calling thread first runs `meanwhile` (the reads and writes of the neighbouring batches) and
/// then claims whatever chunks are left, so at most `threads` threads are ever busy: with one thread
/// there is no worker and everything runs in turn on the caller.
struct ParallelChunks: Sendable {
    let threads: Int

    func forEach<Result>(_ count: Int, _ body: @escaping @Sendable (Int) -> Void,
                         meanwhile: () throws -> Result) throws -> Result {
        let job = ChunkJob(count: count, body: body)
        let group = DispatchGroup()
        for _ in 0..<min(max(threads, 1) - 1, count) {
            DispatchQueue.global().async(group: group) { job.drain() }
        }
        let result: Result
        do {
            result = try meanwhile()
        } catch {
            // The workers use buffers the caller is about to release: stop them and wait.
            job.cancel()
            group.wait()
            throw error
        }
        job.drain()
        group.wait()
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
/// bounded whatever the thread count. Sealer and opener keep two batches of plaintext and two of
/// ciphertext: about 16 MiB at most below the 16 MiB chunk size.
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
