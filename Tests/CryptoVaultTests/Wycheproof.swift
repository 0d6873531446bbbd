import Foundation
import Testing
import TestSupport

/// Loading of Project Wycheproof test vectors (https://github.com/C2SP/wycheproof), shared by the
/// Wycheproof suites. Files are decoded by one generic Codable type, parameterised over the group type
/// of each schema, so a file that does not match its schema fails to load instead of running partly.
enum Wycheproof {
    /// Where the vectors are: `$VAULT_VECTORS_DIR/wycheproof` when that variable is set, otherwise the
    /// first `shared/vectors/wycheproof` found walking up from this source file. The repository is
    /// checked out at `<X>/main` (or `<X>/project` in CI) with `<X>/shared` beside it.
    static let directory: URL? = locate()

    /// Whether the Wycheproof suites can run. When the vectors are absent they are skipped, and this
    /// says so loudly, once, on standard output. When `VAULT_VECTORS_DIR` is set the suites always run,
    /// so a misconfigured path fails the tests rather than skipping them.
    static let isAvailable: Bool = {
        if directory != nil || ProcessInfo.processInfo.environment["VAULT_VECTORS_DIR"] != nil { return true }
        print("""
            ************************************************************************************
            WYCHEPROOF VECTORS NOT FOUND (no VAULT_VECTORS_DIR, no shared/vectors/wycheproof above \
            the package): SKIPPING the Wycheproof suites.
            ************************************************************************************
            """)
        return false
    }()

    /// Decodes one vector file. Throws when the folder or file is missing or does not match `Group`.
    static func load<Group: Decodable>(_ fileName: String, as _: Group.Type = Group.self) throws -> WycheproofFile<Group> {
        guard let directory else { throw VectorsNotFound(fileName: fileName) }
        return try PackageFiles.decode(fileAt: directory.appendingPathComponent(fileName))
    }

    struct VectorsNotFound: Error, CustomStringConvertible {
        let fileName: String
        var description: String { "WYCHEPROOF VECTORS NOT FOUND: cannot load \(fileName)" }
    }

    private static func locate(filePath: String = #filePath) -> URL? {
        let fileManager = FileManager.default
        func isDirectory(_ url: URL) -> Bool {
            var isDirectory: ObjCBool = false
            return fileManager.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        if let configured = ProcessInfo.processInfo.environment["VAULT_VECTORS_DIR"] {
            let candidate = URL(fileURLWithPath: configured).appendingPathComponent("wycheproof")
            return isDirectory(candidate) ? candidate : nil
        }
        var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/vectors/wycheproof")
            if isDirectory(candidate) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}

/// One Wycheproof file. `numberOfTests` is what the suites compare their count of run cases against.
struct WycheproofFile<Group: Decodable>: Decodable {
    let algorithm: String
    let numberOfTests: Int
    let testGroups: [Group]
}

/// Wycheproof's verdict on a case: `acceptable` cases may be accepted or rejected by a correct
/// implementation, but an accepted one must still produce the published output.
enum WycheproofResult: String, Decodable, Sendable {
    case valid, invalid, acceptable
}

// MARK: - Schemas (only the fields the suites use)

/// aead_test_schema_v1.json
struct AEADTestGroup: Decodable {
    let ivSize: Int
    let keySize: Int
    let tagSize: Int
    let tests: [AEADTestCase]
}

struct AEADTestCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let key: HexBytes
    let iv: HexBytes
    let aad: HexBytes
    let msg: HexBytes
    let ct: HexBytes
    let tag: HexBytes
    let result: WycheproofResult
}

/// eddsa_verify_schema_v1.json
struct EdDSATestGroup: Decodable {
    struct PublicKey: Decodable {
        let curve: String
        let pk: HexBytes
    }

    let publicKey: PublicKey
    let tests: [EdDSATestCase]
}

struct EdDSATestCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let msg: HexBytes
    let sig: HexBytes
    let result: WycheproofResult
}

/// xdh_comp_schema_v1.json
struct XDHTestGroup: Decodable {
    let curve: String
    let tests: [XDHTestCase]
}

struct XDHTestCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let publicKey: HexBytes
    let privateKey: HexBytes
    let shared: HexBytes
    let result: WycheproofResult

    enum CodingKeys: String, CodingKey {
        case tcId, comment, flags, shared, result
        case publicKey = "public"
        case privateKey = "private"
    }
}

/// hkdf_test_schema_v1.json
struct HKDFTestGroup: Decodable {
    let keySize: Int
    let tests: [HKDFTestCase]
}

struct HKDFTestCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let ikm: HexBytes
    let salt: HexBytes
    let info: HexBytes
    let size: Int
    let okm: HexBytes
    let result: WycheproofResult
}

/// mac_test_schema_v1.json
struct MACTestGroup: Decodable {
    let keySize: Int
    let tagSize: Int
    let tests: [MACTestCase]
}

struct MACTestCase: Decodable {
    let tcId: Int
    let comment: String
    let flags: [String]
    let key: HexBytes
    let msg: HexBytes
    let tag: HexBytes
    let result: WycheproofResult
}
