import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// `vaultctl backup`: writes the container of §13 from a live vault, while other processes (the
/// daemon) go on writing to it.
public enum BackupWriter {
    /// How often the snapshot is taken again when a bundle it lists was removed before its file could
    /// be opened (an `rm` racing the backup). Bounded: a vault that keeps removing wins, with an error.
    static let attempts = 5

    /// Writes the backup to `output`, returning what it holds. The database snapshot is taken with
    /// SQLite's online backup API into a private file beside the database (removed afterwards, and
    /// by the next backup if this process is killed); every bundle it lists is copied as it is on disk.
    ///
    /// The file is version 2: the database is sealed to the vault's backup key (`vault.backupPublicKey()`,
    /// which the caller makes sure exists), and only its public record travels in the clear.
    public static func write(_ vault: Vault, to output: FileDescriptor, progress: (UInt64) -> Void = { _ in }) throws -> BackupSummary {
        guard let recipient = try vault.backupPublicKey() else {
            throw CryptoVaultError(.keyslotNotFound, "this vault has no backup key yet; unlock it once to make one")
        }
        removeAbandonedSnapshots(in: vault.directory)
        let snapshotPath = (vault.directory as NSString).appendingPathComponent(".backup-snapshot-\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(4)))")
        let publicPath = snapshotPath + "-public"
        defer { for path in [snapshotPath, snapshotPath + "-journal", publicPath, publicPath + "-journal"] { unlink(path) } }
        for attempt in 1...attempts {
            for path in [snapshotPath, publicPath] { unlink(path) }
            try vault.withDatabase { try $0.snapshot(to: snapshotPath) }
            let listed = try bundlesListed(in: snapshotPath)
            guard let opened = try open(listed, in: vault.assetsPath) else {
                if attempt == attempts {
                    throw CryptoVaultError(.io, "bundles kept disappearing while the backup was taken (\(attempts) snapshots); try again")
                }
                continue
            }
            try BackupPublicRecord.build(at: publicPath, from: snapshotPath)
            return try write(snapshotPath, publicRecord: publicPath, recipient: recipient, bundles: opened, vaultID: vault.vaultID,
                             to: output, progress: progress)
        }
        throw CryptoVaultError(.io, "the backup could not be taken")
    }

    /// The bundles the snapshot lists (of compartments not destroyed), in id order, with their sealed length.
    static func bundlesListed(in snapshotPath: String) throws -> [(id: BundleID, length: UInt64)] {
        let database = try Database(path: snapshotPath, create: false, readOnly: true)
        return try database.readTransaction {
            let live = try CompartmentStore.liveRowIDs(in: database)
            return try BundleStore.files(in: database).filter { live.contains($0.compartmentRowID) }.map { ($0.id, $0.length) }
        }
    }

    /// Every listed bundle's file, opened now; nil if one is gone (removed after the snapshot).
    /// Open files stay readable even if an `rm` unlinks them meanwhile.
    static func open(_ bundles: [(id: BundleID, length: UInt64)], in assets: String) throws -> [(id: BundleID, length: UInt64, file: FileDescriptor)]? {
        let folder = AssetFolder(path: assets)
        var opened: [(id: BundleID, length: UInt64, file: FileDescriptor)] = []
        for bundle in bundles {
            do {
                opened.append((bundle.id, bundle.length, try FileDescriptor.openForReading(folder.path(of: bundle.id))))
            } catch let error as CryptoVaultError where error.code == .fileNotFound {
                return nil
            }
        }
        return opened
    }

