import Dispatch

/// Runs a per-chunk body on up to `threads` cores. Chunks are independent (STREAM), so the only
/// shared state is the disjoint slices of the batch buffers each index touches.
struct ParallelChunks: Sendable {
    let threads: Int


    func forEach(_ count: Int, _ body: @Sendable (Int) -> Void) {
        let workers = min(max(threads, 1), count)
        guard workers > 1 else {
            for index in 0..<count { body(index) }
            return
        }
        DispatchQueue.concurrentPerform(iterations: workers) { worker in
            for index in stride(from: worker, to: count, by: workers) { body(index) }
        }
    }
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
