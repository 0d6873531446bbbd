import CryptoVault
import Foundation
import Synchronization

/// stdout and stderr, written with write(2) through `FileDescriptor`. Foundation's
/// `FileHandle.write(_:)` traps when a write fails (`vaultctl status >/dev/full` died with SIGILL);
/// here a failed write is kept as the command's I/O error, and the dispatcher ends the command with
/// exit 74 once its work is done (the output a command committed stays committed). After the first
/// failure on a stream nothing more is written to it.
enum StandardStreams {
    private static let failures = Mutex<[String]>([])
    static let standardError = FileDescriptor(rawValue: STDERR_FILENO, path: "standard error", ownsDescriptor: false)

    static func writeOutput(_ bytes: [UInt8]) { write(bytes, to: FileDescriptor.standardOutput) }

    static func writeError(_ bytes: [UInt8]) { write(bytes, to: standardError) }

    /// The first write failure of each stream, in the order they happened ("standard output: No space left on device").
    static var failure: String? { failures.withLock { $0.first } }

    private static func write(_ bytes: [UInt8], to stream: FileDescriptor) {
        guard !failures.withLock({ list in list.contains { $0.hasPrefix(stream.path) } }) else { return }
        do {
            try bytes.withUnsafeBytes { try stream.write($0) }
        } catch {
            let reason = (error as? CryptoVaultError)?.message ?? "\(error)"
            failures.withLock { $0.append("\(stream.path): \(reason)") }
        }
    }
}
