import Assistant

/// What one task unit came to: the agent's answer or why there is none, why the loop stopped, and
/// what it spent. A failed result keeps no text: a generation that failed the output contract is
/// recorded as failed, never stored as words that could reach a document.
public struct TaskResult: Sendable {
    public enum Outcome: Sendable, Equatable {
        case completed(String)
        case failed(String)
    }

    public let unit: TaskUnit
    public let outcome: Outcome
    public let stopReason: StopReason
    public let steps: Int
    public let usage: TokenUsage
    /// Every tool call the agent asked for, in order, with what became of it.
    public let toolCalls: [ToolCallRecord]
    public let turns: [ConversationTurn]

    public var text: String? {
        if case .completed(let text) = outcome { return text }
        return nil
    }
}

/// Why an agent loop ended. Only `answered` gives a result text.
public enum StopReason: Sendable, Equatable, CustomStringConvertible {
    /// The model answered without asking for a tool, and the answer passed the output check.
    case answered
    /// The step budget ran out while the model still asked for tools.
    case stepBudget
    /// The token budget ran out.
    case tokenBudget
    /// The tool-call budget ran out.
    case toolCallBudget
    /// The model call failed (the policy refused the lane, the provider failed, …).
    case modelFailed(String)
    /// The answer failed the output contract (it echoed its prompt, it was empty after filler went).
    case contractFailed(String)

    public var description: String {
        switch self {
        case .answered: "answered"
        case .stepBudget: "step budget spent"
        case .tokenBudget: "token budget spent"
        case .toolCallBudget: "tool-call budget spent"
        case .modelFailed(let reason): "model call failed: \(reason)"
        case .contractFailed(let reason): "output contract failed: \(reason)"
        }
    }
}

/// One tool call and its fate: run (with the size of what came back), or refused and why.
public struct ToolCallRecord: Sendable, Equatable {
    public let tool: String
    public let outcome: String
    public let error: AgentsErrorCode?
}
