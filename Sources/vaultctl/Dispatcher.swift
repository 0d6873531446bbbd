import Assistant
import Agents
import Appliance
import CryptoVault
import Foundation
import PrivilegedSession
import PeerChannel
import Writing
import Sync

/// Finds the command named on the command line, parses its options, runs it, and turns every error
/// into a `vaultctl:` message on stderr and an exit code.
enum Dispatcher {
    static let commands: [Command] = [
        InitCommand.command, StatusCommand.command, UnlockCommand.command, PasswdCommand.command,
        RecoveryCommands.createKey, RecoveryCommands.split,
        CompartmentCommands.create, CompartmentCommands.list, CompartmentCommands.rotate, CompartmentCommands.retire,
        CompartmentCommands.destroy, StoreCommands.rewrap,
        BundleCommands.seal, BundleCommands.open, BundleCommands.inspect,
        StoreCommands.put, StoreCommands.get, StoreCommands.list, StoreCommands.remove,
        AuditCommands.log, AuditCommands.verify, AuditCommands.export, AuditCommands.verifyExport,
        AuditCommands.key, AuditCommands.checkpoint, ProofCommands.prove, ProofCommands.consistency,
        ProofCommands.checkInclusion, ProofCommands.checkConsistency, AuditCommands.hash, AuditWitnessCommand.command,
        ShareCommand.command, ShareCommand.revoke, EgressCommands.check, EgressCommands.log,
        ServeCommand.command, ConsoleLaunch.attach, SessionCommands.start, SessionCommands.list, SessionCommands.end,
        DeviceCommand.command, DeviceCommand.rename, PairCommands.host, PairCommands.join, PeersCommands.list, PeersCommands.revoke, PeersCommands.trust,
        PeerChannelCommands.ping, PeerChannelCommands.discover, ReplicationCommands.replicate, ReplicationCommands.restore,
        BackupCommands.backup, BackupCommands.verify, BackupCommands.restore,
        RecoverCommand.recover, RecoverCommand.push, RecoverCommand.host,
        DemoCommand.command,
    ] + ProjectCommands.all + DocCommands.all + SnapshotCommands.all + [SnapshotDiffCommand.command] + BranchCommands.all + [ConflictsCommand.command,
        LexiconCommand.command, TemplateCommands.list, TemplateCommands.use, SearchCommand.command,
        SnippetCommands.list, SnippetCommands.insert,
        ExportCommand.command,
        ActivityCommand.command,
        SyncCommands.now, SyncCommands.status, SyncCommands.pause, SyncCommands.resume, RepairCommands.repair, CompactCommand.command,
        ImportCommand.command,
    ] + ProjectSnapshotCommands.all + EntryCommands.all + AgentCommands.all + AICommands.all

    static let overview = HelpText.overview(commands, exitCodes: ExitCode.documentation)

    static func run(_ arguments: [String]) -> ExitCode {
        let outcome: ExitCode
        do {
            outcome = try dispatch(arguments)
        } catch {
            outcome = report(error)
        }
        return withWriteFailures(outcome)
    }

    /// A command whose output could not be written did not do what was asked: it ends with exit 74
    /// (unless it already failed for a reason of its own, which stays its code). One whose reader
    /// went away (`| head -1`) did its work, and ends quietly with 141 (`ReaderGone`).
    static func withWriteFailures(_ code: ExitCode) -> ExitCode {
        guard let failure = StandardStreams.failure, code == .success else { return code }
        if StandardStreams.onlyReadersGone { return .readerGone }
        Output.note("vaultctl: error: cannot write the output: \(failure)")
        return .ioError
    }

    private static func dispatch(_ arguments: [String]) throws -> ExitCode {
        guard !arguments.isEmpty else {
            Output.note(overview)
            return .usage
        }
        let (globals, words) = try GlobalOptions.split(arguments)
        if globals.contains("--version") {
            Output.line("vaultctl \(VaultctlVersion.current)")
            return .success
        }
        if words == ["help", "--man"] { Output.line(Generated.manPage(commands, exitCodes: ExitCode.documentation)); return .success }
        if words.first == "completion", words.count == 2, ["bash", "zsh"].contains(words[1]) {
            Output.line(words[1] == "bash" ? Generated.bash(commands) : Generated.zsh(commands))
            return .success
        }
        if words.first == "help" { return try help(Array(words.dropFirst())) }
        guard !words.isEmpty else {
            if globals.contains("--help") || globals.contains("-h") { Output.line(overview); return .success }
            throw UsageError(message: "missing command", usage: overview)
        }
        guard let (command, rest) = find(words) else {
            throw UsageError(message: "unknown command '\(words.prefix(2).joined(separator: " "))'", usage: overview)
        }
        let all = globals + rest
        if all.contains("--help") || all.contains("-h") {
            Output.line(HelpText.usage(of: command))
            return .success
        }
        let parsed = try command.parse(all)
        try KeptCopies.refuseOpening(command.path, parsed)
        try InMemoryMode.gate(command.path, parsed)
        if let code = try DaemonForwarding.forward(command, parsed, arguments: arguments) { return code }
        // The checkpoint is signed (and any warning about it written) before the outcome is decided.
        defer { OpenedVaults.shared.finishAll() }
        try command.run(parsed)
        return .success
    }

