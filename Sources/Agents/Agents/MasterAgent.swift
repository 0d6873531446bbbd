/// Plans a task over sub-agents and runs the plan: the seed's MasterAgent.
///
/// Planning asks the model, on the task's lane, for a plan in one strict JSON shape:
///   {"steps": [{"agent": NAME, "instruction": TEXT}, …]}   (1 to `maximumSteps` steps)
/// naming only the agents it was shown. The answer is read with the strict JSON reader (the object
/// is taken from the first '{' to the last '}', since models wrap JSON in prose or fences); a plan
/// that does not read, names an unknown agent or is empty or long is not repaired or guessed at: the
/// task falls back to the lane's default agent, and the task says so (`PlanSource.fallback`).
/// Planning sees the instruction and the agents' names, never the document.
///
/// Running: units in order, one shared taint for the whole task (so the taint rule holds across
/// agents), each unit given the input and the previous unit's answer. The first unit that fails
/// ends the task; its result says why.
public struct MasterAgent: Sendable {
    public let agents: [AIAgent]
    public static let maximumSteps = 4

    public init(agents: [AIAgent]) throws(AgentsError) {
        guard !agents.isEmpty else { throw AgentsError(.unknownAgent, "a master agent needs at least one agent to plan over") }
        self.agents = agents
    }

    /// The units for `instruction` on `lane`, planned by `model`.
    public func plan(_ instruction: String, lane: String, input: TaskInput, model: any AgentModel) async -> AITask {
        let prompt: [ConversationTurn] = [.system(planningPrompt()), .user(instruction)]
        let units: [TaskUnit]
        let source: PlanSource
        do {
            let reply = try await model.respond(to: prompt, tools: [], lane: lane, provenance: input.provenance)
            units = try readPlan(reply.text)
            source = .model
        } catch {
            units = [TaskUnit(index: 0, agent: defaultAgent(for: lane), instruction: instruction)]
            source = .fallback(AgentLoop.describe(error))
        }
        return AITask(lane: lane, instruction: instruction, input: input, units: units, plan: source)
    }

    /// Runs every unit of `task` in order; the results so far, ending at the first failure.
    public func run(_ task: AITask, loop: AgentLoop, taint: inout TaskTaint) async -> [TaskResult] {
        taint.absorb(task.input.provenance)
        var results: [TaskResult] = []
        var previous: String?
        for unit in task.units {
            let input = previous.map { "\(task.input.text)\n\nThe previous step's result:\n\($0)" } ?? task.input.text
            let result = await loop.run(unit, input: input, taint: &taint)
            results.append(result)
            guard let text = result.text else { break }
            previous = text
        }
        return results
    }

    func planningPrompt() -> String {
        let list = agents.map { "- \($0.name): \($0.title)" }.joined(separator: "\n")
        return """
            You plan work for these agents:
            \(list)
            Answer with JSON only: {"steps": [{"agent": "<name>", "instruction": "<what it should do>"}]}, \
            one to \(Self.maximumSteps) steps, using only the agent names above.
            """
    }

    /// The plan in `text`, or why it is unusable.
    func readPlan(_ text: String) throws -> [TaskUnit] {
        guard let open = text.firstIndex(of: "{"), let close = text.lastIndex(of: "}"), open < close else {
            throw AgentsError(.invalidJSON, "the plan holds no JSON object")
        }
        let parser = StrictJSONParser(limits: .init(maximumBytes: 16 << 10, maximumDepth: 4, maximumMembers: 16, maximumStringBytes: 2048))
        let plan = try parser.parse(String(text[open...close]))
        guard let steps = plan["steps"]?.arrayValue, (1...Self.maximumSteps).contains(steps.count) else {
            throw AgentsError(.invalidArguments, "the plan needs 1 to \(Self.maximumSteps) steps")
        }
        return try steps.enumerated().map { index, step in
            guard let name = step["agent"]?.stringValue, let agent = agents.first(where: { $0.name == name }) else {
                throw AgentsError(.invalidArguments, "the plan's step \(index + 1) names no known agent")
            }
            guard let instruction = step["instruction"]?.stringValue, !instruction.allSatisfy(\.isWhitespace) else {
                throw AgentsError(.invalidArguments, "the plan's step \(index + 1) has no instruction")
            }
            return TaskUnit(index: index, agent: agent, instruction: instruction)
        }
    }

    /// The first agent on `lane`, else the first agent.
    func defaultAgent(for lane: String) -> AIAgent {
        agents.first { $0.lane == lane } ?? agents[0]
    }
}
