/// One turn of an agent's conversation with its model, in the chat-completions shape every
/// provider speaks: the system prompt, the person's (or the master agent's) request, the model's
/// answers with the tool calls it asked for, and each tool's result.
public struct ConversationTurn: Sendable, Equatable {
    public enum Role: String, Sendable {
        case system, user, assistant, tool
    }

    public let role: Role
    public let text: String
    /// The calls an assistant turn asked for.
    public let toolCalls: [ToolCallRequest]
    /// For a tool turn: the call it answers.
    public let toolCallID: String?

    public init(role: Role, text: String, toolCalls: [ToolCallRequest] = [], toolCallID: String? = nil) {
        self.role = role
        self.text = text
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
    }

    public static func system(_ text: String) -> ConversationTurn { ConversationTurn(role: .system, text: text) }
    public static func user(_ text: String) -> ConversationTurn { ConversationTurn(role: .user, text: text) }
}

/// A tool call as a model asked for it: its id (to answer it), the tool's name and the arguments'
/// JSON text, unparsed until the registry reads it strictly.
public struct ToolCallRequest: Sendable, Equatable {
    public let id: String
    public let name: String
    public let arguments: String

    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}
