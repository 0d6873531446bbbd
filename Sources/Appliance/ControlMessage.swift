/// One message between a local client and the daemon (SECURITY.md §10.6): named fields with byte
/// values, in the order they were added. The encoding is strict so that every parse has one answer:
///
///     u8  field count (0...32)
///     per field: u8 name length (1...32), name (ASCII a-z, 0-9, '.', '-', '_'), u32 BE value length, value
///
/// with no repeated name and nothing after the last field. A whole message is at most
/// `maximumEncodedSize` bytes.
public struct ControlMessage: Sendable, Equatable {
    public static let maximumFields = 32
    public static let maximumNameLength = 32
    /// Room for one data chunk (1 MiB) and its field header.
    public static let maximumEncodedSize = (1 << 20) + 64

    public private(set) var fields: [(name: String, value: [UInt8])]

    public init() { fields = [] }

    public init(_ pairs: KeyValuePairs<String, String>) {
        self.init()
        for (name, value) in pairs { set(name, value) }
    }

    public static func == (lhs: ControlMessage, rhs: ControlMessage) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }

    /// Sets a field, replacing an earlier value of the same name.
    public mutating func set(_ name: String, bytes: [UInt8]) {
        precondition(Self.isValidName(name), "control field names are fixed in code")
        if let index = fields.firstIndex(where: { $0.name == name }) { fields[index].value = bytes } else { fields.append((name, bytes)) }
    }

    public mutating func set(_ name: String, _ text: String) { set(name, bytes: Array(text.utf8)) }

    public func bytes(_ name: String) -> [UInt8]? { fields.first { $0.name == name }?.value }

    /// A field's value as UTF-8 text; nil if absent or not valid UTF-8.
    public func text(_ name: String) -> String? {
        bytes(name).flatMap { String(validating: $0, as: UTF8.self) }
    }

    public func encoded() throws(ApplianceError) -> [UInt8] {
        var output: [UInt8] = [UInt8(fields.count)]
        for field in fields {
            output.append(UInt8(field.name.utf8.count))
            output += field.name.utf8
            let length = UInt32(clamping: field.value.count)
            output += [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)]
            output += field.value
        }
        guard fields.count <= Self.maximumFields, output.count <= Self.maximumEncodedSize else {
            throw ApplianceError(.messageTooLarge, "a control message is limited to \(Self.maximumFields) fields and \(Self.maximumEncodedSize) bytes")
        }
        return output
    }

    public init(parsing encoded: [UInt8]) throws(ApplianceError) {
        guard encoded.count <= Self.maximumEncodedSize else {
            throw ApplianceError(.messageTooLarge, "a control message is limited to \(Self.maximumEncodedSize) bytes")
        }
        var reader = ControlReader(encoded)
        let count = Int(try reader.byte())
        guard count <= Self.maximumFields else { throw ControlReader.malformed("more than \(Self.maximumFields) fields") }
        self.init()
        for _ in 0..<count {
            let name = try reader.name()
            guard bytes(name) == nil else { throw ControlReader.malformed("field '\(name)' appears twice") }
            fields.append((name, try reader.value()))
        }
        guard reader.isAtEnd else { throw ControlReader.malformed("bytes after the last field") }
    }

    static func isValidName(_ name: String) -> Bool {
        let utf8 = Array(name.utf8)
        return (1...maximumNameLength).contains(utf8.count) && utf8.allSatisfy(isNameByte)
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        (0x61...0x7a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2e || byte == 0x2d || byte == 0x5f
    }
}

/// Reads a control message's fields, refusing anything out of bounds.
private struct ControlReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    static func malformed(_ reason: String) -> ApplianceError {
        ApplianceError(.malformedMessage, "malformed control message: \(reason)")
    }

    mutating func byte() throws(ApplianceError) -> UInt8 {
        guard offset < bytes.count else { throw Self.malformed("it ends early") }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func take(_ count: Int) throws(ApplianceError) -> [UInt8] {
        guard count <= bytes.count - offset else { throw Self.malformed("it ends early") }
        defer { offset += count }
        return Array(bytes[offset..<offset + count])
    }

    mutating func name() throws(ApplianceError) -> String {
        let length = Int(try byte())
        guard (1...ControlMessage.maximumNameLength).contains(length) else { throw Self.malformed("a field name of \(length) bytes") }
        let name = try take(length)
        guard name.allSatisfy(ControlMessage.isNameByte) else { throw Self.malformed("a field name with a character outside a-z 0-9 . - _") }
        return String(decoding: name, as: UTF8.self)
    }

    mutating func value() throws(ApplianceError) -> [UInt8] {
        let length = try take(4).reduce(0) { $0 << 8 | Int($1) }
        return try take(length)
    }
}
