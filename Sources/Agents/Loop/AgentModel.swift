import Assistant

/// What the agent loop needs of a model: one answer to a conversation. The implementation for the
/// real providers (`LaneAgentModel`) goes through the Assistant's lane, policy and egress funnel;
/// tests may give a scripted one. The loop never sees a provider, a URL or a key.
public protocol AgentModel: Sendable {
    /// The model's next answer on `lane` to `turns`, offered `tools`. `provenance` is where the
    /// conversation's content came from (the compartments the funnel judges the request by).
    func respond(to turns: [ConversationTurn], tools: [ToolDescriptor], lane: String,
                 provenance: ContentProvenance) async throws -> ModelReply
}

/// One answer: text, tool calls, or both, and what it cost.
public struct ModelReply: Sendable, Equatable {
    public let text: String
    public let toolCalls: [ToolCallRequest]
    public let usage: TokenUsage

    public init(text: String, toolCalls: [ToolCallRequest] = [], usage: TokenUsage = TokenUsage()) {
        self.text = text
        self.toolCalls = toolCalls
        self.usage = usage
    }
}
