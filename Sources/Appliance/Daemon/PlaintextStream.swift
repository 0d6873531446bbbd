import Foundation

/// How the daemon hands plaintext to a local client (SECURITY.md §10.6): data messages of at most
/// 1 MiB, then one final message that says whether all of it verified. The client commits its output
/// only on a final success, exactly as a local read does.
public enum PlaintextStream {
    public static let pieceSize = 1 << 20

    /// Runs `produce`, sending each buffer it yields as data messages; then the final message.
    public static func send(over connection: ControlConnection,
                     _ produce: (_ sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        var sent: UInt64 = 0
        try produce { bytes in
            var offset = 0
            while offset < bytes.count {
                let end = min(bytes.count, offset + pieceSize)
                // Straight from the reader's (locked) buffer to the socket: a copy in an ordinary
                // array would leave privileged plaintext in the daemon's heap after the session.
                try connection.send(head: dataHead(count: end - offset), tail: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
                offset = end
            }
            sent += UInt64(bytes.count)
        }
        var done = ControlMessage.success()
        done.set("bytes", "\(sent)")
        try connection.send(done)
    }

    /// The encoding of a message of one field `data` up to its value (§10.6): field count 1, the
    /// name's length and bytes, the value's u32 big-endian length.
    public static func dataHead(count: Int) -> [UInt8] {
        let length = UInt32(count)
        return [1, 4] + Array("data".utf8) + [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
    }
}
