import Foundation

/// Where the daemon of a vault listens: `--socket PATH`, else `daemon.sock` in the vault directory
/// (which only the owner can enter, so the socket inherits that protection as well as its own 0600).
enum DaemonSocket {
    static let option = Option("--socket", value: "PATH", "the daemon's socket (default: daemon.sock in the vault directory)")

    static func path(_ arguments: ParsedArguments) -> String {
        arguments.value("--socket") ?? VaultLocation.realDirectory(arguments) + "/daemon.sock"
    }
}
