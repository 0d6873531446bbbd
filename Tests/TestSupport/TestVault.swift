import CryptoVault
import Foundation

/// A vault in a fresh temporary directory, removed when the value is released.
/// Uses the KDF floor so tests stay fast; the default parameters are measured by `make bench`.
public final class TestVault {
    public let root: String
    public let directory: String
    public let passphrase: SecureBytes
    public let unlocked: UnlockedVault
    /// What the vault recorded, in order.
    public let recording = RecordingJournal()
    /// The module schemas it was made with, which a reopen passes again.
    public let modules: [ModuleSchema]

    public static let fastKDF = KDFParameters.argon2idFloor

    /// `modules` are the schemas above CryptoVault the vault is made with (the writing model's, say).
    public init(passphrase text: String = "correct horse battery staple", modules: [ModuleSchema] = []) throws {
        root = NSTemporaryDirectory() + "vault-test-\(UUID().uuidString)"
        directory = root + "/vault"
        passphrase = try SecureBytes(copying: Array(text.utf8))
        self.modules = modules
        unlocked = try Vault.create(at: directory, passphrase: passphrase, kdf: Self.fastKDF, journal: recording, modules: modules)
    }

    deinit {
        try? FileManager.default.removeItem(atPath: root)
    }

    public var vault: Vault { unlocked.vault }

    public func reopen() throws -> Vault { try Vault.open(at: directory, journal: RecordingJournal(), modules: modules) }

    public static func secret(_ text: String) throws -> SecureBytes { try SecureBytes(copying: Array(text.utf8)) }

    /// Runs SQL on the vault database with a separate connection, as an attacker editing the file would.
    public func tamper(_ sql: String) throws {
        let database = try Database(path: vault.databasePath, create: false)
        try database.execute(sql)
    }

    /// Every byte of the database and its write-ahead log.
    public func databaseFileBytes() -> [UInt8] {
        ["", "-wal"].flatMap { suffix in
            (FileManager.default.contents(atPath: vault.databasePath + suffix)).map { [UInt8]($0) } ?? []
        }
    }
}

extension Array where Element == UInt8 {
    public func contains(subsequence needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { start in self[start..<(start + needle.count)].elementsEqual(needle) }
    }
}

/// The error code a throwing expression failed with, or nil if it did not throw a CryptoVaultError.
public func errorCode<T>(_ body: () throws -> T) -> CryptoVaultErrorCode? {
    do {
        _ = try body()
        return nil
    } catch let error as CryptoVaultError {
        return error.code
    } catch {
        return nil
    }
}

public func errorMessage<T>(_ body: () throws -> T) -> String? {
    do {
        _ = try body()
        return nil
    } catch {
        return "\(error)"
    }
}
