/// Finds an answer that echoes its prompt instead of doing the task (the seed's output contract):
/// such an answer fails and is stored as a failed task result, never as text.
///
/// The measure is containment of word 4-grams: the share of the answer's 4-grams (words lower-cased,
/// split on anything not a letter or digit) that also occur in the source. Against the instructions
/// (the house-style preamble, the system prompt, the lane's task and the owner's instruction) an
/// answer fails at `instructionThreshold` = 0.5: half of what it says is our own wording back.
/// Against the document, a lane that must write new words (draft, summarize, curate, cite) fails at
/// `documentThreshold` = 0.8: the answer is mostly the document again (0.9 missed a short
/// document echoed with two words added: 17 of 19 4-grams); a revision fails only when it is
/// the document unchanged (every 4-gram both ways). Answers of fewer than 4 words are too short to
/// judge and fail only if empty. The thresholds were set on the labelled set in `EchoDetectorTests`
/// (recall and false failures printed there).
public struct EchoDetector: Sendable {
    public static let gramSize = 4
    public static let instructionThreshold = 0.5
    public static let documentThreshold = 0.8

    public enum Verdict: Sendable, Equatable {
        case original
        case empty
        case echoesInstructions(overlap: Double)
        case echoesDocument(overlap: Double)

        public var failed: Bool { self != .original }
    }

    public init() {}

    public func judge(_ answer: String, instructions: [String], document: String, revising: Bool) -> Verdict {
        let words = Self.words(answer)
        guard !words.isEmpty else { return .empty }
        let grams = Self.grams(words)
        guard !grams.isEmpty else { return .original }
        let instructionGrams = instructions.reduce(into: Set<[String]>()) { $0.formUnion(Self.grams(Self.words($1))) }
        let fromInstructions = Self.containment(grams, in: instructionGrams)
        if fromInstructions >= Self.instructionThreshold { return .echoesInstructions(overlap: fromInstructions) }
        let documentGrams = Set(Self.grams(Self.words(document)))
        let fromDocument = Self.containment(grams, in: documentGrams)
        if revising {
            let unchanged = fromDocument == 1 && Self.containment(Array(documentGrams), in: Set(grams)) == 1
            return unchanged ? .echoesDocument(overlap: 1) : .original
        }
        return fromDocument >= Self.documentThreshold ? .echoesDocument(overlap: fromDocument) : .original
    }

    static func containment(_ grams: [[String]], in source: Set<[String]>) -> Double {
        guard !grams.isEmpty else { return 0 }
        return Double(grams.filter { source.contains($0) }.count) / Double(grams.count)
    }

    static func words(_ text: String) -> [String] {
        text.lowercased().split { !$0.isLetter && !$0.isNumber && $0 != "'" }.map { String($0.filter { $0 != "'" }) }.filter { !$0.isEmpty }
    }

    static func grams(_ words: [String]) -> [[String]] {
        guard words.count >= gramSize else { return [] }
        return (0...(words.count - gramSize)).map { Array(words[$0..<($0 + gramSize)]) }
    }
}
