import CryptoVault
import Foundation

/// A signed note (c2sp.org/signed-note v1.0.0): text signed by one or more keys.
///
///     note           = text blank-line 1*signature-line
///     text           = lines that end in "\n" (the text includes its final newline)
///     blank-line     = "\n"
///     signature-line = "— " key-name " " base64(4-byte big-endian key ID || signature) "\n"
///
/// The whole note is UTF-8 with no ASCII control character other than newline, and the text is
/// separated from the signatures by the *last* blank line, so the text may itself hold blank lines.
/// Parsing keeps every signature line in order, so `serialized()` gives back the parsed bytes exactly.
///
/// The text must be ignored until `verify(using:)` has returned: only then is it known who wrote it.
public struct SignedNote: Sendable, Equatable {
    /// The largest note accepted, checked before any other work (an attacker chooses the size).
    public static let maximumSize = 1 << 20
    /// The most signature lines accepted. The spec asks verifiers to accept at least 16; golang.org/x/mod
    /// refuses more than 100, and so do we, so a note cannot make a verifier check signatures for long.
    public static let maximumSignatureCount = 100

    /// The note text, including its final newline but not the blank line after it.
    public let body: String
    /// Every signature line, in order, known keys or not.
    public let signatures: [NoteSignature]

    /// A note of `body` and `signatures`; throws unless it would serialize to a note that parses back.
    public init(body: String, signatures: [NoteSignature]) throws(AuditChainError) {
        try Self.validateBody(body)
        guard !signatures.isEmpty else { throw AuditChainError(.malformedNote, "a note needs at least one signature") }
        guard signatures.count <= Self.maximumSignatureCount else {
            throw AuditChainError(.tooManySignatures, "\(signatures.count) signatures, more than \(Self.maximumSignatureCount)")
        }
        self.body = body
        self.signatures = signatures
        let size = serialized().utf8.count
        guard size <= Self.maximumSize else {
            throw AuditChainError(.noteTooLarge, "the note would have \(size) bytes, more than \(Self.maximumSize)")
        }
    }

    /// Parses a note; see `init(parsing:)` for bytes.
    public init(parsing text: String) throws(AuditChainError) {
        try self.init(parsing: Array(text.utf8))
    }

    /// Parses a note without verifying anything: every line must be well formed, whoever signed it.
    public init(parsing bytes: [UInt8]) throws(AuditChainError) {
        guard bytes.count <= Self.maximumSize else {
            throw AuditChainError(.noteTooLarge, "the note has \(bytes.count) bytes, more than \(Self.maximumSize)")
        }
        guard String(validating: bytes, as: UTF8.self) != nil else {
            throw AuditChainError(.invalidNoteEncoding, "the note is not valid UTF-8")
        }
        // Bytes below 0x20 never occur inside a multi-byte UTF-8 sequence, so a byte scan finds every one.
        if let offset = bytes.firstIndex(where: { $0 < 0x20 && $0 != Self.newline }) {
            throw AuditChainError(.invalidNoteEncoding, "control character 0x\(String(bytes[offset], radix: 16)) at byte \(offset)")
        }
        guard let separator = Self.lastBlankLine(in: bytes) else {
            throw AuditChainError(.malformedNote, "no blank line separates the text from the signatures")
        }
        let block = bytes[(separator + 2)...]
        guard let last = block.last else { throw AuditChainError(.malformedNote, "no signature line follows the blank line") }
        guard last == Self.newline else { throw AuditChainError(.malformedNote, "the last signature line does not end in a newline") }
        let lineCount = block.count(where: { $0 == Self.newline })
        guard lineCount <= Self.maximumSignatureCount else {
            throw AuditChainError(.tooManySignatures, "\(lineCount) signature lines, more than \(Self.maximumSignatureCount)")
        }
        var signatures: [NoteSignature] = []
        // The block has no empty line: it follows the last "\n\n" and ends in "\n".
        for line in block.dropLast().split(separator: Self.newline, omittingEmptySubsequences: false) {
            signatures.append(try NoteSignature(parsingLine: line))
        }
        body = String(decoding: bytes[...separator], as: UTF8.self)
        self.signatures = signatures
    }

    /// Byte-for-byte equality: Swift's `==` on strings would equate canonically equivalent texts.
    public static func == (lhs: SignedNote, rhs: SignedNote) -> Bool {
        lhs.body.utf8.elementsEqual(rhs.body.utf8) && lhs.signatures == rhs.signatures
    }

    /// The note as text: body, blank line, one line per signature.
    public func serialized() -> String {
        body + "\n" + signatures.map(\.line).joined()
    }

    /// Signs `body` with each signer, in order.
    public static func sign(body: String, signers: [NoteSigner]) throws(AuditChainError) -> SignedNote {
        var signatures: [NoteSignature] = []
        for signer in signers {
            signatures.append(try signer.sign(body))
        }
        return try SignedNote(body: body, signatures: signatures)
    }

