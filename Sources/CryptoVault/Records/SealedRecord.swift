/// Where a sealed record lives: the module that owns it, the table, the record's id in that table, and
/// the field of the record. With the vault, the compartment and the key version, this is the record's
/// identity, which its seal binds as associated data (SECURITY.md §4.8): a sealed value copied to another
/// location fails to open.
///
/// None of it is secret: the four parts are clear columns of the `sealed_records` row. A record id
/// is chosen by the module (a random id, never a patient number or a client's name).
public struct SealedRecordLocation: Sendable, Hashable, CustomStringConvertible {
    public let module: String
    public let table: String
    public let recordID: [UInt8]
    public let field: String

    /// Names are 1 to 64 bytes of `a`-`z`, `0`-`9`, `_` and `-`; a record id is 1 to 64 bytes of anything.
    public static let maximumNameSize = 64
    public static let maximumRecordIDSize = 64

    public init(module: String, table: String, recordID: [UInt8], field: String) throws {
        try Self.validate(name: module, as: "module")
        try Self.validate(name: table, as: "table")
        try Self.validate(name: field, as: "field")
        guard (1...Self.maximumRecordIDSize).contains(recordID.count) else {
            throw CryptoVaultError(.invalidRecordLocation, "a sealed record's id must be 1 to \(Self.maximumRecordIDSize) bytes")
        }
        self.module = module
        self.table = table
        self.recordID = recordID
        self.field = field
    }

    /// A location whose record id is one of the vault's typed ids (a writing record's): its bytes are the
    /// location's record id.
    public init<Kind>(module: String, table: String, record: TypedIdentifier<Kind>, field: String) throws {
        try self.init(module: module, table: table, recordID: record.bytes, field: field)
    }

    /// `module/table/record-id-in-hex/field`, as the audit details name a record.
    public var description: String { Self.describe(CollectionOfOne(self)) }

    /// The descriptions of `locations`, one a line (a `record.open` entry's `records`), written
    /// straight into one string: opening records by the thousand built a string per part of each.
    static func describe(_ locations: some Collection<SealedRecordLocation>) -> String {
        let size = locations.reduce(locations.count - 1) { $0 + $1.descriptionSize }
        guard size > 0 else { return "" }
        return String(unsafeUninitializedCapacity: size) { buffer in
            var cursor = buffer.baseAddress!
            for (index, location) in locations.enumerated() {
                if index > 0 { cursor = put(UInt8(ascii: "\n"), at: cursor) }
                cursor = put(location.module, at: cursor)
                cursor = put(UInt8(ascii: "/"), at: cursor)
                cursor = put(location.table, at: cursor)
                cursor = put(UInt8(ascii: "/"), at: cursor)
                cursor = location.recordID.withUnsafeBufferPointer { putHex($0, at: cursor) }
                cursor = put(UInt8(ascii: "/"), at: cursor)
                cursor = put(location.field, at: cursor)
            }
            let written = cursor - buffer.baseAddress!
            precondition(written == size, "record description size")
            return written
        }
    }

    // The writers of `describe`, a byte at a time was most of its cost: each returns the cursor past what it wrote.
    @inline(__always) private static func put(_ byte: UInt8, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        cursor.pointee = byte
        return cursor + 1
    }

    @inline(__always) private static func put(_ name: String, at cursor: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        var name = name
        return name.withUTF8 { utf8 in
            if let base = utf8.baseAddress { cursor.update(from: base, count: utf8.count) }
            return cursor + utf8.count
        }
    }

    @inline(__always) private static func putHex(_ bytes: UnsafeBufferPointer<UInt8>, at start: UnsafeMutablePointer<UInt8>) -> UnsafeMutablePointer<UInt8> {
        hexDigits.withUnsafeBufferPointer { digits in
            var cursor = start
            for byte in bytes {
                cursor[0] = digits[Int(byte >> 4)]
                cursor[1] = digits[Int(byte & 0x0f)]
                cursor += 2
            }
            return cursor
        }
    }

    /// The bytes of `description` (at most 323).
    var descriptionSize: Int { module.utf8.count + table.utf8.count + 2 * recordID.count + field.utf8.count + 3 }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func validate(name: String, as role: String) throws {
        let bytes = Array(name.utf8)
        let allowed = bytes.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
        }
        guard (1...maximumNameSize).contains(bytes.count), allowed else {
            throw CryptoVaultError(.invalidRecordLocation,
                                   "a sealed record's \(role) name must be 1 to \(maximumNameSize) characters of a-z, 0-9, '_' and '-'")
        }
    }
}

/// Everything a sealed record's seal binds: its vault, compartment and key version, and its location.
public struct SealedRecordIdentity: Sendable, Hashable {
    public let vaultID: VaultID
    public let compartmentID: CompartmentID
    public let keyVersion: UInt32
    public let location: SealedRecordLocation

    public init(vaultID: VaultID, compartmentID: CompartmentID, keyVersion: UInt32, location: SealedRecordLocation) {
        self.vaultID = vaultID
        self.compartmentID = compartmentID
        self.keyVersion = keyVersion
        self.location = location
    }

    /// The same record under another key version (rewrap).
    func at(keyVersion: UInt32) -> SealedRecordIdentity {
        SealedRecordIdentity(vaultID: vaultID, compartmentID: compartmentID, keyVersion: keyVersion, location: location)
    }
}
