/// The byte format of a sealed record (SECURITY.md §4.8), version 1:
///
///     sealed record = header (21) || nonce (24) || ciphertext (n) || tag (16)
///     header        = u8 version (0x01) || u32be key version (>= 1)
///                     || vault tag (4) || compartment tag (4) || row tag (4) || field tag (4)
///     tag(k, data)  = SHA-256("vaultctl sealed record tag v1" || 0x00 || u8 k || data)[0..4]
///         vault tag = tag(1, vault id), compartment tag = tag(2, compartment uuid),
///         row tag   = tag(3, lp(module) || lp(table) || lp(record id)), field tag = tag(4, lp(field))
///     AD            = "vaultctl sealed record v1" || 0x00 || header || vault id (16) || compartment uuid (16)
///                     || lp(module) || lp(table) || lp(record id) || lp(field)        (lp(x) = u8 len(x) || x)
///     ciphertext || tag = XChaCha20-Poly1305(record key(key version), nonce, plaintext, AD)
///
/// The AD carries the whole identity, so a value copied to another row, field, compartment or vault
/// fails to authenticate. The four tags carry no security: they are public functions of the identity
/// (already clear in the row) that let a failed open say *which* part differs (`recordFromAnotherVault`
/// and the rest), checked only after the AEAD refused. The header is part of the AD, so a tag edited
/// on a good record makes it fail rather than open under two encodings.
enum SealedRecordCodec {
    static let version: UInt8 = 1
    static let headerSize = 21
    static let overhead = headerSize + XChaChaPoly.nonceSize + XChaChaPoly.tagSize
    /// Records are small values; anything larger belongs in a bundle. Checked before any work.
    static let maximumPlaintextSize = 1 << 20
    static let maximumSealedSize = maximumPlaintextSize + overhead

    static let associatedDataLabel = Array("vaultctl sealed record v1".utf8)
    static let tagLabel = Array("vaultctl sealed record tag v1".utf8)
    /// record key(v) = HKDF-SHA-256(IKM = compartment key(v), salt = empty, info = this, L = 32): a key
    /// of its own, so no record ciphertext is ever made under the key that wraps bundle data keys.
    static let recordKeyInfo = Array("vaultctl sealed record key v1".utf8)

    /// The parsed fixed part of a sealed record. Parsing checks sizes and the version only: nothing
    /// in it is trusted before the AEAD accepts the whole.
    struct Header: Equatable {
        let keyVersion: UInt32
        let tags: Tags
        let nonce: [UInt8]

        /// Checks the size bound first, then the version and the key version; the rest is ciphertext.
        init(parsing sealed: [UInt8]) throws {
            keyVersion = try sealed.withUnsafeBytes(Self.keyVersion(parsing:))
            tags = Tags(bytes: Array(sealed[5..<21]))
            nonce = Array(sealed[21..<45])
        }

        /// The checks of `init(parsing:)`, on bytes where they lie (a database row's buffer), returning
        /// the key version: all that opening needs before the AEAD.
        static func keyVersion(parsing sealed: UnsafeRawBufferPointer) throws -> UInt32 {
            guard sealed.count >= SealedRecordCodec.overhead, sealed.count <= SealedRecordCodec.maximumSealedSize else {
                throw CryptoVaultError(.malformedRecord, "a sealed record must be \(SealedRecordCodec.overhead) to \(SealedRecordCodec.maximumSealedSize) bytes, not \(sealed.count)")
            }
            guard sealed[0] == SealedRecordCodec.version else {
                throw CryptoVaultError(.malformedRecord, "sealed record version \(sealed[0]) is not one this vaultctl reads (1)")
            }
            let keyVersion = sealed[1..<5].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            guard keyVersion >= 1 else { throw CryptoVaultError(.malformedRecord, "a sealed record's key version must be at least 1") }
            return keyVersion
        }

        init(keyVersion: UInt32, tags: Tags, nonce: [UInt8]) {
            self.keyVersion = keyVersion
            self.tags = tags
            self.nonce = nonce
        }

        /// The 21 header bytes (the nonce follows them in the record).
        var serialized: [UInt8] { [SealedRecordCodec.version] + ByteEncoding.bigEndian(keyVersion) + tags.bytes }
    }

    /// The four 4-byte tags of an identity.
    struct Tags: Equatable {
        let vault: [UInt8]
        let compartment: [UInt8]
        let row: [UInt8]
        let field: [UInt8]

