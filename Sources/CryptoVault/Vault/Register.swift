/// The professional register a compartment's writing belongs to (from the writing app's design).
/// Healthcare and legal material is privileged unless the person says otherwise.
public enum Register: String, Sendable, CaseIterable, Codable {
    case healthcare, legal, journalism, academic, founder, general, fiction, screenwriting, marketing, technical

    public var isPrivilegedByDefault: Bool { self == .healthcare || self == .legal }
}
