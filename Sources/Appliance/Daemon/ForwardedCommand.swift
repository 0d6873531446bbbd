import CProcessHardening
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A command a local client asked the daemon to run with the vault it holds unlocked (SECURITY.md
/// §10.8), so that the client is not asked for the passphrase again. The client passed its standard
/// streams and working directory over the socket: the command reads and writes them as if it ran in
/// the client's process, in the client's directory, while its keys stay in the daemon.
public struct ForwardedCommand: Sendable {
    /// The command's path ("compartment create"), as the client named it.
    public let command: String
    /// The client's whole command line (after the program name), to be parsed again here.
    public let arguments: [String]
    public let input: FileDescriptor
    public let output: FileDescriptor
    public let error: FileDescriptor
    /// Who asked, by the kernel's record of the connection.
    public let client: PeerCredentials
    public let vault: UnlockedVault
    /// The daemon's privileged sessions: a command reads privileged content only through one.
    public let sessions: SessionRegistry

    /// Runs a forwarded command and returns its exit status. The face that starts the daemon
    /// (vaultctl) supplies it, since it knows the commands; the daemon only runs those it serves.
    public typealias Host = @Sendable (ForwardedCommand) -> Int32

    /// The descriptors a command request passes, in this order.
    static let descriptorCount = 4

    /// Takes the passed descriptors (input, output, error, directory) and enters the directory for
    /// this thread only: the daemon runs each request on a thread of its own, which ends with it.
    static func take(_ descriptors: [Int32], command: String, arguments: [String], client: PeerCredentials,
                     vault: UnlockedVault, sessions: SessionRegistry) throws -> ForwardedCommand {
        let owned = descriptors.enumerated().map { index, raw in
            FileDescriptor(rawValue: raw, path: ["standard input", "standard output", "standard error", "the working directory"][index],
                           ownsDescriptor: true)
        }
        guard process_hardening_enter_directory_for_thread(owned[3].rawValue) == 0 else {
            throw ApplianceError(.invalidRequest, "the client's working directory cannot be entered: \(String(cString: strerror(errno)))")
        }
        return ForwardedCommand(command: command, arguments: arguments, input: owned[0], output: owned[1], error: owned[2],
                                client: client, vault: vault, sessions: sessions)
    }
}
