import Foundation
import Testing
import TestSupport

/// `vaultctl doc write` is a writer's edit: the automatic snapshots are counted across commands (each
/// one process), every 500 characters of change and on a switch to another document. (The three
/// minutes of active editing are tested with a clock moved by hand in AutoSnapshotEditingTests and
/// ConsoleAutoSnapshotTests: this binary reads the system's clock.)
@Suite("vaultctl doc write: automatic snapshots", .serialized)
struct AutoSnapshotCommandTests {
    static func snapshots(_ output: String) throws -> [[String: Any]] {
        try #require((try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])?["snapshots"] as? [[String: Any]])
    }

    @Test("500 characters over three writes take a snapshot on the third; writing another document takes one of the document left")
    func writesTakeAutomaticSnapshots() throws {
        let vault = try CLIVault()
        let ok = { (arguments: [String], stdin: String?) in try WritingCommandTests.ok(vault, arguments, stdin: stdin) }
        try ok(["project", "create", "Harbour", "--register", "fiction"], nil)
        let arrival = try ok(["doc", "add", "Harbour", "Arrival", "--json"], nil)
        let arrivalID = try #require((try JSONSerialization.jsonObject(with: Data(arrival.utf8)) as? [String: Any])?["id"] as? String)
        try ok(["doc", "add", "Harbour", "Gulls"], nil)
        let part = String(repeating: "a", count: 200)
        #expect(try Self.snapshots(try ok(["doc", "write", "Harbour", "Arrival", "--json"], part + "\n")).isEmpty)
        #expect(try Self.snapshots(try ok(["doc", "write", "Harbour", "Arrival", "--json"], part + "\n\n" + part + "\n")).isEmpty)
        let third = try ok(["doc", "write", "Harbour", "Arrival"], part + "\n\n" + part + "\n\n" + String(repeating: "b", count: 100) + "\n")
        #expect(third.contains("Automatic snapshot 1 of \(arrivalID) (500 characters changed)"), "\(third)")
        try ok(["doc", "write", "Harbour", "Arrival"], part + "\n\nEnd.\n")
        let left = try Self.snapshots(try ok(["doc", "write", "Harbour", "Gulls", "--json"], "Gulls.\n"))
        #expect(left.map { $0["document"] as? String } == [arrivalID] && left.map { $0["triggers"] as? [String] } == [["documentSwitch"]])
        let history = try #require(try JSONSerialization.jsonObject(with: Data(try ok(["history", "Harbour", "Arrival", "--json"], nil).utf8))
                                   as? [[String: Any]])
        #expect(history.map { $0["origin"] as? String } == ["automatic", "automatic"])
    }
}
