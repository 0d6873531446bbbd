import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The data of a version 2 backup's database record (SECURITY.md §13.2): the snapshot encrypted to
/// the vault's backup key, streamed in chunks so a large database is never held in memory.
///
///     sealed database = ephemeral X25519 public key (32) || chunk{n}
///     chunk           = ChaCha20-Poly1305(file key, nonce = u88be(index) || last flag, 64 KiB of plaintext)
///
/// STREAM as in bundles (§6.5): every chunk but the last holds exactly 64 KiB; the last holds 1 to
/// 64 KiB (0 only when it is the only chunk). The layout follows from the record's length alone, so
/// a reader never trusts a count the file gives; truncation, reordering and a dropped last chunk all
/// fail a tag. The file key is fresh per backup (the ephemeral key is), so the counter nonce is safe.
public enum SealedDatabase {
    public static let chunkSize = 64 * 1024
    static let sealedChunkSize = chunkSize + StreamCipher.tagSize
    static let headerSize = X25519PrivateKey.keySize

    /// The record's data length for a snapshot of `plaintextLength` bytes.
    static func sealedLength(plaintextLength: UInt64) -> UInt64 {
        let chunks = max(1, (plaintextLength + UInt64(chunkSize) - 1) / UInt64(chunkSize))
        return UInt64(headerSize) + plaintextLength + chunks * UInt64(StreamCipher.tagSize)
    }

    /// The number of chunks a record of `length` bytes holds, or nil if no plaintext length gives it.
    static func chunkCount(sealedLength length: UInt64) -> UInt64? {
        guard length >= UInt64(headerSize + StreamCipher.tagSize) else { return nil }
        let body = length - UInt64(headerSize)
        let chunks = (body + UInt64(sealedChunkSize) - 1) / UInt64(sealedChunkSize)
        let last = body - (chunks - 1) * UInt64(sealedChunkSize)
        // An empty last chunk after a full one is not canonical: the full one would have been last.
        guard last > UInt64(StreamCipher.tagSize) || chunks == 1 else { return nil }
        return chunks
    }

    /// Seals `input` (its first `length` bytes) chunk by chunk, handing each piece of the record's
    /// data to `emit` in order.
    static func seal(_ input: FileDescriptor, length: UInt64, to recipientPublicKey: [UInt8], vaultID: VaultID,
                     emit: (UnsafeRawBufferPointer) throws -> Void) throws {
        let (ephemeral, fileKey) = try BackupKey.encapsulate(to: recipientPublicKey, vaultID: vaultID)
        try ephemeral.withUnsafeBytes { try emit($0) }
        let cipher = StreamCipher(payloadKey: fileKey)
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: sealedChunkSize, alignment: 16)
        defer {
            plaintext.initializeMemory(as: UInt8.self, repeating: 0)
            plaintext.deallocate()
            sealed.deallocate()
        }
        let chunks = max(1, (length + UInt64(chunkSize) - 1) / UInt64(chunkSize))
        for index in 0..<chunks {
            let offset = index * UInt64(chunkSize)
            let count = Int(min(UInt64(chunkSize), length - offset))
            let read = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<count]), at: offset)
            guard read == count else { throw CryptoVaultError(.io, "\(input.path) ended after \(offset + UInt64(read)) of \(length) bytes") }
            let out = UnsafeMutableRawBufferPointer(rebasing: sealed[0..<(count + StreamCipher.tagSize)])
            cipher.seal(UnsafeRawBufferPointer(rebasing: plaintext[0..<count]), into: out, index: index, isLast: index == chunks - 1)
            try emit(UnsafeRawBufferPointer(out))
        }
    }

    /// Opens the record data in `sealedPath` into a new file at `outputPath` (synced when `durable`).
    /// A chunk that fails its tag removes the output: no plaintext of a failed open is left.
    public static func open(_ sealedPath: String, into outputPath: String, with key: X25519PrivateKey, vaultID: VaultID, durable: Bool) throws {
        let input = try FileDescriptor.openForReading(sealedPath)
        guard let length = input.regularFileSize(), let chunks = chunkCount(sealedLength: length) else {
            throw BackupReader.corrupt("the database record's length fits no sealed database (truncated or altered)")
        }
        var ephemeral = [UInt8](repeating: 0, count: headerSize)
        guard try ephemeral.withUnsafeMutableBytes({ try input.read(into: $0, at: 0) }) == headerSize else {
            throw BackupReader.corrupt("the database record ends inside its ephemeral key")
        }
        let cipher = StreamCipher(payloadKey: try BackupKey.decapsulate(ephemeral, with: key, vaultID: vaultID))
        let output = try FileDescriptor.createExclusive(outputPath)
        do {
            try openChunks(input, chunks: chunks, length: length, cipher: cipher, into: output)
            if durable { try output.sync() }
        } catch {
            unlink(outputPath)
            throw error
        }
    }

    private static func openChunks(_ input: FileDescriptor, chunks: UInt64, length: UInt64, cipher: StreamCipher, into output: FileDescriptor) throws {
        let sealed = UnsafeMutableRawBufferPointer.allocate(byteCount: sealedChunkSize, alignment: 16)
        let plaintext = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)
        defer {
            plaintext.initializeMemory(as: UInt8.self, repeating: 0)
            plaintext.deallocate()
            sealed.deallocate()
        }
        for index in 0..<chunks {
            let offset = UInt64(headerSize) + index * UInt64(sealedChunkSize)
            let count = Int(min(UInt64(sealedChunkSize), length - offset))
            guard try input.read(into: UnsafeMutableRawBufferPointer(rebasing: sealed[0..<count]), at: offset) == count else {
                throw BackupReader.corrupt("the database record ends inside chunk \(index) (truncated)")
            }
            let out = UnsafeMutableRawBufferPointer(rebasing: plaintext[0..<(count - StreamCipher.tagSize)])
            guard cipher.open(UnsafeRawBufferPointer(rebasing: sealed[0..<count]), into: out, index: index, isLast: index == chunks - 1) else {
                throw BackupReader.corrupt("chunk \(index) of the database record does not open under the backup key (altered, reordered or truncated)")
            }
            try output.write(UnsafeRawBufferPointer(out))
        }
    }
}