        init(bytes: [UInt8]) {
            vault = Array(bytes[0..<4])
            compartment = Array(bytes[4..<8])
            row = Array(bytes[8..<12])
            field = Array(bytes[12..<16])
        }

        init(vault: [UInt8], compartment: [UInt8], row: [UInt8], field: [UInt8]) {
            (self.vault, self.compartment, self.row, self.field) = (vault, compartment, row, field)
        }

        init(_ identity: SealedRecordIdentity) {
            let location = identity.location
            vault = SealedRecordCodec.tag(1, identity.vaultID.bytes)
            compartment = SealedRecordCodec.tag(2, identity.compartmentID.bytes)
            row = SealedRecordCodec.tag(3, lengthPrefixed(Array(location.module.utf8)) + lengthPrefixed(Array(location.table.utf8))
                                          + lengthPrefixed(location.recordID))
            field = SealedRecordCodec.tag(4, lengthPrefixed(Array(location.field.utf8)))
        }

        var bytes: [UInt8] { vault + compartment + row + field }
    }

    /// The tags of identities sealed one after another (a transaction's records): the vault,
    /// compartment and field tags are each hashed once and reused, only the row tag is new per record.
    final class TagCache {
        private var vaults: [VaultID: [UInt8]] = [:]
        private var compartments: [CompartmentID: [UInt8]] = [:]
        private var fields: [String: [UInt8]] = [:]

        func tags(for identity: SealedRecordIdentity) -> Tags {
            let location = identity.location
            return Tags(vault: cached(&vaults, identity.vaultID) { SealedRecordCodec.tag(1, identity.vaultID.bytes) },
                        compartment: cached(&compartments, identity.compartmentID) { SealedRecordCodec.tag(2, identity.compartmentID.bytes) },
                        row: SealedRecordCodec.tag(3, lengthPrefixed(Array(location.module.utf8)) + lengthPrefixed(Array(location.table.utf8))
                                                      + lengthPrefixed(location.recordID)),
                        field: cached(&fields, location.field) { SealedRecordCodec.tag(4, lengthPrefixed(Array(location.field.utf8))) })
        }

        private func cached<Key: Hashable>(_ table: inout [Key: [UInt8]], _ key: Key, _ make: () -> [UInt8]) -> [UInt8] {
            if let tag = table[key] { return tag }
            let tag = make()
            table[key] = tag
            return tag
        }
    }

    /// "vaultctl sealed record tag v1" || 0x00 || u8 k, for k = 0...4 (0 unused).
    private static let tagPrefixes: [[UInt8]] = (0...4).map { tagLabel + [0x00, UInt8($0)] }

    static func tag(_ kind: UInt8, _ data: [UInt8]) -> [UInt8] {
        // The thread's reused SHA-256 context: a new context per tag costs more than the hash.
        var digest = [UInt8](repeating: 0, count: SHA256.digestSize)
        tagPrefixes[Int(kind)].withUnsafeBytes { prefix in
            data.withUnsafeBytes { data in digest.withUnsafeMutableBytes { SHA256.hash(prefix, data, into: $0) } }
        }
        return Array(digest.prefix(4))
    }

    static func associatedData(header: [UInt8], identity: SealedRecordIdentity) -> [UInt8] {
        header.withUnsafeBytes { associatedData(headerBytes: $0, identity: identity) }
    }

    /// The AD, built in one buffer sized up front.
    static func associatedData(headerBytes header: UnsafeRawBufferPointer, identity: SealedRecordIdentity) -> [UInt8] {
        withAssociatedData(headerBytes: header, identity: identity) { Array($0) }
    }

    /// Calls `body` with the AD, built on the stack: opening records by the thousand then allocates
    /// nothing for it. The one definition of the AD's layout (SECURITY.md §4.8).
    static func withAssociatedData<Result>(headerBytes header: UnsafeRawBufferPointer, identity: SealedRecordIdentity,
                                           _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try withAssociatedData(headerBytes: header, vaultID: identity.vaultID, compartmentID: identity.compartmentID,
                               location: identity.location, body)
    }

