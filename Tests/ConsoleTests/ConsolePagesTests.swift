import Foundation
import Testing
import TestSupport
@testable import Console

/// The page's files: every one is served, and none can load or run anything from elsewhere.
@Suite struct ConsolePagesTests {
    static let pagesFolder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources/Console/Pages")

    func files() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: Self.pagesFolder.path).sorted() }

    @Test("every file of Pages/ is served, and nothing else is")
    func everyFileIsServed() throws {
        #expect(try files() == ConsolePages.fileNames.sorted())
        for name in try files() {
            let onDisk = try Data(contentsOf: Self.pagesFolder.appendingPathComponent(name))
            let served = try #require(ConsolePages.all[name == "index.html" ? "/" : "/" + name])
            #expect(Array(onDisk) == served.bytes, "\(name)")
        }
    }

    @Test("no page has inline script, inline handlers, innerHTML, eval, storage or an outside URL")
    func pagesAreSafeByConstruction() throws {
        for name in try files() {
            let text = try String(contentsOf: Self.pagesFolder.appendingPathComponent(name), encoding: .utf8)
            for forbidden in ["innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function",
                              "localStorage", "sessionStorage", "indexedDB", "http://", "https://", " onclick=", " onload=", "javascript:"] {
                #expect(!text.contains(forbidden), "\(name) contains \(forbidden)")
            }
            if name.hasSuffix(".html") {
                #expect(!text.contains("<script>") && !text.contains("style="), "\(name) has inline script or style")
            }
        }
    }
}
