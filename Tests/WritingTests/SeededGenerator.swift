/// SplitMix64: a small deterministic generator, so that a failing randomised case can be replayed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Random texts made of few distinct words, so that two texts share much and differ in places.
enum RandomText {
    static let pieces = ["the", "note", "client", "said", "é", "e\u{301}", "naïve", "42", " ", "  ", "\n", ",", ".",
                         "—", "「", "」", "🙂", "\t", "don't", "Ω", "a", "b"]

    static func text(_ generator: inout SeededGenerator, maximumPieces: Int = 40) -> String {
        let count = Int.random(in: 0...maximumPieces, using: &generator)
        return (0..<count).map { _ in pieces.randomElement(using: &generator)! }.joined()
    }

    /// `text` with a few random pieces inserted, deleted or replaced.
    static func edited(_ text: String, _ generator: inout SeededGenerator) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 0...4, using: &generator) {
            let position = Int.random(in: 0...scalars.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0:
                scalars.insert(contentsOf: pieces.randomElement(using: &generator)!.unicodeScalars, at: position)
            case 1 where position < scalars.count:
                scalars.removeSubrange(position..<min(scalars.count, position + Int.random(in: 1...6, using: &generator)))
            default:
                if position < scalars.count { scalars[position] = "x" }
            }
        }
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars)
        return String(result)
    }
}
