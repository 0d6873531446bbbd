import AuditChain
import CryptoVault
import Testing

/// Published checkpoints, quoted byte for byte.
enum PublishedCheckpoints {
    /// c2sp.org/tlog-checkpoint v1.0.0 and c2sp.org/tlog-cosignature: the spec's example checkpoint,
    /// signed by the log and (in tlog-cosignature) cosigned by a witness. No keys are published for it.
    static let sofaBody = "example.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
    static let sofaLogSignature = "— example.com/behind-the-sofa Az3grlgtzPICa5OS8npVmf1Myq/5IZniMp+ZJurmRDeOoRDe4URYN7u5/Zhcyv2q1gGzGku9nTo+zyWE+xeMcTOAYQ8=\n"
    static let sofaWitnessSignature = "— witness.example.com/w1 jWbPPwAAAABkGFDLEZMHwSRaJNiIDoe9DYn/zXcrtPHeolMI5OWXEhZCB9dlrDJsX3b2oyin1nPZqhf5nNo0xUe+mbIUBkBIfZ+qnA==\n"
    static let sofaNote = sofaBody + "\n" + sofaLogSignature
    static let sofaCosignedNote = sofaNote + sofaWitnessSignature

    /// A real checkpoint of the Arche 2025h1 staging CT log (transparency.dev), with its two log
    /// signatures (an RFC 6962 tree head signature, type 0x05, and an Ed25519 note signature) and four
    /// witness cosignatures, with the log's Ed25519 key and one witness's cosignature key, as published
    /// in the test suite of tlog_scales (a Python tlog library), TestCheckpointVerification.
    static let archeBody = "arche2025h1.staging.ct.transparency.dev\n1432088532\nU7WM79jrzyhGZ5/GUBTpM7NzwdyfFx61t3RovgcC4Ro=\n"
    static let archeNote = archeBody + """

        — arche2025h1.staging.ct.transparency.dev zTM8sQAAAZ5W0WdjBAMARjBEAiBjW5IQf9pvsYLfQFX6hoGREPMHbdQ3urbllzalApkptQIgIpwtEroeW2BXaHAI4kJXFbon5Ch9MNL5zRNZ55lvGt0=
        — arche2025h1.staging.ct.transparency.dev ui8GwCF1+kWqZrxGdhj4aX3gcw7XUlXQQabg/27lefwhUkzbC3NygNI75MdhL1bfTW9g8Ei59RA23oHP7Ry1k3ZFWwQ=
        — transparency.dev/DEV:witness-little-garden 2AQqhwAAAABqEiEgzgFIqqhbUoDwjMWE6UP8nd8/KYTzwZ2rhIgcqoXHAwVkjZr4AscylP3v7sEodkRAErumC2q44vdgJY096st5BQ==
        — witness1.smartit.nu/witness1 pIyCDwAAAABqEiEghIp82KWebrw7/oHQwlTAm3g2RKS4+eebl8eO0WH+/iEcxZ75W3u5hNI7TOQtmJbqmNWVuE0tgh0XwzdZsDsUAQ==
        — remora.n621.de 2net5wAAAABqEiEgPlfF3V06o0Y+fHM+J5J9s27wgxxcOVSpZ/2g/KSiXCg9DEZI+aVCIobWX9sXTynk5XeU/zZ0WBxtqB0DrAWfBw==
        — witness.stagemole.eu Z/euoAAAAABqEiEgw0i+7g2ENfDAWHmtRzCfKTHSDwYDJA2NmKeGi9Y8FtEyOUvVr+AJmIY/2TUFucgKi7lI7cUiOvKFYe/TmN9DAg==

        """
    static let archeLogVKey = "arche2025h1.staging.ct.transparency.dev+ba2f06c0+AU0vHmlGCS/PdN8b2OaGmKprLI8HKM+dJ472xgFYh15f"
    static let archeOrigin = "arche2025h1.staging.ct.transparency.dev"
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

struct CheckpointTests {
    // MARK: Published checkpoints

    @Test func specExampleParsesAndRoundTrips() throws {
        let checkpoint = try Checkpoint(parsing: PublishedCheckpoints.sofaBody)
        #expect(checkpoint.origin == "example.com/behind-the-sofa")
        #expect(checkpoint.treeSize == 20852163)
        #expect(checkpoint.rootHash.count == 32)
        #expect(checkpoint.rootHash.prefix(4).elementsEqual([0x0A, 0xC5, 0x18, 0x6A]))
        #expect(checkpoint.extensionLines.isEmpty)
        #expect(checkpoint.body.utf8.elementsEqual(PublishedCheckpoints.sofaBody.utf8))
        for text in [PublishedCheckpoints.sofaNote, PublishedCheckpoints.sofaCosignedNote] {
            let note = try SignedNote(parsing: text)
            #expect(note.body == PublishedCheckpoints.sofaBody)
            #expect(note.serialized().utf8.elementsEqual(text.utf8))
        }
    }

