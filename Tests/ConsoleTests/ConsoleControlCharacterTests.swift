import Foundation
import Testing
import TestSupport

/// The console's write route takes what `doc write` takes (review 17 s8, F11): a block's text or
/// cell holding a control character but tab and line feed (an escape sequence a terminal would act
/// on) is refused with its code point, and nothing is written. Before, any string was taken and
/// synced to every device holding the project.
@Suite struct ConsoleControlCharacterTests {
    @Test("a block holding a control character is refused (invalidBody, naming it); tab and line feed are taken")
    func controlCharactersAreRefused() throws {
        let fixture = try ConsoleFixture()
        let project = try #require(try fixture.json("POST", "/api/projects", ["name": "Contract", "register": "fiction", "kind": "long-form"])
            as? [String: Any])
        let id = try #require(project["id"] as? String)
        let node = try #require(try fixture.json("POST", "/api/projects/\(id)/nodes", ["kind": "scene", "title": "Terms"]) as? [String: Any])
        let path = "/api/projects/\(id)/documents/\(try #require(node["id"] as? String))"
        let taken = try #require(try fixture.json("PUT", path, ["blocks": [["kind": "paragraph", "text": "Price:\t100\nDue: May"]]]) as? [String: Any])
        #expect(taken["sealed"] as? Int == 1)
        for (block, code) in [(["kind": "paragraph", "text": "Clause 1.\u{1B}[2K hidden"] as [String: Any], "U+1B"),
                              (["kind": "paragraph", "text": "title\u{1B}]0;pwned\u{07}"], "U+1B"),
                              (["kind": "paragraph", "text": "carriage\rreturn"], "U+D"),
                              (["kind": "paragraph", "text": "c1 \u{9B}2K"], "U+9B"),
                              (["kind": "table", "text": "", "rows": [["cell\u{07}"]]], "U+7")] {
            let refused = try fixture.request("PUT", path, json: ["blocks": [block]])
            #expect(refused.status == 400 && refused.errorCode == "invalidBody", "\(block)")
            #expect(String(decoding: refused.body, as: UTF8.self).contains("control character \(code)"), "\(block)")
        }
        let read = try #require(try fixture.json("GET", path) as? [String: Any])
        #expect((read["blocks"] as? [[String: Any]])?.map { $0["text"] as? String } == ["Price:\t100\nDue: May"], "nothing refused was written")
    }
}
