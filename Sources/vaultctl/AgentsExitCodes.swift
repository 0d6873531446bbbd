import Agents

extension ExitCode {
    /// The Agents module's failures: a bad name or command is a usage error, a server that cannot
    /// be reached unavailable, a server that broke the protocol or its bounds bad data, a refusal
    /// by the funnel or the taint rule refused.
    init(for error: AgentsError) {
        switch error.code {
        case .invalidServerConfiguration, .invalidToolName, .invalidArguments: self = .usage
        case .mcpServerUnavailable, .mcpTimeout: self = .unavailable
        case .invalidJSON, .jsonTooLarge, .mcpProtocolViolation, .mcpTooLarge, .mcpUnsupportedVersion, .unsupportedSchema: self = .dataError
        case .egressRefused, .toolRefused: self = .refused
        case .unknownTool, .unknownAgent: self = .noInput
        case .duplicateTool: self = .cannotCreate
        case .mcpServerError: self = .failure
        }
    }
}
