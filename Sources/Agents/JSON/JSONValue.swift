/// One JSON value (RFC 8259), as the bridge reads it off an MCP server and writes it back.
///
/// Objects keep their members in the order they came, so a value written back is the same bytes a
/// reader of the log would expect, and lookups are by exact key. Numbers are Doubles: every number
/// MCP carries (ids we chose, counts, schema bounds) is an integer far below 2^53.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([(key: String, value: JSONValue)])

    public static func == (lhs: JSONValue, rhs: JSONValue) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null): true
        case let (.bool(a), .bool(b)): a == b
        case let (.number(a), .number(b)): a == b
        case let (.string(a), .string(b)): a == b
        case let (.array(a), .array(b)): a == b
        case let (.object(a), .object(b)): a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    /// The member named `key` of an object; nil for a missing member or a value that is not an object.
    public subscript(key: String) -> JSONValue? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    public var stringValue: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var objectValue: [(key: String, value: JSONValue)]? {
        if case .object(let members) = self { return members }
        return nil
    }

    /// The value as an integer, if it is a number with no fraction within ±2^53 (where a Double
    /// holds every integer exactly).
    public var integerValue: Int? {
        guard case .number(let number) = self, number.rounded() == number, abs(number) <= 9_007_199_254_740_992 else { return nil }
        return Int(number)
    }

    /// A JSON object from members in order (a convenience for building requests).
    public static func members(_ members: KeyValuePairs<String, JSONValue>) -> JSONValue {
        .object(members.map { (key: $0.key, value: $0.value) })
    }
}
