import CryptoVault

/// A stored bundle's file as the replicator sends it: checked to be the bundle its row names, hashed
/// once to announce its SHA-256, then read chunk by chunk straight into request bodies.
struct OutgoingBundleFile: Sendable {
    static let hashingBufferSize = 4 << 20

    let bundle: StoredBundle
    let file: FileDescriptor
    let length: UInt64

    init(_ bundle: StoredBundle, in vault: UnlockedVault) throws {
        self.bundle = bundle
        file = try vault.storedFile(of: bundle)
        length = file.regularFileSize() ?? 0
        // A damaged or swapped file is not worth a copy: restore it instead.
        let header = try EncryptedBundle.readHeader(file)
        guard header.vaultID == vault.vault.vaultID, header.bundleID == bundle.bundleID else {
            throw CryptoVaultError(.corruptBundle, "the file stored as bundle \(bundle.idString) is a different bundle (swapped or replaced)")
        }
    }

    /// SHA-256 of the whole file, read in large blocks with positional reads.
    func sha256() throws -> [UInt8] {
        var hasher = SHA256.Hasher()
        var buffer = [UInt8](repeating: 0, count: Self.hashingBufferSize)
        var offset: UInt64 = 0
        while offset < length {
            let wanted = Int(min(UInt64(buffer.count), length - offset))
            try buffer.withUnsafeMutableBytes { buffer in
                let part = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<wanted])
                try readExactly(into: part, at: offset)
                hasher.update(UnsafeRawBufferPointer(part))
            }
            offset += UInt64(wanted)
        }
        return hasher.finalize()
    }

    /// Fills `buffer` with the bytes at `offset`; a file that shrank meanwhile is an error.
    func readExactly(into buffer: UnsafeMutableRawBufferPointer, at offset: UInt64) throws {
        guard try file.read(into: buffer, at: offset) == buffer.count else {
            throw CryptoVaultError(.io, "bundle \(bundle.idString) changed size while it was being replicated")
        }
    }
}
