import CryptoVault
import Testing
@testable import Sync
import Writing

/// Adopting a sync conflict's branch writes the conflict's block alone (SECURITY.md §15.3,
/// merge-design §2): the other blocks keep what the document shows, edits the losing side had
/// not seen included.
@Suite struct BlockScopedAdoptTests {
    @Test func adoptingAConflictsOtherSideKeepsTheEditsOfEveryOtherBlock() throws {
        let fleet = try VersionFleet(devices: 2)
        let document = try fleet.document(on: 0, ["Dose is 5 mg.", "Review in a week."])
        try fleet.sync(from: 0, to: 1)
        // The desk edits blocks 1 and 2, the laptop block 2 only, neither seeing the other.
        try fleet.edit(document, on: 0, paragraph: 0, to: "Dose is 10 mg.")
        try fleet.edit(document, on: 0, paragraph: 1, to: "Review in two days.")
        try fleet.edit(document, on: 1, paragraph: 1, to: "Review in a month.")
        try fleet.sync(from: 1, to: 0)
        let open = try fleet.branches(document, on: 0).filter { $0.kind == .syncConflict && $0.state == .open }
        let proposals = try open.map { branch in try fleet.store(0) { try $0.branchContent(branch.id, of: document, in: fleet.project) } }
        // The laptop's side when a branch holds it, else the desk's (whichever the document did not keep).
        let index = try #require(proposals.firstIndex { $0.blocks.last?.text == "Review in a month." }
                                 ?? proposals.firstIndex { $0.blocks.last?.text == "Review in two days." })
        let side = try #require(proposals[index].blocks.last?.text)
        try fleet.store(0) { _ = try $0.adopt(open[index].id, of: document, in: fleet.project) }
        // Before: the branch proposed the document as the laptop saw it, and adopting it into the
        // unedited document replaced it whole: "Dose is 5 mg." came back, the desk's edit gone.
        #expect(try fleet.content(document, on: 0).blocks.map(\.text) == ["Dose is 10 mg.", side])
        try fleet.sync(from: 0, to: 1)
        #expect(try fleet.content(document, on: 1).blocks.map(\.text) == ["Dose is 10 mg.", side])
    }
}
