import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads passphrases and other secrets straight into `SecureBytes`, one byte at a time, so nothing
/// beyond the first line is consumed and no copy lands in an ordinary Swift buffer.
/// Secrets come from the terminal (echo off) or a file descriptor; never from argv or the environment.
enum SecretInput {
    static let maximumLength = 1024

    /// The first line of `path` (`-` means standard input: the client's, when the daemon runs the
    /// command for it, §10.8), without its line ending.
    static func firstLine(ofFile path: String, what: String) throws -> SecureBytes {
        if path == "-" { return try readLine(from: StandardStreams.current.input.rawValue, what: what) }
        let descriptor = try openForReading(path, what: what)
        defer { close(descriptor) }
        return try readLine(from: descriptor, what: what)
    }

    /// At most `maximumSize` bytes of `path`, read straight into locked memory.
    static func wholeFile(_ path: String, what: String, maximumSize: Int) throws -> SecureBytes {
        let descriptor = try openForReading(path, what: what)
        defer { close(descriptor) }
        let buffer = try SecureBytes(count: maximumSize)
        var length = 0
        while length < maximumSize {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + length, maximumSize - length) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CommandError(message: "cannot read the \(what) file \(path): \(String(cString: strerror(errno)))", exitCode: .ioError) }
            if count == 0 { break }
            length += count
        }
        return try buffer.slice(0..<length)
    }

    private static func openForReading(_ path: String, what: String) throws -> Int32 {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw CommandError(message: "cannot read the \(what) file \(path): \(String(cString: strerror(errno)))",
                               exitCode: errno == ENOENT ? .noInput : .ioError)
        }
        return descriptor
    }

    /// Asks on the controlling terminal with echo turned off.
    static func prompt(_ question: String) throws -> SecureBytes {
        let terminal = open("/dev/tty", O_RDWR | O_CLOEXEC | O_NOCTTY)
        guard terminal >= 0 else {
            throw CommandError(message: "there is no terminal to ask for the passphrase",
                               exitCode: .usage, hint: "pass --passphrase-file PATH (or - for standard input)")
        }
        defer { close(terminal) }
        write(terminal, question, question.utf8.count)
        var saved = termios()
        let hasTerminalSettings = tcgetattr(terminal, &saved) == 0
        if hasTerminalSettings {
            var silent = saved
            silent.c_lflag &= ~tcflag_t(ECHO)
            tcsetattr(terminal, TCSAFLUSH, &silent)
        }
        defer {
            if hasTerminalSettings { tcsetattr(terminal, TCSAFLUSH, &saved) }
            write(terminal, "\n", 1)
        }
        return try readLine(from: terminal, what: "passphrase")
    }

    static func readLine(from descriptor: Int32, what: String) throws -> SecureBytes {
        let buffer = try SecureBytes(count: maximumLength)
        var length = 0
        var byte: UInt8 = 0
        while true {
            let count = read(descriptor, &byte, 1)
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { throw CommandError(message: "cannot read the \(what): \(String(cString: strerror(errno)))", exitCode: .ioError) }
            if count == 0 || byte == 0x0a { break }
            guard length < maximumLength else {
                throw CommandError(message: "the \(what) is longer than \(maximumLength) bytes", exitCode: .dataError)
            }
            buffer.withUnsafeMutableBytes { $0[length] = byte }
            length += 1
        }
        byte = 0
        if length > 0, buffer.withUnsafeBytes({ $0[length - 1] }) == 0x0d { length -= 1 }
        return try buffer.slice(0..<length)
    }
}
