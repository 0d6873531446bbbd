/// A sealed file: a header that names and authenticates everything about it, then a payload of
/// STREAM chunks. See SECURITY.md §6 for the format byte by byte.
public enum EncryptedBundle {
    public struct Options: Sendable {
        public var chunkSize: Int
        public var threads: Int
        /// Sees the plaintext as it is sealed, in order, a batch at a time, on the sealing thread: the
        /// leak guard fingerprints privileged documents this way without reading them twice.
        public var plaintextObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)?

        public init(chunkSize: Int = BundleHeader.defaultChunkSize, threads: Int = BundleThreads.available,
                    plaintextObserver: (@Sendable (UnsafeRawBufferPointer) -> Void)? = nil) {
            self.chunkSize = chunkSize
            self.threads = threads
            self.plaintextObserver = plaintextObserver
        }
    }

    /// Seals everything `input` yields into `output` under the compartment's current key version.
    ///
    /// The plaintext length goes in the header. When the output is a regular file the header is written
    /// last, over a placeholder, once the length is known; when both sides are streams and the input's
    /// size is unknown, the header says "unknown length" and the final chunk marks the end.
    @discardableResult
    public static func seal(from input: FileDescriptor, to output: FileDescriptor, compartment: VaultCompartment,
                            vault: UnlockedVault, metadata: BundleMetadata, options: Options = Options(),
                            progress: (UInt64) -> Void = { _ in }) throws -> BundleHeader {
        guard BundleHeader.chunkSizes.contains(options.chunkSize), options.chunkSize & (options.chunkSize - 1) == 0 else {
            throw CryptoVaultError(.invalidInput, "a chunk size must be a power of two from 1 KiB to 16 MiB")
        }
        guard compartment.maySeal else {
            throw CryptoVaultError(.sharedCompartmentReadOnly,
                                   "compartment '\(compartment.name)' was shared with this device as viewer: it may open its bundles, not seal new ones")
        }
        guard let version = compartment.currentVersion else {
            throw CryptoVaultError(.unknownKeyVersion, "compartment '\(compartment.name)' has no active key version")
        }
        let compartmentKey = try vault.compartmentKey(for: compartment, version: version)
        // A shared compartment's bundles name its owner's vault, so the owner opens them too.
        let draft = try HeaderDraft(vaultID: compartment.sharing?.sourceVaultID ?? vault.vaultID, compartment: compartment, version: version,
                                    compartmentKey: compartmentKey, metadata: metadata, chunkSize: options.chunkSize)
        // A regular output file gets its header rewritten at the end, with the real length; a stream
        // gets the input file's size if it has one, else "unknown".
        let headerOffset = output.rewritableOffset()
        let streamed = headerOffset == nil
        let declaredLength = streamed ? input.remainingBytes() : nil
        let provisional = draft.header(plaintextLength: streamed ? (declaredLength ?? BundleHeader.unknownLength) : 0)
        try provisional.serialized().withUnsafeBytes { try output.write($0) }
        let sealer = BundleSealer(cipher: StreamCipher(payloadKey: draft.keys.payloadKey), chunkSize: options.chunkSize,
                                  threads: options.threads, observer: options.plaintextObserver)
        let length = try sealer.sealPayload(from: input, to: output, progress: progress)
        guard length <= BundleHeader.maximumPlaintextLength else {
            throw CryptoVaultError(.invalidInput, "the input is larger than a bundle can hold (1 PiB)")
        }
        if streamed {
            guard provisional.plaintextLength == BundleHeader.unknownLength || provisional.plaintextLength == length else {
                throw CryptoVaultError(.io, "the input changed size while it was being sealed")
            }
            return provisional
        }
        let final = draft.header(plaintextLength: length)
        try final.serialized().withUnsafeBytes { try output.write($0, at: headerOffset ?? 0) }
        return final
    }

    /// Reads and verifies a bundle's header against this vault: it must belong to this vault and to a
    /// live compartment and active key version, unwrap, commit to its data key, and carry a valid MAC.
    /// A bundle of a privileged compartment is refused (`.privilegedSessionRequired`): it opens only
    /// with the keyring of a privileged processing session.
    /// Each read of its plaintext is recorded as `bundle.open` (see `OpenedBundle`).
    public static func open(_ input: FileDescriptor, vault: UnlockedVault) throws -> OpenedBundle {
        try open(input, vault: vault, access: .vault, recordingReadsAs: .bundleOpen)
    }

    /// `open` inside a privileged processing session, with its keyring (of that compartment only).
    /// The session records its reads itself (`session.read`).
    public static func open(_ input: FileDescriptor, vault: UnlockedVault, keyring: CompartmentKeyring) throws -> OpenedBundle {
        try open(input, vault: vault, access: .keyring(keyring), recordingReadsAs: nil)
    }

    /// `readAction` is what a read of the plaintext records in `vault`'s log, nil when the caller
    /// records it (a session) or releases nothing (maintenance).
    static func open(_ input: FileDescriptor, vault: UnlockedVault, access: CompartmentKeyAccess,
                     recordingReadsAs readAction: AuditAction?) throws -> OpenedBundle {
        let header = try readHeader(input)
        let compartment = try vault.compartment(of: header)
        let dataKey = try unwrapDataKey(header, compartment: compartment, vault: vault, access: access)
        let keys = try verifiedKeys(header, dataKey: dataKey)
        let metadata = try BundleMetadata(decoding: try openMetadata(header, keys: keys))
        guard let fileSize = input.regularFileSize() else {
            throw CryptoVaultError(.invalidInput, "a bundle must be opened from a file, not a stream")
        }
        let layout = try PayloadLayout(header: header, fileSize: fileSize)
        return OpenedBundle(header: header, metadata: metadata, compartment: compartment, layout: layout,
                            cipher: StreamCipher(payloadKey: keys.payloadKey), input: input, dataKey: dataKey,
                            readRecording: readAction.map { .init(action: $0, vault: vault) })
    }

    /// The header's public fields, parsed but not verified (no key is needed, none is checked).
    public static func readHeader(_ input: FileDescriptor) throws -> BundleHeader {
        var prefix = [UInt8](repeating: 0, count: BundleHeader.maximumSize)
        let read = try prefix.withUnsafeMutableBytes { try input.read(into: $0, at: 0) }
        return try BundleHeader(parsing: Array(prefix[0..<read]))
    }

    static func unwrapDataKey(_ header: BundleHeader, compartment: VaultCompartment, vault: UnlockedVault,
                              access: CompartmentKeyAccess) throws -> SecureBytes {
        let compartmentKey: SecureBytes
        do {
            compartmentKey = try access.key(for: compartment, version: header.keyVersion, vault: vault)
        } catch let error as CryptoVaultError where error.code == .unknownKeyVersion {
            throw CryptoVaultError(.foreignBundle, "header: key version \(header.keyVersion) of '\(compartment.name)' is retired or unknown")
        }
        let associatedData = BundleKeys.wrapAssociatedData(vaultID: header.vaultID, compartmentID: header.compartmentID,
                                                           keyVersion: header.keyVersion, bundleID: header.bundleID)
        do {
            return try XChaChaPoly.openSecret(header.wrappedDataKey, key: compartmentKey, nonce: header.wrapNonce,
                                              authenticating: associatedData)
        } catch {
            throw CryptoVaultError(.corruptBundle, "header: the wrapped data key fails authentication (altered, or moved from another compartment)")
        }
    }

    static func verifiedKeys(_ header: BundleHeader, dataKey: SecureBytes) throws -> BundleKeys {
        let keys = try BundleKeys(dataKey: dataKey, bundleID: header.bundleID)
        guard constantTimeEquals(keys.commitment, header.keyCommitment) else {
            throw CryptoVaultError(.corruptBundle, "header: the key commitment does not match the data key")
        }
        guard header.verifyMAC(headerKey: keys.headerKey) else {
            throw CryptoVaultError(.corruptBundle, "header: authentication failed (a header field was altered)")
        }
        return keys
    }

    static func openMetadata(_ header: BundleHeader, keys: BundleKeys) throws -> [UInt8] {
        do {
            return try ChaChaPoly.open(header.sealedMetadata, key: keys.metadataKey, nonce: HeaderDraft.metadataNonce)
        } catch {
            throw CryptoVaultError(.corruptBundle, "header: the sealed metadata fails authentication")
        }
    }
}

