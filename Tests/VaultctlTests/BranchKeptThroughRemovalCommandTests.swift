import Foundation
import Testing
import TestSupport

/// Over the command line (review 20, F20-4): the laptop makes a suggestion (`branch create`) of a
/// document while the desk, not having seen it, removes the document (`doc rm --yes`); after
/// `sync now` both hold the document and the suggestion with its words (SECURITY.md §19.3).
@Suite(.serialized) struct BranchKeptThroughRemovalCommandTests {
    @Test func aSuggestionMadeWhileTheDeskRemovedItsDocumentKeepsTheDocumentOnBoth() throws {
        let f = try SyncOverNetworkFixture()
        let laptop = { (arguments: [String]) throws -> CLI.Result in try f.hosts.run(.laptop, f.laptop, arguments) }
        let desk = { (arguments: [String]) throws -> CLI.Result in try f.desk.run(arguments, unlock: false) }
        let suggestion = f.laptop.root + "/suggestion.txt"
        try f.laptop.write("Suggest base with BRANCHWORD typed.\n", to: suggestion)
        let made = try laptop(["branch", "create", "Field notes", "Day one", suggestion])
        try #require(made.status == 0, "\(made.stderr)")
        let removed = try desk(["doc", "rm", "Field notes", "Day one", "--yes"])
        try #require(removed.status == 0, "\(removed.stderr)")
        for _ in 0..<2 {
            let synced = try f.sync()
            try #require(synced.status == 0, "\(synced.stderr)")
        }
        for (name, run) in [("desk", desk), ("laptop", laptop)] {
            // Before: "no document or folder 'Day one'" on both, the suggestion's words in no command's reach.
            let listed = try run(["branch", "list", "Field notes", "Day one"])
            #expect(listed.status == 0 && listed.stdout.contains("manual") && listed.stdout.contains("open"), "\(name): \(listed.status) \(listed.stdout) \(listed.stderr)")
            let shown = try run(["branch", "show", "Field notes", "Day one", "1"])
            #expect(shown.status == 0 && shown.stdout.contains("BRANCHWORD"), "\(name): \(shown.status) \(shown.stdout) \(shown.stderr)")
        }
    }
}