    /// The trusted keys that signed this note, in the order of their first signature; throws unless
    /// at least one did and every signature by a trusted key verifies.
    ///
    /// As the spec requires, a signature whose key name and key ID do not both match a trusted key is
    /// ignored (it may be a witness cosignature, or a key this verifier does not know). A signature that
    /// does match must verify, and one that does not rejects the whole note rather than being skipped:
    /// a bad signature from a key we trust means the note was tampered with or the key misused.
    public func verify(using keys: [NoteVerifierKey]) throws(AuditChainError) -> [NoteVerifierKey] {
        let message = Array(body.utf8)
        var verified: [NoteVerifierKey] = []
        for signature in signatures {
            let matches = keys.filter { $0.identifies(signature) }
            guard let key = matches.first else { continue }
            guard matches.allSatisfy({ $0.publicKey == key.publicKey }) else {
                throw AuditChainError(.ambiguousVerifierKeys, "two trusted keys are named \(key.name)+\(NoteKeyID.hex(key.keyID))")
            }
            guard Ed25519.isValidSignature(signature.signature, for: message, publicKey: key.publicKey) else {
                throw AuditChainError(.signatureInvalid, "the signature by \(key.name)+\(NoteKeyID.hex(key.keyID)) does not verify")
            }
            if !verified.contains(where: { $0.identifies(key) }) { verified.append(key) }
        }
        guard !verified.isEmpty else { throw AuditChainError(.noVerifiedSignature, "no trusted key signed the note") }
        return verified
    }

    static let newline = UInt8(ascii: "\n")

    /// Throws unless `body` can be the text of a note: it ends in a newline and, like the whole note,
    /// holds no control character but newline.
    static func validateBody(_ body: String) throws(AuditChainError) {
        guard body.utf8.last == newline else { throw AuditChainError(.malformedNote, "the note text does not end in a newline") }
        if let byte = body.utf8.first(where: { $0 < 0x20 && $0 != newline }) {
            throw AuditChainError(.invalidNoteEncoding, "the note text holds control character 0x\(String(byte, radix: 16))")
        }
        guard body.utf8.count <= maximumSize else {
            throw AuditChainError(.noteTooLarge, "the note text has \(body.utf8.count) bytes, more than \(maximumSize)")
        }
    }

    /// The offset of the first newline of the last "\n\n" in `bytes`.
    private static func lastBlankLine(in bytes: [UInt8]) -> Int? {
        var index = bytes.count - 2
        while index >= 0 {
            if bytes[index] == newline && bytes[index + 1] == newline { return index }
            index -= 1
        }
        return nil
    }
}

/// One signature line of a note: who claims to have signed (key name and key ID) and the signature.
public struct NoteSignature: Sendable, Equatable {
    /// The key name, as on the line.
    public let keyName: String
    /// The 4-byte key ID, big-endian.
    public let keyID: UInt32
    /// The bytes after the key ID: an Ed25519 signature, a timestamped cosignature, or a type we do not know.
    public let signature: [UInt8]

    /// A signature line's parts; throws for an invalid key name or an empty signature.
    public init(keyName: String, keyID: UInt32, signature: [UInt8]) throws(AuditChainError) {
        try NoteKeyName.validate(keyName)
        guard !signature.isEmpty else { throw AuditChainError(.malformedSignatureLine, "a signature line needs signature bytes") }
        self.keyName = keyName
        self.keyID = keyID
        self.signature = signature
    }

    /// The line as it appears in a note, with its newline.
    public var line: String {
        "\(Self.prefix)\(keyName) \(NoteBase64.encode(NoteKeyID.bytes(keyID) + signature))\n"
    }

    /// Names compare byte for byte: Swift's `==` on strings would equate canonically equivalent names.
    public static func == (lhs: NoteSignature, rhs: NoteSignature) -> Bool {
        lhs.keyName.utf8.elementsEqual(rhs.keyName.utf8) && lhs.keyID == rhs.keyID && lhs.signature == rhs.signature
    }

    static let prefix = "\u{2014} "