/// A new bundle's keys and the header fields that do not depend on the plaintext length.
struct HeaderDraft {
    /// The metadata key seals exactly one message, so a fixed nonce is safe.
    static let metadataNonce = [UInt8](repeating: 0, count: 12)

    let vaultID: VaultID
    let compartmentID: CompartmentID
    let version: UInt32
    let bundleID: BundleID
    let chunkSize: Int
    let keys: BundleKeys
    let wrapNonce: [UInt8]
    let wrappedDataKey: [UInt8]
    let sealedMetadata: [UInt8]

    init(vaultID: VaultID, compartment: VaultCompartment, version: UInt32, compartmentKey: SecureBytes,
         metadata: BundleMetadata, chunkSize: Int) throws {
        self.vaultID = vaultID
        compartmentID = compartment.id
        self.version = version
        bundleID = try BundleID.random()
        self.chunkSize = chunkSize
        let dataKey = try SecureBytes.random(count: BundleKeys.dataKeySize)
        keys = try BundleKeys(dataKey: dataKey, bundleID: bundleID)
        wrapNonce = try SecureRandom.bytes(XChaChaPoly.nonceSize)
        wrappedDataKey = try XChaChaPoly.sealSecret(dataKey, key: compartmentKey, nonce: wrapNonce,
            authenticating: BundleKeys.wrapAssociatedData(vaultID: vaultID, compartmentID: compartmentID, keyVersion: version, bundleID: bundleID))
        sealedMetadata = try ChaChaPoly.seal(try metadata.encoded(), key: keys.metadataKey, nonce: Self.metadataNonce)
    }

    func header(plaintextLength: UInt64) -> BundleHeader {
        BundleHeader(vaultID: vaultID, compartmentID: compartmentID, keyVersion: version, bundleID: bundleID,
                     chunkSize: chunkSize, plaintextLength: plaintextLength, wrapNonce: wrapNonce,
                     wrappedDataKey: wrappedDataKey, sealedMetadata: sealedMetadata,
                     keyCommitment: keys.commitment, headerKey: keys.headerKey)
    }
}

extension UnlockedVault {
    /// The compartment a bundle header names: one of this vault's, or one another vault shared with
    /// this device; `.foreignBundle` otherwise.
    func compartment(of header: BundleHeader) throws -> VaultCompartment {
        if header.vaultID == vaultID { return try compartment(withID: header.compartmentID) }
        guard let shared = try sharedCompartment(sourceVaultID: header.vaultID, compartmentID: header.compartmentID) else {
            throw CryptoVaultError(.foreignBundle, "header: this bundle belongs to another vault")
        }
        return shared
    }
}
