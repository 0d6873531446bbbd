import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// Reviewer 13's fk3 across processes (SECURITY.md §19.4, the fork rule's bound): a colleague's
/// device (not one of the owner's) puts one old copy back again and again, each time signing another
/// record of one number, and each copy reaches the owner's vault in an exchange of its own: a fresh
/// `VaultSync` with no kept replica, as each `vaultctl sync now` and each start of the daemon is.
/// Before, the vault deleted the copies the rule left out, so each exchange knew only the held copy,
/// weighed every new copy as the second, and each that ranked lower took the document's place and
/// made one more sync-conflict branch (six copies: five branches). Now the vault keeps what the rule
/// left out (`sync_fork_left_out`): the third copy leaves none of them in the document, and every
/// later one is refused unread (no walk), so the owner's document changes at most twice.
@Suite struct ForkLeftOutTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Book") }

    @Test func aColleagueSigningOneNumberSixTimesInSixExchangesMakesAtMostTwoForkBranches() throws {
        let base = [Block(id: try BlockID.random(), kind: .paragraph, text: "Owner line 1.")]
        let document = try store { store in
            let node = try store.addNode(.scene, titled: "Ch1", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: base))
            return node.id
        }
        let first = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var colleague = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(colleague.receive(first.encoded) == .applied(1))
        // Six copies of the colleague's next number, each from the same old copy of its vault.
        var copies: [ChangeRecord] = [], labels: [[UInt8]: String] = [:]
        for index in 1...6 {
            var restored = colleague
            let text = DocumentContent(blocks: base + [Block(id: try BlockID.random(), kind: .paragraph, text: "Colleague variant \(index).")])
            let copy = try #require(try restored.edit(document, to: text))
            labels[copy.hash] = "Colleague variant \(index)."
            copies.append(copy)
        }
        #expect(Set(copies.map(\.counter)).count == 1 && Set(copies.map(\.lamport)).count == 1)
        // Each ranks below every one before it (one Lamport time and device: the lower hash), so each
        // would win against the copy held alone: the order that made the most branches before.
        copies.sort { $1.hash.lexicographicallyPrecedes($0.hash) }
        var receipts: [SyncReceipt] = []
        for copy in copies { receipts.append(try sync { try $0.receive([copy.encoded], for: project.id) }) }

        let branches = try store { try $0.branches(of: document, in: project.id) }.filter { $0.kind == .syncConflict }
        #expect(branches.count <= 2, "\(branches.count) fork branches for six copies")
        let shown = try store { try $0.documentContent(of: document, in: project.id) }.blocks.map(\.text)
        #expect(shown == ["Owner line 1."], "\(shown)")
        // From the fourth copy on, each is refused unread: one more copy of a number signed three times.
        for receipt in receipts[3...] {
            #expect(receipt.stored == 0 && receipt.refused.count == 1 && receipt.refused.allSatisfy {
                $0.error.code == .equivocation && $0.error.message.contains("signed twice already") && $0.device == peer.device
            }, "\(receipt.refused.map(\.error.message))")
        }
        // No word is lost: the two copies that showed in the document (the first two sent) are in the branches.
        let kept = try branches.flatMap { branch in try store { try $0.branchContent(branch.id, of: document, in: project.id) }.blocks.map(\.text) }
        for copy in copies.prefix(2) { #expect(kept.contains(labels[copy.hash] ?? "?"), "\(kept)") }
    }
}
