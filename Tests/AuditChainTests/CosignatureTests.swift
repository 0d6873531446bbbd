import AuditChain
import CryptoVault
import Testing

/// Published cosignature keys and blobs.
enum PublishedCosignatures {
    /// A real witness's cosignature key (type 0x04), from transparency-dev/formats
    /// note/note_cosigv1_test.go (TestCoSigV1NewVerifier); its cosignature of the Arche checkpoint is
    /// in `PublishedCheckpoints.archeNote`.
    static let remoraVKey = "remora.n621.de+da77ade7+BOvN63jn/bLvkieywe8R6UYAtVtNbZpXh34x7onlmtw2"
    static let remoraTimestamp: UInt64 = 1_779_573_024

    /// transparency-dev/formats note/note_cosigv1_test.go (TestCoSigV1Timestamp): a cosignature blob
    /// whose timestamp is 1727964367, and an Ed25519 note signature (no timestamp) that is not one.
    static let formatsCosignature = "ZGhGuQAAAABm/qTPeyKXD+R2rzyQsxPiP8mXum7qq/iF0u4vanlqJyocWODBt97w9uL+8qT7S5gxEHWWOworDcFiEBYJXORmnFBOBA=="
    static let formatsPlainSignature = "eQjRQm6eSKzFoiYalgwCPXu2y3ijtg68is9M46JKxuZB+dRfTmeQeDBoXnvxZx2ugnkyV+MUMLXpWs1hPb/W/4xkNQY="

    /// c2sp.org/tlog-cosignature, "Ed25519 signed message": the message for the example checkpoint.
    static let specMessage = "cosignature/v1\ntime 1679315147\nexample.com/behind-the-sofa\n20852163\nCsUYapGGPo4dkMgIAUqom/Xajj7h2fB2MPA3j2jxq2I=\n"
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

private func privateKey(_ byte: UInt8) throws -> Ed25519PrivateKey {
    try Ed25519PrivateKey(seed: SecureBytes(copying: [UInt8](repeating: byte, count: 32)))
}

/// The single signature line of a note with one line, for blobs quoted without their line.
private func signatureLine(_ name: String, _ base64: String) throws -> NoteSignature {
    try #require(try SignedNote(parsing: "x\n\n— \(name) \(base64)\n").signatures.first)
}

struct CosignatureTests {
    // MARK: Published examples

    @Test func specMessageIsReproduced() throws {
        let message = CosignatureV1.message(timestamp: 1_679_315_147, checkpointBody: PublishedCheckpoints.sofaBody)
        #expect(message == Array(PublishedCosignatures.specMessage.utf8))
    }

    /// The spec's example cosignature line: key ID 8d66cf3f and the timestamp of the spec's message.
    @Test func specExampleCosignatureLineDecodes() throws {
        let note = try SignedNote(parsing: PublishedCheckpoints.sofaCosignedNote)
        let line = try #require(note.signatures.last)
        #expect(line.keyName == "witness.example.com/w1")
        #expect(line.keyID == 0x8d66cf3f)
        #expect(try CosignatureV1.timestamp(of: line) == 1_679_315_147)
    }

    @Test func realWitnessKeyParsesAndRoundTrips() throws {
        let key = try CosignatureVerifierKey(vkey: PublishedCosignatures.remoraVKey)
        #expect(key.name == "remora.n621.de")
        #expect(key.keyID == 0xda77ade7)
        #expect(key.vkey == PublishedCosignatures.remoraVKey)
        // key ID = SHA-256(name || "\n" || 0x04 || public key)[:4], computed here independently.
        let digest = SHA256.hash(Array("remora.n621.de".utf8) + [0x0A, 0x04] + key.publicKey)
        #expect(digest.prefix(4).elementsEqual([0xda, 0x77, 0xad, 0xe7]))
        #expect(try CosignatureVerifierKey(name: "remora.n621.de", publicKey: key.publicKey) == key)
    }

    @Test func realCosignatureVerifies() throws {
        let key = try CosignatureVerifierKey(vkey: PublishedCosignatures.remoraVKey)
        let note = try SignedNote(parsing: PublishedCheckpoints.archeNote)
        #expect(try key.verifyCosignature(on: note) == PublishedCosignatures.remoraTimestamp)
    }

    @Test func realCosignatureOnAnotherCheckpointIsRejected() throws {
        let key = try CosignatureVerifierKey(vkey: PublishedCosignatures.remoraVKey)
        let forged = PublishedCheckpoints.archeNote.replacingOccurrences(of: "\n1432088532\n", with: "\n42\n")
        #expect(rejection { try key.verifyCosignature(on: SignedNote(parsing: forged)) } == .signatureInvalid)
    }

    @Test func publishedBlobTimestampsDecode() throws {
        let cosignature = try signatureLine("w", PublishedCosignatures.formatsCosignature)
        #expect(try CosignatureV1.timestamp(of: cosignature) == 1_727_964_367)
        let plain = try signatureLine("w", PublishedCosignatures.formatsPlainSignature)
        #expect(rejection { try CosignatureV1.timestamp(of: plain) } == .malformedCosignature)
    }

    // MARK: Round trips

    private static let checkpoint = try! Checkpoint(origin: "vaultctl/log", treeSize: 7, rootHash: MerkleHash.emptyRoot,
                                                   extensionLines: ["an extension"])

    private func cosignedNote(_ lines: [NoteSignature]) throws -> SignedNote {
        let log = try NoteSigner(name: "vaultctl/log", privateKey: privateKey(1))
        return try SignedNote(body: Self.checkpoint.body, signatures: [try log.sign(Self.checkpoint.body)] + lines)
    }