    /// Parses one line of a note's signature block, without its newline; the note is already known
    /// to be UTF-8 without control characters.
    init(parsingLine line: ArraySlice<UInt8>) throws(AuditChainError) {
        let prefix = Array(Self.prefix.utf8)
        guard line.starts(with: prefix) else {
            throw AuditChainError(.malformedSignatureLine, "a signature line must start with an em dash (U+2014) and a space")
        }
        let rest = line.dropFirst(prefix.count)
        guard let space = rest.firstIndex(of: UInt8(ascii: " ")) else {
            throw AuditChainError(.malformedSignatureLine, "no space between the key name and the signature")
        }
        let name = String(decoding: rest[..<space], as: UTF8.self)
        try NoteKeyName.validate(name)
        guard let blob = NoteBase64.decode(rest[(space + 1)...]) else {
            throw AuditChainError(.malformedSignatureLine, "the signature of \(name) is not padded standard base64")
        }
        guard blob.count > NoteKeyID.size else {
            throw AuditChainError(.malformedSignatureLine, "the signature of \(name) has \(blob.count) bytes: a key ID and no signature")
        }
        try self.init(keyName: name, keyID: NoteKeyID.value(blob[..<NoteKeyID.size]), signature: Array(blob[NoteKeyID.size...]))
    }
}

/// A key that verifies Ed25519 note signatures (signature type 0x01), as given to verifiers in the
/// vkey text form "<name>+<key ID as 8 lowercase hex digits>+<base64(0x01 || 32-byte public key)>"
/// (golang.org/x/mod/sumdb/note, c2sp.org/signed-note "Verifier keys").
public struct NoteVerifierKey: Sendable, Equatable {
    /// The signature type byte of Ed25519 note signatures.
    public static let signatureType: UInt8 = 0x01

    public let name: String
    /// SHA-256(name || 0x0A || 0x01 || public key)[:4], big-endian.
    public let keyID: UInt32
    /// The 32-byte Ed25519 public key.
    public let publicKey: [UInt8]

    /// The key of `name` and a 32-byte Ed25519 `publicKey`.
    public init(name: String, publicKey: [UInt8]) throws(AuditChainError) {
        let key = try VerifierKeyText(name: name, type: Self.signatureType, publicKey: publicKey, publicKeySize: Ed25519.publicKeySize)
        self.init(key)
    }

    /// Parses a vkey; strict: one encoding per key, and the key ID must be the one the key derives.
    public init(vkey: String) throws(AuditChainError) {
        self.init(try VerifierKeyText(parsing: vkey, type: Self.signatureType, publicKeySize: Ed25519.publicKeySize))
    }

    /// The vkey text form.
    public var vkey: String {
        VerifierKeyText.format(name: name, keyID: keyID, type: Self.signatureType, publicKey: publicKey)
    }

    public static func == (lhs: NoteVerifierKey, rhs: NoteVerifierKey) -> Bool {
        lhs.identifies(rhs) && lhs.publicKey == rhs.publicKey
    }

    private init(_ key: VerifierKeyText) {
        name = key.name
        keyID = key.keyID
        publicKey = key.publicKey
    }

    /// Whether the signature claims this key: same name, byte for byte, and same key ID.
    func identifies(_ signature: NoteSignature) -> Bool {
        signature.keyID == keyID && signature.keyName.utf8.elementsEqual(name.utf8)
    }

    func identifies(_ other: NoteVerifierKey) -> Bool {
        other.keyID == keyID && other.name.utf8.elementsEqual(name.utf8)
    }
}

/// Signs note texts with an Ed25519 key under a key name.
public struct NoteSigner: Sendable {
    /// The key that verifies this signer's signatures, to give to verifiers (as its `vkey`).
    public let verifierKey: NoteVerifierKey
    private let privateKey: Ed25519PrivateKey

    public init(name: String, privateKey: Ed25519PrivateKey) throws(AuditChainError) {
        verifierKey = try NoteVerifierKey(name: name, publicKey: privateKey.publicKey)
        self.privateKey = privateKey
    }

    public var name: String { verifierKey.name }
    public var keyID: UInt32 { verifierKey.keyID }

    /// The signature line of `body`, which must be a valid note text.
    public func sign(_ body: String) throws(AuditChainError) -> NoteSignature {
        try SignedNote.validateBody(body)
        let signature: [UInt8]
        do {
            signature = try privateKey.signature(for: Array(body.utf8))
        } catch {
            throw AuditChainError(.signingFailed, "Ed25519 signing failed: \(error)")
        }
        return try NoteSignature(keyName: name, keyID: keyID, signature: signature)
    }
}

/// The key-name rule of c2sp.org/signed-note: non-empty, no Unicode whitespace, no '+'. Control
/// characters are refused too, since no note may contain one.
enum NoteKeyName {
    static func validate(_ name: String) throws(AuditChainError) {
        guard !name.isEmpty else { throw AuditChainError(.invalidKeyName, "a key name must not be empty") }
        for scalar in name.unicodeScalars {
            if scalar == "+" { throw AuditChainError(.invalidKeyName, "the key name \(name) contains '+'") }
            if scalar.properties.isWhitespace || scalar.value < 0x20 {
                throw AuditChainError(.invalidKeyName, "the key name contains whitespace or control character U+\(String(scalar.value, radix: 16))")
            }
        }
    }
}

