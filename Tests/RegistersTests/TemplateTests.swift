import CryptoVault
import Foundation
import Testing
@testable import Registers

@Suite struct TemplateTests {
    @Test func healthcareHasTheThreeProgressNotesAnIntakeAndAReferralLetter() throws {
        let profile = Register.healthcare.profile
        #expect(profile.templates.map(\.id) == ["soap-note", "dap-note", "birp-note", "intake-assessment", "referral-letter"])
        #expect(try #require(profile.template("soap-note")).headings(level: 2) == ["Subjective", "Objective", "Assessment", "Plan"])
        #expect(try #require(profile.template("dap-note")).headings(level: 2) == ["Data", "Assessment", "Plan"])
        #expect(try #require(profile.template("birp-note")).headings(level: 2) == ["Behavior", "Intervention", "Response", "Plan"])
    }

    @Test func theLegalMemoRunsFromQuestionPresentedToConclusion() throws {
        let memo = try #require(Register.legal.profile.template("legal-memorandum"))
        #expect(memo.headings(level: 2) == ["Question Presented", "Brief Answer", "Facts", "Discussion", "Conclusion"])
        #expect(Register.legal.profile.template("client-letter") != nil)
    }

    /// FRAP 28(a)(1)-(10): the appellant's brief must contain these, under appropriate headings and
    /// in the order here indicated.
    @Test func theAppellateBriefFollowsFRAP28aInOrder() throws {
        let brief = try #require(Register.legal.profile.template("appellate-brief"))
        #expect(brief.headings(level: 2) == [
            "Corporate Disclosure Statement", "Table of Contents", "Table of Authorities", "Jurisdictional Statement",
            "Statement of the Issues", "Statement of the Case", "Summary of the Argument", "Argument", "Conclusion",
            "Certificate of Compliance",
        ])
        // 28(a)(8)(B): the argument states the standard of review.
        let argument = try #require(brief.blocks.firstIndex(of: .section("Argument")))
        #expect(brief.blocks[argument + 1] == .subsection("Standard of Review"))
    }

    /// Fountain: a title page of "Key: value" lines, then scene headings that start INT. or EXT.
    @Test func screenwritingStartsFromAFountainScreenplay() throws {
        let screenplay = try #require(Register.screenwriting.profile.template("fountain-screenplay"))
        #expect(screenplay.blocks.first?.text.hasPrefix("Title:") == true)
        #expect(screenplay.blocks.contains { $0.text.hasPrefix("INT. ") })
        #expect(screenplay.blocks.contains { $0.text.hasPrefix("EXT. ") })
    }

    @Test(arguments: Register.allCases)
    func everyRegisterHasWellFormedTemplatesAndSnippets(_ register: Register) {
        let profile = register.profile
        #expect(!profile.templates.isEmpty)
        #expect(!profile.snippets.isEmpty)
        let ids = profile.templates.map(\.id) + profile.snippets.map(\.id)
        #expect(Set(profile.templates.map(\.id)).count == profile.templates.count)
        #expect(Set(profile.snippets.map(\.id)).count == profile.snippets.count)
        for id in ids {
            #expect(id.range(of: "^[a-z0-9]+(-[a-z0-9]+)*$", options: .regularExpression) != nil, "\(id)")
        }
        for block in profile.templates.flatMap(\.blocks) + profile.snippets.flatMap(\.blocks) {
            switch block.kind {
            case .heading(let level): #expect((1...6).contains(level))
            case .field(let slot): #expect(profile.fieldEditor.isVisible(slot), "\(register) template uses hidden \(slot)")
            case .table:
                #expect(block.rows.count >= 1)
                #expect(block.rows.allSatisfy { $0.count == block.rows[0].count })
            case .paragraph, .listItem, .quote: #expect(block.rows.isEmpty)
            }
        }
    }

    /// Every string a register shows (template and snippet names and text, field labels) uses the
    /// register's words: where it renames or hides a fiction term, the fiction word never appears
    /// (no "scene" in a legal prompt, no "place" in a technical one).
    @Test(arguments: Register.allCases)
    func noFictionWordWhereTheRegisterRenamesOrHidesIt(_ register: Register) {
        let profile = register.profile
        for key in TermKey.allCases where profile.lexicon.term(key) != Lexicon(.fiction).term(key) {
            let fictionTerm = Lexicon(.fiction).term(key)
            guard let singular = fictionTerm.singular, let plural = fictionTerm.plural else { continue }
            for text in Self.shownStrings(profile) {
                #expect(!Self.containsWord(text, [singular, plural]), "\(register) says \"\(singular)\" in: \(text)")
            }
        }
    }

    /// The check above can fail: Fiction's own strings do use its words.
    @Test func theFictionWordCheckFindsFictionsOwnWords() {
        let strings = Self.shownStrings(Register.fiction.profile)
        #expect(strings.contains { Self.containsWord($0, ["scene", "scenes"]) })
        #expect(strings.contains { Self.containsWord($0, ["plot beat", "plot beats"]) })
        #expect(!Self.containsWord("a sceneless draft", ["scene"]))
    }

    static func shownStrings(_ profile: RegisterProfile) -> [String] {
        profile.templates.flatMap { [$0.name] + $0.blocks.flatMap(\.strings) }
            + profile.snippets.flatMap { [$0.name] + $0.blocks.flatMap(\.strings) }
            + FieldSlot.allCases.compactMap(profile.fieldEditor.label)
    }

    static func containsWord(_ text: String, _ words: [String]) -> Bool {
        words.contains { word in
            text.range(of: "\\b\(NSRegularExpression.escapedPattern(for: word))\\b",
                       options: [.regularExpression, .caseInsensitive]) != nil
        }
    }
}
