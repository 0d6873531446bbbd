@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// The published vectors in `shared/vectors/` (CPace and Noise). Where they are: `$VAULT_VECTORS_DIR`
/// when set, otherwise the first `shared/vectors` found walking up from this source file (the
/// repository is checked out at `<X>/main`, or `<X>/project` in CI, with `<X>/shared` beside it).
/// When they are absent the suites are skipped and say so loudly; when `VAULT_VECTORS_DIR` is set
/// they always run, so a wrong path fails rather than skips.
enum SharedVectors {
    static let directory: URL? = locate()

    static let isAvailable: Bool = {
        if directory != nil || ProcessInfo.processInfo.environment["VAULT_VECTORS_DIR"] != nil { return true }
        print("""
            ************************************************************************************
            SHARED VECTORS NOT FOUND (no VAULT_VECTORS_DIR, no shared/vectors above the package): \
            SKIPPING the CPace and Noise vector suites.
            ************************************************************************************
            """)
        return false
    }()

    /// Decodes `relativePath` (e.g. "cpace/ristretto255-sha512-draft21.json") as `T`.
    static func load<T: Decodable>(_ relativePath: String, as _: T.Type = T.self) throws -> T {
        guard let directory else { throw NotFound(path: relativePath) }
        return try PackageFiles.decode(fileAt: directory.appendingPathComponent(relativePath))
    }

    struct NotFound: Error, CustomStringConvertible {
        let path: String
        var description: String { "SHARED VECTORS NOT FOUND: cannot load \(path)" }
    }

    private static func locate(filePath: String = #filePath) -> URL? {
        func isDirectory(_ url: URL) -> Bool {
            var isDirectory: ObjCBool = false
            return FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) && isDirectory.boolValue
        }
        if let configured = ProcessInfo.processInfo.environment["VAULT_VECTORS_DIR"] {
            let candidate = URL(fileURLWithPath: configured)
            return isDirectory(candidate) ? candidate : nil
        }
        var folder = URL(fileURLWithPath: filePath).deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent("shared/vectors")
            if isDirectory(candidate.appendingPathComponent("noise")) { return candidate }
            folder.deleteLastPathComponent()
        }
        return nil
    }
}

/// Bytes given as a lowercase hex string in the JSON; anything else fails decoding, and so the test.
struct Hex: Decodable, Sendable {
    let bytes: [UInt8]

    init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let bytes = ByteEncoding.bytes(fromHex: Substring(text)) else {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath, debugDescription: "not lowercase hex: \(text)"))
        }
        self.bytes = bytes
    }
}
