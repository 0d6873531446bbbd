import Foundation
import CryptoVault
import Registers

/// One agent: a named role with its lane, its instructions, the tools it may use and its budget.
/// Its system prompt is written with `{term}` placeholders for the register's words (`{scene}`,
/// `{plotBeat:plural}`, …) and resolved through the project's lexicon before it is sent, so a legal
/// agent is never asked about "the scene" (the house-style preamble around it is the output
/// contract's, added where the call is made).
public struct AIAgent: Sendable, Equatable {
    /// Unique among agents: 1 to 64 of a-z, 0-9 and '-'.
    public let name: String
    public let title: String
    public let register: Register
    /// The lane its calls are made on (`coauthor.summarize`, …): the project's policy for that lane
    /// decides which provider, if any, hears it.
    public let lane: String
    public let instructions: String
    /// The effects of the tools it may be offered (the registry's tools of other effects are not
    /// shown to it).
    public let toolEffects: Set<ToolEffect>
    public let budget: AgentBudget

    public init(name: String, title: String, register: Register, lane: String, instructions: String,
                toolEffects: Set<ToolEffect> = [.readOnly], budget: AgentBudget = AgentBudget()) {
        self.name = name
        self.title = title
        self.register = register
        self.lane = lane
        self.instructions = instructions
        self.toolEffects = toolEffects
        self.budget = budget
    }

    /// The instructions with every `{key}` or `{key:plural}` replaced by the register's word; a key
    /// the register hides becomes its General word, so no prompt is left with a hole or a brace.
    public func systemPrompt() -> String {
        let lexicon = Lexicon(register), fallback = Lexicon(.general)
        var prompt = instructions
        for key in TermKey.allCases {
            let singular = lexicon.singular(key) ?? fallback.singular(key) ?? key.rawValue
            let plural = lexicon.plural(key) ?? fallback.plural(key) ?? key.rawValue
            prompt = prompt.replacingOccurrences(of: "{\(key.rawValue):plural}", with: plural)
            prompt = prompt.replacingOccurrences(of: "{\(key.rawValue)}", with: singular)
        }
        return prompt
    }

    /// The registry's tools this agent may be offered.
    public func tools(in registry: ToolRegistry) -> [ToolDescriptor] {
        registry.descriptors.filter { toolEffects.contains($0.effect) }
    }
}

/// How far one agent may go on one task unit before it is stopped.
public struct AgentBudget: Sendable, Equatable {
    /// Model calls (each answer, with or without tool calls, is one step).
    public var steps: Int
    /// Prompt and completion tokens together, as the provider counted them.
    public var tokens: Int
    /// Tool calls across all steps.
    public var toolCalls: Int

    public init(steps: Int = 6, tokens: Int = 8_000, toolCalls: Int = 8) {
        self.steps = steps
        self.tokens = tokens
        self.toolCalls = toolCalls
    }
}
