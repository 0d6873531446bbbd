import CryptoVault
import Foundation

/// The daemon's own log: what it says about itself goes to its standard output (the line that it
/// listens, which `serve --detach` waits for) and standard error (connections, warnings), which a
/// detached daemon sends to `daemon.log`. A failed write is dropped: the log never stops the daemon.
/// Nothing secret is ever written here.
public enum DaemonLog {
    private static let standardError = FileDescriptor(rawValue: 2, path: "standard error", ownsDescriptor: false)

    public static func line(_ text: String) { write(text, to: FileDescriptor.standardOutput) }

    public static func note(_ text: String) { write(text, to: standardError) }

    private static func write(_ text: String, to stream: FileDescriptor) {
        let bytes = Array((text + "\n").utf8)
        try? bytes.withUnsafeBytes { try stream.write($0) }
    }
}
