@testable import AuditChain
@testable import CryptoVault
import Foundation
import Testing

/// §8.7: origins compare byte for byte in steps 1-3 (a canonically equivalent spelling is another
/// log); §8.8: an introduction on the epoch-0 key line is accepted and ignored.
@Suite("AuditVerifier: origins are bytes; the genesis key's introduction is ignored")
struct VerifierOriginTests {
    static let composed = "vaultctl/caf\u{E9}"        // é as one code point
    static let decomposed = "vaultctl/cafe\u{301}"    // e and a combining acute accent

    @Test("step 1: a trusted key named with a canonically equivalent origin is not the genesis key (genesis failure)")
    func genesisOriginIsBytes() throws {
        #expect(Self.composed == Self.decomposed, "Swift's == equates them: the verifier must not use it")
        let key = try Ed25519PrivateKey()
        let snapshot = AuditSnapshot(origin: Self.composed, keys: [.init(epoch: 0, publicKey: key.publicKey, introduction: nil)],
                                     checkpoints: [], entries: .encoded([]))
        let trusted = try NoteVerifierKey(name: Self.decomposed, publicKey: key.publicKey)
        let failure = #expect(throws: AuditVerificationFailure.self) { try AuditVerifier(snapshot: snapshot, genesis: trusted).verify() }
        #expect(failure?.reason.contains("is not the trusted key") == true, "\(String(describing: failure))")
        let same = try NoteVerifierKey(name: Self.composed, publicKey: key.publicKey)
        #expect(try AuditVerifier(snapshot: snapshot, genesis: same).verify().epochCount == 1)
    }

    @Test("step 2: a key transition whose origin is a canonically equivalent spelling names another log (key-chain failure)")
    func transitionOriginIsBytes() throws {
        let genesis = try Ed25519PrivateKey()
        let next = try Ed25519PrivateKey()
        let after = try Checkpoint(origin: Self.decomposed, treeSize: 0, rootHash: MerkleHash.emptyRoot)
        let transition = KeyTransition(origin: Self.decomposed, epoch: 1, publicKey: next.publicKey, after: after)
        let introduction = try SignedNote.sign(body: transition.text, signers: [try NoteSigner(name: Self.composed, privateKey: genesis)]).serialized()
        let snapshot = AuditSnapshot(origin: Self.composed,
                                     keys: [.init(epoch: 0, publicKey: genesis.publicKey, introduction: nil),
                                            .init(epoch: 1, publicKey: next.publicKey, introduction: introduction)],
                                     checkpoints: [], entries: .encoded([]))
        let trusted = try NoteVerifierKey(name: Self.composed, publicKey: genesis.publicKey)
        let failure = #expect(throws: AuditVerificationFailure.self) { try AuditVerifier(snapshot: snapshot, genesis: trusted).verify() }
        #expect(failure?.reason.contains("names another log, epoch or key") == true, "\(String(describing: failure))")
    }

    @Test("§8.8: an introduction on the epoch-0 key line is parsed and ignored: the export still verifies from the vkey")
    func genesisIntroductionIsIgnored() throws {
        let key = try Ed25519PrivateKey()
        let snapshot = AuditSnapshot(origin: Self.composed, keys: [.init(epoch: 0, publicKey: key.publicKey, introduction: "not a note at all\n")],
                                     checkpoints: [], entries: .encoded([]))
        let path = NSTemporaryDirectory() + "genesis-introduction-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try AuditExport.write(snapshot, to: try FileDescriptor.createExclusive(path))
        let parsed = try AuditExport.parse([UInt8](try Data(contentsOf: URL(fileURLWithPath: path))))
        #expect(parsed.keys.first?.introduction == "not a note at all\n", "the parser accepts it")
        let trusted = try NoteVerifierKey(name: Self.composed, publicKey: key.publicKey)
        #expect(try AuditVerifier(snapshot: parsed, genesis: trusted).verify().epochCount == 1)
    }
}
