// fuzz-sources: Sources/Agents/JSON
// fuzz-sources: Sources/Agents/AgentsError.swift
// fuzz-sources: Sources/Agents/MCP/JSONRPCMessage.swift
// fuzz-sources: Sources/Agents/MCP/MCPToolDefinition.swift
// fuzz-sources: Sources/Agents/MCP/MCPToolResult.swift
// fuzz-sources: Sources/Agents/Tools/ToolDescriptor.swift
// fuzz-sources: Sources/Agents/Tools/ToolEffect.swift
// fuzz-sources: Sources/Agents/Tools/ToolSchema.swift
// fuzz-sources: Sources/Agents/Tools/ToolSchemaCheck.swift
// libFuzzer target: what an MCP server sends (SECURITY.md §18.2). One line from a server must be
// refused or read without trapping; a JSON value read is written back as one line (no newline
// byte) that reads to the same value; a message read is encoded to one that reads the same; a
// tools/list result's tools and a tools/call result are read or refused, the result's text within
// its bound; a schema read from the bytes checks any value without trapping.
private let small = StrictJSONParser(limits: .init(maximumBytes: 4096, maximumDepth: 64, maximumMembers: 256, maximumStringBytes: 4096))

@_cdecl("LLVMFuzzerTestOneInput")
public func mcpMessageFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: count))
    if let value = try? small.parse(bytes) {
        let written = JSONWriter.bytes(value)
        guard !written.contains(0x0A) else { fatalError("a written value holds a newline") }
        guard let again = try? StrictJSONParser().parse(written), again == value else { fatalError("a written value does not read back the same") }
        if let schema = try? ToolSchema(value) { _ = try? schema.check(value) }
    }
    guard let message = try? JSONRPCMessage(parsing: bytes, parser: small) else { return 0 }
    guard let again = try? JSONRPCMessage(parsing: message.encoded), again == message else {
        fatalError("an encoded message does not read back the same")
    }
    if case .result(_, let result) = message {
        for tool in result["tools"]?.arrayValue ?? [] {
            if let definition = try? MCPToolDefinition(tool), !MCPToolDefinition.isValidName(definition.name) { fatalError("a bad tool name read") }
        }
        if let output = try? MCPToolResult(result, maximumBytes: 512), output.text.utf8.count > 512 { fatalError("tool output past its bound") }
    }
    return 0
}
