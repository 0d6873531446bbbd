import Foundation

/// Source guards read the package's own code: the tests that fail if a removed API or an
/// unfunnelled transport comes back.
extension PackageFiles {
    public struct SourcesNotFound: Error, CustomStringConvertible {
        public let root: String
        public let count: Int
        public var description: String { "Sources/ was not found at \(root) (\(count) .swift files)" }
    }

    /// Every .swift file under Sources/, with its path relative to the package. Throws when fewer
    /// than 100 are found, so a guard cannot pass by reading nothing.
    public static func swiftSources() throws -> [(path: String, text: String)] {
        let sources = url("Sources").path
        guard let enumerator = FileManager.default.enumerator(atPath: sources) else {
            throw SourcesNotFound(root: sources, count: 0)
        }
        var files: [(path: String, text: String)] = []
        while let relative = enumerator.nextObject() as? String {
            guard relative.hasSuffix(".swift") else { continue }
            files.append(("Sources/" + relative, try String(contentsOfFile: sources + "/" + relative, encoding: .utf8)))
        }
        guard files.count > 100 else { throw SourcesNotFound(root: sources, count: files.count) }
        return files
    }
}