/// Key IDs: the first four bytes of SHA-256(key name || 0x0A || signature type || public key), read
/// big-endian, as c2sp.org/signed-note recommends and tlog-cosignature requires.
enum NoteKeyID {
    static let size = 4

    static func derive(name: String, type: UInt8, publicKey: [UInt8]) -> UInt32 {
        var hasher = SHA256.Hasher()
        hasher.update(Array(name.utf8))
        hasher.update([0x0A, type])
        hasher.update(publicKey)
        return value(hasher.finalize().prefix(size))
    }

    static func value(_ bytes: some Collection<UInt8>) -> UInt32 {
        bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    static func bytes(_ keyID: UInt32) -> [UInt8] {
        [UInt8(keyID >> 24), UInt8(keyID >> 16 & 0xFF), UInt8(keyID >> 8 & 0xFF), UInt8(keyID & 0xFF)]
    }

    /// Eight lowercase hex digits, as the vkey form writes them.
    static func hex(_ keyID: UInt32) -> String {
        let digits = String(keyID, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }

    /// The key ID written by `hex`, and only that spelling (no uppercase, no sign, exactly eight digits).
    static func parseHex(_ text: some Collection<UInt8>) -> UInt32? {
        guard text.count == 8 else { return nil }
        var value: UInt32 = 0
        for byte in text {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): value = value << 4 | UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): value = value << 4 | UInt32(byte - UInt8(ascii: "a") + 10)
            default: return nil
            }
        }
        return value
    }
}

/// The vkey text form shared by note keys (type 0x01) and cosignature keys (type 0x04):
/// "<name>+<key ID as 8 lowercase hex digits>+<base64(type || public key)>".
struct VerifierKeyText {
    /// Far above any key this module accepts; a cap so a huge string is refused before decoding.
    static let maximumLength = 4096

    let name: String
    let keyID: UInt32
    let publicKey: [UInt8]

    init(name: String, type: UInt8, publicKey: [UInt8], publicKeySize: Int) throws(AuditChainError) {
        try NoteKeyName.validate(name)
        guard publicKey.count == publicKeySize else {
            throw AuditChainError(.malformedVerifierKey, "the public key has \(publicKey.count) bytes, not \(publicKeySize)")
        }
        self.name = name
        self.keyID = NoteKeyID.derive(name: name, type: type, publicKey: publicKey)
        self.publicKey = publicKey
    }

    init(parsing vkey: String, type: UInt8, publicKeySize: Int) throws(AuditChainError) {
        let text = Array(vkey.utf8)
        guard text.count <= Self.maximumLength else {
            throw AuditChainError(.malformedVerifierKey, "the verifier key has \(text.count) bytes, more than \(Self.maximumLength)")
        }
        // Split at the first two '+': the name has none, and the base64 may have some.
        let plus = UInt8(ascii: "+")
        guard let first = text.firstIndex(of: plus), let second = text[(first + 1)...].firstIndex(of: plus) else {
            throw AuditChainError(.malformedVerifierKey, "a verifier key is <name>+<key ID>+<base64 key>")
        }
        let name = String(decoding: text[..<first], as: UTF8.self)
        guard let keyID = NoteKeyID.parseHex(text[(first + 1)..<second]) else {
            throw AuditChainError(.malformedVerifierKey, "the key ID is not 8 lowercase hex digits")
        }
        guard let material = NoteBase64.decode(text[(second + 1)...]), let keyType = material.first else {
            throw AuditChainError(.malformedVerifierKey, "the key is not non-empty padded standard base64")
        }
        guard keyType == type else {
            throw AuditChainError(.unsupportedKeyType, "signature type 0x\(String(keyType, radix: 16)), not 0x\(String(type, radix: 16))")
        }
        try self.init(name: name, type: type, publicKey: Array(material.dropFirst()), publicKeySize: publicKeySize)
        guard keyID == self.keyID else {
            throw AuditChainError(.keyIDMismatch, "key ID \(NoteKeyID.hex(keyID)), but the key derives \(NoteKeyID.hex(self.keyID))")
        }
    }

    static func format(name: String, keyID: UInt32, type: UInt8, publicKey: [UInt8]) -> String {
        "\(name)+\(NoteKeyID.hex(keyID))+\(NoteBase64.encode([type] + publicKey))"
    }
}

/// Standard padded base64 (RFC 4648 §4), canonical only: decoding refuses anything that encoding
/// would not produce (missing padding, non-zero pad bits, whitespace), so each value has one text.
enum NoteBase64 {
    static func encode(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }

    static func decode(_ text: some Collection<UInt8>) -> [UInt8]? {
        guard text.count % 4 == 0, let data = Data(base64Encoded: String(decoding: text, as: UTF8.self)) else { return nil }
        let bytes = [UInt8](data)
        return encode(bytes).utf8.elementsEqual(text) ? bytes : nil
    }
}
