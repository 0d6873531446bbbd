#if canImport(Glibc)
import Glibc
#endif

/// Opens chunks of a bundle file in parallel batches and hands the plaintext, in order, to a sink.
/// A chunk that fails authentication stops everything before its plaintext reaches the sink: a
/// batch reaches the sink only once every chunk in it has verified.
///
/// Two batches are in flight: while the workers open batch k, the calling thread hands batch k − 1
/// (verified) to the sink and reads batch k + 1, then joins the workers.
struct BundleOpener {
    let cipher: StreamCipher
    let layout: PayloadLayout
    let threads: Int

    var batchChunks: Int { BatchSize.chunks(chunkSize: layout.chunkSize, threads: threads) }

    func open(_ input: FileDescriptor, chunks: Range<UInt64>,
              sink: (UnsafeRawBufferPointer, UInt64) throws -> Void) throws {
        guard !chunks.isEmpty else { return }
        let perBatch = Int(min(UInt64(batchChunks), UInt64(chunks.count)))
        if UInt64(chunks.count) > UInt64(2 * perBatch) {
            let start = layout.offset(ofChunk: chunks.lowerBound)
            _ = posix_fadvise(input.rawValue, off_t(start), off_t(layout.offset(ofChunk: chunks.upperBound) - start),
                              Int32(POSIX_FADV_SEQUENTIAL))
        }
        // A range within one batch (a short read) needs no second set of buffers.
        let secondBatch = UInt64(chunks.count) > UInt64(perBatch) ? perBatch : 0
        let plaintext = [try SecureBytes(count: perBatch * layout.chunkSize), try SecureBytes(count: secondBatch * layout.chunkSize)]
        let sealed = [CiphertextBuffer(count: perBatch * layout.sealedChunkSize), CiphertextBuffer(count: secondBatch * layout.sealedChunkSize)]
        try plaintext[0].withUnsafeMutableBytes { first in
            try plaintext[1].withUnsafeMutableBytes { second in
                try ParallelChunks.with(threads: threads, batchChunks: perBatch) { pool in
                    try pipeline(input, chunks: chunks, perBatch: perBatch, pool: pool, plaintext: [first, second],
                                 sealed: sealed.map(\.bytes), sink: sink)
                }
            }
        }
    }

    private func pipeline(_ input: FileDescriptor, chunks: Range<UInt64>, perBatch: Int, pool: ParallelChunks,
                          plaintext: [UnsafeMutableRawBufferPointer], sealed: [UnsafeMutableRawBufferPointer],
                          sink: (UnsafeRawBufferPointer, UInt64) throws -> Void) throws {
        var slot = 0
        var first = chunks.lowerBound
        var count = Int(min(UInt64(perBatch), chunks.upperBound - first))
        try read(input, first: first, count: count, into: sealed[0])
        var verified: (slot: Int, first: UInt64, plaintextCount: Int)?
        while true {
            let nextFirst = first + UInt64(count)
            let nextCount = Int(min(UInt64(perBatch), chunks.upperBound - nextFirst))
            let failures = FailureList(count: count)
            try pool.forEach(count,
                openChunk(sealed[slot], into: plaintext[slot], first: first, failures: failures)) {
                if let verified {
                    try sink(UnsafeRawBufferPointer(rebasing: plaintext[verified.slot][0..<verified.plaintextCount]), verified.first)
                }
                if nextCount > 0 { try read(input, first: nextFirst, count: nextCount, into: sealed[1 - slot]) }
            }
            if let failed = failures.first {
                throw CryptoVaultError(.corruptBundle,
                    "chunk \(first + UInt64(failed)) fails authentication (altered, reordered, duplicated, or from another bundle)")
            }
            verified = (slot, first, plaintextCount(first: first, count: count))
            guard nextCount > 0 else { break }
            first = nextFirst
            count = nextCount
            slot = 1 - slot
        }
        if let verified {
            try sink(UnsafeRawBufferPointer(rebasing: plaintext[verified.slot][0..<verified.plaintextCount]), verified.first)
        }
    }

    /// Reads the sealed chunks first..<first+count into `buffer`.
    private func read(_ input: FileDescriptor, first: UInt64, count: Int, into buffer: UnsafeMutableRawBufferPointer) throws {
        let last = first + UInt64(count) - 1
        let sealedCount = Int(layout.offset(ofChunk: last) - layout.offset(ofChunk: first)) + layout.plaintextCount(ofChunk: last) + StreamCipher.tagSize
        let read = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<sealedCount]), at: layout.offset(ofChunk: first))
        guard read == sealedCount else {
            throw CryptoVaultError(.truncatedBundle, "truncated: the file ended while reading chunk \(first + UInt64(read / layout.sealedChunkSize))")
        }
    }

    /// The plaintext byte count of chunks first..<first+count.
    private func plaintextCount(first: UInt64, count: Int) -> Int {
        (count - 1) * layout.chunkSize + layout.plaintextCount(ofChunk: first + UInt64(count) - 1)
    }

    /// Opens chunk `offset` of the batch that starts at chunk `first`, marking it in `failures` if it
    /// is not authentic.
    private func openChunk(_ sealed: UnsafeMutableRawBufferPointer, into plaintext: UnsafeMutableRawBufferPointer,
                           first: UInt64, failures: FailureList) -> @Sendable (Int) -> Void {
        let input = SharedBuffer(pointer: sealed)
        let output = SharedBuffer(pointer: plaintext)
        let layout = layout
        let cipher = cipher
        return { offset in
            let index = first + UInt64(offset)
            let length = layout.plaintextCount(ofChunk: index)
            let sealedStart = offset * layout.sealedChunkSize
            let plainStart = offset * layout.chunkSize
            let authentic = cipher.open(UnsafeRawBufferPointer(input.slice(sealedStart..<(sealedStart + length + StreamCipher.tagSize))),
                                        into: output.slice(plainStart..<(plainStart + length)),
                                        index: index, isLast: layout.isLast(index))
            if !authentic { failures.mark(offset) }
        }
    }
}

/// Which chunks of a batch failed, written from worker threads (one flag per chunk, no sharing).
final class FailureList: @unchecked Sendable {
    private let pointer: UnsafeMutableBufferPointer<Bool>

    init(count: Int) {
        pointer = UnsafeMutableBufferPointer<Bool>.allocate(capacity: count)
        pointer.initialize(repeating: false)
    }

    deinit { pointer.deallocate() }

    func mark(_ index: Int) { pointer[index] = true }

    var first: Int? { pointer.firstIndex(of: true) }
}
