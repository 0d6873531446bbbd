import CryptoVault

/// The one error type of Agents: a code that tests and callers match on, and a message for people.
/// Messages name what failed (a tool, a server, a limit) but never quote a tool's arguments or its
/// output, which may carry privileged text; equality compares codes only.
public typealias AgentsError = CodedError<AgentsErrorCode>

/// What went wrong, for callers and tests to match on.
public enum AgentsErrorCode: String, Sendable {
    // MARK: JSON

    /// Bytes that are not one JSON value in the strict grammar (RFC 8259, UTF-8, no duplicate keys).
    case invalidJSON
    /// JSON past a bound: size, nesting depth, members, string length.
    case jsonTooLarge

    // MARK: Tools

    /// A tool name that is empty, longer than 64, or has characters outside [A-Za-z0-9_-] (the names
    /// chat-completions providers accept for functions).
    case invalidToolName
    /// A tool registered twice under one name.
    case duplicateTool
    /// No tool of that name in the registry.
    case unknownTool
    /// An input schema outside the subset the registry checks (SECURITY.md §18.1).
    case unsupportedSchema
    /// Arguments that do not match the tool's input schema.
    case invalidArguments
    /// A call refused by the task's rules: a lane that read privileged and untrusted content asked
    /// for an open-world tool, or a tool the agent may not use.
    case toolRefused
    /// The egress funnel refused the call's arguments, or redacting them broke their JSON.
    case egressRefused

    // MARK: Agents

    /// No agent of that name, or none at all where one is needed.
    case unknownAgent

    // MARK: MCP

    /// The MCP server could not be started, or stopped answering (exited, closed its output).
    case mcpServerUnavailable
    /// The server broke the protocol: a message that is not JSON-RPC 2.0, a response to a request
    /// never sent, a result of the wrong shape, a request it may not make.
    case mcpProtocolViolation
    /// A message, a list, or a tool's output past the bridge's bounds.
    case mcpTooLarge
    /// No answer within the bridge's time.
    case mcpTimeout
    /// The server and this client share no protocol revision.
    case mcpUnsupportedVersion
    /// The server answered with a JSON-RPC error or a tool result marked as an error.
    case mcpServerError
    /// An MCP server configuration that is not valid (name, command).
    case invalidServerConfiguration
}
