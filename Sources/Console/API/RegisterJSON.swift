import CryptoVault
import Registers
import Writing

/// The registers as the page shows them: vocabulary (each TermKey's words, or hidden), theme colour,
/// privacy and citation defaults, the starter templates to create a project from, and the snippet
/// library the editor inserts from (public text of the register, no vault data).
enum RegisterJSON {
    static func all() -> [[String: Any]] { Register.allCases.map(json) }

    static func json(_ register: Register) -> [String: Any] {
        let profile = register.profile
        return [
            "id": register.rawValue, "theme": profile.themeColour.hex, "privileged": profile.isPrivilegedByDefault,
            "citation": "\(profile.citationStyle)", "terms": terms(profile.lexicon),
            "templates": profile.templates.map { ["id": $0.id, "name": $0.name] },
            "snippets": profile.snippets.map { snippet in
                ["id": snippet.id, "name": snippet.name,
                 "blocks": snippet.blocks.map { ["kind": BlockEncoding.name(of: $0.kind), "text": $0.text, "rows": $0.rows] as [String: Any] }]
            },
        ]
    }

    static func terms(_ lexicon: Lexicon) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: TermKey.allCases.map { key in
            (key.rawValue, ["singular": lexicon.singular(key) ?? key.rawValue, "plural": lexicon.plural(key) ?? key.rawValue,
                            "hidden": lexicon.isHidden(key)] as [String: Any])
        })
    }
}
