/// One piece of work asked of the assistant on a project: an instruction on a lane, the input it
/// works on (a document's text, with where that text came from), and the units it was split into.
public struct AITask: Sendable {
    public let lane: String
    public let instruction: String
    public let input: TaskInput
    public let units: [TaskUnit]
    /// How the units were chosen: by the master agent's model, or by the fallback plan (and why).
    public let plan: PlanSource

    public init(lane: String, instruction: String, input: TaskInput, units: [TaskUnit], plan: PlanSource) {
        self.lane = lane
        self.instruction = instruction
        self.input = input
        self.units = units
        self.plan = plan
    }
}

/// What a task works on: text and its provenance (the compartments it was read from).
public struct TaskInput: Sendable {
    public let text: String
    public let provenance: ContentProvenance

    public init(text: String, provenance: ContentProvenance) {
        self.text = text
        self.provenance = provenance
    }
}

/// One agent's share of a task, run in order: unit n sees the task's input and unit n-1's result.
public struct TaskUnit: Sendable, Equatable {
    public let index: Int
    public let agent: AIAgent
    public let instruction: String

    public init(index: Int, agent: AIAgent, instruction: String) {
        self.index = index
        self.agent = agent
        self.instruction = instruction
    }
}

/// Where a task's units came from.
public enum PlanSource: Sendable, Equatable {
    /// The master agent's model proposed them and every step named a known agent.
    case model
    /// The model's plan was unusable (the reason says how); the lane's default agent was used.
    case fallback(String)
    /// The caller named the agent.
    case given
}
