import Foundation
import CryptoVault
import Registers

/// The house-style preamble that wraps every system prompt (the seed's output contract): how the
/// register writes, what the answer must not hold (greetings, sign-offs, fences, talk about the
/// task), and the register's words for the model's concepts, so a legal lane is never asked to
/// write "the scene". Terms are written `{scene}`, `{project}`, `{chapter}`, `{character}`,
/// `{place}`, `{plotBeat}`, `{bible}`, `{branch}` and resolved through the register's lexicon.
public enum HouseStyle {
    /// The system prompt for `prompt` in `register`: the preamble, then the prompt, terms resolved.
    public static func systemPrompt(_ prompt: String, register: Register) -> String {
        resolve(preamble(for: register) + "\n\n" + prompt, register: register)
    }

    /// The preamble, terms resolved.
    public static func preamble(for register: Register) -> String {
        resolve("""
            House style: \(voice(register))
            Answer with the text asked for and nothing else: no greeting, no preface such as "Here is", \
            no closing offer of more help, no Markdown code fences around prose, no notes about what you did.
            Keep every fact, name and number of the {scene} as it is; never invent one.
            Where the {scene} holds a bracketed placeholder such as [EMAIL] or [PRIVILEGED], keep it exactly as written.
            """, register: register)
    }

    /// `{key}` replaced by the register's singular word for it (the model's own name when the register hides it).
    public static func resolve(_ template: String, register: Register) -> String {
        let lexicon = Lexicon(register)
        var text = template
        for key in TermKey.allCases {
            text = text.replacingOccurrences(of: "{\(key.rawValue)}", with: lexicon.singular(key) ?? key.rawValue)
        }
        return text
    }

    static func voice(_ register: Register) -> String {
        switch register {
        case .healthcare: "write as a clinician writes in a {project}: plain, exact, objective, no diagnosis the {scene} does not state."
        case .legal: "write as a careful lawyer writes a memo: precise, measured, no conclusion the {scene} does not support."
        case .journalism: "write as a reporter writes copy: short sentences, attributed facts, no speculation."
        case .academic: "write as a scholar writes: clear argument, hedged claims, no unsupported generalisation."
        case .founder: "write as a founder writes to investors and the team: direct, concrete, no hype."
        case .general: "write plainly and clearly for a general reader."
        case .fiction: "write as the author of this {project} writes: keep its voice, tense and point of view."
        case .screenwriting: "write in screenplay style: present tense, visual action, dialogue as spoken."
        case .marketing: "write as the brand's copywriter: clear benefit, active voice, no exaggerated claims."
        case .technical: "write as a technical writer: exact, imperative where it instructs, no filler."
        }
    }
}
