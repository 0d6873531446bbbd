import Appliance
import AuditChain
import CryptoVault
import Foundation
import Sync
import Writing

/// One vaultctl subcommand, declared once: its path, what it takes, what it does, its options and
/// examples. The parser, `--help`, `vaultctl help CMD`, the man page and the shell completions are all
/// generated from this (see `Option` for how to declare an option, and `HelpText`).
struct Command: Sendable {
    let path: String            // "compartment create"
    let synopsis: String        // one line shown in the overview
    let usage: String           // what follows the path on the Usage line: "NAME --register REGISTER"
    let about: String           // the paragraphs under the Usage line
    let options: [Option]       // the command's own options (the global ones are added)
    let positionals: ClosedRange<Int>
    let printsJSON: Bool        // honours --json; without it --json is a usage error
    /// Why a command has no JSON output (it writes a file's bytes, or it is interactive), said when
    /// --json is refused.
    let noJSONReason: String
    let examples: [String]
    let run: @Sendable (ParsedArguments) throws -> Void

    /// Options every command accepts, before or after its name (`vaultctl --vault D ls`).
    static let vaultOption = Option("--vault", value: "DIR",
                                    "the vault directory (default: $VAULTCTL_VAULT, else $XDG_DATA_HOME/vaultctl/vault, "
                                    + "else ~/.local/share/vaultctl/vault)")
    static let jsonOption = Option("--json", "machine-readable output: one JSON document on stdout (keys in snake_case)")
    static let helpOption = Option("--help", "this text", aliases: ["-h"])

    init(_ path: String, synopsis: String, usage: String = "", about: String, options: [Option] = [],
         positionals: ClosedRange<Int> = 0...0, json: Bool = false, noJSON reason: String = "it prints no report",
         examples: [String], run: @escaping @Sendable (ParsedArguments) throws -> Void) {
        self.path = path
        self.synopsis = synopsis
        self.usage = usage
        self.about = about
        self.options = options
        self.positionals = positionals
        self.printsJSON = json
        self.noJSONReason = reason
        self.examples = examples
        self.run = run
    }

    /// The global options this command accepts: --json only where it means something.
    var globalOptions: [Option] { [Command.vaultOption] + (printsJSON ? [Command.jsonOption] : []) + [Command.helpOption] }

    /// What a command with no JSON output says to --json (exit 64); README.md quotes its start.
    static func jsonRefusal(_ path: String, _ reason: String) -> String {
        "\(path) has no JSON output (\(reason)); leave out --json"
    }

    /// Everything the parser accepts for this command.
    var allOptions: [Option] { options + globalOptions }

    /// "Usage: vaultctl seal --compartment NAME [FILE|-] [OPTIONS]"
    var usageLine: String { "Usage: vaultctl \(path)\(usage.isEmpty ? "" : " " + usage) [OPTIONS]" }

    func parse(_ arguments: [String]) throws -> ParsedArguments {
        let refused = printsJSON ? [:] : ["--json": Self.jsonRefusal(path, noJSONReason)]
        return try ParsedArguments.parse(arguments, options: allOptions, positionals: positionals, usage: usageLine, refusing: refused)
    }
}

/// Where the vault is, from --vault or the environment.
enum VaultLocation {
    /// The folder a command opens: the vault's, or its copy in memory when its writing store cannot
    /// be opened (`InMemoryMode`).
    static func directory(_ arguments: ParsedArguments) -> String {
        let real = realDirectory(arguments)
        // A copy repair kept is opened read-only or not at all (`KeptCopies`): never checked (the check
        // opens the database read-write) nor copied into memory.
        // `doc show|list --read-only` read it from this process's copy in memory (`KeptCopies.read`).
        if DamagedStoreCopy.isKeptCopy(real) { return InMemoryMode.copy(of: real) ?? real }
        return InMemoryMode.directory(for: real)
    }

    /// The vault's own folder, whatever state its writing store is in.
    static func realDirectory(_ arguments: ParsedArguments) -> String {
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
        let vault = try Vault.open(at: directory(arguments), journal: AuditLog(), upgrade: upgrade, modules: VaultModules.all)
        OpenedVaults.shared.add(vault)
        return vault
    }

