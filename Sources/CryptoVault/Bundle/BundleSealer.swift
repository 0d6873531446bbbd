#if canImport(Glibc)
import Glibc
#endif

/// Seals a plaintext stream into STREAM chunks, a batch at a time, the chunks of a batch in parallel.
///
/// Two batches are in flight: while the workers seal batch k, the calling thread writes batch k − 1
/// and reads batch k + 1, then joins the workers. Memory is bounded by two batches of plaintext and
/// two of ciphertext (see `BatchSize`), whatever the input size. The reader keeps one byte of
/// lookahead beyond each full batch, so it knows which chunk is the last without knowing the input's
/// length in advance.
struct BundleSealer {
    let cipher: StreamCipher
    let chunkSize: Int
    let threads: Int
    var observer: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil

    var batchChunks: Int { BatchSize.chunks(chunkSize: chunkSize, threads: threads) }

    /// Plaintext bytes in one batch buffer, whether it is the last batch, and its chunk count.
    private struct Batch {
        let count: Int
        let isFinal: Bool
        let chunks: Int
    }

    /// Writes the sealed payload to `output`; returns the plaintext length.
    func sealPayload(from input: FileDescriptor, to output: FileDescriptor, progress: (UInt64) -> Void) throws -> UInt64 {
        _ = posix_fadvise(input.rawValue, 0, 0, Int32(POSIX_FADV_SEQUENTIAL))  // fails harmlessly on a pipe
        let batchBytes = batchChunks * chunkSize
        // Each plaintext buffer has room for one byte past the batch: the lookahead.
        let plaintext = [try SecureBytes(count: batchBytes + 1), try SecureBytes(count: batchBytes + 1)]
        let sealed = [CiphertextBuffer(count: batchChunks * (chunkSize + StreamCipher.tagSize)),
                      CiphertextBuffer(count: batchChunks * (chunkSize + StreamCipher.tagSize))]
        return try plaintext[0].withUnsafeMutableBytes { first in
            try plaintext[1].withUnsafeMutableBytes { second in
                try ParallelChunks.with(threads: threads, batchChunks: batchChunks) { pool in
                    try pipeline(input, output, pool: pool, plaintext: [first, second], sealed: sealed.map(\.bytes), progress: progress)
                }
            }
        }
    }

    private func pipeline(_ input: FileDescriptor, _ output: FileDescriptor, pool: ParallelChunks,
                          plaintext: [UnsafeMutableRawBufferPointer], sealed: [UnsafeMutableRawBufferPointer],
                          progress: (UInt64) -> Void) throws -> UInt64 {
        var slot = 0
        var batch = try read(input, into: plaintext[0], carrying: nil)
        var firstIndex: UInt64 = 0
        var written: UInt64 = 0
        var unwritten: (slot: Int, sealedCount: Int, count: Int)?
        while true {
            let current = batch
            observer?(UnsafeRawBufferPointer(rebasing: plaintext[slot][0..<current.count]))
            let carried = plaintext[slot][batchChunks * chunkSize]
            let next = try pool.forEach(current.chunks,
                sealChunk(plaintext[slot], into: sealed[slot], batch: current, firstIndex: firstIndex)) { () throws -> Batch? in
                if let unwritten {
                    try output.write(UnsafeRawBufferPointer(rebasing: sealed[unwritten.slot][0..<unwritten.sealedCount]))
                    written += UInt64(unwritten.count)
                    progress(written)
                }
                return current.isFinal ? nil : try read(input, into: plaintext[1 - slot], carrying: carried)
            }
            unwritten = (slot, current.count + current.chunks * StreamCipher.tagSize, current.count)
            firstIndex += UInt64(current.chunks)
            guard let next else { break }
            guard firstIndex < StreamCipher.maximumChunkCount else {
                throw CryptoVaultError(.invalidInput, "the input is too large for one bundle")
            }
            batch = next
            slot = 1 - slot
        }
        if let unwritten {
            try output.write(UnsafeRawBufferPointer(rebasing: sealed[unwritten.slot][0..<unwritten.sealedCount]))
            written += UInt64(unwritten.count)
            progress(written)
        }
        return written
    }

    /// Fills `buffer` with the next batch and one byte of lookahead; `carried` is the previous batch's
    /// lookahead byte, which becomes this batch's first byte.
    private func read(_ input: FileDescriptor, into buffer: UnsafeMutableRawBufferPointer, carrying carried: UInt8?) throws -> Batch {
        let batchBytes = batchChunks * chunkSize
        var filled = 0
        if let carried {
            buffer[0] = carried
            filled = 1
        }
        filled += try input.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[filled...]))
        let isFinal = filled <= batchBytes
        let count = isFinal ? filled : batchBytes
        return Batch(count: count, isFinal: isFinal, chunks: isFinal ? max(1, (count + chunkSize - 1) / chunkSize) : batchChunks)
    }

    /// Seals chunk `chunk` of a batch; the last chunk of the final batch gets the last flag.
    private func sealChunk(_ plaintext: UnsafeMutableRawBufferPointer, into sealed: UnsafeMutableRawBufferPointer,
                           batch: Batch, firstIndex: UInt64) -> @Sendable (Int) -> Void {
        let input = SharedBuffer(pointer: plaintext)
        let output = SharedBuffer(pointer: sealed)
        let chunkSize = chunkSize
        let cipher = cipher
        return { chunk in
            let start = chunk * chunkSize
            let length = min(chunkSize, batch.count - start)
            let sealedStart = chunk * (chunkSize + StreamCipher.tagSize)
            cipher.seal(UnsafeRawBufferPointer(input.slice(start..<(start + length))),
                        into: output.slice(sealedStart..<(sealedStart + length + StreamCipher.tagSize)),
                        index: firstIndex + UInt64(chunk), isLast: batch.isFinal && chunk == batch.chunks - 1)
        }
    }
}
