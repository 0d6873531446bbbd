/// What a model's answer must pass before it is stored (the seed's output contract): filler is
/// stripped, and an answer that is empty or echoes its prompt fails. A passing answer carries its
/// text; a failed one carries only why, never the text, so an echo of a prompt (which may quote the
/// document or our instructions) is never stored as content.
public struct ContractResult: Sendable, Equatable {
    public enum Failure: String, Sendable, Equatable {
        case empty
        case echoesInstructions = "echoes-instructions"
        case echoesDocument = "echoes-document"
        /// The call itself failed (refused, timed out, the provider erred): see the `ai.call` entry.
        case callFailed = "call-failed"
    }

    /// The text to store, when it passed.
    public let text: String?
    public let failure: Failure?

    public var passed: Bool { failure == nil }

    public static func passed(_ text: String) -> ContractResult { ContractResult(text: text, failure: nil) }
    public static func failed(_ failure: Failure) -> ContractResult { ContractResult(text: nil, failure: failure) }
}

public enum OutputContract {
    /// Strips filler from `answer` and judges what is left against the instructions and the document.
    public static func check(_ answer: String, instructions: [String], document: String, revising: Bool) -> ContractResult {
        let text = FillerStripper.strip(answer)
        switch EchoDetector().judge(text, instructions: instructions, document: document, revising: revising) {
        case .original: return .passed(text)
        case .empty: return .failed(.empty)
        case .echoesInstructions: return .failed(.echoesInstructions)
        case .echoesDocument: return .failed(.echoesDocument)
        }
    }
}
