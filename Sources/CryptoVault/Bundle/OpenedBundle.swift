/// A bundle whose header verified: its metadata is known, and its plaintext can be streamed out in
/// order or read at any byte range without reading what comes before.
public final class OpenedBundle: @unchecked Sendable {
    public let header: BundleHeader
    public let metadata: BundleMetadata
    public let compartment: VaultCompartment
    let layout: PayloadLayout
    let cipher: StreamCipher
    let input: FileDescriptor
    let dataKey: SecureBytes

    public var plaintextLength: UInt64 { layout.plaintextLength }

    init(header: BundleHeader, metadata: BundleMetadata, compartment: VaultCompartment, layout: PayloadLayout,
         cipher: StreamCipher, input: FileDescriptor, dataKey: SecureBytes) {
        self.header = header
        self.metadata = metadata
        self.compartment = compartment
        self.layout = layout
        self.cipher = cipher
        self.input = input
        self.dataKey = dataKey
    }

    /// Streams the whole plaintext to `sink`, a verified batch at a time.
    public func decrypt(threads: Int = BundleThreads.available, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let opener = BundleOpener(cipher: cipher, layout: layout, threads: threads)
        try opener.open(input, chunks: 0..<layout.chunkCount) { plaintext, _ in try sink(plaintext) }
    }

    /// The plaintext bytes `range` (clamped to the plaintext), reading only the chunks it touches.
    public func read(_ range: Range<UInt64>, threads: Int = BundleThreads.available,
                     sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        let end = min(range.upperBound, layout.plaintextLength)
        guard range.lowerBound < end else { return }
        let chunkSize = UInt64(layout.chunkSize)
        let chunks = (range.lowerBound / chunkSize)..<((end - 1) / chunkSize + 1)
        let opener = BundleOpener(cipher: cipher, layout: layout, threads: threads)
        try opener.open(input, chunks: chunks) { plaintext, firstChunk in
            let batchStart = firstChunk * chunkSize
            let from = Int(max(range.lowerBound, batchStart) - batchStart)
            let to = Int(min(end, batchStart + UInt64(plaintext.count)) - batchStart)
            if from < to { try sink(UnsafeRawBufferPointer(rebasing: plaintext[from..<to])) }
        }
    }

    /// This bundle's header re-sealed for `version` of its compartment: only the wrapped data key, its
    /// nonce, the key version and the MAC change; the payload is untouched.
    public func rewrappedHeader(for version: UInt32, vault: UnlockedVault) throws -> BundleHeader {
        // Only forward: rewrapping to an older version would undo a rotation.
        guard version > header.keyVersion else {
            throw CryptoVaultError(.invalidInput, "a bundle can only be rewrapped to a newer key version than \(header.keyVersion)")
        }
        let compartmentKey = try vault.compartmentKey(for: compartment, version: version)
        var header = header
        header.keyVersion = version
        header.wrapNonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        header.wrappedDataKey = try XChaChaPoly.sealSecret(dataKey, key: compartmentKey, nonce: header.wrapNonce,
            authenticating: BundleKeys.wrapAssociatedData(vaultID: header.vaultID, compartmentID: header.compartmentID,
                                                          keyVersion: version, bundleID: header.bundleID))
        header.reauthenticate(headerKey: try BundleKeys(dataKey: dataKey, bundleID: header.bundleID).headerKey)
        return header
    }
}