    @Test func realCheckpointVerifiesWithTheLogKey() throws {
        let logKey = try NoteVerifierKey(vkey: PublishedCheckpoints.archeLogVKey)
        let note = try SignedNote(parsing: PublishedCheckpoints.archeNote)
        #expect(note.signatures.count == 6)
        #expect(note.serialized().utf8.elementsEqual(PublishedCheckpoints.archeNote.utf8))
        // The type-0x05 line shares the log's name but not its key ID, and the cosignatures are by
        // other names: all are ignored, and the Ed25519 line verifies.
        #expect(try note.verify(using: [logKey]) == [logKey])
        let checkpoint = try Checkpoint(verifying: note, origin: PublishedCheckpoints.archeOrigin, logKey: logKey)
        #expect(checkpoint.treeSize == 1432088532)
        #expect(checkpoint.body == PublishedCheckpoints.archeBody)
    }

    @Test func realCheckpointWithAnotherSizeDoesNotVerify() throws {
        let logKey = try NoteVerifierKey(vkey: PublishedCheckpoints.archeLogVKey)
        let forged = PublishedCheckpoints.archeNote.replacingOccurrences(of: "\n1432088532\n", with: "\n1432088533\n")
        let note = try SignedNote(parsing: forged)
        #expect(rejection { try Checkpoint(verifying: note, origin: PublishedCheckpoints.archeOrigin, logKey: logKey) } == .signatureInvalid)
    }

    // MARK: Verification

