import AuditChain
import CryptoVault
import Foundation
import Testing

/// Published signed notes and keys, quoted byte for byte.
enum PublishedNotes {
    // golang.org/x/mod/sumdb/note: the package documentation's example and note_test.go.
    static let peterVKey = "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW"
    static let peterSKey = "PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz"
    static let enochVKey = "EnochRoot+af0cfe78+ATtqJ7zOtqQtYqOo0CpvDXNlMhV3HeJDpjrASKGLWdop"
    static let peterText = "If you think cryptography is the answer to your problem,\nthen you don't know what your problem is.\n"
    static let peterSignature = "— PeterNeumann x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM=\n"
    static let enochSignature = "— EnochRoot rwz+eBzmZa0SO3NbfRGzPCpDckykFXSdeX+MNtCOXm2/5n2tiOHp+vAF1aGrQ5ovTG01oOTGwnWLox33WWd1RvMc+QQ=\n"
    static let peterNote = peterText + "\n" + peterSignature

    // c2sp.org/signed-note, "Example" section (C2SP/C2SP signed-note.md at d4c16da5; the revision
    // stored for this project's reference predates the section, so the text is as quoted by other
    // implementations' test suites, and the test below checks that the signature really verifies).
    static let fooVKey = "example.com/foo+530d903a+AekyeRrm56hApGFkyQR4ZCbV54Id2LKaANYcrnKv3U2k"
    static let fooNote = "This is an example message.\n\n— example.com/foo Uw2QOkn8srV1yJGh2VYRlL1Tnagv1YEq6TfXppzi2ONncAlTgK7Ztg1ERYNZXsYjOBH3mFXmRKuwHjG1Yu72IneyaQM=\n"

    // c2sp.org/signed-note v1.0.0: the note at the top of the spec (no key is published for it).
    static let quasimodoNote = """
        Ognuno sta solo sul cuor della terra
        trafitto da un raggio di sole:

        ed è subito sera.

        — quasimodo.example/salvatore NnugSzTjtVAewIS+Z/iJhUPeFDkO/5QQ2i5ddnGITLlC+EhfLW9oJKONrMouFSQU0xMcXxj99ihAQwaqP3ZekRwNtIc=

        """

    // transparency-dev/formats note/note_cosigv1_test.go: a type-0x01 key whose base64 holds a '+'.
    static let plusVKey = "TEST+7997405c+AQcC+FTVKf0jlTdHDY3rbevmnKxxPjigCXlVtGe6RIr6"
    // The Go toolchain's default checksum database key (GOSUMDB=sum.golang.org).
    static let sumGolangVKey = "sum.golang.org+033de0ae+Ac4zctda0e5eza+HJyk9SxEdh+s3Ux18htTTAD8OuAn8"

    /// The Ed25519 seed inside an x/mod signer key "PRIVATE+KEY+<name>+<key ID>+<base64(0x01 || seed)>"
    /// (the base64 may itself hold a '+').
    static func seed(ofSKey skey: String) throws -> SecureBytes {
        let encoded = try #require(skey.split(separator: "+", maxSplits: 4).last)
        let raw = try #require(Data(base64Encoded: String(encoded)))
        try #require(raw.first == 0x01 && raw.count == 33)
        return try SecureBytes(copying: raw.dropFirst())
    }
}

/// The code of the `AuditChainError` that `body` throws, or nil when it returns.
private func rejection<T>(_ body: () throws -> T) -> AuditChainErrorCode? {
    do {
        _ = try body()
        return nil
    } catch let error as AuditChainError {
        return error.code
    } catch {
        Issue.record("not an AuditChainError: \(error)")
        return nil
    }
}

private func signer(_ name: String, seed: UInt8) throws -> NoteSigner {
    try NoteSigner(name: name, privateKey: Ed25519PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: seed, count: 32))))
}

struct SignedNoteTests {
    // MARK: Published examples

    @Test func xmodVerifierKeyParsesAndRoundTrips() throws {
        let key = try NoteVerifierKey(vkey: PublishedNotes.peterVKey)
        #expect(key.name == "PeterNeumann")
        #expect(key.keyID == 0xc74f20a3)
        #expect(key.publicKey.count == 32)
        #expect(key.vkey == PublishedNotes.peterVKey)
    }

