import AuditChain
import CryptoVault
import Foundation
@testable import PeerChannel
import Testing

@Suite("Witnessing: a paired device cosigns the log's checkpoints (SECURITY.md §9.11)")
struct WitnessTests {
    @Test("first cosignature: checked with the witness's pinned key, kept by both sides, audited on both")
    func firstCosignature() throws {
        let pair = try WitnessPair()
        let received = try pair.cosign()
        let latest = try pair.latestCheckpoint
        #expect(received.treeSize == latest.treeSize && received.epoch == latest.epoch)
        #expect(received.cosignedAt == 1_790_000_000)
        let note = try SignedNote(parsing: received.cosignedNote)
        #expect(try WitnessIdentity.verifierKey(of: pair.witness.keys.profile).verifyCosignature(on: note) == 1_790_000_000)
        // The log's own signature is still there: the cosigned note verifies as a checkpoint.
        #expect(try note.body == SignedNote(parsing: latest.note).body)

        let pinned = try #require(try pair.pinned)
        #expect(pinned.treeSize == UInt64(latest.treeSize) && pinned.epoch == latest.epoch)
        #expect(pinned.cosignedNote == received.cosignedNote)
        #expect(pinned.genesisPublicKey == (try AuditLogReader(vault: pair.log.vault.vault).genesisKey().publicKey))

        let given = try WitnessPair.entries(of: pair.witness, ["witness.cosign"])
        #expect(given.map(\.details) == [["name": "laptop", "size": String(latest.treeSize)]])
        let got = try WitnessPair.entries(of: pair.log, ["audit.cosigned"])
        #expect(got.map(\.details) == [["name": "desk", "size": String(latest.treeSize)]])
    }

    @Test("after growth the witness checks a consistency proof from the size it cosigned, then cosigns")
    func cosignAfterGrowth() throws {
        let pair = try WitnessPair()
        let first = try pair.cosign()
        try pair.grow(5)
        let channel = pair.channel()
        let second = try pair.cosign(channel)
        let request = try #require(channel.requests.first)
        #expect(channel.requests.count == 1)
        #expect(request.oldSize == UInt64(first.treeSize))
        #expect(!request.consistencyProof.isEmpty)
        #expect(request.keyTransitions.count == second.epoch - first.epoch)
        #expect(second.treeSize > first.treeSize)
        #expect(try pair.pinned?.treeSize == UInt64(second.treeSize))
    }

    @Test("the same checkpoint again is cosigned again (same size, same root, empty proof), with a new time")
    func sameCheckpointAgain() throws {
        let pair = try WitnessPair()
        let channel = pair.channel()
        let first = try pair.cosign(channel)
        pair.clock.advance(60)
        let repeated = try WitnessRequest(oldSize: UInt64(first.treeSize), genesisPublicKey: channel.requests[0].genesisPublicKey,
                                          consistencyProof: [], keyTransitions: [], checkpointNote: channel.requests[0].checkpointNote)
        let answer = try WitnessAnswer(parsing: try pair.service.respond(to: WitnessRequest.kind, body: repeated.serialized(),
                                                                         from: pair.log.keys.profile))
        guard case .cosigned(let line) = answer else { Issue.record("answered \(answer)"); return }
        #expect(try CosignatureV1.timestamp(of: line) == first.cosignedAt + 60)
        #expect(try pair.pinned?.treeSize == UInt64(first.treeSize) && pair.pinned?.cosignedAt == first.cosignedAt + 60)
    }

    @Test("a log that lost its record of the witness's state retries from the size the witness answers")
    func oldSizeConflictIsRetried() throws {
        let pair = try WitnessPair()
        let first = try pair.cosign()
        try pair.grow()
        try Database(path: pair.log.vault.vault.databasePath, create: false).execute("DELETE FROM audit_cosignatures")
        let channel = pair.channel()
        let second = try pair.cosign(channel)
        #expect(channel.requests.map(\.oldSize) == [0, UInt64(first.treeSize)])
        #expect(second.treeSize == (try pair.latestCheckpoint.treeSize))
        let refusals = try WitnessPair.entries(of: pair.witness, ["witness.refuse"])
        #expect(refusals.map(\.details) == [["name": "laptop", "reason": "oldSizeMismatch", "size": String(first.treeSize)]])
    }

