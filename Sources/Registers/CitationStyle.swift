/// The citation style a register's projects start with (a project can choose another).
public enum CitationStyle: String, Sendable, CaseIterable, Codable {
    /// AMA Manual of Style: medicine and health.
    case ama
    /// APA Publication Manual: the social sciences and most academic writing.
    case apa
    /// The Bluebook: A Uniform System of Citation, for US legal writing.
    case bluebook
    /// The Associated Press Stylebook: news writing (attribution in the text, no notes).
    case ap
    /// The Chicago Manual of Style: books, fiction and general prose.
    case chicago
    /// IEEE reference style: engineering and technical documents.
    case ieee
    /// No citations: a screenplay cites nothing.
    case none

    public var displayName: String {
        switch self {
        case .ama: "AMA"
        case .apa: "APA"
        case .bluebook: "Bluebook"
        case .ap: "AP"
        case .chicago: "Chicago"
        case .ieee: "IEEE"
        case .none: "none"
        }
    }
}
