import CryptoVault

/// Runs one tool call. The vault's own tools and every MCP server's tools are handlers alike; the
/// registry checks the call before any handler sees it.
public protocol ToolHandler: Sendable {
    /// `arguments` already match the tool's schema; `taint` is what the task has read so far, whose
    /// compartments are the ones any bytes this call sends out derive from.
    func run(_ tool: ToolDescriptor, arguments: JSONValue, taint: TaskTaint) throws -> ToolOutput
}

/// The tools an agent may be offered, each with its handler. A call goes through `call`, the one
/// door: arguments read strictly and checked against the schema, the task's taint rule applied,
/// then the handler run and what it returned taken into the taint.
public struct ToolRegistry: Sendable {
    private var entries: [String: (descriptor: ToolDescriptor, handler: any ToolHandler)] = [:]

    /// Arguments a model may send one call: generous for text a tool takes, bounded for JSON.
    public static let argumentLimits = StrictJSONParser.Limits(maximumBytes: 256 << 10, maximumDepth: 16,
                                                               maximumMembers: 256, maximumStringBytes: 128 << 10)

    public init() {}

    public mutating func register(_ descriptor: ToolDescriptor, handler: any ToolHandler) throws(AgentsError) {
        guard entries[descriptor.name] == nil else {
            throw AgentsError(.duplicateTool, "a tool named '\(descriptor.name)' is already registered")
        }
        entries[descriptor.name] = (descriptor, handler)
    }

    /// Every tool, by name.
    public var descriptors: [ToolDescriptor] { entries.values.map(\.descriptor).sorted { $0.name < $1.name } }

    public func descriptor(named name: String) -> ToolDescriptor? { entries[name]?.descriptor }

    /// Calls `name` with `arguments` (the JSON text a model sent) for a task whose reads so far are
    /// `taint`, which learns what the tool returned.
    public func call(_ name: String, arguments: [UInt8], taint: inout TaskTaint) throws(AgentsError) -> ToolOutput {
        guard let (descriptor, handler) = entries[name] else {
            throw AgentsError(.unknownTool, "no tool named '\(ToolDescriptor.printable(name, maximumBytes: 64))'")
        }
        let value: JSONValue
        do { value = try StrictJSONParser(limits: Self.argumentLimits).parse(arguments) } catch {
            throw AgentsError(.invalidArguments, "the arguments for '\(name)' are not valid JSON: \(error.message)")
        }
        try descriptor.schema.check(value)
        try taint.permit(descriptor.effect, tool: name)
        let output: ToolOutput
        do { output = try handler.run(descriptor, arguments: value, taint: taint) } catch let error as AgentsError {
            throw error
        } catch {
            throw AgentsError(.toolRefused, "the tool '\(name)' failed: \(error)")
        }
        taint.absorb(output.provenance)
        return output
    }
}