    private static func write(_ snapshotPath: String, publicRecord publicPath: String, recipient: [UInt8],
                              bundles: [(id: BundleID, length: UInt64, file: FileDescriptor)],
                              vaultID: VaultID, to output: FileDescriptor, progress: (UInt64) -> Void) throws -> BackupSummary {
        var stream = HashingOutput(output)
        let database = try FileDescriptor.openForReading(snapshotPath)
        let publicRecord = try FileDescriptor.openForReading(publicPath)
        guard let databaseBytes = database.regularFileSize(), let publicBytes = publicRecord.regularFileSize() else {
            throw CryptoVaultError(.io, "cannot size the database snapshot")
        }
        try stream.write(BackupFormat.header(vaultID: vaultID, createdAt: UInt64(max(0, VaultClock.system.now())), recordCount: UInt32(bundles.count + 2)))
        try copyRecord(.publicRecord, bundle: nil, from: publicRecord, length: publicBytes, into: &stream, progress: progress)
        let sealedLength = SealedDatabase.sealedLength(plaintextLength: databaseBytes)
        try writeRecord(.sealedDatabase, bundle: nil, length: sealedLength, into: &stream) { emit in
            try SealedDatabase.seal(database, length: databaseBytes, to: recipient, vaultID: vaultID) { piece in
                try emit(piece)
                progress(UInt64(piece.count))
            }
        }
        for bundle in bundles {
            guard bundle.file.regularFileSize() == bundle.length else {
                throw CryptoVaultError(.corruptBundle,
                    "bundle \(bundle.id.hex) in the vault is not the \(bundle.length) bytes its record says; run 'vaultctl restore' before backing up")
            }
            try copyRecord(.bundle, bundle: bundle.id, from: bundle.file, length: bundle.length, into: &stream, progress: progress)
        }
        let written = stream.count
        let trailer = stream.digest()
        try trailer.withUnsafeBytes { try output.write($0) }
        return BackupSummary(version: BackupFormat.version, vaultID: vaultID, createdAt: 0, databaseBytes: sealedLength, bundles: bundles.map { ($0.id, $0.length) },
                             fileBytes: written + 32)
    }

    private static func copyRecord(_ kind: BackupFormat.Kind, bundle: BundleID?, from file: FileDescriptor, length: UInt64,
                                   into stream: inout HashingOutput, progress: (UInt64) -> Void) throws {
        try writeRecord(kind, bundle: bundle, length: length, into: &stream) { emit in
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
            defer { buffer.deallocate() }
            var copied: UInt64 = 0
            while copied < length {
                let want = Int(min(UInt64(buffer.count), length - copied))
                let count = try file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: copied)
                guard count > 0 else { throw CryptoVaultError(.io, "\(file.path) ended after \(copied) of \(length) bytes while it was backed up") }
                try emit(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                copied += UInt64(count)
                progress(UInt64(count))
            }
        }
    }

    /// One record: its header, the data `body` emits (exactly `length` bytes, checked), its SHA-256.
    private static func writeRecord(_ kind: BackupFormat.Kind, bundle: BundleID?, length: UInt64, into stream: inout HashingOutput,
                                    _ body: ((UnsafeRawBufferPointer) throws -> Void) throws -> Void) throws {
        try stream.write(BackupFormat.recordHeader(kind: kind, bundle: bundle, length: length))
        var record = SHA256.Hasher()
        var written: UInt64 = 0
        try body { piece in
            record.update(piece)
            try stream.write(piece)
            written += UInt64(piece.count)
        }
        guard written == length else { throw CryptoVaultError(.io, "record of \(length) bytes got \(written) while it was backed up") }
        try stream.write(record.finalize())
    }

    /// Snapshot files of backups whose process is gone (killed mid-backup): they hold the database, so they go.
    static func removeAbandonedSnapshots(in directory: String) {
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name.hasPrefix(".backup-snapshot-") {
            let fields = name.dropFirst(".backup-snapshot-".count).split(separator: "-")
            guard let pid = fields.first.flatMap({ Int32($0) }), ProcessLiveness.isGone(pid) else { continue }
            unlink((directory as NSString).appendingPathComponent(name))
        }
    }
}

/// Writes to a descriptor while hashing everything written (for the trailer).
struct HashingOutput: ~Copyable {
    let output: FileDescriptor
    var hasher = SHA256.Hasher()
    var count: UInt64 = 0

    init(_ output: FileDescriptor) { self.output = output }

    mutating func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try write($0) }
    }

    mutating func write(_ bytes: UnsafeRawBufferPointer) throws {
        hasher.update(bytes)
        try output.write(bytes)
        count += UInt64(bytes.count)
    }

    consuming func digest() -> [UInt8] { hasher.finalize() }
}