    @Test(arguments: [PublishedNotes.peterVKey, PublishedNotes.enochVKey, PublishedNotes.fooVKey,
                      PublishedNotes.plusVKey, PublishedNotes.sumGolangVKey])
    func publishedVerifierKeyRoundTrips(vkey: String) throws {
        #expect(try NoteVerifierKey(vkey: vkey).vkey == vkey)
    }

    /// Ed25519 is deterministic, so signing the published text with the published signer key must
    /// give the published note byte for byte.
    @Test func xmodSignerKeyReproducesThePublishedNote() throws {
        let key = try Ed25519PrivateKey(seed: PublishedNotes.seed(ofSKey: PublishedNotes.peterSKey))
        let signer = try NoteSigner(name: "PeterNeumann", privateKey: key)
        #expect(signer.keyID == 0xc74f20a3)
        #expect(signer.verifierKey.vkey == PublishedNotes.peterVKey)
        let note = try SignedNote.sign(body: PublishedNotes.peterText, signers: [signer])
        #expect(note.serialized().utf8.elementsEqual(PublishedNotes.peterNote.utf8))
    }

    @Test func xmodNoteVerifiesAndRoundTrips() throws {
        let note = try SignedNote(parsing: PublishedNotes.peterNote)
        #expect(note.body == PublishedNotes.peterText)
        #expect(note.signatures.map(\.keyName) == ["PeterNeumann"])
        #expect(note.signatures.first?.keyID == 0xc74f20a3)
        #expect(note.serialized().utf8.elementsEqual(PublishedNotes.peterNote.utf8))
        let peter = try NoteVerifierKey(vkey: PublishedNotes.peterVKey)
        #expect(try note.verify(using: [peter]) == [peter])
    }

    /// x/mod's doubly signed example: each signature verifies against its own published key, and a
    /// signature by a key the verifier does not know is ignored, not an error.
    @Test func xmodDoublySignedNoteVerifiesPerKey() throws {
        let note = try SignedNote(parsing: PublishedNotes.peterNote + PublishedNotes.enochSignature)
        let peter = try NoteVerifierKey(vkey: PublishedNotes.peterVKey)
        let enoch = try NoteVerifierKey(vkey: PublishedNotes.enochVKey)
        #expect(try note.verify(using: [peter]) == [peter])
        #expect(try note.verify(using: [enoch]) == [enoch])
        #expect(try note.verify(using: [enoch, peter]) == [peter, enoch])
        #expect(rejection { try note.verify(using: []) } == .noVerifiedSignature)
        let sumdb = try NoteVerifierKey(vkey: PublishedNotes.sumGolangVKey)
        #expect(rejection { try note.verify(using: [sumdb]) } == .noVerifiedSignature)
    }

    @Test func c2spExampleNoteVerifies() throws {
        let key = try NoteVerifierKey(vkey: PublishedNotes.fooVKey)
        #expect(key.keyID == 0x530d903a)
        let note = try SignedNote(parsing: PublishedNotes.fooNote)
        #expect(note.body == "This is an example message.\n")
        #expect(try note.verify(using: [key]) == [key])
        #expect(note.serialized().utf8.elementsEqual(PublishedNotes.fooNote.utf8))
        let tampered = try SignedNote(parsing: PublishedNotes.fooNote.replacingOccurrences(of: "example message", with: "example massage"))
        #expect(rejection { try tampered.verify(using: [key]) } == .signatureInvalid)
    }

    /// The spec's poem holds a blank line; the text ends at the note's last blank line.
    @Test func c2spPoemParsesWithItsInnerBlankLine() throws {
        let note = try SignedNote(parsing: PublishedNotes.quasimodoNote)
        #expect(note.body == "Ognuno sta solo sul cuor della terra\ntrafitto da un raggio di sole:\n\ned è subito sera.\n")
        #expect(note.signatures.map(\.keyName) == ["quasimodo.example/salvatore"])
        #expect(note.serialized().utf8.elementsEqual(PublishedNotes.quasimodoNote.utf8))
    }

