import CryptoVault

/// Reads one message of the exchange (SECURITY.md §19.9) front to back. Every length is checked
/// against the bytes left and against the field's own bound before anything is reserved, so a
/// hostile count cannot make the reader allocate or loop more than the message holds.
struct SyncWireReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var remaining: Int { bytes.count - offset }

    static func malformed(_ detail: String) -> SyncExchangeError {
        SyncExchangeError(.malformedMessage, "a sync message is malformed: \(detail)")
    }

    mutating func take(_ count: Int) throws(SyncExchangeError) -> [UInt8] {
        guard count >= 0, count <= remaining else { throw Self.malformed("a length runs past the end") }
        defer { offset += count }
        return Array(bytes[offset..<(offset + count)])
    }

    mutating func integer(_ size: Int) throws(SyncExchangeError) -> UInt64 {
        guard size <= remaining else { throw Self.malformed("a length runs past the end") }
        defer { offset += size }
        return bytes[offset..<(offset + size)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    /// An integer of `size` bytes within `range`.
    mutating func integer(_ size: Int, in range: ClosedRange<UInt64>, _ what: String) throws(SyncExchangeError) -> UInt64 {
        let value = try integer(size)
        guard range.contains(value) else { throw Self.malformed("\(what) \(value) is outside \(range.lowerBound)...\(range.upperBound)") }
        return value
    }

    /// A count whose items each take at least `itemSize` bytes: refused before any is read when the
    /// message cannot hold them.
    mutating func count(_ size: Int, maximum: Int, itemSize: Int, _ what: String) throws(SyncExchangeError) -> Int {
        let count = Int(try integer(size, in: 0...UInt64(maximum), what))
        guard count * itemSize <= remaining else { throw Self.malformed("\(count) \(what) cannot fit in what is left") }
        return count
    }

    mutating func identifier<Kind>(_ type: TypedIdentifier<Kind>.Type) throws(SyncExchangeError) -> TypedIdentifier<Kind> {
        let raw = try take(16)
        guard let id = try? TypedIdentifier<Kind>(bytes: raw) else { throw Self.malformed("an id is not 16 bytes") }
        return id
    }

    mutating func version() throws(SyncExchangeError) {
        let version = try integer(1)
        guard version == UInt64(SyncWire.version) else { throw SyncVersionRefusal.refusal(of: UInt8(version)) }
    }

    func end() throws(SyncExchangeError) {
        guard remaining == 0 else { throw Self.malformed("\(remaining) bytes follow the last field") }
    }

    static func append(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        for shift in stride(from: (size - 1) * 8, through: 0, by: -8) { out.append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
