/// How to start one MCP server the owner added (`vaultctl ai mcp add NAME -- COMMAND ARGS…`): its
/// name in the registry and the command that runs it over stdio. Every tool it offers is treated as
/// `effect`: open-world unless the owner said otherwise, since a server is a program that can reach
/// anything its user can, and the annotations it gives its tools are its own claims, not ours.
public struct MCPServerConfiguration: Sendable, Equatable {
    public let name: String
    public let command: [String]
    public let effect: ToolEffect

    public static let maximumArguments = 64
    public static let maximumArgumentBytes = 4096

    public init(name: String, command: [String], effect: ToolEffect = .openWorld) throws(AgentsError) {
        guard Self.isValidName(name) else {
            throw AgentsError(.invalidServerConfiguration, "an MCP server name is 1 to 32 of a-z, 0-9 and '-', starting with a letter")
        }
        guard !command.isEmpty, command.count <= Self.maximumArguments, !command[0].isEmpty,
              command.allSatisfy({ $0.utf8.count <= Self.maximumArgumentBytes && !$0.utf8.contains(0) }) else {
            throw AgentsError(.invalidServerConfiguration,
                              "an MCP server's command is 1 to \(Self.maximumArguments) arguments of at most \(Self.maximumArgumentBytes) bytes, without NUL")
        }
        guard effect != .writesBranch else {
            throw AgentsError(.invalidServerConfiguration, "an MCP server's tools are read-only or open-world; only the vault's own tools write branches")
        }
        self.name = name
        self.command = command
        self.effect = effect
    }

    static func isValidName(_ name: String) -> Bool {
        let bytes = Array(name.utf8)
        guard (1...32).contains(bytes.count), let first = bytes.first, (0x61...0x7A).contains(first) else { return false }
        return bytes.allSatisfy { (0x61...0x7A).contains($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "-") }
    }
}
