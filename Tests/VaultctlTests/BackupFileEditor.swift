import CryptoVault
import Foundation

/// A backup container (SECURITY.md §13.2) taken apart and put back together, for tests that edit
/// one record and recompute every digest and the trailer, so the check after the container's is the
/// one that must refuse it. Parsing trusts its input: it reads files the tests just made.
struct BackupFileEditor {
    struct Record {
        var kind: UInt8
        var id: [UInt8]
        var data: [UInt8]
    }

    var version: UInt32
    var vaultID: [UInt8]
    var createdAt: UInt64
    var records: [Record]

    init(version: UInt32, vaultID: [UInt8], createdAt: UInt64, records: [Record]) {
        self.version = version
        self.vaultID = vaultID
        self.createdAt = createdAt
        self.records = records
    }

    init(path: String) throws {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        version = UInt32(Self.integer(bytes[16..<20]))
        vaultID = Array(bytes[20..<36])
        createdAt = Self.integer(bytes[36..<44])
        let count = Self.integer(bytes[44..<48])
        var offset = 48
        records = []
        for _ in 0..<count {
            let length = Int(Self.integer(bytes[(offset + 17)..<(offset + 25)]))
            records.append(Record(kind: bytes[offset], id: Array(bytes[(offset + 1)..<(offset + 17)]),
                                  data: Array(bytes[(offset + 25)..<(offset + 25 + length)])))
            offset += 25 + length + 32
        }
    }

    /// The file's bytes, with every record digest and the trailer computed afresh.
    func encoded() -> [UInt8] {
        var out = Array("vaultctl-backup\n".utf8) + Self.bigEndian(UInt64(version), 4) + vaultID
            + Self.bigEndian(createdAt, 8) + Self.bigEndian(UInt64(records.count), 4)
        for record in records {
            out += [record.kind] + record.id + Self.bigEndian(UInt64(record.data.count), 8) + record.data + SHA256.hash(record.data)
        }
        return out + SHA256.hash(out)
    }

    func write(to path: String) throws {
        try Data(encoded()).write(to: URL(fileURLWithPath: path))
    }

    /// Offsets where a part of the file starts: each record's header, data and digest, and the trailer.
    func boundaries() -> [(offset: Int, what: String)] {
        var list: [(Int, String)] = [(0, "the header"), (16, "the version"), (44, "the record count")]
        var offset = 48
        for (index, record) in records.enumerated() {
            list.append((offset, "record \(index)'s kind"))
            list.append((offset + 1, "record \(index)'s id"))
            list.append((offset + 17, "record \(index)'s length"))
            list.append((offset + 25, "record \(index)'s data"))
            offset += 25 + record.data.count
            list.append((offset, "record \(index)'s digest"))
            offset += 32
        }
        list.append((offset, "the trailer"))
        return list
    }

    /// Edits the SQLite file of record `index` (the public record of a version 2 file) with `edit`.
    mutating func editDatabase(record index: Int, scratch: String, _ edit: (Database) throws -> Void) throws {
        let path = scratch + "/edited-record.db"
        try? FileManager.default.removeItem(atPath: path)
        try Data(records[index].data).write(to: URL(fileURLWithPath: path))
        do {
            let database = try Database(path: path, create: false)
            try edit(database)
        }
        records[index].data = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 { bytes.reduce(0) { $0 << 8 | UInt64($1) } }

    static func bigEndian(_ value: UInt64, _ width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }
}

extension Array where Element == UInt8 {
    /// Whether `needle` occurs anywhere in these bytes.
    func contains(bytes needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        let first = needle[0]
        var index = 0
        while index <= count - needle.count {
            if self[index] == first, Array(self[index..<(index + needle.count)]) == needle { return true }
            index += 1
        }
        return false
    }
}
