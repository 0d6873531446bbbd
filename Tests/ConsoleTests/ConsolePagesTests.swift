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

    @Test("a view-only project's document opens read-only: no editor, no hold, no save is ever sent for it")
    func aViewOnlyDocumentOpensReadOnly() throws {
        let editor = try String(contentsOf: Self.pagesFolder.appendingPathComponent("editor-view.js"), encoding: .utf8)
        let readOnly = try String(contentsOf: Self.pagesFolder.appendingPathComponent("read-only-view.js"), encoding: .utf8)
        // The branch comes first in editorView, before the hold and the block or text editor are made.
        let opening = try #require(editor.range(of: "export async function editorView"))
        let branch = try #require(editor.range(of: "if (project.view_only) {", range: opening.upperBound..<editor.endIndex))
        let hold = try #require(editor.range(of: "holdSyncChanges(documentPath)", range: opening.upperBound..<editor.endIndex))
        #expect(branch.lowerBound < hold.lowerBound)
        #expect(editor[branch.upperBound...].prefix(240).contains("readOnlyView(area, documentPath, await api.get(documentPath));\n    return;"))
        // The read-only view only reads: nothing it draws can be typed into, and it sends nothing.
        for writing in ["api.put", "api.post", "api.remove", "textarea", "input", "contenteditable", "setTimeout"] {
            #expect(!readOnly.contains(writing), "read-only-view.js contains \(writing)")
        }
        #expect(readOnly.contains("api.get(documentPath)"))
    }

    @Test("a save refused as view-only ends the editor and says where the words were kept (attack review s6, A6)")
    func aSaveRefusedAsViewOnlyEndsTheEditorAndNamesTheKeptWords() throws {
        let page = { (name: String) in try String(contentsOf: Self.pagesFolder.appendingPathComponent(name), encoding: .utf8) }
        let editor = try page("editor-view.js"), text = try page("text-view.js"), notice = try page("became-view-only.js")
        // Both editors hand the refusal and their unsaved words to the editor view, and send nothing more.
        #expect(editor.contains("if (isViewOnlyRefusal(error)) {\n        refused = true;\n        clearTimeout(timer);\n        await viewOnly(error, blocks);"))
        #expect(text.contains("if (isViewOnlyRefusal(error)) {") && text.contains("await viewOnly(error, fromText(text.value, blocks));"))
        for source in [editor, text] { #expect(source.contains("if (refused) return;")) }
        // The editor view ends the hold and the editor, then shows the document read-only with the notice.
        let handler = try #require(editor.range(of: "const viewOnly = async (error, unsaved) => {"))
        #expect(editor[handler.upperBound...].prefix(200).contains("stopUpdates();\n    release();\n    stopUpdates = await becameViewOnly("))
        #expect(notice.contains("error.status === 403 && error.code === \"viewOnly\""))
        #expect(notice.contains("error.payload?.kept") && notice.contains("#/projects/${api.segment(kept.project)}/${api.segment(kept.document)}"))
        #expect(notice.contains("readOnlyView(area, documentPath, fresh)"))
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
