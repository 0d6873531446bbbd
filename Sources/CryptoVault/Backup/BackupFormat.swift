import Foundation

/// The backup container (SECURITY.md §13): one file holding a consistent snapshot of the vault's
/// database and the bundle files that snapshot lists, as they are on disk (ciphertext).
///
///     file    = header record* trailer
///     header  = magic(16) "vaultctl-backup\n" || version u32 (1 or 2) || vault id (16)
///               || created at u64 (Unix seconds) || record count u32              (48 bytes)
///     record  = kind u8 || id (16; zeros but for a bundle)
///               || length u64 || data (length bytes) || SHA-256(data) (32)
///     trailer = SHA-256 of every byte before it (32)
///
/// Version 2 (written): record 0 is the public record (kind 3, `BackupPublicRecord`), record 1 the
/// sealed database (kind 4, `SealedDatabase`), then one bundle record (kind 2) per bundle. Version 1
/// (still read): record 0 is the database as is (kind 1), then the bundles. Integers are big-endian;
/// bundle ids strictly increasing; nothing after the trailer. Each record's digest follows its data
/// so a writer streams a 1 GiB bundle without holding it; the trailer covers the header and the order.
public enum BackupFormat {
    public static let magic = Array("vaultctl-backup\n".utf8)
    public static let version: UInt32 = 2
    public static let readableVersions: ClosedRange<UInt64> = 1...2
    public static let headerSize = 48
    public static let recordHeaderSize = 25
    public static let digestSize = 32
    /// Caps checked before anything is read or allocated: a hostile header cannot ask for more.
    public static let maximumRecords: UInt32 = 10_000_000
    public static let maximumDatabaseSize: UInt64 = 64 << 30
    public static let maximumBundleSize: UInt64 = 1 << 50

    public enum Kind: UInt8, Sendable {
        case database = 1
        case bundle = 2
        case publicRecord = 3
        case sealedDatabase = 4
    }

    /// The kinds of the records before the bundles, in order, for each version.
    static func leadingKinds(version: UInt64) -> [Kind] {
        version == 1 ? [.database] : [.publicRecord, .sealedDatabase]
    }

    /// Where an extracted record goes in the scratch or staging folder.
    public static let publicRecordName = "backup-public.db"
    public static let sealedDatabaseName = "vault.db.sealed"

    static func header(vaultID: VaultID, createdAt: UInt64, recordCount: UInt32, version: UInt32 = version) -> [UInt8] {
        magic + bigEndian(UInt64(version), width: 4) + vaultID.bytes + bigEndian(createdAt, width: 8) + bigEndian(UInt64(recordCount), width: 4)
    }

    /// A bundle record's id is its bundle's; the records before the bundles have none (16 zero bytes).
    static func recordHeader(kind: Kind, bundle: BundleID?, length: UInt64) -> [UInt8] {
        [kind.rawValue] + (bundle?.bytes ?? [UInt8](repeating: 0, count: BundleID.size)) + bigEndian(length, width: 8)
    }

    static func bigEndian(_ value: UInt64, width: Int) -> [UInt8] {
        (0..<width).map { UInt8(truncatingIfNeeded: value >> (8 * UInt64(width - 1 - $0))) }
    }

    static func integer(_ bytes: ArraySlice<UInt8>) -> UInt64 {
        bytes.reduce(0) { $0 << 8 | UInt64($1) }
    }
}

/// What a backup file says of itself once its structure and every digest checked out.
public struct BackupSummary: Sendable {
    public let version: UInt32
    public let vaultID: VaultID
    public let createdAt: UInt64
    public let databaseBytes: UInt64
    /// Each bundle's id and length, in the file's order.
    public let bundles: [(id: BundleID, length: UInt64)]
    public let fileBytes: UInt64
}