    @Test("a log restored from an older copy is refused: the witness answers the larger size it holds")
    func restoredLogIsARollback() throws {
        let pair = try WitnessPair()
        try pair.cosign()
        let copy = pair.log.root + "/older"
        try FileManager.default.copyItem(atPath: pair.log.root + "/vault", toPath: copy)
        try pair.grow(4)
        let cosignedLater = try pair.cosign()

        let restored = try Vault.open(at: copy, journal: AuditLog())
            .unlock(with: .passphrase(try SecureBytes(copying: Array("correct horse battery staple".utf8))))
        let error = peerChannelError { _ = try WitnessClient(vault: restored).requestCosignature(over: pair.channel()) }
        #expect(error?.code == .checkpointRollback)
        #expect(error?.message.contains("cosigned this log at \(cosignedLater.treeSize) entries") == true)
        #expect(try pair.pinned?.treeSize == UInt64(cosignedLater.treeSize))
    }

    @Test("a checkpoint smaller than the one cosigned, signed by the log's current key, is a rollback")
    func rollbackRefused() throws {
        let pair = try WitnessPair()
        try pair.grow()
        let cosigned = try pair.cosign()
        let smaller = try AuditLogReader(vault: pair.log.vault.vault).consistencyProof(from: 2, to: cosigned.treeSize).root1
        let body = try pair.forgedRequest(oldSize: UInt64(cosigned.treeSize), size: 2, root: smaller)
        let answer = try WitnessAnswer(parsing: try pair.service.respond(to: WitnessRequest.kind, body: body, from: pair.log.keys.profile))
        #expect(answer == .conflict(knownSize: UInt64(cosigned.treeSize), reason: .rollback))
        #expect(try pair.pinned?.treeSize == UInt64(cosigned.treeSize))
        let refusals = try WitnessPair.entries(of: pair.witness, ["witness.refuse"])
        #expect(refusals.last?.details["reason"] == "checkpointRollback")
    }

    @Test("a second tree head for the size cosigned (a rewritten entry) is a fork")
    func forkAtSameSizeRefused() throws {
        let pair = try WitnessPair()
        let cosigned = try pair.cosign()
        let rewritten = MerkleHash.leaf(Array("a rewritten entry".utf8))
        let body = try pair.forgedRequest(oldSize: UInt64(cosigned.treeSize), size: UInt64(cosigned.treeSize), root: rewritten)
        let error = peerChannelError { _ = try pair.service.respond(to: WitnessRequest.kind, body: body, from: pair.log.keys.profile) }
        #expect(error?.code == .checkpointFork)
        #expect(try pair.pinned?.cosignedNote == cosigned.cosignedNote)
        #expect(try WitnessPair.entries(of: pair.witness, ["witness.refuse"]).last?.details["reason"] == "checkpointFork")
    }

