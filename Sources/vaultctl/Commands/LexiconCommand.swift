import CryptoVault
import Foundation
import Registers

/// lexicon: the words each register uses for the model's eight concepts.
enum LexiconCommand {
    static let command = Command("lexicon", synopsis: "show the words each register uses", about: """
        Prints the register's word for each of the writing model's eight concepts (project, scene,
        chapter, character, place, plot beat, bible, branch), singular and plural, or "hidden" where
        the register does not show the concept. Without --register, every register.
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
                    return ["register": register.rawValue, "terms": terms]
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
            }
        }
}
