import CryptoVault

/// Everything a register seeds a new project with: its vocabulary, field labels, citation and
/// privacy defaults, theme colour, starter templates and snippet library. All of it is
/// presentation or a default: a project's register can change later and no stored record moves.
public struct RegisterProfile: Sendable {
    public let register: Register
    public let lexicon: Lexicon
    public let fieldEditor: FieldEditor
    public let citationStyle: CitationStyle
    /// Whether a new project's compartment is privileged (Healthcare and Legal: material that
    /// is privileged unless the person says otherwise).
    public let isPrivilegedByDefault: Bool
    public let themeColour: ThemeColour
    public let templates: [Template]
    public let snippets: [Snippet]

    public init(_ register: Register) {
        self.register = register
        self.lexicon = Lexicon(register)
        self.fieldEditor = FieldEditor(register)
        self.citationStyle = Self.citationStyle(register)
        self.isPrivilegedByDefault = register.isPrivilegedByDefault
        self.themeColour = Self.themeColour(register)
        (self.templates, self.snippets) = Self.library(register)
    }

    /// The template with `id`, if this register has one.
    public func template(_ id: String) -> Template? { templates.first { $0.id == id } }

    private static func citationStyle(_ register: Register) -> CitationStyle {
        switch register {
        case .healthcare: .ama
        case .legal: .bluebook
        case .academic: .apa
        case .journalism: .ap
        case .technical: .ieee
        case .screenwriting: .none
        case .founder, .general, .fiction, .marketing: .chicago
        }
    }

    /// Dark enough for text on white (WCAG AA, 4.5:1), distinct enough to tell projects apart.
    private static func themeColour(_ register: Register) -> ThemeColour {
        let hex = switch register {
        case .healthcare: "#0F766E"     // teal
        case .legal: "#1E3A8A"          // navy
        case .journalism: "#B91C1C"     // newsprint red
        case .academic: "#6D28D9"       // violet
        case .founder: "#C2410C"        // burnt orange
        case .general: "#4B5563"        // slate
        case .fiction: "#9D174D"        // plum
        case .screenwriting: "#374151"  // charcoal
        case .marketing: "#BE185D"      // magenta
        case .technical: "#1D4ED8"      // blue
        }
        // The literals above are six hex digits each; the fallback is never taken.
        return ThemeColour(hex: hex) ?? ThemeColour(red: 0, green: 0, blue: 0)
    }

    private static func library(_ register: Register) -> ([Template], [Snippet]) {
        switch register {
        case .healthcare: (HealthcareTemplates.all, HealthcareTemplates.snippets)
        case .legal: (LegalTemplates.all, LegalTemplates.snippets)
        case .journalism: (ResearchTemplates.journalism, ResearchTemplates.journalismSnippets)
        case .academic: (ResearchTemplates.academic, ResearchTemplates.academicSnippets)
        case .technical: (ResearchTemplates.technical, ResearchTemplates.technicalSnippets)
        case .founder: (BusinessTemplates.founder, BusinessTemplates.founderSnippets)
        case .general: (BusinessTemplates.general, BusinessTemplates.generalSnippets)
        case .marketing: (BusinessTemplates.marketing, BusinessTemplates.marketingSnippets)
        case .fiction: (WritingTemplates.fiction, WritingTemplates.fictionSnippets)
        case .screenwriting: (WritingTemplates.screenwriting, WritingTemplates.screenwritingSnippets)
        }
    }
}

extension Register {
    /// The register's defaults, vocabulary and library.
    public var profile: RegisterProfile { RegisterProfile(self) }
}
