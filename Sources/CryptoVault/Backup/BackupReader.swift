import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Reads a backup container (§13) strictly, checking as it goes: the magic and version, every length
/// against its cap and against what is left of the file, the record order, every record's SHA-256,
/// the trailer over the whole file, and that nothing follows it. Whatever fails is named with the
/// record and the offset, as a `corruptBackup` error.
public enum BackupReader {
    /// Checks `path` and writes its contents into `directory` (which must exist and be empty) as a
    /// vault folder: `assets/<id>.vbundle` and, for version 1, `vault.db`; for version 2 the public
    /// record and the still sealed database (`BackupFormat.publicRecordName`, `sealedDatabaseName`),
    /// each file synced when `durable`. The caller
    /// opens it only after this returns: nothing unchecked is ever used.
    public static func extract(_ path: String, into directory: String, durable: Bool) throws -> BackupSummary {
        let input = try FileDescriptor.openForReading(path)
        guard let fileBytes = input.regularFileSize() else { throw corrupt("\(path) is not a regular file") }
        var reader = CheckedReader(input: input, size: fileBytes)
        let header = try reader.take(BackupFormat.headerSize, what: "the header")
        guard Array(header[0..<16]) == BackupFormat.magic else { throw corrupt("\(path) is not a vaultctl backup (no backup magic)") }
        let version = BackupFormat.integer(header[16..<20])
        guard BackupFormat.readableVersions.contains(version) else {
            throw corrupt("backup format version \(version) is not one this vaultctl reads (1 or 2)")
        }
        let vaultID = try VaultID(bytes: Array(header[20..<36]))
        let createdAt = BackupFormat.integer(header[36..<44])
        let recordCount = BackupFormat.integer(header[44..<48])
        let leading = BackupFormat.leadingKinds(version: version)
        guard recordCount >= UInt64(leading.count), recordCount <= UInt64(BackupFormat.maximumRecords) else {
            throw corrupt("the header claims \(recordCount) records (\(leading.count) to \(BackupFormat.maximumRecords) allowed)")
        }
        let assets = (directory as NSString).appendingPathComponent(Vault.assetsName)
        guard mkdir(assets, 0o700) == 0 else { throw CryptoVaultError(.io, "cannot create \(assets): \(String(cString: strerror(errno)))") }
        var databaseBytes: UInt64 = 0
        var bundles: [(id: BundleID, length: UInt64)] = []
        for index in 0..<recordCount {
            let (kind, bundle, length) = try readRecordHeader(&reader, index: index, leading: leading, previousBundle: bundles.last?.id)
            let what = bundle.map { "record \(index) (bundle \($0.hex))" } ?? "record \(index) (\(name(of: kind)))"
            let path = bundle.map { AssetFolder(path: assets).path(of: $0) } ?? destination(of: kind, in: directory)
            try reader.copy(length, to: path, what: what, durable: durable)
            if let bundle { bundles.append((bundle, length)) } else if kind != .publicRecord { databaseBytes = length }
        }
        let trailer = try reader.take(BackupFormat.digestSize, what: "the trailer")
        let end = reader.offset
        guard Array(trailer) == reader.finish() else { throw corrupt("the trailer does not match the file (a byte was changed, added or removed)") }
        guard end == fileBytes else { throw corrupt("\(fileBytes - end) bytes follow the trailer") }
        if durable {
            try DurableFile.syncDirectory(assets)
            try DurableFile.syncDirectory(directory)
        }
        return BackupSummary(version: UInt32(version), vaultID: vaultID, createdAt: createdAt, databaseBytes: databaseBytes,
                             bundles: bundles, fileBytes: fileBytes)
    }

    private static func name(of kind: BackupFormat.Kind) -> String {
        switch kind {
        case .database: return "the database"
        case .publicRecord: return "the public record"
        case .sealedDatabase: return "the sealed database"
        case .bundle: return "a bundle"
        }
    }

    /// Where a record before the bundles goes (a bundle goes to assets/ under its id).
    private static func destination(of kind: BackupFormat.Kind, in directory: String) -> String {
        switch kind {
        case .database: return (directory as NSString).appendingPathComponent(Vault.databaseName)
        case .bundle: preconditionFailure("readRecordHeader gives every bundle record its id")
        case .publicRecord: return (directory as NSString).appendingPathComponent(BackupFormat.publicRecordName)
        case .sealedDatabase: return (directory as NSString).appendingPathComponent(BackupFormat.sealedDatabaseName)
        }
    }

