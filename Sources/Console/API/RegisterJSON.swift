import CryptoVault
import Registers

/// The registers as the page shows them: vocabulary (each TermKey's words, or hidden), theme colour,
/// privacy and citation defaults, and the starter templates to create a project from.
enum RegisterJSON {
    static func all() -> [[String: Any]] { Register.allCases.map(json) }

    static func json(_ register: Register) -> [String: Any] {
        let profile = register.profile
        return [
            "id": register.rawValue, "theme": profile.themeColour.hex, "privileged": profile.isPrivilegedByDefault,
            "citation": "\(profile.citationStyle)", "terms": terms(profile.lexicon),
            "templates": profile.templates.map { ["id": $0.id, "name": $0.name] },
        ]
    }

    static func terms(_ lexicon: Lexicon) -> [String: Any] {
        Dictionary(uniqueKeysWithValues: TermKey.allCases.map { key in
            (key.rawValue, ["singular": lexicon.singular(key) ?? key.rawValue, "plural": lexicon.plural(key) ?? key.rawValue,
                            "hidden": lexicon.isHidden(key)] as [String: Any])
        })
    }
}