    @Test(arguments: [UInt64(0), 1, 1_679_315_147, CosignatureV1.maximumTimestamp])
    func cosignatureRoundTrips(timestamp: UInt64) throws {
        let witness = try Cosigner(name: "witness.example/w1", privateKey: privateKey(2))
        let line = try witness.cosign(Self.checkpoint, timestamp: timestamp)
        #expect(line.keyID == witness.verifierKey.keyID)
        #expect(line.signature.count == 72)
        let note = try SignedNote(parsing: try cosignedNote([line]).serialized())
        #expect(try witness.verifierKey.verifyCosignature(on: note) == timestamp)
        #expect(try CosignatureVerifierKey(vkey: witness.verifierKey.vkey) == witness.verifierKey)
    }

    @Test func latestOfSeveralCosignaturesIsReturned() throws {
        let witness = try Cosigner(name: "witness.example/w1", privateKey: privateKey(2))
        let note = try cosignedNote([try witness.cosign(Self.checkpoint, timestamp: 200),
                                     try witness.cosign(Self.checkpoint, timestamp: 100)])
        #expect(try witness.verifierKey.verifyCosignature(on: note) == 200)
    }

    /// The signed message commits to the timestamp, the whole body (extension lines too) and the key.
    @Test func tamperedCosignatureIsRejectedForItsReason() throws {
        let witness = try Cosigner(name: "witness.example/w1", privateKey: privateKey(2))
        let line = try witness.cosign(Self.checkpoint, timestamp: 1_000)

        var laterTime = line.signature
        laterTime[7] ^= 1
        let retimed = try NoteSignature(keyName: line.keyName, keyID: line.keyID, signature: laterTime)
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: cosignedNote([retimed])) } == .signatureInvalid)

        let other = try Checkpoint(origin: "vaultctl/log", treeSize: 7, rootHash: MerkleHash.emptyRoot, extensionLines: ["another"])
        let moved = try SignedNote(body: other.body, signatures: [line])
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: moved) } == .signatureInvalid)

        // Another key under the same name has another key ID: its lines are not this witness's.
        let impostor = try Cosigner(name: "witness.example/w1", privateKey: privateKey(3))
        let forged = try cosignedNote([try impostor.cosign(Self.checkpoint, timestamp: 1_000)])
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: forged) } == .noCosignature)
        // The impostor's signature under the witness's name and key ID does not verify.
        let stolenID = try NoteSignature(keyName: line.keyName, keyID: line.keyID,
                                         signature: try impostor.cosign(Self.checkpoint, timestamp: 1_000).signature)
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: cosignedNote([stolenID])) } == .signatureInvalid)
        // One bad line from the witness rejects it even beside a good one.
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: cosignedNote([line, retimed])) } == .signatureInvalid)
    }

    @Test func malformedCosignaturesAreRejected() throws {
        let witness = try Cosigner(name: "witness.example/w1", privateKey: privateKey(2))
        let key = witness.verifierKey
        let good = try witness.cosign(Self.checkpoint, timestamp: 5).signature
        for blob in [Array(good.dropLast()), good + [0], Array(good.dropFirst(8))] {
            let line = try NoteSignature(keyName: key.name, keyID: key.keyID, signature: blob)
            #expect(rejection { try key.verifyCosignature(on: cosignedNote([line])) } == .malformedCosignature)
        }
        let tooLate = [0x80] + [UInt8](repeating: 0, count: 7) + good.dropFirst(8)
        let line = try NoteSignature(keyName: key.name, keyID: key.keyID, signature: tooLate)
        #expect(rejection { try key.verifyCosignature(on: cosignedNote([line])) } == .malformedCosignature)
        #expect(rejection { try witness.cosign(Self.checkpoint, timestamp: CosignatureV1.maximumTimestamp + 1) } == .malformedCosignature)
    }

    @Test func cosignatureNeedsACheckpointAndItsWitness() throws {
        let witness = try Cosigner(name: "witness.example/w1", privateKey: privateKey(2))
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: cosignedNote([])) } == .noCosignature)
        // A note whose text is not a checkpoint carries no cosignature, whatever its lines.
        let line = try witness.cosign(Self.checkpoint, timestamp: 1)
        let notACheckpoint = try SignedNote(body: "hello\n", signatures: [line])
        #expect(rejection { try witness.verifierKey.verifyCosignature(on: notACheckpoint) } == .malformedCheckpoint)
    }

    /// Type 0x04 and type 0x01 keys of the same name and public key have different key IDs, so a
    /// cosignature is never taken for a note signature, nor the other way round.
    @Test func cosignaturesAndNoteSignaturesAreKeptApart() throws {
        let key = try privateKey(4)
        let asWitness = try Cosigner(name: "dual.example", privateKey: key)
        let asLog = try NoteSigner(name: "dual.example", privateKey: key)
        #expect(asWitness.verifierKey.keyID != asLog.keyID)
        let cosigned = try SignedNote(body: Self.checkpoint.body, signatures: [try asWitness.cosign(Self.checkpoint, timestamp: 9)])
        #expect(rejection { try cosigned.verify(using: [asLog.verifierKey]) } == .noVerifiedSignature)
        let signed = try SignedNote.sign(body: Self.checkpoint.body, signers: [asLog])
        #expect(rejection { try asWitness.verifierKey.verifyCosignature(on: signed) } == .noCosignature)
        #expect(rejection { try CosignatureVerifierKey(vkey: asLog.verifierKey.vkey) } == .unsupportedKeyType)
        #expect(rejection { try NoteVerifierKey(vkey: asWitness.verifierKey.vkey) } == .unsupportedKeyType)
    }
}