    /// `vaultctl help` (the overview) and `vaultctl help COMMAND` (that command's --help).
    private static func help(_ words: [String]) throws -> ExitCode {
        guard !words.isEmpty else { Output.line(overview); return .success }
        guard let (command, rest) = find(words), rest.isEmpty else {
            throw UsageError(message: "no command '\(words.joined(separator: " "))' to show help for", usage: overview)
        }
        Output.line(HelpText.usage(of: command))
        return .success
    }

    /// The longest command path ("compartment create") that prefixes the arguments.
    static func find(_ arguments: [String]) -> (Command, [String])? {
        for command in commands.sorted(by: { $0.path.count > $1.path.count }) {
            let words = command.path.split(separator: " ").map(String.init)
            if Array(arguments.prefix(words.count)) == words {
                return (command, Array(arguments.dropFirst(words.count)))
            }
        }
        return nil
    }

    static func report(_ error: Error) -> ExitCode {
        if let decided = error as? Decided { return decided.exitCode }
        if let usage = error as? UsageError {
            Output.note("vaultctl: error: \(usage.message)")
            if let synopsis = usage.usage.split(separator: "\n").first { Output.note(String(synopsis)) }
            return .usage
        }
        let failure = FailureReport(error)
        Output.note("vaultctl: error: \(failure.message)")
        if let hint = failure.hint { Output.note("hint: \(hint)") }
        return failure.exitCode
    }
}

/// What vaultctl says of an error, and the exit code it ends with: the same whether the command
/// failed in this process or in the daemon that answered it.
struct FailureReport {
    let message: String
    let hint: String?
    let exitCode: ExitCode

    init(message: String, hint: String? = nil, exitCode: ExitCode) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    init(_ error: Error) {
        switch error {
        case let decided as Decided:
            self.init(message: "decided", exitCode: decided.exitCode)
        case let usage as UsageError:
            self.init(message: usage.message, exitCode: .usage)
        case let command as CommandError:
            self.init(message: command.message, hint: command.hint, exitCode: command.exitCode)
        case let peer as PeerChannelError:
            self.init(message: peer.message, hint: peer.code == .wrongPairingCode
                      ? "check the code with the other person; after 3 failed attempts the host must show a new one" : nil,
                      exitCode: ExitCode(for: peer))
        case let vault as CryptoVaultError:
            self.init(message: vault.message, exitCode: ExitCode(for: vault))
        case let session as PrivilegedSessionError:
            self.init(message: session.message, exitCode: ExitCode(for: session))
        case let writing as WritingError:
            self.init(message: writing.message, hint: ExitCode.hint(for: writing), exitCode: ExitCode(for: writing))
        case let refusal as WritingVocabulary.Refusal:
            self.init(message: refusal.message, hint: refusal.hint, exitCode: ExitCode(for: refusal.error))
        case let appliance as ApplianceError:
            self.init(message: appliance.message, hint: ExitCode.hint(for: appliance), exitCode: ExitCode(for: appliance))
        case let agents as AgentsError:
            self.init(message: agents.message, exitCode: ExitCode(for: agents))
        case let assistant as AssistantError:
            self.init(message: assistant.message, exitCode: ExitCode(for: assistant))
        case let exchange as SyncExchangeError:
            self.init(message: exchange.message, hint: ExitCode.hint(for: exchange), exitCode: ExitCode(for: exchange))
        case let sync as SyncError:
            self.init(message: sync.message, exitCode: .dataError)
        case let peer as SyncPeerFailure:
            // The peer refused for a reason of its own change records or sync state (its damage is
            // mended there): said as the peer's words, never as a Swift value (reviewer 13).
            let damaged = peer.code == .damagedSyncState || peer.code == .damagedProject
            self.init(message: peer.message, hint: damaged ? "the other device's sync state is damaged: 'vaultctl repair' on that device mends it" : nil,
                      exitCode: .dataError)
        case let repair as RepairError:
            self.init(message: repair.message, exitCode: ExitCode(for: repair))
        default:
            self.init(message: "\(error)", exitCode: .failure)
        }
    }
}