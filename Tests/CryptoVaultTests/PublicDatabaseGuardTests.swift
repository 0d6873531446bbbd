import Foundation
import Testing
import TestSupport

/// No public raw database (issue 12): `Database` runs any SQL on any table, so it and everything that
/// hands one out (`Vault.read`, `VaultTransaction.database`, the readers and writers that take one)
/// are `package`: every module and executable is in this package, where OwnedSQLGuardTests decides
/// which type touches which table, and a library caller outside it reaches the vault only through
/// typed APIs (`unlocked.transaction` with a module's store, `AuditLogReader(vault:)`, ...).
/// This guard fails if a `public` or `open` declaration in Sources/ mentions `Database` in its
/// signature again.
@Suite struct PublicDatabaseGuardTests {
    /// A declaration line: attributes and modifiers, then `public` or `open`.
    static let declaration = try! NSRegularExpression(pattern:
        #"^\s*(?:@[A-Za-z_]+(?:\([^)]*\))?\s+)*(?:(?:final|static|class|override|nonisolated|convenience|required|mutating|indirect|dynamic|internal\(set\)|private\(set\)|fileprivate\(set\))\s+)*(?:public|open)\b"#)
    static let database = try! NSRegularExpression(pattern: #"\bDatabase\b"#)

    /// The signature of the declaration that starts at `lines[start]`: its text up to the `{` that
    /// opens its body (outside brackets), or to the end of the line where its brackets close, without
    /// comments. Enough of Swift's grammar for declarations as this code writes them.
    static func signature(_ lines: [Substring], from start: Int) -> String {
        var text = "", depth = 0, index = start
        while index < lines.count {
            let line = lines[index].components(separatedBy: "//")[0]
            var previous: Character = " "
            for character in line {
                switch character {
                case "(", "[", "<": depth += 1
                case ")", "]": depth -= 1
                case ">" where previous != "-": depth -= 1
                case "{" where depth <= 0: return text
                default: break
                }
                text.append(character)
                previous = character
            }
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if depth <= 0 && !trimmed.hasSuffix(",") && !trimmed.hasSuffix("->") && !trimmed.hasSuffix("(") { return text }
            text += " "
            index += 1
        }
        return text
    }

    /// Each public or open declaration of `text` whose signature names `Database`, as "line: signature".
    static func publicDatabaseDeclarations(in text: String) -> [String] {
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        return lines.indices.compactMap { index in
            let line = String(lines[index])
            guard declaration.firstMatch(in: line, range: NSRange(line.startIndex..., in: line)) != nil else { return nil }
            let found = signature(lines, from: index)
            guard database.firstMatch(in: found, range: NSRange(found.startIndex..., in: found)) != nil else { return nil }
            return "\(index + 1): \(found.trimmingCharacters(in: .whitespaces))"
        }
    }

    @Test("no public or open declaration in Sources/ mentions Database in its signature")
    func noPublicDatabase() throws {
        let offenders = try PackageFiles.swiftSources().flatMap { file in
            Self.publicDatabaseDeclarations(in: file.text).map { "\(file.path):\($0)" }
        }
        #expect(offenders == [], "make it package (or give callers a typed API): a public Database runs any SQL on any table")
    }

    @Test("the guard sees what it guards: each shape the removed APIs had is caught, and package ones are not",
          arguments: [
              "public final class Database: @unchecked Sendable {",
              "    public func read<Result>(_ body: (Database) throws -> Result) throws -> Result {",
              "    public let database: Database",
              "    @discardableResult public static func open(_ path: String,\n        vaultID: VaultID) throws -> Database {",
              "    public func append(_ events: [VaultEvent],\n                       in database: Database, vaultID: VaultID) throws {",
              "open func reader(_ database: Database) -> Reader {",
              "    public func rows(in database: Database, where body: (Row) throws -> Bool)\n        throws -> [Row] {",
              "public typealias Connection = Database",
              "public extension Database {",
              "    public var connection: Database { handle }",
          ])
    func theGuardCanFail(declaration: String) {
        #expect(Self.publicDatabaseDeclarations(in: declaration).count == 1, "\(declaration)")
    }

    @Test("what may stay public is not caught: package declarations, a body that uses a Database, another name",
          arguments: [
              "package final class Database: @unchecked Sendable {",
              "    package func read<Result>(_ body: (Database) throws -> Result) throws -> Result {",
              "    public func entries() throws -> [AuditEntry] {\n        try vault.read { database in try Database.rows(database) }\n    }",
              "public struct DatabaseFile { }",
              "    // public func read(_ body: (Database) throws -> Void)",
          ])
    func packageAndBodiesAreFine(declaration: String) {
        #expect(Self.publicDatabaseDeclarations(in: declaration) == [], "\(declaration)")
    }
}
