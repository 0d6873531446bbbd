/// Seals a plaintext stream into STREAM chunks, a batch at a time, the chunks of a batch in parallel.
///
/// Memory is bounded by the batch (16 chunks per thread), whatever the input size. The reader keeps
/// one byte of lookahead beyond each full batch, so it knows which chunk is the last without knowing
/// the input's length in advance.
struct BundleSealer {
    let cipher: StreamCipher
    let chunkSize: Int
    let threads: Int

    var batchChunks: Int { max(1, threads) * 16 }

    /// Writes the sealed payload to `output`; returns the plaintext length.
    func sealPayload(from input: FileDescriptor, to output: FileDescriptor, progress: (UInt64) -> Void) throws -> UInt64 {
        let batchBytes = batchChunks * chunkSize
        let plaintext = try SecureBytes(count: batchBytes + 1)
        var sealed = [UInt8](repeating: 0, count: batchChunks * (chunkSize + StreamCipher.tagSize))
        var carried = 0
        var firstIndex: UInt64 = 0
        var total: UInt64 = 0
        while true {
            let filled = carried + (try plaintext.withUnsafeMutableBytes { buffer in
                try input.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[carried...]))
            })
            let isFinal = filled <= batchBytes
            let count = isFinal ? filled : batchBytes
            let chunks = isFinal ? max(1, (count + chunkSize - 1) / chunkSize) : batchChunks
            let sealedCount = try sealBatch(plaintext, count: count, chunks: chunks, firstIndex: firstIndex, isFinal: isFinal, into: &sealed)
            try sealed.withUnsafeBytes { try output.write(UnsafeRawBufferPointer(rebasing: $0[0..<sealedCount])) }
            total += UInt64(count)
            firstIndex += UInt64(chunks)
            progress(total)
            if isFinal { return total }
            guard firstIndex < StreamCipher.maximumChunkCount else {
                throw CryptoVaultError(.invalidInput, "the input is too large for one bundle")
            }
            plaintext.withUnsafeMutableBytes { $0[0] = $0[batchBytes] }
            carried = 1
        }
    }

    /// Seals `chunks` chunks of the first `count` bytes of `plaintext`; returns the sealed byte count.
    private func sealBatch(_ plaintext: SecureBytes, count: Int, chunks: Int, firstIndex: UInt64, isFinal: Bool,
                           into sealed: inout [UInt8]) throws -> Int {
        let chunkSize = chunkSize
        let cipher = cipher
        plaintext.withUnsafeMutableBytes { source in
            sealed.withUnsafeMutableBytes { destination in
                let input = SharedBuffer(pointer: source)
                let output = SharedBuffer(pointer: destination)
                ParallelChunks(threads: threads).forEach(chunks) { chunk in
                    let start = chunk * chunkSize
                    let length = min(chunkSize, count - start)
                    let sealedStart = chunk * (chunkSize + StreamCipher.tagSize)
                    cipher.seal(UnsafeRawBufferPointer(input.slice(start..<(start + length))),
                                into: output.slice(sealedStart..<(sealedStart + length + StreamCipher.tagSize)),
                                index: firstIndex + UInt64(chunk), isLast: isFinal && chunk == chunks - 1)
                }
            }
        }
        return count + chunks * StreamCipher.tagSize
    }
}