    // MARK: Verifier keys

    /// x/mod's TestNewVerifier: every proper substring of the published key, and every one-byte
    /// change of it, must be refused.
    @Test func everyManglingOfThePublishedKeyIsRefused() {
        let bytes = Array(PublishedNotes.peterVKey.utf8)
        var accepted: [String] = []
        func check(_ candidate: [UInt8]) {
            let text = String(decoding: candidate, as: UTF8.self)
            if rejection({ try NoteVerifierKey(vkey: text) }) == nil { accepted.append(text) }
        }
        for start in 0...bytes.count {
            for end in (start + 1)..<(bytes.count + 1) where start != 0 || end != bytes.count {
                check(Array(bytes[start..<end]))
            }
        }
        for index in bytes.indices {
            var changed = bytes
            changed[index] &+= 1
            check(changed)
        }
        #expect(accepted.isEmpty)
    }

    struct BadKey: CustomTestStringConvertible, Sendable {
        let why: String, vkey: String, code: AuditChainErrorCode
        var testDescription: String { why }
    }

    static let badKeys: [BadKey] = [
        BadKey(why: "x/mod: wrong length key, with adjusted key hash",
               vkey: "PeterNeumann+cc469956+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TWBADKEY==", code: .malformedVerifierKey),
        BadKey(why: "x/mod: unknown algorithm, with adjusted key hash",
               vkey: "PeterNeumann+173116ae+ZRpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .unsupportedKeyType),
        BadKey(why: "a cosignature key (type 0x04) is not a note key",
               vkey: "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2", code: .unsupportedKeyType),
        BadKey(why: "no plus", vkey: "PeterNeumann", code: .malformedVerifierKey),
        BadKey(why: "no second plus", vkey: "PeterNeumann+c74f20a3", code: .malformedVerifierKey),
        BadKey(why: "empty name", vkey: "+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .invalidKeyName),
        BadKey(why: "space in name", vkey: "Peter Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .invalidKeyName),
        BadKey(why: "no-break space in name", vkey: "Peter\u{A0}Neumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .invalidKeyName),
        BadKey(why: "uppercase key ID", vkey: "PeterNeumann+C74F20A3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .malformedVerifierKey),
        BadKey(why: "7-digit key ID", vkey: "PeterNeumann+c74f20a+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .malformedVerifierKey),
        BadKey(why: "9-digit key ID", vkey: "PeterNeumann+0c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .malformedVerifierKey),
        BadKey(why: "key ID with a sign", vkey: "PeterNeumann+-74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .malformedVerifierKey),
        BadKey(why: "wrong key ID", vkey: "PeterNeumann+c74f20a4+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .keyIDMismatch),
        BadKey(why: "another name", vkey: "PeterNeuman+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW", code: .keyIDMismatch),
        BadKey(why: "base64 with a trailing newline", vkey: PublishedNotes.peterVKey + "\n", code: .malformedVerifierKey),
        BadKey(why: "base64 with a space", vkey: "PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10T W", code: .malformedVerifierKey),
        BadKey(why: "empty key", vkey: "PeterNeumann+c74f20a3+", code: .malformedVerifierKey),
        BadKey(why: "type byte only", vkey: "a+00000000+AQ==", code: .malformedVerifierKey),
        BadKey(why: "unpadded base64", vkey: "a+00000000+AQ", code: .malformedVerifierKey),
        BadKey(why: "non-zero pad bits", vkey: "a+00000000+AR==", code: .malformedVerifierKey),
        BadKey(why: "over-long text", vkey: "a+00000000+" + String(repeating: "A", count: 8192), code: .malformedVerifierKey),
    ]

    @Test(arguments: badKeys)
    func malformedVerifierKeyIsRefusedForItsReason(bad: BadKey) {
        #expect(rejection { try NoteVerifierKey(vkey: bad.vkey) } == bad.code)
    }

    @Test func keyFromPartsMatchesTheSpecDerivation() throws {
        let published = try NoteVerifierKey(vkey: PublishedNotes.fooVKey)
        let rebuilt = try NoteVerifierKey(name: "example.com/foo", publicKey: published.publicKey)
        #expect(rebuilt == published)
        #expect(rebuilt.vkey == PublishedNotes.fooVKey)
        // key ID = SHA-256(name || 0x0A || 0x01 || public key)[:4], computed here independently.
        let digest = SHA256.hash(Array("example.com/foo".utf8) + [0x0A, 0x01] + published.publicKey)
        #expect(digest.prefix(4).elementsEqual([0x53, 0x0d, 0x90, 0x3a]))
        #expect(rejection { try NoteVerifierKey(name: "example.com/foo", publicKey: Array(published.publicKey.dropLast())) } == .malformedVerifierKey)
        #expect(rejection { try NoteVerifierKey(name: "a+b", publicKey: published.publicKey) } == .invalidKeyName)
        #expect(rejection { try NoteVerifierKey(name: "a\u{1}b", publicKey: published.publicKey) } == .invalidKeyName)
    }

    // MARK: Malformed notes

    struct BadNote: CustomTestStringConvertible, Sendable {
        let why: String, bytes: [UInt8], code: AuditChainErrorCode
        init(_ why: String, _ text: String, _ code: AuditChainErrorCode) { self.init(why, Array(text.utf8), code) }
        init(_ why: String, _ bytes: [UInt8], _ code: AuditChainErrorCode) { self.why = why; self.bytes = bytes; self.code = code }
        var testDescription: String { why }
    }

    static let badNotes: [BadNote] = {
        let text = PublishedNotes.peterText, signature = PublishedNotes.peterSignature
        let blob = "x08go/ZJkuBS9UG/SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotpRZb6KE6RyyBwJnAM="
        return [
            // golang.org/x/mod note_test.go TestOpen, "Invalid encoded message syntax".
            BadNote("x/mod: text only", text, .malformedNote),
            BadNote("x/mod: blank line, no signature", text + "\n", .malformedNote),
            BadNote("x/mod: signature without its newline", text + "\n" + signature.dropLast(), .malformedNote),
            BadNote("x/mod: control character", "\u{1}" + text + "\n" + signature, .invalidNoteEncoding),
            BadNote("x/mod: invalid UTF-8", [0xFF] + Array((text + "\n" + signature).utf8), .invalidNoteEncoding),
            BadNote("x/mod: name with a space, no newline", text + "\n— Bad Name " + blob, .malformedNote),
            BadNote("x/mod: unexpected line after the signatures", text + "\n" + signature + "Unexpected line.\n", .malformedSignatureLine),
            // Each other rule.
            BadNote("larger than the maximum", text + "\n" + signature + String(repeating: "x", count: SignedNote.maximumSize), .noteTooLarge),
            BadNote("CRLF line endings", text.replacingOccurrences(of: "\n", with: "\r\n") + "\r\n" + signature, .invalidNoteEncoding),
            BadNote("tab in the text", "a\tb\n\n" + signature, .invalidNoteEncoding),
            BadNote("truncated UTF-8", Array("caf".utf8) + [0xC3, 0x0A, 0x0A] + Array(signature.utf8), .invalidNoteEncoding),
            BadNote("trailing blank line", text + "\n" + signature + "\n", .malformedNote),
            BadNote("empty", "", .malformedNote),
            BadNote("ASCII dashes", text + "\n-- PeterNeumann " + blob + "\n", .malformedSignatureLine),
            BadNote("en dash", text + "\n\u{2013} PeterNeumann " + blob + "\n", .malformedSignatureLine),
            BadNote("em dash without its space", text + "\n\u{2014}PeterNeumann " + blob + "\n", .malformedSignatureLine),
            BadNote("no space after the name", text + "\n\u{2014} PeterNeumann\n", .malformedSignatureLine),
            BadNote("empty name", text + "\n\u{2014}  " + blob + "\n", .invalidKeyName),
            BadNote("plus in the name", text + "\n\u{2014} Peter+Neumann " + blob + "\n", .invalidKeyName),
            BadNote("no-break space in the name", text + "\n\u{2014} Peter\u{A0}Neumann " + blob + "\n", .invalidKeyName),
            BadNote("ideographic space in the name", text + "\n\u{2014} Peter\u{3000}Neumann " + blob + "\n", .invalidKeyName),
            BadNote("second space in the line", text + "\n\u{2014} PeterNeumann " + blob + " \n", .malformedSignatureLine),
            BadNote("unpadded base64", text + "\n\u{2014} PeterNeumann " + blob.dropLast() + "\n", .malformedSignatureLine),
            BadNote("non-zero pad bits", text + "\n\u{2014} PeterNeumann " + blob.dropLast(2) + "N=\n", .malformedSignatureLine),
            BadNote("URL-safe base64", text + "\n\u{2014} PeterNeumann " + blob.replacingOccurrences(of: "/", with: "_") + "\n", .malformedSignatureLine),
            BadNote("empty signature", text + "\n\u{2014} PeterNeumann \n", .malformedSignatureLine),
            BadNote("key ID and no signature", text + "\n\u{2014} PeterNeumann x08gow==\n", .malformedSignatureLine),
            BadNote("too many signatures", text + "\n" + String(repeating: signature, count: SignedNote.maximumSignatureCount + 1), .tooManySignatures),
        ]
    }()

    @Test(arguments: badNotes)
    func malformedNoteIsRejectedForItsReason(bad: BadNote) {
        #expect(rejection { try SignedNote(parsing: bad.bytes) } == bad.code)
    }

    @Test func theMostSignaturesAllowedParse() throws {
        let text = PublishedNotes.peterText + "\n" + String(repeating: PublishedNotes.peterSignature, count: SignedNote.maximumSignatureCount)
        let note = try SignedNote(parsing: text)
        #expect(note.signatures.count == SignedNote.maximumSignatureCount)
        #expect(note.serialized().utf8.elementsEqual(text.utf8))
    }

    /// The text ends at the *last* blank line, so a blank line inside the signature block makes the
    /// lines before it part of the text (and the signature over the shorter text no longer verifies).
    @Test func theLastBlankLineSeparatesTheSignatures() throws {
        let enoch = PublishedNotes.enochSignature
        let note = try SignedNote(parsing: PublishedNotes.peterNote + "\n" + enoch)
        #expect(note.body == PublishedNotes.peterNote)
        #expect(note.signatures.map(\.keyName) == ["EnochRoot"])
        let key = try NoteVerifierKey(vkey: PublishedNotes.enochVKey)
        #expect(rejection { try note.verify(using: [key]) } == .signatureInvalid)
    }

    // MARK: Verification rules

    @Test func aTamperedSignatureByAKnownKeyRejectsTheNote() throws {
        // x/mod TestOpen "Invalid signature": four base64 characters spliced into the signature.
        var line = Array(PublishedNotes.peterSignature.utf8)
        line.insert(contentsOf: Array("ABCD".utf8), at: 60)
        let note = try SignedNote(parsing: PublishedNotes.peterText + "\n" + String(decoding: line, as: UTF8.self))
        let peter = try NoteVerifierKey(vkey: PublishedNotes.peterVKey)
        #expect(rejection { try note.verify(using: [peter]) } == .signatureInvalid)
        // A good signature beside the bad one does not rescue the note.
        let both = try SignedNote(parsing: PublishedNotes.peterNote + String(decoding: line, as: UTF8.self))
        #expect(rejection { try both.verify(using: [peter]) } == .signatureInvalid)
    }

    /// The spec: signatures from unknown keys are ignored "even if they share a name or ID (but not
    /// both) with a known key".
    @Test func signaturesSharingOnlyANameOrAnIDAreIgnored() throws {
        let log = try signer("log.example/a", seed: 1)
        let good = try log.sign("tree head\n")
        let sameName = try NoteSignature(keyName: log.name, keyID: log.keyID ^ 1, signature: [UInt8](repeating: 7, count: 64))
        let sameID = try NoteSignature(keyName: "log.example/b", keyID: log.keyID, signature: [UInt8](repeating: 7, count: 64))
        let note = try SignedNote(body: "tree head\n", signatures: [sameName, sameID, good])
        #expect(try note.verify(using: [log.verifierKey]) == [log.verifierKey])
        let onlyStrangers = try SignedNote(body: "tree head\n", signatures: [sameName, sameID])
        #expect(rejection { try onlyStrangers.verify(using: [log.verifierKey]) } == .noVerifiedSignature)
    }

    @Test func twoTrustedKeysWithOneNameAndIDAreAmbiguous() throws {
        // Two public keys whose key IDs under this name collide (found by search; 0xbdd4d8de).
        let name = "collide.example/log"
        let first = try NoteVerifierKey(name: name, publicKey: [UInt8](repeating: 0, count: 29) + [0x01, 0x17, 0x03])
        let second = try NoteVerifierKey(name: name, publicKey: [UInt8](repeating: 0, count: 29) + [0x01, 0x45, 0x5c])
        #expect(first.keyID == 0xbdd4d8de && second.keyID == first.keyID)
        let line = try NoteSignature(keyName: name, keyID: first.keyID, signature: [UInt8](repeating: 1, count: 64))
        let note = try SignedNote(body: "x\n", signatures: [line])
        #expect(rejection { try note.verify(using: [first, second]) } == .ambiguousVerifierKeys)
    }

    @Test func repeatedSignaturesAndKeysCountOnce() throws {
        let note = try SignedNote(parsing: PublishedNotes.peterNote + PublishedNotes.peterSignature + PublishedNotes.enochSignature)
        let peter = try NoteVerifierKey(vkey: PublishedNotes.peterVKey)
        #expect(note.signatures.count == 3)
        #expect(try note.verify(using: [peter, peter]) == [peter])
    }

    // MARK: Signing and round trips

    @Test(arguments: ["one line\n", "\n", "two\nlines\n", "blank\n\nline inside\n", "ends with a blank line\n\n",
                      "unicode: ed è subito sera ✓\n", "— looks like a signature line\n"])
    func signedNoteRoundTrips(body: String) throws {
        let signers = [try signer("a.example/one", seed: 1), try signer("b.example/two", seed: 2)]
        let note = try SignedNote.sign(body: body, signers: signers)
        let text = note.serialized()
        let parsed = try SignedNote(parsing: text)
        #expect(parsed.body.utf8.elementsEqual(body.utf8))
        #expect(parsed.signatures == note.signatures)
        #expect(parsed.serialized().utf8.elementsEqual(text.utf8))
        #expect(try parsed.verify(using: signers.reversed().map(\.verifierKey)) == signers.map(\.verifierKey))
    }

    @Test func signerRefusesTextThatCannotBeANote() throws {
        let log = try signer("log.example", seed: 3)
        #expect(rejection { try log.sign("abc") } == .malformedNote)  // x/mod: "Sign with short text"
        #expect(rejection { try log.sign("") } == .malformedNote)
        #expect(rejection { try log.sign("a\rb\n") } == .invalidNoteEncoding)
        let key = try Ed25519PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: 3, count: 32)))
        #expect(rejection { try NoteSigner(name: "bad name", privateKey: key) } == .invalidKeyName)
    }

    @Test func noteFromPartsIsChecked() throws {
        let line = try signer("log.example", seed: 4).sign("x\n")
        #expect(rejection { try SignedNote(body: "x\n", signatures: []) } == .malformedNote)
        #expect(rejection { try SignedNote(body: "x", signatures: [line]) } == .malformedNote)
        #expect(rejection { try SignedNote(body: "x\u{7}\n", signatures: [line]) } == .invalidNoteEncoding)
        #expect(rejection { try SignedNote(body: "x\n", signatures: Array(repeating: line, count: 101)) } == .tooManySignatures)
        #expect(rejection { try SignedNote(body: String(repeating: "x", count: SignedNote.maximumSize - 1) + "\n", signatures: [line]) } == .noteTooLarge)
        #expect(rejection { try NoteSignature(keyName: "a b", keyID: 1, signature: [1]) } == .invalidKeyName)
        #expect(rejection { try NoteSignature(keyName: "ab", keyID: 1, signature: []) } == .malformedSignatureLine)
    }
}
