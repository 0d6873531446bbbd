import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Where a command writes a result: a file, which appears only complete (temporary file, fsync,
/// rename; removed on failure), or a stream (standard output, a character device such as /dev/null,
/// a FIFO), which cannot take back what it already wrote. A device node or FIFO is written into and
/// never replaced; nothing but a regular file is ever replaced (SECURITY.md §6.6).
final class OutputTarget {
    let descriptor: FileDescriptor
    private let file: AtomicOutputFile?
    private(set) var bytesWritten: UInt64 = 0

    var isStandardOutput: Bool { file == nil && descriptor === StandardStreams.current.output }
    var name: String { file?.path ?? descriptor.path }

    /// `-o PATH`, `-o -`, or nothing (standard output). Refuses an existing file unless `force`, and
    /// a directory, socket, block device or dangling symbolic link always.
    init(_ option: String?, force: Bool) throws {
        guard let path = option, path != "-" else {
            descriptor = StandardStreams.current.output
            file = nil
            return
        }
        do {
            switch try OutputPath.classify(path) {
            case .stream(let device):
                descriptor = try OutputPath.openStream(device)
                file = nil
            case .absent(let target), .regularFile(let target):
                // A vaultctl killed while writing here left its temporary file (possibly plaintext): remove it now.
                for name in AtomicOutputFile.removeAbandonedTemporaries(besides: target) {
                    Output.note("vaultctl: removed \(name), left by an interrupted vaultctl")
                }
                let atomic = try AtomicOutputFile(path: target, replacing: force)
                file = atomic
                descriptor = atomic.descriptor
            }
        } catch let error as CryptoVaultError {
            throw Self.refusal(for: error) ?? error
        }
    }

    /// What the command says when `-o` cannot be written: a file that exists (and no --force), or
    /// something that is not a regular file, device or FIFO (exit 73, with what to do); nil for any
    /// other error. Shared with the commands whose library writes the file itself (`export`).
    static func refusal(for error: CryptoVaultError) -> CommandError? {
        switch error.code {
        case .fileExists:
            CommandError(message: error.message, exitCode: .cannotCreate, hint: "choose another -o, or add --force to replace it")
        case .notWritableOutput:
            CommandError(message: error.message, exitCode: .cannotCreate, hint: "give a new or regular file's path, or a device or FIFO to write into")
        default: nil
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws {
        try descriptor.write(bytes)
        bytesWritten += UInt64(bytes.count)
    }

    /// Removes a file output's temporary file; for standard output, says what was already released,
    /// unless its reader went away (`| head -c 100`), which ends the command quietly (`ReaderGone`).
    func abandon(_ error: Error) -> Error {
        if let file { file.abandon(); return error }
        if (error as? CryptoVaultError)?.code == .io, ReaderGone.after(writingTo: descriptor) { return Decided(exitCode: .readerGone) }
        guard bytesWritten > 0 else { return error }
        let message = (error as? CryptoVaultError)?.message ?? "\(error)"
        return CommandError(message: "\(message); \(bytesWritten) bytes had already been written to \(name) and cannot be taken back",
                            exitCode: (error as? CryptoVaultError).map(ExitCode.init(for:)) ?? .failure)
    }

    /// Runs `body` writing to this target, committing on success and cleaning up on failure.
    func produce(_ body: (OutputTarget) throws -> Void) throws {
        do {
            try body(self)
            try file?.commit()
        } catch {
            throw abandon(error)
        }
    }
}

/// A progress line on stderr, drawn only on a terminal and only for work of at least `threshold` bytes:
/// a tiny file is done before a bar could tell the user anything, and it would only leave a line behind.
/// With an unknown total, the bar appears once that much is done.
final class ProgressBar {
    static let threshold: UInt64 = 1 << 20
    let label: String
    let total: UInt64?
    private let enabled: Bool
    /// Taken when the bar is made: updates may come from worker threads, which do not see the task's streams.
    private let streams = StandardStreams.current
    private let start = VaultClock.system.date()
    private var drawn = false

    init(_ label: String, total: UInt64?) {
        self.label = label
        self.total = total
        enabled = streams.isTerminal(streams.error) && (total.map { $0 >= Self.threshold } ?? true)
    }

    func update(_ done: UInt64) {
        guard enabled, total != nil || done >= Self.threshold else { return }
        drawn = true
        let seconds = max(VaultClock.system.date().timeIntervalSince(start), 0.001)
        let rate = String(format: "%.0f MB/s", Double(done) / seconds / 1e6)
        var line = "\r\(label) \(done >> 20) MiB"
        if let total, total > 0 {
            let fraction = min(1, Double(done) / Double(total))
            let filled = Int(fraction * 30)
            line = "\r\(label) [\(String(repeating: "#", count: filled))\(String(repeating: " ", count: 30 - filled))] \(Int(fraction * 100))%"
        }
        streams.write(Array((line + "  " + rate + "   ").utf8), to: streams.error)
    }

    func finish() {
        guard drawn else { return }
        streams.write([0x0A], to: streams.error)
    }
}
