import CryptoVault
import Testing
@testable import Registers

@Suite struct RegisterProfileTests {
    @Test func citationDefaultsFollowEachProfession() {
        let expected: [Register: CitationStyle] = [
            .healthcare: .ama, .legal: .bluebook, .academic: .apa, .journalism: .ap, .technical: .ieee,
            .screenwriting: .none, .founder: .chicago, .general: .chicago, .fiction: .chicago, .marketing: .chicago,
        ]
        for register in Register.allCases { #expect(register.profile.citationStyle == expected[register], "\(register)") }
    }

    @Test func onlyHealthcareAndLegalAreDefaultPrivileged() {
        let privileged = Register.allCases.filter { $0.profile.isPrivilegedByDefault }
        #expect(privileged == [.healthcare, .legal])
    }

    /// WCAG 2.x known answers: black on white is 21:1, #767676 the lightest grey that passes AA
    /// (4.54:1) and #777777 the first that fails (4.48:1).
    @Test func contrastRatioMatchesWCAGKnownAnswers() throws {
        let black = ThemeColour(red: 0, green: 0, blue: 0)
        #expect(abs(black.contrastRatio(against: .white) - 21) < 1e-9)
        #expect(abs(ThemeColour.white.contrastRatio(against: .white) - 1) < 1e-9)
        let passing = try #require(ThemeColour(hex: "#767676"))
        let failing = try #require(ThemeColour(hex: "#777777"))
        #expect(abs(passing.contrastRatio(against: .white) - 4.54) < 0.005)
        #expect(failing.contrastRatio(against: .white) < ThemeColour.minimumTextContrast)
        #expect(passing.contrastRatio(against: .white) >= ThemeColour.minimumTextContrast)
    }

    @Test(arguments: Register.allCases)
    func everyThemeColourReachesAAContrastOnWhite(_ register: Register) {
        let colour = register.profile.themeColour
        #expect(colour.contrastRatio(against: .white) >= ThemeColour.minimumTextContrast,
                "\(register) \(colour.hex): \(colour.contrastRatio(against: .white))")
    }

    @Test func themeColoursAreDistinct() {
        let colours = Register.allCases.map { $0.profile.themeColour.hex }
        #expect(Set(colours).count == Register.allCases.count)
    }

    @Test func hexColoursParseOnlyInTheirOneForm() {
        #expect(ThemeColour(hex: "#0f766e")?.hex == "#0F766E")
        for bad in ["0F766E", "#0F766", "#0F766E0", "#GG766E", "", "#", "# F766E", "#+F766E"] {
            #expect(ThemeColour(hex: bad) == nil, "\(bad)")
        }
    }

    /// A legal party shows party type and identification, a clinical record relationship and
    /// background; a register that hides a concept hides its fields.
    @Test func fieldEditorsLabelTheModelsSlotsPerRegister() {
        let legal = FieldEditor(.legal)
        #expect(legal.label(.personRole) == "Party type")
        #expect(legal.label(.personIdentification) == "Identification")
        #expect(!legal.isVisible(.personArc))
        let healthcare = FieldEditor(.healthcare)
        #expect(healthcare.label(.personRelationship) == "Relationship")
        #expect(healthcare.label(.personBackground) == "Background")
        #expect(!healthcare.isVisible(.personRole))
        for register in Register.allCases {
            let editor = FieldEditor(register)
            let lexicon = Lexicon(register)
            for slot in FieldSlot.allCases where lexicon.isHidden(slot.concept) {
                #expect(!editor.isVisible(slot), "\(register) shows \(slot) of a hidden \(slot.concept)")
            }
            #expect(editor.visibleSlots.contains { $0.concept == .character }, "\(register)")
        }
        #expect(!FieldEditor(.healthcare).isVisible(.placeDescription))
        #expect(!FieldEditor(.technical).isVisible(.placeDescription))
    }
}
