/// A named AI surface (`coauthor.draft`, `research.curate`, ...): every model call is made on one,
/// and a project's policy says per lane which providers it may use. A lane name is `AREA.ACTION`,
/// lower-case letters and digits; new surfaces (an agent's) declare lanes of their own.
public struct Lane: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    /// What the lane asks of the model, with `{scene}` and `{project}` standing for the register's
    /// words (resolved through the lexicon, so a legal lane never says "scene").
    public let task: String

    public init(_ name: String, task: String) throws(AssistantError) {
        let parts = name.split(separator: ".", omittingEmptySubsequences: false)
        guard name.utf8.count <= 64, parts.count == 2, parts.allSatisfy(Self.isNamePart) else {
            throw AssistantError(.unknownLane, "a lane name is AREA.ACTION in lower-case letters, digits and '-'")
        }
        self.name = name
        self.task = task
    }

    /// Lower-case letters, digits and '-', at least one.
    static func isNamePart(_ part: Substring) -> Bool {
        !part.isEmpty && part.utf8.allSatisfy { byte in (0x61...0x7A).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2D }
    }

    private init(known name: String, task: String) {
        self.name = name
        self.task = task
    }

    public var description: String { name }

    public static func == (lhs: Lane, rhs: Lane) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }

    public static let coauthorDraft = Lane(known: "coauthor.draft", task: """
        Continue the {scene} below where it stops, in its voice. Write only the new text.
        """)
    public static let coauthorRevise = Lane(known: "coauthor.revise", task: """
        Revise the {scene} below as the instruction asks. Write the whole revised {scene} and nothing else.
        """)
    public static let coauthorSummarize = Lane(known: "coauthor.summarize", task: """
        Summarize the {scene} below in a few sentences of plain prose. Write only the summary.
        """)
    public static let researchCurate = Lane(known: "research.curate", task: """
        From the {scene} below, list the questions and facts that need checking, one per line.
        """)
    public static let researchCite = Lane(known: "research.cite", task: """
        For the claims in the {scene} below, say what kind of source would support each, one per line, in the {project}'s citation style.
        """)

    /// The lanes the writing app has, in the order `vaultctl ai lanes` lists them.
    public static let known: [Lane] = [coauthorDraft, coauthorRevise, coauthorSummarize, researchCurate, researchCite]

    /// A known lane by name.
    public static func named(_ name: String) throws(AssistantError) -> Lane {
        guard let lane = known.first(where: { $0.name == name }) else {
            throw AssistantError(.unknownLane, "no lane '\(name)' (lanes: \(known.map(\.name).joined(separator: ", ")))")
        }
        return lane
    }
}
