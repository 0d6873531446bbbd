import Registers

/// The kinds of record a project keeps beside its binder: the seed's Character, Place, PlotBeat and
/// Snippet. The register names them (a lawyer's characters are parties, a clinician's people) and
/// decides which field slots show (`FieldEditor`); the store keeps every slot whatever the register.
public enum EntryKind: String, Sendable, CaseIterable {
    case character
    case place
    case plotBeat = "plot-beat"
    case snippet

    /// The slots a record of this kind may fill: a person's for a character, a place's for a place.
    public var slots: [FieldSlot] {
        switch self {
        case .character: FieldSlot.allCases.filter { $0.concept == .character }
        case .place: [.placeDescription]
        case .plotBeat, .snippet: []
        }
    }
}

/// A character, place, plot beat or snippet: a name, a body of text, and the register's field slots.
/// Only its id, kind and order are clear; all of this is one sealed record (SECURITY.md §14.5).
public struct ProjectEntry: Sendable, Hashable {
    public let id: EntryID
    public let kind: EntryKind
    public var name: String
    public var body: String
    public var fields: [FieldSlot: String]
    public var orderKey: String

    public init(id: EntryID, kind: EntryKind, name: String, body: String = "", fields: [FieldSlot: String] = [:], orderKey: String) {
        self.id = id
        self.kind = kind
        self.name = name
        self.body = body
        self.fields = fields
        self.orderKey = orderKey
    }
}

/// The sealed value of an entry:
///
///     entry  = version:u8 (1) name:string body:string count:u32be field*
///     field  = length:u8 slot:ASCII (a FieldSlot raw value) value:string    (slots in FieldSlot order, each once)
///     string = length:u32be bytes:UTF-8
enum EntryEncoding {
    static func encode(_ entry: ProjectEntry) -> [UInt8] {
        var out: [UInt8] = [1]
        appendString(entry.name, &out)
        appendString(entry.body, &out)
        let slots = FieldSlot.allCases.filter { entry.fields[$0] != nil }
        appendLength(slots.count, &out)
        for slot in slots {
            out.append(UInt8(slot.rawValue.utf8.count))
            out += slot.rawValue.utf8
            appendString(entry.fields[slot] ?? "", &out)
        }
        return out
    }

    static func decode<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, id: EntryID, kind: EntryKind, orderKey: String)
        throws(WritingError) -> ProjectEntry where Bytes.Index == Int {
        var reader = LengthPrefixedReader(bytes: bytes, what: "an entry's sealed value")
        guard try reader.byte() == 1 else { throw reader.damaged("an unknown version") }
        let name = try reader.string(), body = try reader.string()
        var fields: [FieldSlot: String] = [:]
        var previous = -1
        for _ in 0..<(try reader.length()) {
            let raw = String(decoding: try reader.bytes(Int(try reader.byte())), as: UTF8.self)
            guard let slot = FieldSlot(rawValue: raw), let index = FieldSlot.allCases.firstIndex(of: slot), index > previous,
                  kind.slots.contains(slot) else { throw reader.damaged("a field slot out of order or not this kind's") }
            previous = index
            fields[slot] = try reader.string()
        }
        guard reader.isAtEnd else { throw reader.damaged("bytes after the last field") }
        return ProjectEntry(id: id, kind: kind, name: name, body: body, fields: fields, orderKey: orderKey)
    }

    private static func appendLength(_ value: Int, _ out: inout [UInt8]) { ByteReader.appendLength(value, &out) }
    private static func appendString(_ text: String, _ out: inout [UInt8]) { ByteReader.appendString(text, &out) }
}
