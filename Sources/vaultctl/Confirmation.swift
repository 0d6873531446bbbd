import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The guard in front of a command that cannot be undone (destroy, retire, rm, replacing a recovery
/// key or split): a script says so with a flag (`--yes`, `--replace`); a person at a terminal types
/// YES, as cryptsetup asks; anything else is refused before the vault is touched.
enum Confirmation {
    /// Goes ahead when `confirmed` (the flag was given), or when a person at the terminal types YES
    /// after reading `consequence`. Without a terminal and without the flag: a usage error (exit 64).
    static func require(_ confirmed: Bool, flag: String, consequence: String) throws {
        if confirmed { return }
        // A command the daemon runs for a client has the client's streams but not its terminal
        // (/dev/tty would be the daemon's): it needs the flag.
        let streams = StandardStreams.current
        guard streams.isOwn, streams.isTerminal(streams.input), streams.isTerminal(streams.error) else {
            throw CommandError(message: "\(consequence); add \(flag) to confirm", exitCode: .usage)
        }
        let answer = try ask("\(consequence).\nType YES (in capitals) to go ahead: ")
        guard answer == "YES" else {
            throw CommandError(message: "not confirmed (you typed something other than YES); nothing was changed", exitCode: .usage)
        }
    }

    /// One line typed on the controlling terminal, with echo (it is not a secret).
    static func ask(_ question: String) throws -> String {
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard terminal >= 0 else { throw CommandError(message: "there is no terminal to confirm on", exitCode: .usage) }
        defer { close(terminal) }
        _ = write(terminal, question, question.utf8.count)
        var line: [UInt8] = []
        var byte: UInt8 = 0
        // Bounded: a confirmation is one short word.
        while line.count < 64 {
            let count = read(terminal, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 || byte == 0x0a { break }
            line.append(byte)
        }
        return String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
