import Foundation
import Testing
import TestSupport
import Writing

/// The reviewer's repros of issue 17's merge rule over the CLI (review s17 F17-0, F17-1, F17-2;
/// merge-design §4): a block changed on both devices shows one device's text whole, the other in
/// one open sync-conflict branch, and two devices resolving at once never splice nor delete both.
@Suite(.serialized)
struct BlockConflictRuleTests {
    /// Paragraph 2 on the laptop and on the desk, synced twice; the document's paragraph 2 after.
    static func bothWrite(_ f: SyncOverNetworkFixture, laptop: String, desk: String) throws -> String {
        try ConflictDecisionTests.change(f, f.laptop, paragraph: 1, to: laptop)
        try ConflictDecisionTests.change(f, f.desk, paragraph: 1, to: desk)
        for _ in 0..<2 { #expect(try f.sync().status == 0) }
        let shown = try f.laptop.run(["doc", "show", "Field notes", "Day one"]).stdout
        #expect(shown == (try f.desk.run(["doc", "show", "Field notes", "Day one"]).stdout))
        return shown.components(separatedBy: "\n\n")[1]
    }

    /// The open sync-conflict branches' texts of paragraph 2 on `vault`.
    static func branched(_ f: SyncOverNetworkFixture, _ vault: CLIVault) throws -> [String] {
        let open = try #require(try ConflictsCommandTests.json(try vault.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])
        return try open.compactMap { $0["number"] as? Int }.map { number in
            try vault.run(["branch", "show", "Field notes", "Day one", String(number)]).stdout.components(separatedBy: "\n\n")[1]
        }
    }

    @Test func twoChangesOfOneNumberShowOneSideWholeAndBranchTheOther() throws {
        // F17-1: "Dose is 107.5 mg." (neither device wrote it) and two branches, before.
        let f = try SyncOverNetworkFixture()
        let shown = try Self.bothWrite(f, laptop: "Dose is 10 mg.", desk: "Dose is 7.5 mg.")
        #expect(["Dose is 10 mg.", "Dose is 7.5 mg."].contains(shown), "\(shown)")
        for vault in [f.laptop, f.desk] {
            #expect(try Self.branched(f, vault) == [shown == "Dose is 10 mg." ? "Dose is 7.5 mg." : "Dose is 10 mg."])
        }
    }

    @Test func twoChangesOfDifferentWordsOfOneBlockStillConflict() throws {
        // F17-2: "Take 10 mg once daily." with no branch at all, before.
        let f = try SyncOverNetworkFixture()
        let shown = try Self.bothWrite(f, laptop: "Take 10 mg twice daily.", desk: "Take 5 mg once daily.")
        #expect(["Take 10 mg twice daily.", "Take 5 mg once daily."].contains(shown), "\(shown)")
        #expect(try Self.branched(f, f.laptop).count == 1)
    }

    @Test func anAdoptionOnOneDeviceAndAHandEditOnTheOtherLoseNoValue() throws {
        // F17-0: both values deleted from the document ("Dose is  mg."), nothing listed, before.
        let f = try SyncOverNetworkFixture()
        let shown = try Self.bothWrite(f, laptop: "Dose is 20 mg.", desk: "Dose is 30 mg.")
        let other = shown == "Dose is 20 mg." ? "Dose is 30 mg." : "Dose is 20 mg."
        let number = try #require((try ConflictsCommandTests.json(try f.laptop.run(["conflicts", "--json"]))["conflicts"] as? [[String: Any]])?.first?["number"] as? Int)
        #expect(try f.laptop.run(["branch", "adopt", "Field notes", "Day one", String(number)]).status == 0)
        try ConflictDecisionTests.change(f, f.desk, paragraph: 1, to: "Dose is 25 mg.")
        for _ in 0..<2 { #expect(try f.sync().status == 0) }
        let document = try f.laptop.run(["doc", "show", "Field notes", "Day one"]).stdout
        #expect(document == (try f.desk.run(["doc", "show", "Field notes", "Day one"]).stdout))
        let now = document.components(separatedBy: "\n\n")[1]
        // One of the two whole, never a mix, and the other in a new open branch on both devices.
        #expect([other, "Dose is 25 mg."].contains(now), "\(now)")
        for vault in [f.laptop, f.desk] {
            let texts = [now] + (try Self.branched(f, vault))
            #expect(texts.contains(other) && texts.contains("Dose is 25 mg."), "\(texts)")
        }
    }
}
