import Assistant
import Writing

/// The agent loop's model, for real: every answer is one `AIService.run` on the agent's lane for the
/// task's project, so it goes through the project's AI policy, the egress funnel and the `ai.call`
/// record like any other model call (SECURITY.md §17), and the provider sees only what the funnel
/// released. The system prompt is wrapped in the register's house-style preamble; every other turn
/// carries the compartments the task has read (`provenance`), so the funnel judges the request by all
/// of them, never by what a caller declares.
public struct LaneAgentModel: AgentModel {
    public let service: AIService
    public let project: WritingProject
    public let policy: AIPolicy
    public let maximumTokens: Int?
    /// Told of each call's egress decision and of every streamed event as it comes.
    public let progress: @Sendable (AIService.Progress) -> Void

    public init(service: AIService, project: WritingProject, policy: AIPolicy, maximumTokens: Int? = 512,
                progress: @escaping @Sendable (AIService.Progress) -> Void = { _ in }) {
        self.service = service
        self.project = project
        self.policy = policy
        self.maximumTokens = maximumTokens
        self.progress = progress
    }

    public func respond(to turns: [ConversationTurn], tools: [ToolDescriptor], lane: String,
                        provenance: ContentProvenance) async throws -> ModelReply {
        let request = ChatRequest(messages: turns.map { message($0, provenance) }, tools: tools.map(Self.definition), maximumTokens: maximumTokens)
        let call = try service.run(try Lane.named(lane), project: project, policy: policy, request: request) { progress($0) }
        return ModelReply(text: call.answer.text,
                          toolCalls: call.answer.toolCalls.map { ToolCallRequest(id: $0.id, name: $0.name, arguments: $0.arguments) },
                          usage: Self.usage(of: call))
    }

    /// The tokens the provider counted, or, when it sent no count (llama-cpp-python's server sends
    /// none in a stream, `stream_options.include_usage` or not), an estimate of one token per four
    /// UTF-8 bytes of the released prompt and of the answer, rounded up: the agent's token budget
    /// must bind whatever the server reports.
    static func usage(of call: AIService.Call) -> TokenUsage {
        if let counted = call.answer.usage { return counted }
        let answerBytes = call.answer.text.utf8.count + call.answer.toolCalls.reduce(0) { $0 + $1.arguments.utf8.count + $1.name.utf8.count }
        return TokenUsage(promptTokens: (call.released.count + 3) / 4, completionTokens: (answerBytes + 3) / 4)
    }

    private func message(_ turn: ConversationTurn, _ provenance: ContentProvenance) -> ChatMessage {
        switch turn.role {
        case .system:
            return ChatMessage.system(HouseStyle.systemPrompt(turn.text, register: project.register))
        case .user, .assistant, .tool:
            let role: ChatMessage.Role = turn.role == .user ? .user : turn.role == .assistant ? .assistant : .tool
            return ChatMessage(role, PromptText(text: turn.text, compartments: [project.compartment] + provenance.compartments),
                               toolCalls: turn.toolCalls.map { ToolCall(id: $0.id, name: $0.name, arguments: $0.arguments) },
                               toolCallID: turn.toolCallID)
        }
    }

    static func definition(_ tool: ToolDescriptor) -> ToolDefinition {
        ToolDefinition(name: tool.name, description: tool.summary, parametersSchema: JSONWriter.string(tool.inputSchema))
    }

    /// The output contract as the agent loop's answer check: filler stripped, an answer that is
    /// empty or echoes the system prompt or the request fails (and keeps no text).
    public static func outputContract(revising: Bool) -> @Sendable (String, [ConversationTurn]) -> Result<String, AgentLoop.ContractFailure> {
        { answer, turns in
            let instructions = turns.filter { $0.role == .system }.map(\.text)
            let document = turns.first { $0.role == .user }?.text ?? ""
            let result = OutputContract.check(answer, instructions: instructions, document: document, revising: revising)
            if let text = result.text, result.passed { return .success(text) }
            return .failure(AgentLoop.ContractFailure(result.failure?.rawValue ?? "failed"))
        }
    }
}