    /// `withAssociatedData` from the identity's parts (the version is in the header), lent rather
    /// than copied into an identity value.
    static func withAssociatedData<Result>(headerBytes header: UnsafeRawBufferPointer, vaultID: VaultID, compartmentID: CompartmentID,
                                           location: SealedRecordLocation,
                                           _ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        let count = associatedDataSize(headerSize: header.count, location: location)
        return try withUnsafeTemporaryAllocation(byteCount: count, alignment: 1) { buffer in
            writeAssociatedData(into: buffer.baseAddress!, header: header, vaultID: vaultID, compartmentID: compartmentID, location: location)
            return try body(UnsafeRawBufferPointer(buffer))
        }
    }

    /// The AD's size for `location` (at most `maximumAssociatedDataSize`).
    static func associatedDataSize(headerSize: Int, location: SealedRecordLocation) -> Int {
        associatedDataLabel.count + 1 + headerSize + VaultID.size + CompartmentID.size + 4
            + location.module.utf8.count + location.table.utf8.count + location.recordID.count + location.field.utf8.count
    }

    /// The largest AD: every part of the location at its 64-byte limit.
    static let maximumAssociatedDataSize = associatedDataLabel.count + 1 + headerSize + VaultID.size + CompartmentID.size + 4 * (1 + 64)

    /// Writes the AD at `start` (room for `associatedDataSize` bytes) and returns its size: the one
    /// definition of its layout (SECURITY.md §4.8).
    @discardableResult
    static func writeAssociatedData(into start: UnsafeMutableRawPointer, header: UnsafeRawBufferPointer, vaultID: VaultID,
                                    compartmentID: CompartmentID, location: SealedRecordLocation) -> Int {
        var writer = StackWriter(start)
        associatedDataLabel.withUnsafeBytes { writer.put($0) }
        writer.put(0x00)
        writer.put(header)
        vaultID.bytes.withUnsafeBytes { writer.put($0) }
        compartmentID.bytes.withUnsafeBytes { writer.put($0) }
        writer.putPrefixed(location.module)
        writer.putPrefixed(location.table)
        writer.put(UInt8(truncatingIfNeeded: location.recordID.count))
        location.recordID.withUnsafeBytes { writer.put($0) }
        writer.putPrefixed(location.field)
        let count = writer.written(from: start)
        precondition(count == associatedDataSize(headerSize: header.count, location: location), "sealed-record AD size")
        return count
    }

    /// Appends bytes at a cursor into a buffer sized beforehand (by `withAssociatedData`).
    private struct StackWriter {
        private var cursor: UnsafeMutableRawPointer

        init(_ start: UnsafeMutableRawPointer) { cursor = start }

        @inline(__always) mutating func put(_ bytes: UnsafeRawBufferPointer) {
            guard let source = bytes.baseAddress else { return }
            cursor.copyMemory(from: source, byteCount: bytes.count)
            cursor += bytes.count
        }

        @inline(__always) mutating func put(_ byte: UInt8) {
            cursor.storeBytes(of: byte, as: UInt8.self)
            cursor += 1
        }

        /// u8 length || UTF-8 (each part of a location is at most 64 bytes).
        @inline(__always) mutating func putPrefixed(_ text: String) {
            var text = text
            text.withUTF8 { utf8 in
                put(UInt8(truncatingIfNeeded: utf8.count))
                put(UnsafeRawBufferPointer(utf8))
            }
        }

        func written(from start: UnsafeMutableRawPointer) -> Int { start.distance(to: cursor) }
    }

    static func recordKey(compartmentKey: SecureBytes) throws -> SecureBytes {
        try HKDF.deriveKey(inputKeyMaterial: compartmentKey, salt: [], info: recordKeyInfo, outputCount: 32)
    }

    /// The same key from HKDF-Extract(salt = empty, compartment key) already made (it is shared with
    /// `SealedRecordDigest.key`, whose salt is empty too).
    static func recordKey(pseudoRandomKey: SecureBytes) throws -> SecureBytes {
        try HKDF.expand(pseudoRandomKey: pseudoRandomKey, info: recordKeyInfo, outputCount: 32)
    }