    @Test("a second log presented by the same peer is refused as another log")
    func anotherLogRefused() throws {
        let pair = try WitnessPair()
        try pair.cosign()
        // Another vault's log, sent under the paired device's identity (a re-initialised vault).
        let other = try PairingDevice("laptop")
        let body = try WitnessRequest(try AuditLogReader(vault: other.vault.vault).witnessMaterial(
            for: try #require(try AuditLogReader(vault: other.vault.vault).checkpoints().last), fromEpoch: 0, oldSize: 0), oldSize: 0)
        let error = peerChannelError { _ = try pair.service.respond(to: WitnessRequest.kind, body: body.serialized(), from: pair.log.keys.profile) }
        #expect(error?.code == .unknownLog)
    }

    @Test("a larger tree head that the proof does not connect to the cosigned one is refused")
    func forkWithLargerSizeRefused() throws {
        let pair = try WitnessPair()
        let cosigned = try pair.cosign()
        // Entries the current key could checkpoint; no new checkpoint, so the newest key is the one
        // introduced right after the cosigned checkpoint.
        try pair.grow(1, checkpoint: false)
        let real = try AuditLogReader(vault: pair.log.vault.vault).consistencyProof(from: cosigned.treeSize, to: cosigned.treeSize + 2)
        let body = try pair.forgedRequest(oldSize: UInt64(cosigned.treeSize), size: UInt64(cosigned.treeSize + 2),
                                          root: MerkleHash.leaf(Array("another history".utf8)), proof: real.proof)
        let error = peerChannelError { _ = try pair.service.respond(to: WitnessRequest.kind, body: body, from: pair.log.keys.profile) }
        #expect(error?.code == .inconsistentCheckpoint)
    }

    @Test("a consistency proof with one hash changed is refused, and nothing is stored")
    func badConsistencyProofRefused() throws {
        let pair = try WitnessPair()
        let first = try pair.cosign()
        try pair.grow(5)
        let channel = pair.channel()
        channel.alter = { body in
            let request = try WitnessRequest(parsing: body)
            var proof = request.consistencyProof
            proof[0][0] ^= 0x01
            return try WitnessRequest(oldSize: request.oldSize, genesisPublicKey: request.genesisPublicKey, consistencyProof: proof,
                                      keyTransitions: request.keyTransitions, checkpointNote: request.checkpointNote).serialized()
        }
        let error = peerChannelError { try pair.cosign(channel) }
        #expect(error?.code == .inconsistentCheckpoint)
        #expect(try pair.pinned?.treeSize == UInt64(first.treeSize))
        #expect(try WitnessPair.entries(of: pair.log, ["audit.witness-failed"]).map(\.details) == [["name": "desk", "reason": "inconsistentCheckpoint"]])
    }

    @Test("a checkpoint whose signature does not verify with the key the chain leads to is refused")
    func badCheckpointSignatureRefused() throws {
        let pair = try WitnessPair()
        let channel = pair.channel()
        channel.alter = { body in
            let request = try WitnessRequest(parsing: body)
            let note = try SignedNote(parsing: request.checkpointNote)
            var signature = note.signatures[0].signature
            signature[10] ^= 0x01
            let forged = try SignedNote(body: note.body, signatures: [try NoteSignature(keyName: note.signatures[0].keyName,
                                                                                          keyID: note.signatures[0].keyID, signature: signature)])
            return try WitnessRequest(oldSize: request.oldSize, genesisPublicKey: request.genesisPublicKey, consistencyProof: request.consistencyProof,
                                      keyTransitions: request.keyTransitions, checkpointNote: Array(forged.serialized().utf8)).serialized()
        }
        let error = peerChannelError { try pair.cosign(channel) }
        #expect(error?.code == .checkpointSignatureInvalid)
        #expect(try pair.pinned == nil)
    }

    @Test("a key transition not signed by the pinned key breaks the chain")
    func brokenKeyChainRefused() throws {
        let pair = try WitnessPair()
        try pair.grow()
        try pair.grow()
        let channel = pair.channel()
        channel.alter = { body in
            let request = try WitnessRequest(parsing: body)
            #expect(request.keyTransitions.count >= 2)
            // Epoch 2's introduction, presented as if the genesis key had signed it.
            return try WitnessRequest(oldSize: request.oldSize, genesisPublicKey: request.genesisPublicKey, consistencyProof: request.consistencyProof,
                                      keyTransitions: Array(request.keyTransitions.dropFirst()), checkpointNote: request.checkpointNote).serialized()
        }
        let error = peerChannelError { try pair.cosign(channel) }
        #expect(error?.code == .keyChainBroken)
    }

    @Test("a device the witness is not paired with is refused, and the refusal recorded")
    func unpairedPeerRefused() throws {
        let pair = try WitnessPair()
        let stranger = try PairingDevice("stranger")
        try stranger.vault.storePairing(FamilyPairing(peer: pair.witness.keys.profile, role: .join, pairedAt: 1))
        let channel = DirectChannel(to: pair.witness.keys.profile, service: pair.service, as: stranger.keys.profile)
        let error = peerChannelError { _ = try WitnessClient(vault: stranger.vault).requestCosignature(over: channel) }
        #expect(error?.code == .peerNotPaired)
        #expect(try WitnessPair.entries(of: pair.witness, ["witness.refuse"]).map(\.details) == [["name": "stranger", "reason": "peerNotPaired"]])
        #expect(try pair.witness.vault.vault.read { try WitnessedLogStore(database: $0).log(of: stranger.keys.profile.deviceID) } == nil)
    }

    @Test("the log does not ask a device it is not paired with")
    func logAsksOnlyPairedWitnesses() throws {
        let pair = try WitnessPair()
        let stranger = try PairingDevice("stranger")
        let service = try WitnessService(vault: stranger.vault, keys: stranger.keys)
        let channel = DirectChannel(to: stranger.keys.profile, service: service, as: pair.log.keys.profile)
        let error = peerChannelError { try pair.cosign(channel) }
        #expect(error?.code == .peerNotPaired)
        #expect(channel.requests.isEmpty)
    }

    @Test("a cosignature made with another key than the witness's pinned one is rejected by the log")
    func wrongKeyCosignatureRejected() throws {
        let pair = try WitnessPair()
        let impostor = try Cosigner(name: WitnessIdentity.name(deviceID: pair.witness.keys.profile.deviceID), privateKey: try Ed25519PrivateKey())
        let channel = DirectChannel(to: pair.witness.keys.profile, service: CosigningImpostor(cosigner: impostor), as: pair.log.keys.profile)
        let error = peerChannelError { try pair.cosign(channel) }
        #expect(error?.code == .cosignatureInvalid)
        #expect(try pair.log.vault.vault.read { try ReceivedCosignatureStore(database: $0).latest(from: pair.witness.keys.profile.deviceID) } == nil)
        #expect(try WitnessPair.entries(of: pair.log, ["audit.witness-failed"]).map(\.details) == [["name": "desk", "reason": "cosignatureInvalid"]])
    }

    @Test("a log far ahead of its witness walks there in steps of at most 1024 epochs")
    func longKeyChainInSteps() throws {
        let pair = try WitnessPair()
        let journal = AuditLog(checkpointer: Checkpointer(interval: 1))
        try pair.log.vault.vault.writeJournalState { database in
            try journal.append((0..<1100).map { _ in VaultEvent(AuditAction("test.event")) }, in: database, vaultID: pair.log.vault.vault.vaultID, keys: nil)
        }
        let channel = pair.channel()
        let received = try pair.cosign(channel)
        #expect(channel.requests.map(\.keyTransitions.count) == [1024, received.epoch - 1024])
        #expect(received.treeSize == (try pair.latestCheckpoint.treeSize))
        #expect(try WitnessPair.entries(of: pair.log, ["audit.cosigned"]).count == 2)
    }

    @Test("a cosigned checkpoint verifies in an export: the witness line claims no log key")
    func cosignedNoteStaysALogCheckpoint() throws {
        let pair = try WitnessPair()
        let received = try pair.cosign()
        let keys = try AuditLogReader(vault: pair.log.vault.vault).chainKeys()
        _ = try Checkpoint(verifying: try SignedNote(parsing: received.cosignedNote), origin: AuditLogReader(vault: pair.log.vault.vault).origin,
                           logKey: keys[received.epoch])
        #expect(try received.verify() == received.cosignedAt)
    }
}

/// A witness that answers every request with a cosignature by a key of its own.
struct CosigningImpostor: ChannelService {
    let cosigner: Cosigner
    var requestKinds: [String] { [WitnessRequest.kind] }

    func respond(to kind: String, body: [UInt8], from peer: DeviceProfile) throws -> [UInt8] {
        let note = try SignedNote(parsing: try WitnessRequest(parsing: body).checkpointNote)
        return WitnessAnswer.cosigned(try cosigner.cosign(try Checkpoint(parsing: note.body), timestamp: 1)).serialized()
    }
}
