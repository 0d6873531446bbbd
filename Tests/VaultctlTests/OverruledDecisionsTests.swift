import Foundation
import Testing
import TestSupport
import Writing

/// Branch decisions overruled by another device's (issue 17, SECURITY.md §19.3): a branch adopted on
/// the laptop and discarded on the desk at once settles as adopted on both; `vaultctl conflicts`
/// shows, on each device, the discard that was overruled (which, by which device, what the branch
/// is now), in text and in `--json`.
@Suite(.serialized)
struct OverruledDecisionsTests {
    static func overruled(_ result: CLI.Result) throws -> [[String: Any]] {
        try #require(try ConflictsCommandTests.json(result)["overruled"] as? [[String: Any]], "\(result.stdout) \(result.stderr)")
    }

    @Test func aDiscardOverruledByAnAdoptionOnTheOtherDeviceIsShownOnBoth() throws {
        let f = try SyncOverNetworkFixture()
        let branch = try f.edit(f.laptop) { store in
            let base = try store.createSnapshot(of: f.document, in: f.project)
            var proposal = try store.documentContent(of: f.document, in: f.project).blocks
            proposal[0].text = "p0, as the editor would have it"
            return try store.createBranch(of: f.document, in: f.project, base: base.id, content: DocumentContent(blocks: proposal),
                                          kind: .manual, provenance: "editor")
        }
        #expect(try f.sync().status == 0)
        let before = try f.laptop.run(["conflicts", "--json"])
        #expect(try Self.overruled(before).isEmpty, "nothing decided yet")
        let unmarked = try f.laptop.run(["branch", "list", "Field notes", "Day one", "--json"])
        let unmarkedRows = try JSONSerialization.jsonObject(with: Data(unmarked.stdout.utf8)) as? [[String: Any]]
        #expect(unmarkedRows?.count == 1 && (unmarkedRows?[0]["overruled"] as? [Any])?.isEmpty == true, "no mark yet: \(unmarked.stdout)")
        // Neither device has seen the other's decision.
        try f.edit(f.laptop) { store in _ = try store.adopt(branch.id, of: f.document, in: f.project) }
        try f.edit(f.desk) { store in try store.discard(branch.id, of: f.document, in: f.project) }
        for _ in 0..<2 { #expect(try f.sync().status == 0) }

        let laptopID = try PairCommandTests.deviceID(f.laptop), deskID = try PairCommandTests.deviceID(f.desk)
        for (vault, thisDevice) in [(f.desk, true), (f.laptop, false)] {
            let listed = try Self.overruled(try vault.run(["conflicts", "--json"]))
            try #require(listed.count == 1, "\(listed)")
            let item = listed[0]
            #expect(item["decision"] as? String == "discard" && item["device"] as? String == deskID, "\(item)")
            #expect(item["this_device"] as? Bool == thisDevice, "\(item)")
            #expect(item["state"] as? String == "adopted" && item["settled_by"] as? String == laptopID, "\(item)")
            #expect(item["branch"] as? String == branch.id.hex && item["title"] as? String == "Day one" && item["number"] as? Int == 1, "\(item)")
            #expect(item["project"] as? String == f.project.hex)
        }
        let deskText = try f.desk.run(["conflicts"])
        #expect(deskText.status == 0 && deskText.stdout.contains("No open sync conflicts."), "\(deskText.stderr)")
        #expect(deskText.stdout.contains("Decisions overruled by another device's:")
                && deskText.stdout.contains("this device's discard (") && deskText.stdout.contains("was overruled; the suggestion is adopted by "),
                "\(deskText.stdout)")
        let laptopText = try f.laptop.run(["conflicts", "Field notes"])
        #expect(laptopText.stdout.contains("'s discard (") && laptopText.stdout.contains("adopted by this device")
                && !laptopText.stdout.contains("this device's discard"), "\(laptopText.stdout)")

        // `branch list` marks the branch on both devices, in text and in --json.
        for (vault, thisDevice) in [(f.desk, true), (f.laptop, false)] {
            let listed = try vault.run(["branch", "list", "Field notes", "Day one", "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(listed.stderr)")
            try #require(rows.count == 1, "\(rows)")
            #expect(rows[0]["state"] as? String == "adopted")
            let marks = try #require(rows[0]["overruled"] as? [[String: Any]], "\(rows[0])")
            try #require(marks.count == 1, "\(marks)")
            #expect(marks[0]["decision"] as? String == "discard" && marks[0]["device"] as? String == deskID, "\(marks[0])")
            #expect(marks[0]["this_device"] as? Bool == thisDevice && marks[0]["settled_by"] as? String == laptopID, "\(marks[0])")
            #expect(JSONOutputTests.badKeys(rows[0]).isEmpty)
            let text = try vault.run(["branch", "list", "Field notes", "Day one"])
            let lines = text.stdout.split(separator: "\n").map(String.init)
            let mark = try #require(lines.firstIndex { $0.contains("overruled: ") }, "\(text.stdout)")
            #expect(lines[mark - 1].contains(branch.id.hex) && lines[mark - 1].contains("adopted"), "\(text.stdout)")
            #expect(lines[mark].contains(thisDevice ? "this device's discard (" : "'s discard (")
                    && lines[mark].contains(thisDevice ? "adopted by " : "adopted by this device"), "\(text.stdout)")
        }
    }
}
