import Registers
import Testing
@testable import Writing

/// Markdown and HTML exports of a project, byte for byte: binder order and depth as headings, each
/// block kind in its form, and the writer's text escaped so that no character of it becomes markup.
@Suite("Export rendering")
struct ExportRenderingTests {
    static func block(_ kind: BlockKind, _ text: String = "", rows: [[String]] = []) throws -> Block {
        Block(id: try BlockID.random(), kind: kind, text: text, rows: rows)
    }

    static func project(title: String = "Harbour") throws -> ExportedProject {
        let arrival = DocumentContent(blocks: [
            try block(.heading(level: 2), "At the quay"), try block(.paragraph, "The boat came in.\nIt rained."),
            try block(.listItem, "rope"), try block(.listItem, "net"), try block(.quote, "nobody\nwaved"),
            try block(.table, rows: [["Name", "Role"], ["Ann"]]), try block(.field(.documentAuthor), "M. Field"),
        ])
        let notes = DocumentContent(blocks: [try block(.paragraph, "*not* emphasis <b>x</b> & a_b\n- not a list\n2. nor this\n    nor code")])
        return ExportedProject(title: title, items: [
            .init(kind: .chapter, title: "One", depth: 1),
            .init(kind: .scene, title: "Arrival", depth: 2, content: arrival),
            .init(kind: .scene, title: "Notes", depth: 1, content: notes),
        ], labels: FieldEditor(.journalism))
    }

    @Test("Markdown: folders and documents as headings by depth, every block kind, markup characters escaped")
    func markdown() throws {
        let expected = #"""
            # Harbour

            ## One

            ### Arrival

            ## At the quay

            The boat came in.\
            It rained.

            - rope
            - net

            > nobody\
            > waved

            | Name | Role |
            | --- | --- |
            | Ann |  |

            **Byline:** M. Field

            ## Notes

            \*not\* emphasis \<b\>x\</b\> \& a\_b\
            \- not a list\
            2\. nor this\
            &#32;&#32;&#32;&#32;nor code

            """#
        #expect(MarkdownExport.render(try Self.project()) == expected)
    }

    @Test("HTML: one standalone page with its charset, the project's name as title, every block kind")
    func html() throws {
        let expected = #"""
            <!DOCTYPE html>
            <html>
            <head>
            <meta charset="utf-8">
            <meta http-equiv="Content-Security-Policy" content="default-src 'none'">
            <title>Harbour</title>
            </head>
            <body>
            <h1>Harbour</h1>
            <h2>One</h2>
            <h3>Arrival</h3>
            <h2>At the quay</h2>
            <p>The boat came in.<br>
            It rained.</p>
            <ul>
            <li>rope</li>
            <li>net</li>
            </ul>
            <blockquote><p>nobody<br>
            waved</p></blockquote>
            <table>
            <thead>
            <tr><th>Name</th><th>Role</th></tr>
            </thead>
            <tbody>
            <tr><td>Ann</td><td></td></tr>
            </tbody>
            </table>
            <p><strong>Byline:</strong> M. Field</p>
            <h2>Notes</h2>
            <p>*not* emphasis &lt;b&gt;x&lt;/b&gt; &amp; a_b<br>
            - not a list<br>
            2. nor this<br>
                nor code</p>
            </body>
            </html>

            """#
        #expect(HTMLExport.render(try Self.project()) == expected)
    }

    @Test("a hostile title and text stay text: no tag, quote or entity of theirs survives into the HTML or the Markdown")
    func hostile() throws {
        let hostile = #"</title><script>alert("x")</script><img src=x onerror='y'>&amp;"#
        var project = try Self.project(title: hostile)
        project = ExportedProject(title: hostile, items: project.items + [
            .init(kind: .scene, title: hostile, depth: 1, content: DocumentContent(blocks: [try Self.block(.paragraph, hostile)])),
        ], labels: project.labels)
        let page = HTMLExport.render(project)
        #expect(!page.contains("<script") && !page.contains("<img") && !page.contains("</title><"), "\(page)")
        #expect(page.contains("<title>&lt;/title&gt;&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&lt;img src=x onerror=&#39;y&#39;&gt;&amp;amp;</title>"))
        let markdown = MarkdownExport.render(project)
        let unescaped = zip(markdown.dropFirst(), markdown).filter { $0.0 == "<" && $0.1 != "\\" }
        #expect(unescaped.isEmpty && markdown.contains(#"\</title\>\<script\>alert("x")\</script\>\<img src=x onerror='y'\>\&amp;"#), "\(markdown)")
    }
}