    /// Seals `plaintext` for `identity` under `recordKey` (the record key of `identity.keyVersion`).
    /// `nonce` is for known-answer tests only: the vault always draws a fresh random one.
    /// `tagCache` spares rehashing the tags that repeat from record to record.
    static func seal(_ plaintext: [UInt8], identity: SealedRecordIdentity, recordKey: SecureBytes,
                     nonce: [UInt8]? = nil, tagCache: TagCache? = nil) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { try seal(bytes: $0, identity: identity, recordKey: recordKey, nonce: nonce, tagCache: tagCache) }
    }

    /// `seal` of a plaintext already in locked memory, read where it lies.
    static func seal(_ plaintext: SecureBytes, identity: SealedRecordIdentity, recordKey: SecureBytes,
                     nonce: [UInt8]? = nil, tagCache: TagCache? = nil) throws -> [UInt8] {
        try plaintext.withUnsafeBytes { try seal(bytes: $0, identity: identity, recordKey: recordKey, nonce: nonce, tagCache: tagCache) }
    }

    /// `seal` of bytes where they lie (a SecureBytes, an array, a scratch buffer).
    static func seal(bytes plaintext: UnsafeRawBufferPointer, identity: SealedRecordIdentity, recordKey: SecureBytes,
                     nonce: [UInt8]? = nil, tagCache: TagCache? = nil) throws -> [UInt8] {
        guard plaintext.count <= maximumPlaintextSize else {
            throw CryptoVaultError(.invalidInput, "a sealed record holds at most \(maximumPlaintextSize) bytes (\(plaintext.count) given); store larger values as bundles")
        }
        guard identity.keyVersion >= 1 else { throw CryptoVaultError(.unknownKeyVersion, "key version 0 does not exist") }
        let nonce = try nonce ?? SecureRandom.bytes(XChaChaPoly.nonceSize)
        guard nonce.count == XChaChaPoly.nonceSize else {
            throw CryptoVaultError(.invalidNonceSize, "XChaCha20-Poly1305 needs a \(XChaChaPoly.nonceSize)-byte nonce, not \(nonce.count) bytes")
        }
        let header = Header(keyVersion: identity.keyVersion, tags: tagCache?.tags(for: identity) ?? Tags(identity), nonce: nonce).serialized
        let ad = associatedData(header: header, identity: identity)
        // header || nonce || ciphertext || tag, written in place in one buffer.
        return try [UInt8](unsafeUninitializedCapacity: overhead + plaintext.count) { buffer, initialized in
            let output = UnsafeMutableRawBufferPointer(buffer)
            header.withUnsafeBytes { output.copyMemory(from: $0) }
            nonce.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: output[headerSize...]).copyMemory(from: $0) }
            try nonce.withUnsafeBytes { nonce in
                try ad.withUnsafeBytes { ad in
                    try XChaChaPoly.seal(plaintext, into: UnsafeMutableRawBufferPointer(rebasing: output[(headerSize + XChaChaPoly.nonceSize)...]),
                                         key: recordKey, nonce: nonce, authenticating: ad)
                }
            }
            initialized = buffer.count
        }
    }

    /// Opens a sealed record expected at `identity` (whose key version must be the header's: the caller
    /// chose `recordKey` by it) into locked memory. A refusal says which part of the identity differs,
    /// or that the record was altered (`corruptRecord`); no plaintext is returned on any failure.
    static func open(_ sealed: [UInt8], identity: SealedRecordIdentity, recordKey: SecureBytes) throws -> SecureBytes {
        try sealed.withUnsafeBytes { try open(bytes: $0, identity: identity, recordKey: recordKey) }
    }

    /// `open` of bytes where they lie (a database row's buffer), decrypted straight into a new
    /// SecureBytes of the plaintext's size: the plaintext is never in ordinary memory.
    static func open(bytes sealed: UnsafeRawBufferPointer, identity: SealedRecordIdentity, recordKey: SecureBytes) throws -> SecureBytes {
        let plaintext = try SecureBytes(count: try plaintextSize(sealed))
        try plaintext.withUnsafeMutableBytes { try open(bytes: sealed, identity: identity, recordKey: recordKey, into: $0) }
        return plaintext
    }

    /// The plaintext's size of a sealed record, after the checks of `Header.keyVersion(parsing:)`.
    static func plaintextSize(_ sealed: UnsafeRawBufferPointer) throws -> Int {
        _ = try Header.keyVersion(parsing: sealed)
        return sealed.count - overhead
    }

    /// `open` writing the plaintext into `output` (locked memory the caller owns, exactly
    /// `plaintextSize(sealed)` bytes), zeroed if the record does not open.
    static func open(bytes sealed: UnsafeRawBufferPointer, identity: SealedRecordIdentity, recordKey: SecureBytes,
                     into output: UnsafeMutableRawBufferPointer, reusing context: BulkChaChaPoly.Context? = nil) throws {
        let keyVersion = try Header.keyVersion(parsing: sealed)
        guard keyVersion == identity.keyVersion else {
            throw CryptoVaultError(.corruptRecord, "the sealed record says key version \(keyVersion), its row \(identity.keyVersion)")
        }
        do {
            try withAssociatedData(headerBytes: UnsafeRawBufferPointer(rebasing: sealed[0..<headerSize]), identity: identity) { ad in
                try XChaChaPoly.open(UnsafeRawBufferPointer(rebasing: sealed[(headerSize + XChaChaPoly.nonceSize)...]), into: output,
                                     key: recordKey, nonce: UnsafeRawBufferPointer(rebasing: sealed[headerSize..<(headerSize + XChaChaPoly.nonceSize)]),
                                     authenticating: ad, reusing: context)
            }
        } catch let error as CryptoVaultError where error.code == .authenticationFailure {
            throw diagnosis(Tags(bytes: Array(sealed[5..<headerSize])), expected: Tags(identity), location: identity.location)
        }
    }

    /// `open(bytes:identity:recordKey:into:reusing:)` from the identity's parts, lent: a batch open
    /// makes the identity value only to say why a record failed, and builds the AD in
    /// `associatedData` (at least `maximumAssociatedDataSize` bytes, reused from record to record).
    static func open(bytes sealed: UnsafeRawBufferPointer, vaultID: VaultID, compartmentID: CompartmentID, keyVersion expected: UInt32,
                     location: SealedRecordLocation, recordKey: SecureBytes,
                     into output: UnsafeMutableRawBufferPointer, reusing context: BulkChaChaPoly.Context? = nil,
                     associatedData: UnsafeMutableRawBufferPointer) throws {
        let keyVersion = try Header.keyVersion(parsing: sealed)
        guard keyVersion == expected else {
            throw CryptoVaultError(.corruptRecord, "the sealed record says key version \(keyVersion), its row \(expected)")
        }
        precondition(associatedData.count >= maximumAssociatedDataSize, "sealed-record AD buffer too small")
        let adCount = writeAssociatedData(into: associatedData.baseAddress!, header: UnsafeRawBufferPointer(rebasing: sealed[0..<headerSize]),
                                          vaultID: vaultID, compartmentID: compartmentID, location: location)
        do {
            try XChaChaPoly.open(UnsafeRawBufferPointer(rebasing: sealed[(headerSize + XChaChaPoly.nonceSize)...]), into: output,
                                 key: recordKey, nonce: UnsafeRawBufferPointer(rebasing: sealed[headerSize..<(headerSize + XChaChaPoly.nonceSize)]),
                                 authenticating: UnsafeRawBufferPointer(rebasing: associatedData[0..<adCount]), reusing: context)
        } catch let error as CryptoVaultError where error.code == .authenticationFailure {
            let identity = SealedRecordIdentity(vaultID: vaultID, compartmentID: compartmentID, keyVersion: expected, location: location)
            throw diagnosis(Tags(bytes: Array(sealed[5..<headerSize])), expected: Tags(identity), location: location)
        }
    }

    /// Why a record that failed to authenticate did: the first tag (vault, compartment, row, field)
    /// that is not the expected identity's, or an alteration when all four are.
    static func diagnosis(_ found: Tags, expected: Tags, location: SealedRecordLocation) -> CryptoVaultError {
        if found.vault != expected.vault {
            return CryptoVaultError(.recordFromAnotherVault, "sealed record \(location) was sealed in another vault; it is refused")
        }
        if found.compartment != expected.compartment {
            return CryptoVaultError(.recordFromAnotherCompartment, "sealed record \(location) was sealed in another compartment; it is refused")
        }
        if found.row != expected.row {
            return CryptoVaultError(.recordFromAnotherRow, "sealed record \(location) was sealed for another record (copied or moved); it is refused")
        }
        if found.field != expected.field {
            return CryptoVaultError(.recordFromAnotherField, "sealed record \(location) was sealed for another field of its record; it is refused")
        }
        return CryptoVaultError(.corruptRecord, "sealed record \(location) fails authentication (altered)")
    }
}

/// u8 length || bytes, for the parts of a record's identity (each at most 64 bytes).
func lengthPrefixed(_ bytes: [UInt8]) -> [UInt8] {
    [UInt8(truncatingIfNeeded: bytes.count)] + bytes
}
