import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A block's text sequence keeps every character ever typed in it, deleted ones included, and a
/// record may bring a block to at most `TextSequence.maximumCharacters` in its past (SECURITY.md
/// §19.2). A long-lived block the owner keeps typing in is re-based at that bound: the commit writes
/// it deleted and its text as a new block (same place, kind and words), the document here takes the
/// new id, and every later edit syncs as before; a peer takes every record and shows the same words.
@Suite struct BlockRebaseTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Journal") }

    /// The document's one block replaced by `text` in the store, then committed.
    func type(_ text: String, in document: NodeID) throws -> ChangeRecord? {
        try store { store in
            let block = try #require(try store.documentContent(of: document, in: project.id).blocks.first)
            try store.replaceDocumentContent(of: document, in: project.id, with: DocumentContent(blocks: [Block(id: block.id, kind: block.kind, text: text)]))
        }
        return try sync { try $0.commitLocalChanges(in: project.id) }
    }

    @Test func aBlockPastItsTextBoundIsRebasedAsANewBlockAndTypingInItSyncsOn() throws {
        let original = try BlockID.random()
        let document = try store { store in
            let node = try store.addNode(.scene, titled: "Every day", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [Block(id: original, kind: .quote)]))
            return node.id
        }
        // Four rounds of a whole block's worth replaced: 3,932,160 characters typed, the bound itself.
        let run = TextSequence.maximumCharacters / 4
        for round in 0..<4 { _ = try #require(try type(String(repeating: round % 2 == 0 ? "x" : "y", count: run), in: document)) }
        var replica = try sync { try $0.replica(of: project.id) }
        #expect(replica.characterCount(of: original) == TextSequence.maximumCharacters)

        // The fifth would pass it: re-based, not refused.
        let wanted = String(repeating: "z", count: run - 20) + " last"
        let rebase = try #require(try type(wanted, in: document))
        let content = try store { try $0.documentContent(of: document, in: project.id) }
        let fresh = try #require(content.blocks.first?.id)
        #expect(content.blocks.count == 1 && fresh != original && content.blocks[0].text == wanted && content.blocks[0].kind == .quote)
        #expect(rebase.operations.contains(.block(document: document, original, .deleted)))
        replica = try sync { try $0.replica(of: project.id) }
        #expect(replica.characterCount(of: fresh) == wanted.unicodeScalars.count)
        #expect(replica.content(of: document) == content)
        // Nothing more is committed for it: the store and the records agree.
        #expect(try sync { try $0.commitLocalChanges(in: project.id) } == nil)

        // The owner keeps typing; each edit is a small record of the new block, and a peer that
        // takes every record shows the same document.
        let more = try #require(try type(wanted + " and more", in: document))
        #expect(more.operations.contains { if case .text(_, let block, let edits) = $0 { block == fresh && edits.count == 1 } else { false } })
        var other = SyncReplica(project: project.id, author: peer, devices: devices)
        for record in try sync({ try $0.replica(of: project.id) }).records(missingFrom: [:]) { other.receive(record.encoded) }
        #expect(other.refusals.isEmpty, "\(other.refusals)")
        #expect(other.content(of: document) == (try store { try $0.documentContent(of: document, in: project.id) }))
    }

    @Test func aPeerTypingInTheOldBlockMeanwhileLosesNoWord() throws {
        let original = try BlockID.random()
        let document = try store { store in
            let node = try store.addNode(.scene, titled: "Shared", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [Block(id: original, kind: .paragraph)]))
            return node.id
        }
        let run = TextSequence.maximumCharacters / 4
        var other = SyncReplica(project: project.id, author: peer, devices: devices)
        for round in 0..<5 {
            // The peer holds the first three rounds only when it types.
            if round == 3 { for record in try sync({ try $0.replica(of: project.id) }).records(missingFrom: [:]) { other.receive(record.encoded) } }
            _ = try #require(try type(String(repeating: ["x", "y", "x", "y", "z"][round], count: run), in: document))
        }
        #expect(try store { try $0.documentContent(of: document, in: project.id) }.blocks.first?.id != original, "the fifth round re-based the block")
        // The peer, not having seen rounds four and five, types a word into the old block (its
        // record's past holds three rounds: under the bound, no re-base there).
        var peerContent = other.content(of: document)
        peerContent.blocks[0].text = "peerword " + String(peerContent.blocks[0].text.dropFirst(9))
        let peerEdit = try #require(try other.edit(document, to: peerContent))
        #expect(peerEdit.operations.contains { if case .text(_, let block, _) = $0 { block == original } else { false } })
        let receipt = try sync { try $0.receive([peerEdit.encoded], for: project.id) }
        #expect(receipt.stored == 1 && receipt.refused.isEmpty)
        // The peer's word is in the document or in a branch: never lost.
        let shown = try store { try $0.documentContent(of: document, in: project.id) }.blocks.map(\.text).joined()
        let branches = try store { store in try store.branches(of: document, in: project.id) }
        let proposed = try branches.map { branch in
            try store { try $0.branchContent(branch.id, of: document, in: project.id) }.blocks.map(\.text).joined()
        }
        #expect(shown.contains("peerword") || proposed.contains { $0.contains("peerword") }, "\(branches.count) branch(es)")
        #expect(!branches.isEmpty && receipt.branchesMade >= 1)
    }
}
