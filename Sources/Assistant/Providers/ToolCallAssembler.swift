/// Gathers a streamed tool call from its pieces: the first delta of a call (by `index`) brings its
/// id and name, later ones more of its arguments' JSON text. Bounded: at most `maximumCalls` calls of
/// at most `maximumArgumentBytes` each; a delta for a call with no name by the end is refused.
struct ToolCallAssembler {
    static let maximumCalls = 64
    static let maximumArgumentBytes = 1024 * 1024

    private var calls: [Int: (id: String, name: String, arguments: String)] = [:]

    var isEmpty: Bool { calls.isEmpty }

    mutating func add(index: Int, id: String?, name: String?, arguments: String?) throws(AssistantError) {
        guard (0..<Self.maximumCalls).contains(index) else { throw AssistantError(.malformedStream, "a tool call index outside 0-\(Self.maximumCalls - 1)") }
        var call = calls[index] ?? (id: "", name: "", arguments: "")
        if let id, !id.isEmpty { call.id = id }
        if let name, !name.isEmpty { call.name += call.name.isEmpty ? name : "" }
        if let arguments { call.arguments += arguments }
        guard call.arguments.utf8.count <= Self.maximumArgumentBytes else {
            throw AssistantError(.responseTooLarge, "a tool call's arguments over \(Self.maximumArgumentBytes) bytes")
        }
        calls[index] = call
    }

    /// The calls, in index order; takes them out.
    mutating func finish() throws(AssistantError) -> [ToolCall] {
        defer { calls = [:] }
        return try calls.keys.sorted().map { (index) throws(AssistantError) -> ToolCall in
            let call = calls[index]!
            guard !call.name.isEmpty else { throw AssistantError(.malformedStream, "a tool call with no name") }
            return ToolCall(id: call.id.isEmpty ? "call_\(index)" : call.id, name: call.name, arguments: call.arguments.isEmpty ? "{}" : call.arguments)
        }
    }
}
