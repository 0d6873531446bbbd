import Foundation
import Testing
import TestSupport

/// Sealed-record plaintext lives only in locked memory (SECURITY.md §4.8): no API that opens a
/// sealed record gives its plaintext as an ordinary `[UInt8]`, which is neither locked nor wiped.
/// This reads Sources/ and fails if one comes back: a return type, a sink's parameter or anything
/// else in the signature of an open spelled with `[UInt8]`, except the sealed bytes it takes.
@Suite struct SealedRecordPlaintextGuardTests {
    /// The signatures (`func` to the opening brace, on one line) of the sealed-record opens in a file:
    /// every `openRecord` and `openRecords`, and in the records' own files every `open` too.
    static func openSignatures(in text: String, path: String) throws -> [String] {
        let recordsFile = path.hasPrefix("Sources/CryptoVault/Records/") || path.hasSuffix("+SealedRecords.swift")
        let regex = try NSRegularExpression(pattern: recordsFile ? #"\bfunc\s+(openRecords?|open)\b[^{]*"# : #"\bfunc\s+openRecords?\b[^{]*"#)
        return regex.matches(in: text, range: NSRange(text.startIndex..., in: text)).compactMap { match in
            Range(match.range, in: text).map { text[$0].split(whereSeparator: \.isWhitespace).joined(separator: " ") }
        }
    }

    /// Whether `signature` hands out an ordinary array: `[UInt8]` anywhere in it but as the sealed
    /// input (`sealed: [UInt8]`), so `-> [UInt8]`, `-> [[UInt8]]`, `-> [Key: [UInt8]]` and
    /// `(Int, [UInt8]) -> Void` all count.
    static func givesArray(_ signature: String) -> Bool {
        signature.replacingOccurrences(of: "sealed: [UInt8]", with: "").contains("UInt8]")
    }

    static func offenders() throws -> (signatures: [String], offending: [String]) {
        let signatures = try PackageFiles.swiftSources().flatMap { file in
            try openSignatures(in: file.text, path: file.path).map { "\(file.path): \($0)" }
        }
        return (signatures, signatures.filter(givesArray))
    }

    @Test("no sealed-record open (openRecord, openRecords, the records files' open) gives plaintext as [UInt8]")
    func plaintextOnlyInLockedMemory() throws {
        let (signatures, offending) = try Self.offenders()
        #expect(offending == [], "return SecureBytes, or hand the plaintext to a sink from locked memory")
        // The scan sees what it guards: the six public opens, the store's and the codec's.
        #expect(signatures.filter { $0.contains("func openRecord") }.count >= 6, "\(signatures)")
        #expect(signatures.contains { $0.hasPrefix("Sources/CryptoVault/Records/SealedRecordCodec.swift: func open(bytes") }, "\(signatures)")
    }

    @Test("the guard catches a reintroduced array, on one line or several, returned or handed to a sink, and passes the sealed input")
    func theGuardCanFail() throws {
        let reintroduced = """
            public func openRecord(at location: SealedRecordLocation, in compartment: VaultCompartment) throws -> [UInt8] {
            public func openRecords(at locations: [SealedRecordLocation],
                                    in compartment: VaultCompartment) throws -> [[UInt8]] {
            public func openRecords(at locations: [SealedRecordLocation], _ body: (Int, [UInt8]) throws -> Void) throws {
            static func open(bytes sealed: UnsafeRawBufferPointer, identity: SealedRecordIdentity, recordKey: SecureBytes) throws -> [UInt8] {
            """
        let found = try Self.openSignatures(in: reintroduced, path: "Sources/CryptoVault/Records/SealedRecordCodec.swift")
        #expect(found.count == 4 && found.allSatisfy(Self.givesArray), "\(found)")
        let elsewhere = try Self.openSignatures(in: reintroduced, path: "Sources/Writing/Blocks.swift")
        #expect(elsewhere.count == 3 && elsewhere.allSatisfy(Self.givesArray), "openRecord(s) is guarded in every module: \(elsewhere)")
        let locked = "static func open(_ sealed: [UInt8], identity: SealedRecordIdentity, recordKey: SecureBytes) throws -> SecureBytes {"
        #expect(try Self.openSignatures(in: locked, path: "Sources/CryptoVault/Records/SealedRecordCodec.swift").map(Self.givesArray) == [false])
    }
}
