import CryptoVault
import Registers
import Testing
@testable import Writing

/// Markdown (through libcmark) and plain text into blocks: a real CommonMark document maps to the
/// model's kinds, an export imports back to the same blocks, and hostile files are refused for
/// their reason before anything is built.
@Suite("Markdown and plain text import")
struct MarkdownImportTests {
    static func markdown(_ text: String) throws -> [[String]] {
        try shape(MarkdownImport.parse(SecureBytes(copying: Array(text.utf8))))
    }

    /// Each block as [kind, text], what the tests compare.
    static func shape(_ content: DocumentContent) -> [[String]] {
        content.blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] }
    }

    static func refusal(_ bytes: [UInt8], plain: Bool = false) throws -> WritingError {
        let secure = try SecureBytes(copying: bytes)
        do {
            _ = plain ? try PlainTextImport.parse(secure) : try MarkdownImport.parse(secure)
        } catch let error as WritingError {
            return error
        }
        Issue.record("the input was imported")
        return WritingError(.damagedRecord, "not refused")
    }

    @Test("a CommonMark document: headings (ATX and setext), paragraphs with their lines, bullet and ordered items, quotes, code, a break")
    func commonMarkDocument() throws {
        let text = """
            # Progress note

            Slept *badly*, **six** hours;
            see `sleep.log` and [the plan](https://example.org/plan "Plan").

            Assessment
            ----------

            - mood low
            - appetite
              normal

              second paragraph of the item
              - nested item
            - last

            3. first step
            4) never mind, a new list

            > quoted line one
            > line two
            >
            > > nested quote

            ```swift
            let dose = 5   \n
            ```

                indented code

            ***

            <div>raw html</div>

            A &amp; B \\*not emphasis\\*
            """
        #expect(try Self.markdown(text) == [
            ["heading-1", "Progress note"],
            ["paragraph", "Slept *badly*, **six** hours;\nsee `sleep.log` and [the plan](https://example.org/plan \"Plan\")."],
            ["heading-2", "Assessment"],
            ["list-item", "mood low"],
            ["list-item", "appetite\nnormal\nsecond paragraph of the item"],
            ["list-item", "nested item"],
            ["list-item", "last"],
            ["list-item", "3. first step"],
            ["list-item", "4) never mind, a new list"],
            ["quote", "quoted line one\nline two"],
            ["quote", "nested quote"],
            ["paragraph", "let dose = 5"],
            ["paragraph", "indented code"],
            ["paragraph", "* * *"],
            ["paragraph", "<div>raw html</div>"],
            ["paragraph", "A & B *not emphasis*"],
        ])
    }

    @Test("an empty file and a file of blank lines import as no blocks; an empty ordered item keeps its number")
    func emptyShapes() throws {
        #expect(try Self.markdown("").isEmpty && Self.markdown("\n\n   \n").isEmpty)
        #expect(try Self.markdown("1.\n2. two\n") == [["list-item", "1."], ["list-item", "2. two"]])
    }

    /// Found by MarkdownImportFuzz: each of these made an empty block, which the export writes as
    /// nothing (or as `- ` alone), so import, export and import again lost or changed a block.
    @Test("a leaf or bullet item with no text makes no block: an empty heading, code block, quote, item, or a reference to a space",
          arguments: ["#\n", "###### \n", "```\n```\n", "&#32;\n", "> &#32;\n", "-\n", "- \n-\n* \n", "- ```\n  ```\n"])
    func emptyLeavesMakeNoBlock(text: String) throws {
        let blocks = try Self.markdown(text)
        #expect(blocks.isEmpty, "\(blocks)")
        #expect(try Self.markdown("before\n\n" + text + "\nafter\n") == [["paragraph", "before"], ["paragraph", "after"]])
    }

    @Test("a bullet item holding only a list is dropped, its items kept; an empty item between two keeps their order")
    func emptyItemsAroundLists() throws {
        #expect(try Self.markdown("- - inner\n  - second\n- outer\n") == [["list-item", "inner"], ["list-item", "second"], ["list-item", "outer"]])
        #expect(try Self.markdown("- one\n-\n- three\n") == [["list-item", "one"], ["list-item", "three"]])
        #expect(try Self.markdown("1. one\n2.\n") == [["list-item", "1. one"], ["list-item", "2."]])
    }

    @Test("import, then the Markdown export of those blocks, then import again gives the same blocks (and export again the same text)")
    func roundTripThroughExport() throws {
        let text = """
            # Title
            Text with *emphasis*, `code`, <b>html</b>, & a_b and \\# a hash.
            Second line.

            - item one
            - item *two*
              continued

            1. numbered

            > quote
            > > deeper

                  indented code keeps its spaces
                    and these

            ---

            Setext
            ======
            """
        let first = try MarkdownImport.parse(SecureBytes(copying: Array(text.utf8)))
        let exported = Self.export(first)
        let second = try MarkdownImport.parse(SecureBytes(copying: Array(exported.utf8)))
        // The export heads the blocks with the project's and the document's titles.
        #expect(Self.shape(second) == [["heading-1", "P"], ["heading-2", "D"]] + Self.shape(first), "\(exported)")
        #expect(Self.export(DocumentContent(blocks: Array(second.blocks.dropFirst(2)))) == exported)
    }

    static func export(_ content: DocumentContent) -> String {
        MarkdownExport.render(ExportedProject(title: "P", items: [.init(kind: .scene, title: "D", depth: 1, content: content)],
                                              labels: FieldEditor(.fiction)))
    }

    @Test("plain text: blank-line separated paragraphs, lines kept, nothing read as markup, CR LF and a BOM handled")
    func plainText() throws {
        let text = "\u{FEFF}# not a heading\r\n- not an item\r\n\r\n  \t \r\nSecond *paragraph*\rline two\n\n\n"
        let content = try PlainTextImport.parse(SecureBytes(copying: Array(text.utf8)))
        #expect(Self.shape(content) == [["paragraph", "# not a heading\n- not an item"], ["paragraph", "Second *paragraph*\nline two"]])
    }

    @Test("invalid UTF-8 is refused (overlong, lone continuation, surrogate), saying where", arguments: [
        [0x61, 0xFF, 0x0A], [0xC0, 0xAF], [0x61, 0x80], [0xED, 0xA0, 0x80],
    ] as [[UInt8]])
    func invalidUTF8(bytes: [UInt8]) throws {
        for plain in [false, true] {
            let error = try Self.refusal(bytes, plain: plain)
            #expect(error.code == .invalidText && error.message.contains("not valid UTF-8 (at byte"), "\(error.message)")
        }
    }

    @Test("a NUL byte and other control characters are refused, named; a character reference to one too")
    func controlCharacters() throws {
        let nul = try Self.refusal(Array("a\u{0}b".utf8))
        #expect(nul.code == .invalidText && nul.message.contains("NUL byte (at byte 1)"), "\(nul.message)")
        let escape = try Self.refusal(Array("a\u{1B}[31m".utf8), plain: true)
        #expect(escape.code == .invalidText && escape.message.contains("U+1B"), "\(escape.message)")
        let reference = try Self.refusal(Array("bell &#7; here".utf8))
        #expect(reference.code == .invalidText && reference.message.contains("U+7") && reference.message.contains("character reference"),
                "\(reference.message)")
    }

    @Test("a 100 MB file is refused as too large before parsing (Markdown and plain text)")
    func hundredMegabytes() throws {
        let bytes = try SecureBytes(count: WritingLimits.maximumStoredDocumentBytes + 1)
        for plain in [false, true] {
            do {
                _ = plain ? try PlainTextImport.parse(bytes) : try MarkdownImport.parse(bytes)
                Issue.record("a file over the limit was imported")
            } catch let error as WritingError {
                #expect(error.code == .documentTooLarge && error.message.contains("one text holds at most"), "\(error.message)")
            }
        }
        // The command reads at most the limit and one byte, so 100 MB never reaches the importer whole;
        // ImportCommandTests gives vaultctl the 100 MB.
    }

    /// Ten thousand of each kind of nesting, by name (so the test's name does not print 20,000 characters).
    static let deep: [String: String] = [
        "quotes": String(repeating: ">", count: 10_000) + " deep\n",
        "bullet lists": String(repeating: "- ", count: 10_000) + "deep\n",
        "ordered lists": String(repeating: "1. ", count: 10_000) + "deep\n",
        "quotes in lists": String(repeating: "> - ", count: 5_000) + "deep\n",
        "emphasis": String(repeating: "*", count: 10_000) + "a" + String(repeating: "*", count: 10_000) + "\n",
        "images": String(repeating: "![", count: 10_000) + "x" + String(repeating: "](u)", count: 10_000) + "\n",
    ]

    @Test("10,000 nested quotes, lists or emphasis are refused as too deep, naming the limit",
          arguments: ["quotes", "bullet lists", "ordered lists", "quotes in lists", "emphasis", "images"])
    func deepNesting(kind: String) throws {
        let error = try Self.refusal(Array(try #require(Self.deep[kind]).utf8))
        #expect(error.code == .nestingTooDeep && error.message.contains("more than \(MarkdownImport.maximumNesting) deep"), "\(error.message)")
    }

    @Test("nesting at the limit is imported")
    func nestingAtTheLimit() throws {
        // The document, 62 quotes and the paragraph: 64 nodes deep.
        let blocks = try Self.markdown(String(repeating: ">", count: MarkdownImport.maximumNesting - 2) + " deep\n")
        #expect(blocks == [["quote", "deep"]])
        let error = try Self.refusal(Array((String(repeating: ">", count: MarkdownImport.maximumNesting - 1) + " deep\n").utf8))
        #expect(error.code == .nestingTooDeep)
    }

    @Test("autolinks, each written out twice as [target](target), past a document's size are refused as too large")
    func expandingAutolinks() throws {
        let link = "<ab:" + String(repeating: "x", count: 1000) + "> "
        let error = try Self.refusal(Array(String(repeating: link, count: 10 << 10).utf8))
        #expect(error.code == .documentTooLarge && error.message.contains("autolinks and link references repeat"), "\(error.message)")
    }
}
