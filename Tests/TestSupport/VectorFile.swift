import Foundation

/// The package's own files for tests: known-answer vectors under testvectors/ and the fixtures
/// checked in beside the tests, found from this source file's place in the package.
public enum PackageFiles {
    /// The package root (the folder holding Package.swift).
    public static let root: URL = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `path` relative to the package root ("testvectors/record/records.json").
    public static func url(_ path: String) -> URL { root.appendingPathComponent(path) }

    /// Decodes one JSON vector file of the package (`path` relative to its root) into `T`: a file
    /// that does not match its schema fails to load instead of running partly. The one `Decodable`
    /// loader of the test targets; `keys` says how the file spells its keys (snake_case ones can
    /// match camelCase fields with `.convertFromSnakeCase`).
    public static func decode<T: Decodable>(_ path: String, as type: T.Type = T.self,
                                            keys: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys) throws -> T {
        try decode(fileAt: url(path), as: type, keys: keys)
    }

    /// The same for a file outside the package (the published vectors in `shared/vectors/`).
    public static func decode<T: Decodable>(fileAt location: URL, as _: T.Type = T.self,
                                            keys: JSONDecoder.KeyDecodingStrategy = .useDefaultKeys) throws -> T {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = keys
        return try decoder.decode(T.self, from: try Data(contentsOf: location))
    }

    /// A private copy of the vault made by main's vaultctl at d8e0c78 (schema 11: two compartments,
    /// one stored bundle) in a fresh temporary folder, and its passphrase; the checked-in files are
    /// never opened for writing. The caller removes `root`.
    public static func copyOfSchema11Vault() throws -> (root: String, directory: String, passphrase: String) {
        let fixtures = url("Tests/CryptoVaultTests/Fixtures").path
        let root = NSTemporaryDirectory() + "vault-schema-11-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: fixtures + "/vault-schema-11", toPath: root + "/vault")
        let text = try String(contentsOfFile: fixtures + "/vault-schema-11.passphrase", encoding: .utf8)
        return (root, root + "/vault", text.trimmingCharacters(in: .newlines))
    }
}

/// One known-answer file of testvectors/ whose cases decode as `Case`: `{"description", "spec":
/// "SECURITY.md §…", "cases": [...]}`, its snake_case keys read as camelCase fields. A case that does
/// not match `Case` (a missing field, a wrong type, hex that is not lowercase) fails the load, naming
/// the field, so a malformed file fails its test instead of running partly.
public struct VectorCases<Case: Decodable>: Decodable {
    public let description: String
    public let spec: String
    public let cases: [Case]

    /// The file at `path` (relative to the package root), whose `spec` starts with `spec` and which
    /// has at least one case.
    public static func load(_ path: String, spec: String) throws -> VectorCases<Case> {
        let file: VectorCases<Case> = try PackageFiles.decode(path, keys: .convertFromSnakeCase)
        guard !file.description.isEmpty, file.spec.hasPrefix(spec) else {
            throw VectorMalformed(description: "\(path) is not {\"description\", \"spec\": \"\(spec)…\", \"cases\": [...]}")
        }
        guard !file.cases.isEmpty else { throw VectorMalformed(description: "\(path) has zero cases") }
        return file
    }
}

extension Optional {
    /// A field that only some cases of a file carry, which the case `name` at hand needs.
    public func field(_ key: String, of name: String) throws -> Wrapped {
        guard let value = self else { throw VectorMalformed(description: "missing '\(key)' in \(name)") }
        return value
    }
}

/// One known-answer file of testvectors/ as its JSON objects: `{"description", "spec": "SECURITY.md
/// §…", "cases": [...]}`, read through the one `Decodable` loader into `JSONValue`s. The view of the
/// suites that walk cases field by field (bundle and audit vectors); the fields are read with `VectorFields`, each naming what it misses, so a
/// malformed file fails its test instead of running partly.
public struct VectorFile {
    public let root: [String: Any]
    public let cases: [[String: Any]]

    /// The file at `path` (relative to the package root), whose `spec` starts with `spec` and which
    /// has at least one case.
    public static func load(_ path: String, spec: String) throws -> VectorFile {
        let root = try object(at: path)
        guard let description = root["description"] as? String, !description.isEmpty,
              let named = root["spec"] as? String, named.hasPrefix(spec),
              let cases = root["cases"] as? [[String: Any]] else {
            throw VectorMalformed(description: "\(path) is not {\"description\", \"spec\": \"\(spec)…\", \"cases\": [...]}")
        }
        guard !cases.isEmpty else { throw VectorMalformed(description: "\(path) has zero cases") }
        return VectorFile(root: root, cases: cases)
    }

    /// The JSON object at `path` (relative to the package root), whatever its shape, read through
    /// the one `Decodable` loader (`PackageFiles.decode`) and handed to the field readers as
    /// Foundation values (numbers as `NSNumber`, as `VectorFields` reads them).
    public static func object(at path: String) throws -> [String: Any] {
        guard FileManager.default.fileExists(atPath: PackageFiles.url(path).path) else {
            throw VectorMalformed(description: "missing vector file \(path)")
        }
        guard case .object(let members) = try PackageFiles.decode(path, as: JSONValue.self) else {
            throw VectorMalformed(description: "\(path) is not a JSON object")
        }
        return members.mapValues(\.foundationValue)
    }
}

