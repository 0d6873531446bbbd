/// A bundle whose header verified: its metadata is known, and its plaintext can be streamed out in
/// order or read at any byte range without reading what comes before.
///
/// Reading the plaintext is recorded by the library, whoever the caller is (SECURITY.md §8.1): a
/// bundle opened with the vault's own keys records `bundle.open` (a bundle file) or `bundle.get` (a
/// stored bundle) for each `decrypt` or `read`, with the bytes it is to release, durably *before*
/// the first plaintext byte reaches the caller: a process killed part way through a read, or a
/// caller that stops it, has left its entry already, and an entry that cannot be written stops the
/// read with nothing released. A read that fails before any plaintext verified records nothing.
/// A privileged bundle opens only with a session's
/// keyring, and the session records its own `session.read`; a maintenance open (rewrap, restore)
/// reads no plaintext for anyone.
public final class OpenedBundle: @unchecked Sendable {
    public let header: BundleHeader
    public let metadata: BundleMetadata
    public let compartment: VaultCompartment
    let layout: PayloadLayout
    let cipher: StreamCipher
    let input: FileDescriptor
    let dataKey: SecureBytes
    let readRecording: ReadRecording?

    /// Who records a read of this bundle's plaintext, and as what.
    struct ReadRecording {
        let action: AuditAction
        let vault: UnlockedVault
    }

    public var plaintextLength: UInt64 { layout.plaintextLength }

    init(header: BundleHeader, metadata: BundleMetadata, compartment: VaultCompartment, layout: PayloadLayout,
         cipher: StreamCipher, input: FileDescriptor, dataKey: SecureBytes, readRecording: ReadRecording?) {
        self.header = header
        self.metadata = metadata
        self.compartment = compartment
        self.layout = layout
        self.cipher = cipher
        self.input = input
        self.dataKey = dataKey
        self.readRecording = readRecording
    }

    /// Streams the whole plaintext to `sink`, a verified batch at a time, recording the read first.
    public func decrypt(threads: Int = BundleThreads.available, sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        try recordingRead(planned: layout.plaintextLength, to: sink) { counted in
            let opener = BundleOpener(cipher: cipher, layout: layout, threads: threads)
            try opener.open(input, chunks: 0..<layout.chunkCount) { plaintext, _ in try counted(plaintext) }
        }
    }

    /// The plaintext bytes `range` (clamped to the plaintext), reading only the chunks it touches,
    /// recording the read (with the range's length) first.
    public func read(_ range: Range<UInt64>, threads: Int = BundleThreads.available,
                     sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        try recordingRead(planned: releasedLength(of: range), to: sink) { counted in
            let end = min(range.upperBound, layout.plaintextLength)
            guard range.lowerBound < end else { return }
            let chunkSize = UInt64(layout.chunkSize)
            let chunks = (range.lowerBound / chunkSize)..<((end - 1) / chunkSize + 1)
            let opener = BundleOpener(cipher: cipher, layout: layout, threads: threads)
            try opener.open(input, chunks: chunks) { plaintext, firstChunk in
                let batchStart = firstChunk * chunkSize
                let from = Int(max(range.lowerBound, batchStart) - batchStart)
                let to = Int(min(end, batchStart + UInt64(plaintext.count)) - batchStart)
                if from < to { try counted(UnsafeRawBufferPointer(rebasing: plaintext[from..<to])) }
            }
        }
    }

    /// How many plaintext bytes a read of `range` releases: the part of it inside the plaintext.
    public func releasedLength(of range: Range<UInt64>) -> UInt64 {
        let end = min(range.upperBound, layout.plaintextLength)
        return range.lowerBound < end ? end - range.lowerBound : 0
    }

    /// Runs `body`, recording the read before its first plaintext reaches `sink` (WriteAheadRead).
    private func recordingRead(planned: UInt64, to sink: (UnsafeRawBufferPointer) throws -> Void,
                               _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try WriteAheadRead.run(planned: planned, record: recordRead(bytes:), to: sink, body)
    }

    private func recordRead(bytes: UInt64) throws {
        guard let readRecording else { return }
        try readRecording.vault.record(readRecording.action, bundle: header, bytes: bytes)
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
