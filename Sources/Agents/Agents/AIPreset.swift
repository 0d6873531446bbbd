import CryptoVault

/// A register's starter agents (the seed: each register "seeds the starter agents"): what a new
/// project of that register offers before its owner adds any. Each agent reads through read-only
/// tools only and answers as text that the output contract turns into a branch: none of them is
/// given an open-world tool, which an owner must add on purpose.
public struct AIPreset: Sendable {
    public let register: Register
    public let agents: [AIAgent]

    public init(_ register: Register) {
        self.register = register
        self.agents = Self.starters(register).map { name, title, lane, instructions in
            AIAgent(name: name, title: title, register: register, lane: lane, instructions: instructions)
        }
    }

    public static let all: [AIPreset] = Register.allCases.map(AIPreset.init)

    /// The agent named `name` among every preset's.
    public static func agent(named name: String) -> AIAgent? {
        all.lazy.flatMap(\.agents).first { $0.name == name }
    }

    // One line per agent: name, title, lane, instructions (terms in braces, resolved per register).
    private static func starters(_ register: Register) -> [(String, String, String, String)] {
        switch register {
        case .healthcare: [
            ("clinical-summariser", "Clinical summariser", "coauthor.summarize",
             "Summarise the {scene} for a colleague: presenting concerns, observations, plan and each {plotBeat}. Keep clinical terms; add nothing that is not in the {scene}."),
            ("note-tidier", "Note tidier", "coauthor.revise",
             "Rewrite the {scene} in clear, complete sentences without changing any clinical fact, dose, date or name."),
        ]
        case .legal: [
            ("issue-spotter", "Legal issue spotter", "coauthor.summarize",
             "List each legal {plotBeat} the {scene} raises, one per line, with the passage it comes from. Do not give advice; flag what needs a lawyer's review."),
            ("clause-tightener", "Clause tightener", "coauthor.revise",
             "Rewrite the {scene} in plain, precise legal English; keep every defined term, party and obligation."),
        ]
        case .journalism: [
            ("fact-flagger", "Fact flagger", "coauthor.summarize",
             "List every factual claim in the {scene} that needs a {character} or a record behind it, one per line."),
            ("copy-editor", "Copy editor", "coauthor.revise", "Edit the {scene} for house style, clarity and length; keep every quote verbatim."),
        ]
        case .academic: [
            ("claim-checker", "Claim checker", "coauthor.summarize",
             "List each {plotBeat} in the {scene} and whether the text cites support for it."),
            ("academic-editor", "Academic editor", "coauthor.revise", "Edit the {scene} for precision and flow in an academic register."),
        ]
        case .founder: [
            ("memo-tightener", "Memo tightener", "coauthor.revise", "Tighten the {scene} into a one-page memo: decision, reasons, risks, next {plotBeat}."),
            ("summary-writer", "Summary writer", "coauthor.summarize", "Summarise the {scene} in five bullet points for a busy {character}."),
        ]
        case .general: [
            ("proofreader", "Proofreader", "coauthor.revise", "Correct spelling, grammar and punctuation in the {scene}; change nothing else."),
            ("summariser", "Summariser", "coauthor.summarize", "Summarise the {scene} in a short paragraph."),
        ]
        case .fiction: [
            ("line-editor", "Fiction line editor", "coauthor.revise",
             "Line-edit the {scene}: tighten sentences, sharpen verbs, keep the voice, the {character:plural} and every {plotBeat}."),
            ("continuity-reader", "Continuity reader", "coauthor.summarize",
             "List continuity problems in the {scene} against the {bible}: names, places, times."),
        ]
        case .screenwriting: [
            ("dialogue-polisher", "Dialogue polisher", "coauthor.revise", "Polish the dialogue of the {scene}: each {character} in their own voice, nothing explained twice."),
            ("beat-lister", "Beat lister", "coauthor.summarize", "List the {scene}'s beats, one per line."),
        ]
        case .marketing: [
            ("headline-writer", "Headline writer", "coauthor.draft", "Write five headline variants for the {scene}, each under twelve words."),
            ("brand-checker", "Brand checker", "coauthor.summarize", "List where the {scene} departs from the {bible}'s voice."),
        ]
        case .technical: [
            ("clarity-editor", "Clarity editor", "coauthor.revise", "Edit the {scene} for clarity: short sentences, defined terms, one idea per paragraph."),
            ("requirement-extractor", "Requirement extractor", "coauthor.summarize", "List every {plotBeat} the {scene} states, one per line, as 'shall' statements."),
        ]
        }
    }
}
