import CryptoVault

/// A bounded reader over a witness message: every read checks the bytes are there, every count and
/// length is checked against its cap before anything is allocated, and `requireEnd` refuses trailing
/// bytes. Every failure is `.malformedWitnessMessage`.
struct WitnessWireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    static func malformed(_ what: String) -> PeerChannelError {
        PeerChannelError(.malformedWitnessMessage, "the witness message is malformed: \(what)")
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }

    mutating func bytes(_ count: Int) throws(PeerChannelError) -> [UInt8] {
        guard count <= bytes.count - offset else { throw Self.malformed("it ends early") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func byte() throws(PeerChannelError) -> UInt8 { try bytes(1)[0] }

    mutating func integer(_ width: Int) throws(PeerChannelError) -> UInt64 {
        try bytes(width).reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// A length of `lengthBytes` bytes, from 1 to `maximum`, then that many bytes.
    mutating func field(lengthBytes: Int, maximum: Int, _ what: String) throws(PeerChannelError) -> [UInt8] {
        let length = try integer(lengthBytes)
        guard length >= 1, length <= UInt64(maximum) else { throw Self.malformed("\(what) of \(length) bytes (1 to \(maximum))") }
        return try bytes(Int(length))
    }

    mutating func list<Element>(count: UInt64, maximum: Int, _ what: String,
                                _ element: (inout WitnessWireReader) throws(PeerChannelError) -> Element) throws(PeerChannelError) -> [Element] {
        guard count <= UInt64(maximum) else { throw Self.malformed("\(count) \(what), more than \(maximum)") }
        var elements: [Element] = []
        for _ in 0..<count { elements.append(try element(&self)) }
        return elements
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    func requireEnd() throws(PeerChannelError) {
        guard offset == bytes.count else { throw Self.malformed("\(bytes.count - offset) bytes after its end") }
    }
}
