import Appliance
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The daemon's side of a forwarded command (SECURITY.md §10.8): the same dispatcher as a command
/// run here, with the client's streams as this task's standard streams and the daemon's unlocked
/// vault as the one `VaultLocation.unlock` returns, so the command does exactly what it would do in
/// the client's process, and records it the same way.
enum CommandHost {
    /// The forwarded command running in this task, if any.
    @TaskLocal static var current: ForwardedCommand?

    @Sendable static func run(_ forwarded: ForwardedCommand) -> Int32 {
        let streams = StandardStreams.Streams(input: forwarded.input, output: forwarded.output, error: forwarded.error, isOwn: false)
        return StandardStreams.$current.withValue(streams) {
            $current.withValue(forwarded) {
                guard let (command, _) = Dispatcher.find(forwarded.arguments.filter { !$0.hasPrefix("-") }),
                      command.path == forwarded.command, DaemonForwarding.served.contains(command.path) else {
                    Output.note("vaultctl: error: the daemon does not run '\(forwarded.command)' for a client")
                    return ExitCode.usage.rawValue
                }
                return Dispatcher.run(forwarded.arguments).rawValue
            }
        }
    }

    /// The daemon's vault, for a command it runs, once the command line is checked to name it.
    static func vault(for arguments: ParsedArguments) throws -> UnlockedVault? {
        guard let forwarded = current else { return nil }
        let named = VaultLocation.directory(arguments)
        guard let resolved = realpath(named, nil) else {
            throw CryptoVaultError(.notAVault, "\(named) is not a vault: \(String(cString: strerror(errno)))")
        }
        defer { free(resolved) }
        guard let served = realpath(forwarded.vault.vault.directory, nil) else {
            throw CryptoVaultError(.notAVault, "the daemon's vault directory is gone")
        }
        defer { free(served) }
        guard strcmp(resolved, served) == 0 else {
            throw CommandError(message: "the daemon on this socket serves another vault (\(String(cString: served)))", exitCode: .usage,
                               hint: "give the --socket of the daemon that serves \(named), or a credential to unlock it here")
        }
        return forwarded.vault
    }
}
