import Foundation
import Testing
import TestSupport
import Writing

/// Deciding a sync conflict with the branch commands (SECURITY.md §15.3, §19.3; merge-design §2,
/// §3): adopting its branch writes that block alone, so another block's later edit stays; the
/// same decision made on both devices at once agrees, and is not listed as overruled.
@Suite(.serialized)
struct ConflictDecisionTests {
    /// Paragraph `index` of the fixture's document on `vault` made `text`, or taken out (nil).
    static func change(_ f: SyncOverNetworkFixture, _ vault: CLIVault, paragraph index: Int, to text: String?) throws {
        try f.edit(vault) { store in
            var blocks = try store.documentContent(of: f.document, in: f.project).blocks
            if let text { blocks[index].text = text } else { blocks.remove(at: index) }
            try store.replaceDocumentContent(of: f.document, in: f.project, with: DocumentContent(blocks: blocks))
        }
    }

    /// The laptop rewrites paragraphs 1 and 2, the desk paragraph 2, then they sync: a conflict
    /// over paragraph 2. Returns the number (in the document's branch list) of the conflict branch
    /// holding the desk's words when one does, else of the first.
    static func conflicted(_ f: SyncOverNetworkFixture) throws -> Int {
        try Self.change(f, f.laptop, paragraph: 0, to: "p0, edited on the laptop")
        try Self.change(f, f.laptop, paragraph: 1, to: "Rest at home")
        try Self.change(f, f.desk, paragraph: 1, to: "Surgery on Monday")
        for _ in 0..<2 { #expect(try f.sync().status == 0) }
        let open = try #require(try ConflictsCommandTests.json(try f.laptop.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])
        let numbers = open.compactMap { $0["number"] as? Int }
        try #require(!numbers.isEmpty, "\(open)")
        let shown = try numbers.map { try f.laptop.run(["branch", "show", "Field notes", "Day one", String($0)]).stdout }
        return numbers[shown.firstIndex { $0.contains("Surgery on Monday") } ?? 0]
    }

    @Test func adoptingAConflictsBranchWritesItsBlockAloneAndKeepsTheOtherBlocksEdits() throws {
        let f = try SyncOverNetworkFixture()
        let number = try Self.conflicted(f)
        let side = try f.laptop.run(["branch", "show", "Field notes", "Day one", String(number)]).stdout
        let adopted = try f.laptop.run(["branch", "adopt", "Field notes", "Day one", String(number)])
        #expect(adopted.status == 0, "\(adopted.stderr)")
        let shown = try f.laptop.run(["doc", "show", "Field notes", "Day one"]).stdout
        // Before: the desk's branch proposed the document as the desk saw it, and adopting it into
        // the unedited document replaced it whole, taking back the laptop's edit of paragraph 1.
        #expect(shown.contains("p0, edited on the laptop"), "\(shown)")
        let word = side.contains("Surgery on Monday") ? "Surgery on Monday" : "Rest at home"
        #expect(shown.contains(word) && shown.contains("p2") && shown.contains("p3"), "\(shown)")
    }

    @Test func oneConflictAdoptedOnBothDevicesAtOnceIsNotListedAsOverruled() throws {
        let f = try SyncOverNetworkFixture()
        let number = try Self.conflicted(f)
        let branch = try #require((try ConflictsCommandTests.json(try f.laptop.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])?
            .first { $0["number"] as? Int == number }?["id"] as? String)
        // The desk adopts it too, before the two sync again (its branch has the conflict's name there as here).
        let adopted = try f.laptop.run(["branch", "adopt", "Field notes", "Day one", String(number)])
        #expect(adopted.status == 0, "\(adopted.stderr)")
        try f.edit(f.desk) { store in
            let id = try #require(try store.branches(of: f.document, in: f.project).first { $0.id.hex == branch }?.id)
            _ = try store.adopt(id, of: f.document, in: f.project)
        }
        for _ in 0..<2 { #expect(try f.sync().status == 0) }
        for vault in [f.laptop, f.desk] {
            let listed = try ConflictsCommandTests.json(try vault.run(["conflicts", "--json"]))
            // Before: the later adoption was "overruled" by the earlier, though both decided the same.
            #expect((listed["overruled"] as? [[String: Any]])?.isEmpty == true, "\(listed)")
            #expect((listed["conflicts"] as? [[String: Any]])?.contains { $0["id"] as? String == branch } == false, "\(listed)")
        }
        #expect(try f.laptop.run(["doc", "show", "Field notes", "Day one"]).stdout == (try f.desk.run(["doc", "show", "Field notes", "Day one"]).stdout))
    }
}
