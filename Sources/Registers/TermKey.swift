/// The eight concepts of the writing model whose names change with the register (the seed's
/// `TermKey`). The model keeps these names; what a person reads is the register's word for them.
public enum TermKey: String, Sendable, CaseIterable, Codable {
    case project, scene, chapter, character, place, plotBeat, bible, branch
}

/// What a register calls a concept: a word (singular and plural), or nothing because the register
/// does not show the concept at all (a technical writer has no places).
public enum Term: Sendable, Equatable {
    case word(singular: String, plural: String)
    case hidden

    public var singular: String? {
        if case .word(let singular, _) = self { return singular }
        return nil
    }

    public var plural: String? {
        if case .word(_, let plural) = self { return plural }
        return nil
    }

    public var isHidden: Bool { self == .hidden }
}