/// Any JSON value, decoded strictly: what `VectorFile` reads a file into before its suites walk
/// the fields. Integers keep every digit up to 2^64 - 1 (a JSON number is tried as Int64, then
/// UInt64, then Double); a boolean is never a number.
public enum JSONValue: Decodable {
    case null, bool(Bool), integer(Int64), unsigned(UInt64), real(Double), string(String)
    case array([JSONValue]), object([String: JSONValue])

    public init(from decoder: Decoder) throws {
        let value = try decoder.singleValueContainer()
        if value.decodeNil() { self = .null }
        else if let flag = try? value.decode(Bool.self) { self = .bool(flag) }
        else if let number = try? value.decode(Int64.self) { self = .integer(number) }
        else if let number = try? value.decode(UInt64.self) { self = .unsigned(number) }
        else if let number = try? value.decode(Double.self) { self = .real(number) }
        else if let text = try? value.decode(String.self) { self = .string(text) }
        else if let items = try? value.decode([JSONValue].self) { self = .array(items) }
        else { self = .object(try value.decode([String: JSONValue].self)) }
    }

    /// The value as `JSONSerialization` would give it: NSNumber, String, Bool, [Any], [String: Any], NSNull.
    public var foundationValue: Any {
        switch self {
        case .null: NSNull()
        case .bool(let flag): flag
        case .integer(let number): NSNumber(value: number)
        case .unsigned(let number): NSNumber(value: number)
        case .real(let number): NSNumber(value: number)
        case .string(let text): text
        case .array(let items): items.map(\.foundationValue)
        case .object(let members): members.mapValues(\.foundationValue)
        }
    }
}

/// What a vector file or field that is not as its suite expects throws.
public struct VectorMalformed: Error, CustomStringConvertible {
    public let description: String

    public init(description: String) { self.description = description }
}

/// Typed reads of a vector case's fields for the suites' vector types (`enum BundleVectors:
/// VectorFields`): each throws `VectorMalformed` naming the field (and the case) it misses.
public protocol VectorFields {}

extension VectorFields {
    static func missing(_ what: String, _ key: String, in object: [String: Any]) -> VectorMalformed {
        VectorMalformed(description: "missing \(what) '\(key)' in \(object["name"] ?? "?")")
    }

    public static func string(_ object: [String: Any], _ key: String) throws -> String {
        guard let value = object[key] as? String else { throw missing("string", key, in: object) }
        return value
    }

    public static func int(_ object: [String: Any], _ key: String) throws -> Int {
        guard let value = object[key] as? Int else { throw missing("integer", key, in: object) }
        return value
    }

    /// JSON integers up to 2^63 - 1, read from their decimal text (JSONSerialization gives NSNumber).
    public static func int64(_ object: [String: Any], _ key: String) throws -> Int64 {
        guard let value = object[key] as? NSNumber else { throw missing("integer", key, in: object) }
        return Int64(value.stringValue) ?? value.int64Value
    }

    /// JSON integers up to 2^64 - 1 (large ones come back as UInt64 or Double: read from their text).
    public static func uint64(_ object: [String: Any], _ key: String) throws -> UInt64 {
        guard let value = object[key] as? NSNumber else { throw missing("integer", key, in: object) }
        if let decimal = value as? NSDecimalNumber { return UInt64(decimal.stringValue) ?? value.uint64Value }
        return UInt64(value.stringValue) ?? value.uint64Value
    }

    public static func uint32(_ object: [String: Any], _ key: String) throws -> UInt32 {
        guard let value = UInt32(exactly: try int(object, key)) else { throw VectorMalformed(description: "'\(key)' is not a UInt32") }
        return value
    }

    public static func bool(_ object: [String: Any], _ key: String) throws -> Bool {
        guard let value = object[key] as? Bool else { throw missing("boolean", key, in: object) }
        return value
    }

    public static func object(_ object: [String: Any], _ key: String) throws -> [String: Any] {
        guard let value = object[key] as? [String: Any] else { throw missing("object", key, in: object) }
        return value
    }

    public static func list(_ object: [String: Any], _ key: String) throws -> [[String: Any]] {
        guard let value = object[key] as? [[String: Any]] else { throw missing("list", key, in: object) }
        return value
    }

    /// A field of lowercase hex, as every vector file is written.
    public static func hex(_ object: [String: Any], _ key: String) throws -> [UInt8] { try bytes(try string(object, key)) }

    public static func hexList(_ object: [String: Any], _ key: String) throws -> [[UInt8]] {
        guard let values = object[key] as? [String] else { throw missing("list", key, in: object) }
        return try values.map(bytes)
    }

    /// Strict lowercase hex: no uppercase digit, even length.
    public static func bytes(_ text: String) throws -> [UInt8] {
        guard !text.utf8.contains(where: { (UInt8(ascii: "A")...UInt8(ascii: "F")).contains($0) }), let value = [UInt8](hex: text) else {
            throw VectorMalformed(description: "not lowercase hex: \(text.prefix(40))")
        }
        return value
    }
}
