import CryptoVault

/// Text for a prompt, with the compartments it was read from. Text the vault makes itself (a
/// house-style preamble, a lane's task, an instruction the owner typed) has none; text read from a
/// document is made only by the readers in this package (`package` access), so the compartments an
/// egress request names are carried by the data read, never declared by a caller.
public struct PromptText: Sendable, Equatable {
    public let text: String
    public let compartments: [VaultCompartment]

    /// Text the vault or its owner wrote for the prompt, read from no compartment.
    public init(_ literal: String) {
        text = literal
        compartments = []
    }

    /// Text read from `compartment` (a document's content, a note's).
    package init(reading text: String, from compartment: VaultCompartment) {
        self.text = text
        compartments = [compartment]
    }

    package init(text: String, compartments: [VaultCompartment]) {
        self.text = text
        self.compartments = compartments
    }

    /// This text followed by `other`, carrying both one's compartments.
    public func appending(_ other: PromptText) -> PromptText {
        PromptText(text: text + other.text, compartments: Self.union(compartments, other.compartments))
    }

    static func union(_ first: [VaultCompartment], _ second: [VaultCompartment]) -> [VaultCompartment] {
        first + second.filter { candidate in !first.contains { $0.id == candidate.id } }
    }
}

/// One message of a chat: who says it, the text, and for an assistant's turn the tools it called,
/// for a tool's answer the call it answers.
public struct ChatMessage: Sendable, Equatable {
    public enum Role: String, Sendable, CaseIterable {
        case system, user, assistant, tool
    }

    public var role: Role
    public var content: PromptText
    /// The tool calls an assistant message made (empty otherwise).
    public var toolCalls: [ToolCall]
    /// The call a tool message answers.
    public var toolCallID: String?

    public init(_ role: Role, _ content: PromptText, toolCalls: [ToolCall] = [], toolCallID: String? = nil) {
        self.role = role
        self.content = content
        self.toolCalls = toolCalls
        self.toolCallID = toolCallID
    }

    public static func system(_ text: String) -> ChatMessage { ChatMessage(.system, PromptText(text)) }
    public static func user(_ text: PromptText) -> ChatMessage { ChatMessage(.user, text) }
}

/// A tool the model may call: its name, what it does, and its parameters as a JSON Schema (JSON text).
public struct ToolDefinition: Sendable, Equatable {
    public let name: String
    public let description: String
    public let parametersSchema: String

    public init(name: String, description: String, parametersSchema: String) {
        self.name = name
        self.description = description
        self.parametersSchema = parametersSchema
    }
}

/// A call a model made, assembled from its streamed pieces: the call's id, the tool, its arguments
/// (JSON text, as the model wrote it: the caller parses and checks it against the tool's schema).
public struct ToolCall: Sendable, Equatable {
    public let id: String
    public let name: String
    public let arguments: String

    public init(id: String, name: String, arguments: String) {
        self.id = id
        self.name = name
        self.arguments = arguments
    }
}

/// What a model is asked: the messages, the tools it may call, and bounds on its answer.
public struct ChatRequest: Sendable, Equatable {
    public var messages: [ChatMessage]
    public var tools: [ToolDefinition]
    public var maximumTokens: Int?
    public var temperature: Double?

    public init(messages: [ChatMessage], tools: [ToolDefinition] = [], maximumTokens: Int? = nil, temperature: Double? = nil) {
        self.messages = messages
        self.tools = tools
        self.maximumTokens = maximumTokens
        self.temperature = temperature
    }

    /// Every compartment the request's text was read from, in the order first met.
    public var compartments: [VaultCompartment] {
        messages.reduce([]) { PromptText.union($0, $1.content.compartments) }
    }
}
