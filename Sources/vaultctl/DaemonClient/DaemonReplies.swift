import Appliance
import Foundation

/// The client's reading of what the daemon streams and lists (SECURITY.md §10.6).
extension PlaintextStream {
    /// Receives data messages into `output` until the final message, which is returned.
    static func receive(from connection: ControlConnection, into output: OutputTarget, progress: ProgressBar) throws -> ControlMessage {
        while true {
            let message = try connection.receive()
            guard let data = message.bytes("data") else { return message }
            guard message.fields.count == 1 else {
                throw CommandError(message: "the daemon sent a data message with other fields", exitCode: .dataError)
            }
            try data.withUnsafeBytes { try output.write($0) }
            progress.update(output.bytesWritten)
        }
    }
}

extension SessionListing {
    /// The JSON a daemon sent, as a list of objects.
    static func parse(_ bytes: [UInt8]?) throws -> [[String: Any]] {
        guard let bytes, let list = try? JSONSerialization.jsonObject(with: Data(bytes)) as? [[String: Any]] else {
            throw CommandError(message: "the daemon's answer is not a list of sessions", exitCode: .dataError)
        }
        return list
    }
}
