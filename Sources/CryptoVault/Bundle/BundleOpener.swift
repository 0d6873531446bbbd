/// Opens chunks of a bundle file in parallel batches and hands the plaintext, in order, to a sink.
/// A chunk that fails authentication stops everything before its plaintext reaches the sink.
struct BundleOpener {
    let cipher: StreamCipher
    let layout: PayloadLayout
    let threads: Int

    var batchChunks: Int { max(1, threads) * 16 }

    func open(_ input: FileDescriptor, chunks: Range<UInt64>,
              sink: (UnsafeRawBufferPointer, UInt64) throws -> Void) throws {
        let plaintext = try SecureBytes(count: batchChunks * layout.chunkSize)
        var sealed = [UInt8](repeating: 0, count: batchChunks * layout.sealedChunkSize)
        var first = chunks.lowerBound
        while first < chunks.upperBound {
            let count = Int(min(UInt64(batchChunks), chunks.upperBound - first))
            let plaintextCount = try openBatch(input, first: first, count: count, plaintext: plaintext, sealed: &sealed)
            try plaintext.withUnsafeBytes { try sink(UnsafeRawBufferPointer(rebasing: $0[0..<plaintextCount]), first) }
            first += UInt64(count)
        }
    }

    /// Reads and opens chunks first..<first+count; returns the plaintext byte count.
    private func openBatch(_ input: FileDescriptor, first: UInt64, count: Int, plaintext: SecureBytes,
                           sealed: inout [UInt8]) throws -> Int {
        let layout = layout
        let cipher = cipher
        let last = first + UInt64(count) - 1
        let sealedCount = Int(layout.offset(ofChunk: last) - layout.offset(ofChunk: first)) + layout.plaintextCount(ofChunk: last) + StreamCipher.tagSize
        let read = try sealed.withUnsafeMutableBytes { buffer in
            try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<sealedCount]), at: layout.offset(ofChunk: first))
        }
        guard read == sealedCount else {
            throw CryptoVaultError(.truncatedBundle, "truncated: the file ended while reading chunk \(first + UInt64(read / layout.sealedChunkSize))")
        }
        let failures = FailureList(count: count)
        plaintext.withUnsafeMutableBytes { destination in
            sealed.withUnsafeMutableBytes { source in
                let input = SharedBuffer(pointer: source)
                let output = SharedBuffer(pointer: destination)
                ParallelChunks(threads: threads).forEach(count) { offset in
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
        if let failed = failures.first {
            throw CryptoVaultError(.corruptBundle,
                "chunk \(first + UInt64(failed)) fails authentication (altered, reordered, duplicated, or from another bundle)")
        }
        return Int(layout.offset(ofChunk: last) - layout.offset(ofChunk: first)) / layout.sealedChunkSize * layout.chunkSize
            + layout.plaintextCount(ofChunk: last)
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
