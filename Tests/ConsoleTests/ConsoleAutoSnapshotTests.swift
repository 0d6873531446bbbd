import CryptoVault
import Foundation
import Synchronization
import Testing
import Writing
@testable import Console

/// The console's save is a writer's edit (SECURITY.md §15.2): saves take the automatic snapshots,
/// after 3 minutes of active editing, every 500 characters of change and on a switch to another
/// document, with the console's clock moved by hand.
@Suite struct ConsoleAutoSnapshotTests {
    /// A wall clock the test moves by hand.
    final class HandClock: Sendable {
        let seconds = Mutex<Double>(1_800_000_000)
        var clock: VaultClock { VaultClock.fractional { self.seconds.withLock { $0 } } }
        func advance(_ by: Double) { seconds.withLock { $0 += by } }
    }

    let time: HandClock
    let fixture: ConsoleFixture
    let project: String

    init() throws {
        let time = HandClock()
        let fixture = try ConsoleFixture(clock: time.clock)
        project = try #require((try fixture.json("POST", "/api/projects", ["name": "Book", "register": "fiction"]) as? [String: Any])?["id"] as? String)
        self.time = time
        self.fixture = fixture
    }

    func document(_ title: String) throws -> String {
        let node = try #require((try fixture.json("POST", "/api/projects/\(project)/nodes", ["kind": "scene", "title": title]) as? [String: Any])?["id"] as? String)
        return "/api/projects/\(project)/documents/\(node)"
    }

    /// Saves `texts` as the document's paragraphs (the ids the page holds kept) and returns the snapshots the save took.
    func save(_ path: String, _ texts: [String]) throws -> [[String: Any]] {
        let current = try #require((try fixture.json("GET", path) as? [String: Any])?["blocks"] as? [[String: Any]])
        let blocks: [[String: Any]] = texts.enumerated().map { index, text in
            var block: [String: Any] = ["kind": "paragraph", "text": text]
            if index < current.count { block["id"] = current[index]["id"] }
            return block
        }
        let answer = try #require(try fixture.json("PUT", path, ["blocks": blocks]) as? [String: Any])
        return try #require(answer["snapshots"] as? [[String: Any]])
    }

    func versions(_ path: String) throws -> [[String: Any]] {
        try #require(try fixture.json("GET", "\(path)/snapshots") as? [[String: Any]])
    }

    @Test("saves 10 s apart take a snapshot on the save that completes 3 minutes of editing, none before")
    func threeMinutesOfSaves() throws {
        let path = try document("Arrival")
        var texts = ["Dawn."]
        #expect(try save(path, texts).isEmpty)
        for step in 1...17 {
            time.advance(10)
            texts.append("s\(step).")
            #expect(try save(path, texts).isEmpty, "after \(step * 10) s")
        }
        time.advance(10)
        texts.append("done.")
        let taken = try save(path, texts)
        #expect(taken.map { $0["triggers"] as? [String] } == [["activeEditing"]])
        #expect(try versions(path).map { $0["id"] as? String } == taken.map { $0["id"] as? String })
        #expect(fixture.actions.filter { $0 == "writing.snapshot-create" }.count == 1)
    }

    @Test("500 characters of change take one, and saving another document takes one of the document left")
    func charactersAndSwitch() throws {
        let arrival = try document("Arrival"), harbour = try document("Harbour")
        let long = String(repeating: "w", count: 250)
        #expect(try save(arrival, [long]).isEmpty)
        #expect(try save(arrival, [long, long]).map { $0["triggers"] as? [String] } == [["characterCount"]])
        #expect(try save(arrival, [long, long, "More."]).isEmpty)
        let left = try save(harbour, ["Gulls."])
        #expect(left.map { $0["triggers"] as? [String] } == [["documentSwitch"]])
        #expect(left.first?["document"] as? String == arrival.split(separator: "/").last.map(String.init))
        #expect(try versions(arrival).count == 2)
        #expect(try versions(harbour).isEmpty)
    }
}
