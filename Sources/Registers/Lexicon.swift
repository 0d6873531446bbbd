import CryptoVault

/// The words a register uses for the model's eight concepts. Vocabulary is presentation only: the
/// model keeps its slots and this decides labels and visibility, so a project's register can change
/// without a data migration. Every label the CLI prints, and every prompt string, resolves its terms
/// here, so a legal agent is never asked to write "the scene".
///
/// Fiction and Technical are the seed's columns, exactly; the other eight are ours (a lawyer sees
/// sections, parties and issues; a clinician sees notes and people). Singular shown, "—" hidden; the
/// plurals are the regular ones except person → people (docs/registers.md lists every plural):
///
/// | Register      | project    | scene    | chapter  | character   | place    | plotBeat       | bible              | branch           |
/// |---------------|------------|----------|----------|-------------|----------|----------------|--------------------|------------------|
/// | Healthcare    | chart      | note     | folder   | person      | —        | treatment goal | case summary       | suggested change |
/// | Legal         | matter     | document | section  | party       | venue    | issue          | matter summary     | redline          |
/// | Journalism    | story      | draft    | section  | source      | location | angle          | background file    | suggested edit   |
/// | Academic      | paper      | section  | part     | participant | site     | claim          | research notebook  | revision         |
/// | Founder       | venture    | document | folder   | stakeholder | market   | milestone      | playbook           | proposal         |
/// | General       | project    | document | folder   | person      | location | key point      | notebook           | suggestion       |
/// | Fiction       | manuscript | scene    | chapter  | character   | place    | plot beat      | story bible        | branch           |
/// | Screenwriting | script     | scene    | act      | character   | location | beat           | series bible       | revision         |
/// | Marketing     | campaign   | asset    | channel  | persona     | market   | key message    | brand guide        | variant          |
/// | Technical     | project    | page     | section  | subject     | —        | requirement    | reference          | alternate        |
///
/// The same table is in docs/registers.md; `LexiconTests` checks that the two agree.
public struct Lexicon: Sendable, Equatable {
    public let register: Register
    /// Every key's term; `LexiconTests` checks that each register gives all eight.
    let entries: [TermKey: Term]

    public init(_ register: Register) {
        self.register = register
        self.entries = Self.table(register)
    }

    /// The register's term for `key`.
    public func term(_ key: TermKey) -> Term { entries[key] ?? .hidden }

    /// The singular word, or nil when the register hides the concept.
    public func singular(_ key: TermKey) -> String? { term(key).singular }

    /// The plural word, or nil when the register hides the concept.
    public func plural(_ key: TermKey) -> String? { term(key).plural }

    public func isHidden(_ key: TermKey) -> Bool { term(key).isHidden }

    private static func words(_ pairs: [(TermKey, String, String)], hidden: [TermKey] = []) -> [TermKey: Term] {
        var terms: [TermKey: Term] = [:]
        for (key, singular, plural) in pairs { terms[key] = .word(singular: singular, plural: plural) }
        for key in hidden { terms[key] = .hidden }
        return terms
    }

    private static func table(_ register: Register) -> [TermKey: Term] {
        switch register {
        case .healthcare:
            words([(.project, "chart", "charts"), (.scene, "note", "notes"), (.chapter, "folder", "folders"),
                   (.character, "person", "people"), (.plotBeat, "treatment goal", "treatment goals"),
                   (.bible, "case summary", "case summaries"), (.branch, "suggested change", "suggested changes")],
                  hidden: [.place])
        case .legal:
            words([(.project, "matter", "matters"), (.scene, "document", "documents"), (.chapter, "section", "sections"),
                   (.character, "party", "parties"), (.place, "venue", "venues"), (.plotBeat, "issue", "issues"),
                   (.bible, "matter summary", "matter summaries"), (.branch, "redline", "redlines")])
        case .journalism:
            words([(.project, "story", "stories"), (.scene, "draft", "drafts"), (.chapter, "section", "sections"),
                   (.character, "source", "sources"), (.place, "location", "locations"), (.plotBeat, "angle", "angles"),
                   (.bible, "background file", "background files"), (.branch, "suggested edit", "suggested edits")])
        case .academic:
            words([(.project, "paper", "papers"), (.scene, "section", "sections"), (.chapter, "part", "parts"),
                   (.character, "participant", "participants"), (.place, "site", "sites"), (.plotBeat, "claim", "claims"),
                   (.bible, "research notebook", "research notebooks"), (.branch, "revision", "revisions")])
        case .founder:
            words([(.project, "venture", "ventures"), (.scene, "document", "documents"), (.chapter, "folder", "folders"),
                   (.character, "stakeholder", "stakeholders"), (.place, "market", "markets"),
                   (.plotBeat, "milestone", "milestones"), (.bible, "playbook", "playbooks"), (.branch, "proposal", "proposals")])
        case .general:
            words([(.project, "project", "projects"), (.scene, "document", "documents"), (.chapter, "folder", "folders"),
                   (.character, "person", "people"), (.place, "location", "locations"), (.plotBeat, "key point", "key points"),
                   (.bible, "notebook", "notebooks"), (.branch, "suggestion", "suggestions")])
        case .fiction:
            words([(.project, "manuscript", "manuscripts"), (.scene, "scene", "scenes"), (.chapter, "chapter", "chapters"),
                   (.character, "character", "characters"), (.place, "place", "places"), (.plotBeat, "plot beat", "plot beats"),
                   (.bible, "story bible", "story bibles"), (.branch, "branch", "branches")])
        case .screenwriting:
            words([(.project, "script", "scripts"), (.scene, "scene", "scenes"), (.chapter, "act", "acts"),
                   (.character, "character", "characters"), (.place, "location", "locations"), (.plotBeat, "beat", "beats"),
                   (.bible, "series bible", "series bibles"), (.branch, "revision", "revisions")])
        case .marketing:
            words([(.project, "campaign", "campaigns"), (.scene, "asset", "assets"), (.chapter, "channel", "channels"),
                   (.character, "persona", "personas"), (.place, "market", "markets"), (.plotBeat, "key message", "key messages"),
                   (.bible, "brand guide", "brand guides"), (.branch, "variant", "variants")])
        case .technical:
            words([(.project, "project", "projects"), (.scene, "page", "pages"), (.chapter, "section", "sections"),
                   (.character, "subject", "subjects"), (.plotBeat, "requirement", "requirements"),
                   (.bible, "reference", "references"), (.branch, "alternate", "alternates")],
                  hidden: [.place])
        }
    }
}