    private static func readRecordHeader(_ reader: inout CheckedReader, index: UInt64, leading: [BackupFormat.Kind],
                                         previousBundle: BundleID?) throws -> (BackupFormat.Kind, BundleID?, UInt64) {
        let bytes = try reader.take(BackupFormat.recordHeaderSize, what: "the header of record \(index)")
        guard let kind = BackupFormat.Kind(rawValue: bytes[bytes.startIndex]) else {
            throw corrupt("record \(index) has an unknown kind \(bytes[bytes.startIndex])")
        }
        let id = Array(bytes[(bytes.startIndex + 1)..<(bytes.startIndex + 17)])
        let length = BackupFormat.integer(bytes[(bytes.startIndex + 17)...])
        if index < UInt64(leading.count) {
            guard kind == leading[Int(index)], id == [UInt8](repeating: 0, count: 16) else {
                throw corrupt("record \(index) must be \(name(of: leading[Int(index)])) (kind \(leading[Int(index)].rawValue), id zero)")
            }
            guard length <= BackupFormat.maximumDatabaseSize else { throw corrupt("record \(index) claims \(length) bytes, over the cap") }
        } else {
            guard kind == .bundle else { throw corrupt("record \(index) is \(name(of: kind)) out of place (only bundles follow)") }
            if let previousBundle, !previousBundle.bytes.lexicographicallyPrecedes(id) {
                throw corrupt("record \(index) (bundle \(ByteEncoding.hex(id))) is out of order or repeated after \(previousBundle.hex)")
            }
            guard length <= BackupFormat.maximumBundleSize else { throw corrupt("record \(index) claims \(length) bytes, over the cap") }
        }
        // The data and its digest must fit in what is left before the trailer.
        let needed = length.addingReportingOverflow(UInt64(BackupFormat.digestSize * 2))
        guard !needed.overflow, needed.partialValue <= reader.size - reader.offset else {
            throw corrupt("record \(index) claims \(length) bytes but the file ends sooner (truncated)")
        }
        return (kind, kind == .bundle ? try BundleID(bytes: id) : nil, length)
    }

    static func corrupt(_ message: String) -> CryptoVaultError {
        CryptoVaultError(.corruptBackup, "the backup is refused: \(message)")
    }
}

/// Reads a file front to back, hashing every byte for the trailer, never past its end.
struct CheckedReader: ~Copyable {
    let input: FileDescriptor
    let size: UInt64
    private(set) var offset: UInt64 = 0
    private var whole = SHA256.Hasher()

    init(input: FileDescriptor, size: UInt64) {
        self.input = input
        self.size = size
    }

    mutating func take(_ count: Int, what: String) throws -> ArraySlice<UInt8> {
        guard UInt64(count) <= size - offset else { throw BackupReader.corrupt("the file ends inside \(what) (truncated)") }
        var bytes = [UInt8](repeating: 0, count: count)
        let read = try bytes.withUnsafeMutableBytes { try input.read(into: $0, at: offset) }
        guard read == count else { throw BackupReader.corrupt("the file ends inside \(what) (truncated)") }
        if what != "the trailer" { whole.update(bytes) }
        offset += UInt64(count)
        return bytes[...]
    }

    /// Copies `length` bytes of data then checks the 32-byte digest that follows them.
    mutating func copy(_ length: UInt64, to path: String, what: String, durable: Bool) throws {
        let output = try FileDescriptor.createExclusive(path)
        var record = SHA256.Hasher()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var copied: UInt64 = 0
        while copied < length {
            let want = Int(min(UInt64(buffer.count), length - copied))
            let count = try input.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: offset)
            guard count > 0 else { throw BackupReader.corrupt("the file ends inside \(what) (truncated)") }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            record.update(chunk)
            whole.update(chunk)
            try output.write(chunk)
            copied += UInt64(count)
            offset += UInt64(count)
        }
        let expected = try take(BackupFormat.digestSize, what: "the digest of \(what)")
        guard Array(expected) == record.finalize() else { throw BackupReader.corrupt("\(what) does not match its SHA-256 (altered)") }
        if durable { try output.sync() }
    }

    /// The SHA-256 of everything read before the trailer.
    consuming func finish() -> [UInt8] { whole.finalize() }
}
