import Assistant
import CryptoVault
#if canImport(Glibc)
import Glibc
#endif

/// The values of a provider's headers (`ai providers add --header NAME`): read from standard input,
/// one line per header in the order given, straight into locked memory; on a terminal each is asked
/// with echo off. Never from argv or the environment, so no value is in `ps`, a shell history or an
/// audit field. With `--passphrase-file -` the passphrase is standard input's first line and the
/// values follow it. In the daemon (SECURITY.md §10.8) the streams are the client's.
enum ProviderHeaderInput {
    static func headers(named names: [String]) throws -> [ProviderConfiguration.Header] {
        try names.map { name in try ProviderConfiguration.Header(name: name, value: try value(of: name)) }
    }

    private static func value(of name: String) throws -> SecureBytes {
        let input = StandardStreams.current.input.rawValue
        guard isatty(input) == 1 else { return try nonEmpty(try SecretInput.readLine(from: input, what: "value of header \(name)"), name) }
        StandardStreams.writeError(Array("Value of header \(name) (not shown): ".utf8))
        var saved = termios()
        let hasSettings = tcgetattr(input, &saved) == 0
        if hasSettings {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(input, TCSAFLUSH, &silent)
        }
        defer {
            if hasSettings { tcsetattr(input, TCSAFLUSH, &saved) }
            StandardStreams.writeError([0x0A])
        }
        return try nonEmpty(try SecretInput.readLine(from: input, what: "value of header \(name)"), name)
    }

    private static func nonEmpty(_ value: SecureBytes, _ name: String) throws -> SecureBytes {
        guard value.count > 0 else {
            throw CommandError(message: "no value for header \(name): give one line per --header on standard input", exitCode: .usage)
        }
        return value
    }
}
