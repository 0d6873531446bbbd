import Foundation
import Testing
import TestSupport

/// Over the command line (review 17, F5): the desk removes a folder while the laptop, not knowing,
/// adds a document to it; after `sync now` both list the folder with the new document in it.
@Suite(.serialized) struct FolderRemovedMeanwhileCommandTests {
    @Test func aDocumentAddedToAFolderTheDeskRemovedIsListedOnBothInThatFolder() throws {
        let f = try SyncOverNetworkFixture()
        let laptop = { (arguments: [String]) throws -> CLI.Result in try f.hosts.run(.laptop, f.laptop, arguments) }
        let desk = { (arguments: [String]) throws -> CLI.Result in try f.desk.run(arguments, unlock: false) }
        try #require(try laptop(["doc", "add", "Field notes", "Part one", "--folder"]).status == 0)
        try #require(try f.sync().status == 0)
        let removed = try desk(["doc", "rm", "Field notes", "Part one", "--yes"])
        try #require(removed.status == 0, "\(removed.stderr)")
        let added = try laptop(["doc", "add", "Field notes", "Day two", "--in", "Part one"])
        try #require(added.status == 0, "\(added.stderr)")
        for _ in 0..<2 { try #require(try f.sync().status == 0) }
        var listings: [[String]] = []
        for (name, run) in [("desk", desk), ("laptop", laptop)] {
            let listed = try run(["doc", "list", "Field notes", "--json"])
            let rows = try #require(try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]], "\(name): \(listed.stderr)")
            let folder = rows.first { $0["title"] as? String == "Part one" }
            let day = rows.first { $0["title"] as? String == "Day two" }
            #expect(folder != nil, "\(name): the folder is gone: \(rows)")
            #expect(day != nil && day?["parent"] as? String == folder?["id"] as? String, "\(name): 'Day two' is not shown in its folder: \(rows)")
            listings.append(rows.map { "\($0["id"] ?? "") \($0["parent"] ?? "") \($0["title"] ?? "")" }.sorted())
        }
        #expect(listings.count == 2 && listings[0] == listings[1], "the desk and the laptop list different documents: \(listings)")
    }
}
