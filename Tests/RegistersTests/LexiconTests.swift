import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Registers

@Suite struct LexiconTests {
    @Test(arguments: Register.allCases)
    func everyRegisterResolvesOrHidesAllEightKeys(_ register: Register) {
        let lexicon = Lexicon(register)
        #expect(Set(lexicon.entries.keys) == Set(TermKey.allCases))
        for key in TermKey.allCases {
            switch lexicon.term(key) {
            case .hidden:
                #expect(lexicon.singular(key) == nil && lexicon.plural(key) == nil)
            case .word(let singular, let plural):
                #expect(!singular.isEmpty && !plural.isEmpty, "\(register) \(key)")
                #expect(singular == singular.lowercased() && plural == plural.lowercased(), "\(register) \(key)")
                #expect(singular != plural, "\(register) \(key)")
            }
        }
    }

    /// The seed's table, column for column.
    @Test func fictionAndTechnicalAreTheSeedsColumnsExactly() {
        let fiction: [TermKey: String?] = [.project: "manuscript", .scene: "scene", .chapter: "chapter", .character: "character",
                                           .place: "place", .plotBeat: "plot beat", .bible: "story bible", .branch: "branch"]
        let technical: [TermKey: String?] = [.project: "project", .scene: "page", .chapter: "section", .character: "subject",
                                             .place: nil, .plotBeat: "requirement", .bible: "reference", .branch: "alternate"]
        for key in TermKey.allCases {
            #expect(Lexicon(.fiction).singular(key) == fiction[key]!, "fiction \(key)")
            #expect(Lexicon(.technical).singular(key) == technical[key]!, "technical \(key)")
        }
        #expect(Lexicon(.technical).isHidden(.place))
        #expect(!Lexicon(.fiction).isHidden(.place))
    }

    /// "A lawyer sees sections, parties and issues; a clinician sees notes and people."
    @Test func aLawyerSeesSectionsPartiesAndIssuesAndAClinicianNotesAndPeople() {
        let legal = Lexicon(.legal)
        #expect(legal.plural(.scene) == "documents")
        #expect(legal.plural(.chapter) == "sections")
        #expect(legal.plural(.character) == "parties")
        #expect(legal.plural(.plotBeat) == "issues")
        let healthcare = Lexicon(.healthcare)
        #expect(healthcare.plural(.scene) == "notes")
        #expect(healthcare.plural(.character) == "people")
    }

    /// docs/registers.md carries the same table as the code, singular and plural.
    @Test func theDocumentedTableIsTheLexicon() throws {
        let docs = PackageFiles.url("docs/registers.md")
        let text = try String(contentsOf: docs, encoding: .utf8)
        let tableStart = try #require(text.range(of: "| Register | project |"))
        let rows = text[tableStart.lowerBound...].split(separator: "\n").prefix { $0.hasPrefix("|") }.dropFirst(2)
        var documented: [Register] = []
        for row in rows {
            let cells = row.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let register = try #require(Register.allCases.first { "\($0)".lowercased() == cells[0].lowercased() })
            documented.append(register)
            for (key, cell) in zip(TermKey.allCases, cells.dropFirst()) {
                let expected = Lexicon(register).term(key)
                let written: Term = cell == "hidden" ? .hidden : {
                    let parts = cell.split(separator: "/").map { $0.trimmingCharacters(in: .whitespaces) }
                    return .word(singular: parts.first ?? "", plural: parts.last ?? "")
                }()
                #expect(written == expected, "\(register) \(key): docs say \(cell)")
            }
        }
        #expect(documented == Register.allCases)
    }
}