    /// Opens the vault without writing anything to it (no audit entry, no checkpoint, no migration),
    /// so a copy or a restored backup is verified as it is.
    static func openReadOnly(_ arguments: ParsedArguments) throws -> Vault {
        try Vault.openReadOnly(at: directory(arguments), modules: VaultModules.all)
    }

    /// `prompt` is what the terminal asks when no credential option is given.
    /// In the daemon, running a client's command, the daemon's vault (SECURITY.md §10.8).
    static func unlock(_ arguments: ParsedArguments, upgrade: Bool = true, prompt: String = "Passphrase: ") throws -> UnlockedVault {
        if let served = try CommandHost.vault(for: arguments) { return served }
        return try unlock(try open(arguments, upgrade: upgrade), arguments, prompt: prompt)
    }

    /// Unlocks `vault` and says on stderr what the unlock skipped (a refused keyslot row, a KDF
    /// policy it could not trust): the owner gets in, and learns the vault was tampered with.
    static func unlock(_ vault: Vault, _ arguments: ParsedArguments, prompt: String = "Passphrase: ") throws -> UnlockedVault {
        let unlocked = try vault.unlock(with: try Credentials.credential(from: arguments, prompt: prompt))
        for warning in unlocked.unlockWarnings { Output.note("vaultctl: warning: \(warning)") }
        DamagedTrustNotice.print(vault)
        DamagedSealedRecordNotice.print(vault)
        for problem in VaultSync.DamagedRows.problems(of: unlocked) { Output.note("vaultctl: warning: \(problem)") }
        for damage in (try? unlocked.transaction { tx in try WritingStore(tx).damagedProjects() }) ?? [] {
            Output.note("vaultctl: warning: \(damage.warning)")
        }
        for warning in (try? unlocked.vault.read { DamagedWritingRow.warnings(in: $0) }) ?? [] { Output.note("vaultctl: warning: \(warning)") }
        return unlocked
    }

    /// Warns of every project whose rows link elsewhere (`DamagedLink`). Only where every project is
    /// listed anyway (`project list`, `sync status`): checking the whole vault's links at every
    /// unlock cost each command about as much again as its own work; every other command checks
    /// only the project it names (`WritingStore.project`), and refuses it when damaged.
    static func warnOfDamagedLinks(_ unlocked: UnlockedVault) {
        for damage in (try? unlocked.transaction { tx in try WritingStore(tx).linkDamages() }) ?? [] {
            Output.note("vaultctl: warning: \(damage.warning)")
        }
    }
}

/// Human output goes to stdout, notes and progress to stderr; `--json` prints one JSON document.
/// On a terminal, human output never carries a control character but tab and line feed
/// (`TerminalText`): a document's words are printed by these, whoever wrote them.
enum Output {
    static func line(_ text: String = "") {
        raw(text + "\n")
    }

    /// Text written as is (a signed note, which ends in its own newline; a document's text), but
    /// for a terminal's control characters.
    static func raw(_ text: String) {
        let streams = StandardStreams.current
        StandardStreams.writeOutput(Array((streams.isTerminal(streams.output) ? TerminalText.shown(text) : text).utf8))
    }

    static func note(_ text: String) {
        let streams = StandardStreams.current
        StandardStreams.writeError(Array(((streams.isTerminal(streams.error) ? TerminalText.shown(text) : text) + "\n").utf8))
    }

    /// Progress on stderr, with no newline (the line is redrawn with a carriage return).
    static func progress(_ text: String) {
        StandardStreams.writeError(Array(text.utf8))
    }

    static func json(_ value: Any) {
        var value = value
        if let reason = InMemoryMode.reason, var object = value as? [String: Any] {
            object["in_memory"] = reason
            value = object
        }
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        StandardStreams.writeOutput([UInt8](data) + [0x0A])
    }

    /// A JSON document on stderr, for a command whose stdout carries something else (egress check -o -).
    static func jsonNote(_ value: Any) {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys])) ?? Data("{}".utf8)
        StandardStreams.writeError([UInt8](data) + [0x0A])
    }

    static func timestamp(_ seconds: Int64) -> String { Timestamp.text(seconds) }
}
