import Appliance
import CryptoVault
import Foundation
import PrivilegedSession
import PeerChannel

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
        ServeCommand.command, SessionCommands.start, SessionCommands.list, SessionCommands.end,
        DeviceCommand.command, PairCommands.host, PairCommands.join, PeersCommands.list, PeersCommands.revoke,
        PeerChannelCommands.ping, PeerChannelCommands.discover, ReplicationCommands.replicate, ReplicationCommands.restore,
        DemoCommand.command,
    ]

    static let overview: String = {
        let list = commands.map { "  \($0.spec.path.padding(toLength: 22, withPad: " ", startingAt: 0)) \($0.spec.synopsis)" }
        return """
            Usage: vaultctl COMMAND [OPTIONS]

            A sealed vault for privileged notes and files, with an audit trail.

            Commands:
            \(list.joined(separator: "\n"))

            Run 'vaultctl COMMAND --help' for a command's options.

            \(ExitCode.documentation)
            """
    }()

    static func run(_ arguments: [String]) -> ExitCode {
        guard let first = arguments.first, first != "--help", first != "-h", first != "help" else {
            if arguments.isEmpty { Output.note(overview); return withWriteFailures(.usage) }
            Output.line(overview)
            return withWriteFailures(.success)
        }
        guard let (command, rest) = find(arguments) else {
            return report(UsageError(message: "unknown command '\(arguments.prefix(2).joined(separator: " "))'", usage: overview))
        }
        if rest.contains("--help") || rest.contains("-h") {
            Output.line(command.spec.usage)
            return withWriteFailures(.success)
        }
        let outcome: ExitCode
        do {
            let parsed = try ParsedArguments.parse(rest, spec: command.spec)
            // The checkpoint is signed (and any warning about it written) before the outcome is decided.
            defer { OpenedVaults.shared.finishAll() }
            try command.run(parsed)
            outcome = .success
        } catch {
            outcome = report(error)
        }
        return withWriteFailures(outcome)
    }

    /// A command whose output could not be written did not do what was asked: it ends with exit 74
    /// (unless it already failed for a reason of its own, which stays its code).
    static func withWriteFailures(_ code: ExitCode) -> ExitCode {
        guard let failure = StandardStreams.failure, code == .success else { return code }
        Output.note("vaultctl: error: cannot write the output: \(failure)")
        return .ioError
    }

    /// The longest command path ("compartment create") that prefixes the arguments.
    private static func find(_ arguments: [String]) -> (Command, [String])? {
        for command in commands.sorted(by: { $0.spec.path.count > $1.spec.path.count }) {
            let words = command.spec.path.split(separator: " ").map(String.init)
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
        case let appliance as ApplianceError:
            self.init(message: appliance.message, hint: ExitCode.hint(for: appliance), exitCode: ExitCode(for: appliance))
        default:
            self.init(message: "\(error)", exitCode: .failure)
        }
    }
}