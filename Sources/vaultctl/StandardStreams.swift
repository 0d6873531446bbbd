import CryptoVault
import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// stdin, stdout and stderr, written with write(2) through `FileDescriptor`. Foundation's
/// `FileHandle.write(_:)` traps when a write fails (`vaultctl status >/dev/full` died with SIGILL);
/// here a failed write is kept as the command's I/O error, and the dispatcher ends the command with
/// exit 74 once its work is done (the output a command committed stays committed). After the first
/// failure on a stream nothing more is written to it. A stream whose reader went away (`| head -1`)
/// is no error to report: the command ends quietly (`ReaderGone`).
///
/// A command runs with this process's own streams, or, when the daemon runs it for a client
/// (SECURITY.md §10.8), with the streams the client passed: `current` says which, per task.
enum StandardStreams {
    final class Streams: Sendable {
        let input: FileDescriptor
        let output: FileDescriptor
        let error: FileDescriptor
        /// False for a client's streams: their terminal is not this process's /dev/tty.
        let isOwn: Bool
        fileprivate let failures = Mutex<[Failure]>([])

        init(input: FileDescriptor, output: FileDescriptor, error: FileDescriptor, isOwn: Bool) {
            (self.input, self.output, self.error, self.isOwn) = (input, output, error, isOwn)
        }

        func isTerminal(_ stream: FileDescriptor) -> Bool { isatty(stream.rawValue) == 1 }

        func write(_ bytes: [UInt8], to stream: FileDescriptor) {
            guard !failures.withLock({ list in list.contains { $0.stream == stream.path } }) else { return }
            do {
                try bytes.withUnsafeBytes { try stream.write($0) }
            } catch {
                let reason = (error as? CryptoVaultError)?.message ?? "\(error)"
                let failure = Failure(stream: stream.path, reason: reason, readerGone: ReaderGone.after(writingTo: stream))
                failures.withLock { $0.append(failure) }
            }
        }
    }

    /// A stream's first failed write: which stream, why, and whether its reader had gone.
    fileprivate struct Failure {
        let stream: String
        let reason: String
        let readerGone: Bool
    }

    static let own = Streams(input: .standardInput, output: .standardOutput,
                             error: FileDescriptor(rawValue: STDERR_FILENO, path: "standard error", ownsDescriptor: false), isOwn: true)

    /// The streams of the command running in this task.
    @TaskLocal static var current: Streams = own

    static func writeOutput(_ bytes: [UInt8]) { current.write(bytes, to: current.output) }

    static func writeError(_ bytes: [UInt8]) { current.write(bytes, to: current.error) }

    /// The first write failure of each stream, in the order they happened ("standard output: No space left on device").
    static var failure: String? { current.failures.withLock { $0.first.map { "\($0.stream): \($0.reason)" } } }

    /// Whether writes failed only because their readers went away (`vaultctl audit log | head -1`).
    static var onlyReadersGone: Bool { current.failures.withLock { !$0.isEmpty && $0.allSatisfy(\.readerGone) } }
}
