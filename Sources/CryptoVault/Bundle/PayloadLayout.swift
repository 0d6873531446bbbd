/// Where each chunk of a bundle's payload lies. With a known plaintext length L and chunk size C there
/// are n = max(1, ⌈L / C⌉) chunks, every one C bytes of plaintext but the last, and the file is exactly
/// header + L + 16·n bytes. With an unknown length the file size decides, under the same rules: the
/// last chunk is the only one that may be short, and it is empty only when it is the only chunk.
struct PayloadLayout: Sendable {
    let headerSize: Int
    let chunkSize: Int
    let plaintextLength: UInt64
    let chunkCount: UInt64

    var sealedChunkSize: Int { chunkSize + StreamCipher.tagSize }
    var sealedSize: UInt64 { UInt64(headerSize) + plaintextLength + chunkCount * UInt64(StreamCipher.tagSize) }

    init(header: BundleHeader, fileSize: UInt64) throws {
        headerSize = header.size
        chunkSize = header.chunkSize
        if header.hasKnownLength {
            plaintextLength = header.plaintextLength
            chunkCount = Self.chunkCount(plaintextLength: plaintextLength, chunkSize: chunkSize)
        } else {
            (plaintextLength, chunkCount) = try Self.lengthFromFileSize(fileSize, headerSize: headerSize, chunkSize: chunkSize)
            guard plaintextLength <= BundleHeader.maximumPlaintextLength else {
                throw CryptoVaultError(.corruptBundle, "header: the payload is larger than a bundle can hold")
            }
        }
        try checkFileSize(fileSize)
    }

    static func chunkCount(plaintextLength: UInt64, chunkSize: Int) -> UInt64 {
        max(1, (plaintextLength + UInt64(chunkSize) - 1) / UInt64(chunkSize))
    }

    private static func lengthFromFileSize(_ fileSize: UInt64, headerSize: Int, chunkSize: Int) throws -> (UInt64, UInt64) {
        let sealed = UInt64(chunkSize + StreamCipher.tagSize)
        guard fileSize >= UInt64(headerSize + StreamCipher.tagSize) else {
            throw CryptoVaultError(.truncatedBundle, "truncated: the bundle has no final chunk")
        }
        let payload = fileSize - UInt64(headerSize)
        let count = (payload + sealed - 1) / sealed
        let last = payload - (count - 1) * sealed
        guard last > UInt64(StreamCipher.tagSize) || count == 1 else {
            throw CryptoVaultError(.truncatedBundle, "truncated: the bundle ends inside chunk \(count - 1)")
        }
        return (payload - count * UInt64(StreamCipher.tagSize), count)
    }

    private func checkFileSize(_ fileSize: UInt64) throws {
        if fileSize < sealedSize {
            let inChunk = fileSize <= UInt64(headerSize) ? 0 : (fileSize - UInt64(headerSize)) / UInt64(sealedChunkSize)
            throw CryptoVaultError(.truncatedBundle,
                "truncated: the bundle is \(fileSize) bytes, its header says \(sealedSize); it ends in chunk \(inChunk)")
        }
        if fileSize > sealedSize {
            throw CryptoVaultError(.truncatedBundle, "trailing data: \(fileSize - sealedSize) bytes after the final chunk")
        }
    }

    func offset(ofChunk index: UInt64) -> UInt64 {
        UInt64(headerSize) + index * UInt64(sealedChunkSize)
    }

    func plaintextCount(ofChunk index: UInt64) -> Int {
        index == chunkCount - 1 ? Int(plaintextLength - index * UInt64(chunkSize)) : chunkSize
    }

    func isLast(_ index: UInt64) -> Bool { index == chunkCount - 1 }
}
