/// What a provider's stream yields, in order: text as it comes, each tool call once assembled from
/// its deltas, the token counts when the server sends them, and last the reason it stopped.
public enum ChatEvent: Sendable, Equatable {
    case text(String)
    case toolCall(ToolCall)
    case usage(TokenUsage)
    case finish(FinishReason)
}

/// Tokens counted for an answer (by the server, or estimated where it says nothing): the one type
/// for token counts, which the Agents module's budgets add up too.
public struct TokenUsage: Sendable, Equatable {
    public var promptTokens: Int
    public var completionTokens: Int

    public init(promptTokens: Int = 0, completionTokens: Int = 0) {
        self.promptTokens = promptTokens
        self.completionTokens = completionTokens
    }

    public var total: Int { promptTokens + completionTokens }
}

/// Why the model stopped: it was done, it hit the token bound, it called tools, or a filter cut it.
public enum FinishReason: String, Sendable, Equatable {
    case stop
    case length
    case toolCalls = "tool_calls"
    case contentFilter = "content_filter"
    /// A reason the protocol does not name (kept as "other").
    case other

    init(wire: String) { self = FinishReason(rawValue: wire == "eos" ? "stop" : wire) ?? .other }
}

/// A whole answer, gathered from the events.
public struct ChatAnswer: Sendable, Equatable {
    public var text = ""
    public var toolCalls: [ToolCall] = []
    public var usage: TokenUsage?
    public var finishReason: FinishReason?

    public init() {}

    public mutating func add(_ event: ChatEvent) {
        switch event {
        case .text(let piece): text += piece
        case .toolCall(let call): toolCalls.append(call)
        case .usage(let counts): usage = counts
        case .finish(let reason): finishReason = reason
        }
    }
}
