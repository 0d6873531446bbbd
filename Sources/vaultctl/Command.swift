import AuditChain
import CryptoVault
import Foundation

/// One vaultctl subcommand: its spec (options, usage) and what it does.
struct Command: Sendable {
    let spec: CommandSpec
    let run: @Sendable (ParsedArguments) throws -> Void

    /// Options every command accepts in addition to its own.
    static let commonOptions: [OptionSpec] = [
        OptionSpec(name: "--vault", kind: .value),
        OptionSpec(name: "--json", kind: .flag),
        OptionSpec(name: "--help", kind: .flag),
    ]

    static let commonHelp = """
          --vault DIR   the vault directory (default: $VAULTCTL_VAULT, else
                        $XDG_DATA_HOME/vaultctl/vault, else ~/.local/share/vaultctl/vault)
          --json        machine-readable output on stdout
          --help        this text
        """

    init(_ path: String, synopsis: String, usage: String, options: [OptionSpec] = [], positionals: ClosedRange<Int> = 0...0,
         run: @escaping @Sendable (ParsedArguments) throws -> Void) {
        self.spec = CommandSpec(path: path, synopsis: synopsis, usage: usage + "\n" + Command.commonHelp,
                                options: options + Command.commonOptions, positionals: positionals)
        self.run = run
    }
}

/// Where the vault is, from --vault or the environment.
enum VaultLocation {
    static func directory(_ arguments: ParsedArguments) -> String {
        if let explicit = arguments.value("--vault") { return explicit }
        let environment = ProcessInfo.processInfo.environment
        if let fromEnvironment = environment["VAULTCTL_VAULT"], !fromEnvironment.isEmpty { return fromEnvironment }
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") { return data + "/vaultctl/vault" }
        return NSHomeDirectory() + "/.local/share/vaultctl/vault"
    }

    /// Opens the vault with the audit log as its journal, and remembers it so the dispatcher can
    /// close the command with a checkpoint.
    /// `upgrade: false` is for the read-only commands (`status`, `audit verify`, `audit log`): they
    /// never migrate an older vault, they say to run a write command (exit 65).
    static func open(_ arguments: ParsedArguments, upgrade: Bool = true) throws -> Vault {
        let vault = try Vault.open(at: directory(arguments), journal: AuditLog(), upgrade: upgrade)
        OpenedVaults.shared.add(vault)
        return vault
    }

    static func unlock(_ arguments: ParsedArguments, upgrade: Bool = true) throws -> UnlockedVault {
        let vault = try open(arguments, upgrade: upgrade)
        return try vault.unlock(with: try Credentials.credential(from: arguments))
    }
}

/// Human output goes to stdout, notes and progress to stderr; `--json` prints one JSON document.
enum Output {
    static func line(_ text: String = "") {
        StandardStreams.writeOutput(Array((text + "\n").utf8))
    }

    /// Text written as is (a signed note, which ends in its own newline).
    static func raw(_ text: String) {
        StandardStreams.writeOutput(Array(text.utf8))
    }

    static func note(_ text: String) {
        StandardStreams.writeError(Array((text + "\n").utf8))
    }

    /// Progress on stderr, with no newline (the line is redrawn with a carriage return).
    static func progress(_ text: String) {
        StandardStreams.writeError(Array(text.utf8))
    }

    static func json(_ value: Any) {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        StandardStreams.writeOutput([UInt8](data) + [0x0A])
    }

    static func timestamp(_ seconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }
}