    @Test func verifiedCheckpointMustNameTheExpectedOrigin() throws {
        let key = try Ed25519PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: 9, count: 32)))
        let signer = try NoteSigner(name: "log.example/a", privateKey: key)
        let checkpoint = try Checkpoint(origin: "log.example/a", treeSize: 5, rootHash: MerkleHash.emptyRoot)
        let note = try SignedNote.sign(body: checkpoint.body, signers: [signer])
        #expect(try Checkpoint(verifying: note, origin: "log.example/a", logKey: signer.verifierKey) == checkpoint)
        #expect(rejection { try Checkpoint(verifying: note, origin: "log.example/b", logKey: signer.verifierKey) } == .originMismatch)
        let stranger = try NoteSigner(name: "log.example/a", privateKey: Ed25519PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: 8, count: 32))))
        #expect(rejection { try Checkpoint(verifying: note, origin: "log.example/a", logKey: stranger.verifierKey) } == .noVerifiedSignature)
        // The text is not read before the signature verifies: a signed non-checkpoint fails to parse
        // only after verification succeeded, and an unsigned one fails verification first.
        let notACheckpoint = try SignedNote.sign(body: "hello\n", signers: [signer])
        #expect(rejection { try Checkpoint(verifying: notACheckpoint, origin: "log.example/a", logKey: signer.verifierKey) } == .malformedCheckpoint)
        #expect(rejection { try Checkpoint(verifying: notACheckpoint, origin: "log.example/a", logKey: stranger.verifierKey) } == .noVerifiedSignature)
    }

    // MARK: Round trips

    struct Shape: CustomTestStringConvertible, Sendable {
        let origin: String, size: UInt64, extensions: [String]
        var testDescription: String { "\(origin) \(size) +\(extensions.count)" }
    }

    static let shapes = [
        Shape(origin: "example.com/log42", size: 0, extensions: []),
        Shape(origin: "example.com/log42", size: 1, extensions: []),
        Shape(origin: "vaultctl/00ff", size: UInt64.max, extensions: []),
        Shape(origin: "origins may have spaces and + signs", size: 10, extensions: ["ext one", "— ext two"]),
        Shape(origin: "ünïcödé", size: 4_294_967_296, extensions: ["x"]),
    ]

    @Test(arguments: shapes)
    func checkpointRoundTrips(shape: Shape) throws {
        let root = SHA256.hash(Array(shape.origin.utf8))
        let checkpoint = try Checkpoint(origin: shape.origin, treeSize: shape.size, rootHash: root, extensionLines: shape.extensions)
        let parsed = try Checkpoint(parsing: checkpoint.body)
        #expect(parsed == checkpoint)
        #expect(parsed.body.utf8.elementsEqual(checkpoint.body.utf8))
        #expect(checkpoint.body.hasPrefix("\(shape.origin)\n\(shape.size)\n"))
    }

    // MARK: Malformed bodies

    struct BadBody: CustomTestStringConvertible, Sendable {
        let why: String, body: String, code: AuditChainErrorCode
        init(_ why: String, _ body: String, _ code: AuditChainErrorCode) { self.why = why; self.body = body; self.code = code }
        var testDescription: String { why }
    }

    static let root = "CsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I="

    static let badBodies: [BadBody] = [
        BadBody("empty", "", .malformedCheckpoint),
        BadBody("no final newline", "o\n1\n" + root, .malformedCheckpoint),
        BadBody("two lines", "o\n1\n", .malformedCheckpoint),
        BadBody("empty origin", "\n1\n" + root + "\n", .malformedCheckpoint),
        BadBody("control character in the origin", "o\u{1}\n1\n" + root + "\n", .malformedCheckpoint),
        BadBody("empty extension line", "o\n1\n" + root + "\n\n", .malformedCheckpoint),
        BadBody("empty extension line between others", "o\n1\n" + root + "\na\n\nb\n", .malformedCheckpoint),
        BadBody("CRLF", "o\r\n1\r\n" + root + "\r\n", .malformedCheckpoint),
        BadBody("empty size", "o\n\n" + root + "\n", .malformedTreeSize),
        BadBody("leading zero", "o\n01\n" + root + "\n", .malformedTreeSize),
        BadBody("zero twice", "o\n00\n" + root + "\n", .malformedTreeSize),
        BadBody("plus sign", "o\n+1\n" + root + "\n", .malformedTreeSize),
        BadBody("minus sign", "o\n-1\n" + root + "\n", .malformedTreeSize),
        BadBody("leading space", "o\n 1\n" + root + "\n", .malformedTreeSize),
        BadBody("trailing space", "o\n1 \n" + root + "\n", .malformedTreeSize),
        BadBody("hex", "o\n0x10\n" + root + "\n", .malformedTreeSize),
        BadBody("Arabic-Indic digits", "o\n\u{661}\n" + root + "\n", .malformedTreeSize),
        BadBody("2^64", "o\n18446744073709551616\n" + root + "\n", .malformedTreeSize),
        BadBody("root of 31 bytes", "o\n1\n" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==" + "\n", .malformedHash),
        BadBody("root of 33 bytes", "o\n1\n" + "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA" + "\n", .malformedHash),
        BadBody("unpadded root", "o\n1\n" + root.dropLast() + "\n", .malformedHash),
        BadBody("non-zero pad bits", "o\n1\n" + root.dropLast(2) + "J=\n", .malformedHash),
        BadBody("URL-safe root", "o\n1\n" + root.replacingOccurrences(of: "/", with: "_") + "\n", .malformedHash),
        BadBody("hex root", "o\n1\n" + String(repeating: "ab", count: 32) + "\n", .malformedHash),
        BadBody("root with trailing space", "o\n1\n" + root + " \n", .malformedHash),
        BadBody("empty root", "o\n1\n\n", .malformedHash),
    ]

    @Test(arguments: badBodies)
    func malformedBodyIsRejectedForItsReason(bad: BadBody) {
        #expect(rejection { try Checkpoint(parsing: bad.body) } == bad.code)
    }

    @Test func sizeBoundariesParse() throws {
        #expect(try Checkpoint(parsing: "o\n0\n\(Self.root)\n").treeSize == 0)
        #expect(try Checkpoint(parsing: "o\n18446744073709551615\n\(Self.root)\n").treeSize == UInt64.max)
    }

    @Test func checkpointFromPartsIsChecked() {
        let root = MerkleHash.emptyRoot
        #expect(rejection { try Checkpoint(origin: "", treeSize: 1, rootHash: root) } == .malformedCheckpoint)
        #expect(rejection { try Checkpoint(origin: "a\nb", treeSize: 1, rootHash: root) } == .malformedCheckpoint)
        #expect(rejection { try Checkpoint(origin: "o", treeSize: 1, rootHash: Array(root.dropLast())) } == .malformedHash)
        #expect(rejection { try Checkpoint(origin: "o", treeSize: 1, rootHash: root, extensionLines: [""]) } == .malformedCheckpoint)
        #expect(rejection { try Checkpoint(origin: "o", treeSize: 1, rootHash: root, extensionLines: ["a\tb"]) } == .malformedCheckpoint)
        #expect(rejection { try Checkpoint(origin: String(repeating: "o", count: SignedNote.maximumSize), treeSize: 1, rootHash: root) } == .noteTooLarge)
    }
}

extension CheckpointTests {
    /// "é" precomposed and decomposed are equal Swift strings but different bytes, so different
    /// checkpoints (a witness must not take one for the other) and different signers.
    @Test func equalityIsByteForByte() throws {
        let root = MerkleHash.emptyRoot
        let composed = try Checkpoint(origin: "caf\u{E9}", treeSize: 1, rootHash: root)
        let decomposed = try Checkpoint(origin: "cafe\u{301}", treeSize: 1, rootHash: root)
        #expect(composed.origin == decomposed.origin)
        #expect(composed != decomposed)
        let key = try Ed25519PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: 5, count: 32)))
        let composedSigner = try NoteSigner(name: "caf\u{E9}", privateKey: key)
        let decomposedSigner = try NoteSigner(name: "cafe\u{301}", privateKey: key)
        #expect(composedSigner.keyID != decomposedSigner.keyID)
        let note = try SignedNote.sign(body: composed.body, signers: [composedSigner])
        #expect(rejection { try note.verify(using: [decomposedSigner.verifierKey]) } == .noVerifiedSignature)
        #expect(rejection { try Checkpoint(verifying: note, origin: "cafe\u{301}", logKey: composedSigner.verifierKey) } == .originMismatch)
    }
}
