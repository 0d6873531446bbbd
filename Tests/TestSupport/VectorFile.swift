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
