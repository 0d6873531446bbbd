/// A tool's input schema: the subset of JSON Schema (2020-12) the registry can check, read once
/// when the tool is registered, then used to check every call's arguments before the tool runs.
///
/// Checked: `type` (one or a list), `properties`, `required`, `additionalProperties` (true or
/// false), `enum`, `const`, `minLength`/`maxLength`, `minimum`/`maximum`, `items`,
/// `minItems`/`maxItems`, `anyOf`, `oneOf`. Ignored, as the specification calls them annotations:
/// `title`, `description`, `default`, `examples`, `$schema`, `$comment`, `format`. Anything else
/// (`$ref`, `pattern`, `if`/`then`, …) makes the schema unsupported: a tool whose arguments cannot
/// be checked is not registered, rather than registered unchecked. (`pattern` is left out on
/// purpose: a regular expression from a server is a way to make the checker itself slow.)
public indirect enum ToolSchema: Sendable, Equatable {
    case any
    case constrained(Constraints)

    public struct Constraints: Sendable, Equatable {
        var types: Set<String>?
        var properties: [String: ToolSchema] = [:]
        var required: [String] = []
        var additionalProperties = true
        var allowed: [JSONValue]?
        var lengths: ClosedRange<Int>?
        var minimum: Double?
        var maximum: Double?
        var items: ToolSchema?
        var counts: ClosedRange<Int>?
        var anyOf: [ToolSchema]?
        var oneOf: [ToolSchema]?
    }

    static let annotations: Set<String> = ["title", "description", "default", "examples", "$schema", "$comment", "format"]
    static let knownTypes: Set<String> = ["object", "string", "integer", "number", "boolean", "array", "null"]
    static let maximumDepth = 16

    public init(_ schema: JSONValue) throws(AgentsError) {
        self = try Self.read(schema, depth: 0)
    }

    private static func read(_ schema: JSONValue, depth: Int) throws(AgentsError) -> ToolSchema {
        guard depth <= maximumDepth else { throw unsupported("nested deeper than \(maximumDepth) levels") }
        if schema == .bool(true) { return .any }
        guard let members = schema.objectValue else { throw unsupported("a schema that is not an object") }
        var constraints = Constraints()
        for (key, value) in members where !annotations.contains(key) {
            try read(key, value, into: &constraints, depth: depth)
        }
        return .constrained(constraints)
    }

    private static func read(_ key: String, _ value: JSONValue, into constraints: inout Constraints, depth: Int) throws(AgentsError) {
        switch key {
        case "type": constraints.types = try types(value)
        case "properties":
            guard let members = value.objectValue else { throw unsupported("properties that are not an object") }
            for (name, property) in members { constraints.properties[name] = try read(property, depth: depth + 1) }
        case "required":
            guard let names = value.arrayValue?.compactMap(\.stringValue), names.count == value.arrayValue?.count else {
                throw unsupported("required that is not a list of names")
            }
            constraints.required = names
        case "additionalProperties":
            guard let flag = value.boolValue else { throw unsupported("additionalProperties other than true or false") }
            constraints.additionalProperties = flag
        case "enum":
            guard let values = value.arrayValue, !values.isEmpty else { throw unsupported("an empty enum") }
            constraints.allowed = values
        case "const": constraints.allowed = [value]
        case "minLength", "maxLength": constraints.lengths = try range(key, value, constraints.lengths)
        case "minItems", "maxItems": constraints.counts = try range(key, value, constraints.counts)
        case "minimum": constraints.minimum = try number(value)
        case "maximum": constraints.maximum = try number(value)
        case "items": constraints.items = try read(value, depth: depth + 1)
        case "anyOf": constraints.anyOf = try alternatives(value, depth: depth)
        case "oneOf": constraints.oneOf = try alternatives(value, depth: depth)
        default: throw unsupported("the keyword '\(key.prefix(40))'")
        }
    }

    private static func types(_ value: JSONValue) throws(AgentsError) -> Set<String> {
        let names = value.stringValue.map { [$0] } ?? value.arrayValue?.compactMap(\.stringValue) ?? []
        guard !names.isEmpty, names.allSatisfy(knownTypes.contains) else { throw unsupported("an unknown type") }
        return Set(names)
    }

    private static func range(_ key: String, _ value: JSONValue, _ current: ClosedRange<Int>?) throws(AgentsError) -> ClosedRange<Int> {
        guard let bound = value.integerValue, bound >= 0 else { throw unsupported("\(key) that is not a count") }
        let lower = key.hasPrefix("min") ? bound : current?.lowerBound ?? 0
        let upper = key.hasPrefix("max") ? bound : current?.upperBound ?? Int.max
        guard lower <= upper else { throw unsupported("a minimum above its maximum") }
        return lower...upper
    }

    private static func number(_ value: JSONValue) throws(AgentsError) -> Double {
        guard case .number(let number) = value else { throw unsupported("a bound that is not a number") }
        return number
    }

    private static func alternatives(_ value: JSONValue, depth: Int) throws(AgentsError) -> [ToolSchema] {
        guard let schemas = value.arrayValue, (1...16).contains(schemas.count) else { throw unsupported("an empty or long anyOf/oneOf") }
        var read: [ToolSchema] = []
        for schema in schemas { read.append(try Self.read(schema, depth: depth + 1)) }
        return read
    }

    private static func unsupported(_ what: String) -> AgentsError {
        AgentsError(.unsupportedSchema, "the input schema uses \(what), which the tool registry does not check")
    }
}
