import CryptoVault
import Foundation
import Registers

/// lexicon: the words each register uses for the model's eight concepts.
enum LexiconCommand {
    static let command = Command("lexicon", synopsis: "show the words each register uses", about: """
        Prints the register's word for each of the writing model's eight concepts (project, scene,
        chapter, character, place, plot beat, bible, branch), singular and plural, or "hidden" where
        the register does not show the concept, then the register's citation style, theme colour
        (#RRGGBB) and whether its projects are privileged by default. Without --register, every register.
        """, options: [RegisterLibrary.registerOption("words")], json: true, examples: [
            "vaultctl lexicon --register legal",
            "vaultctl lexicon --json",
        ]) { arguments in
            let registers = try WritingContext.register(arguments).map { [$0] } ?? Register.allCases
            if arguments.has("--json") {
                Output.json(registers.map { register -> [String: Any] in
                    let lexicon = Lexicon(register)
                    let terms = TermKey.allCases.map { key -> [String: Any] in
                        ["key": key.rawValue, "hidden": lexicon.isHidden(key),
                         "singular": lexicon.singular(key).map { $0 as Any } ?? NSNull(), "plural": lexicon.plural(key).map { $0 as Any } ?? NSNull()]
                    }
                    var row = profileJSON(register)
                    row["register"] = register.rawValue
                    row["terms"] = terms
                    return row
                })
                return
            }
            for register in registers {
                Output.line(register.rawValue)
                let lexicon = Lexicon(register)
                for key in TermKey.allCases {
                    let words = lexicon.singular(key).map { "\($0) / \(lexicon.plural(key) ?? $0)" } ?? "hidden"
                    Output.line("  \(key.rawValue.padding(toLength: 10, withPad: " ", startingAt: 0)) \(words)")
                }
                for line in profileLines(register) { Output.line("  " + line) }
            }
        }

    /// A register's citation style, theme colour and privacy default, as --json gives them (the
    /// console's register JSON has the same).
    static func profileJSON(_ register: Register) -> [String: Any] {
        let profile = register.profile
        return ["citation": profile.citationStyle.rawValue, "citation_name": profile.citationStyle.displayName,
                "theme": profile.themeColour.hex, "privileged_by_default": profile.isPrivilegedByDefault]
    }

    /// The same as aligned lines, `lexicon`'s and `project show`'s.
    static func profileLines(_ register: Register) -> [String] {
        let profile = register.profile
        return ["citation   \(profile.citationStyle.displayName)", "theme      \(profile.themeColour.hex)",
                "privacy    \(profile.isPrivilegedByDefault ? "privileged by default" : "not privileged by default")"]
    }
}
