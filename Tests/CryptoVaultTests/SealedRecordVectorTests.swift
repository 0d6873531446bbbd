@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// testvectors/record/records.json (written by testvectors/generate.py from the independent code in
/// testvectors/independent/sealed_record.py): the Swift codec must reproduce every byte and refuse
/// every moved or altered record for the reason the file gives.
@Suite("Sealed record known answers (testvectors/record/records.json)")
struct SealedRecordVectorTests {
    struct File: Decodable {
        let description: String
        let spec: String
        let cases: [Case]
    }

    struct Case: Decodable {
        let type: String
        let name: String
        let identity: Identity?
        let masterKey: String?
        let versionSalt: String?
        let compartmentKey: String?
        let recordKey: String?
        let nonce: String?
        let plaintext: String?
        let tags: Tags?
        let header: String?
        let ad: String?
        let sealed: String?
        let mustNotOpen: [Refusal]?
        let reason: String?
        let digestKey: String?
        let location: Location?
        let digest: String?
    }

    struct Location: Decodable {
        let module: String
        let table: String
        let recordId: String
        let field: String
    }

    struct Identity: Decodable {
        let vaultId: String
        let compartmentId: String
        let keyVersion: UInt32
        let module: String
        let table: String
        let recordId: String
        let field: String

        func decoded() throws -> SealedRecordIdentity {
            SealedRecordIdentity(vaultID: try VaultID(bytes: try bytes(vaultId)), compartmentID: try CompartmentID(bytes: try bytes(compartmentId)), keyVersion: keyVersion,
                                 location: try SealedRecordLocation(module: module, table: table, recordID: try bytes(recordId), field: field))
        }
    }

    struct Tags: Decodable {
        let vault: String
        let compartment: String
        let row: String
        let field: String
    }

    struct Refusal: Decodable {
        let change: String
        let identity: Identity
        let sealed: String?
        let reason: String
    }

    struct Malformed: Error { let text: String }

    static let reasons: [String: CryptoVaultErrorCode] = [
        "another-vault": .recordFromAnotherVault, "another-compartment": .recordFromAnotherCompartment,
        "another-row": .recordFromAnotherRow, "another-field": .recordFromAnotherField, "corrupt": .corruptRecord,
        "malformed": .malformedRecord,
    ]

    static func bytes(_ text: String?) throws -> [UInt8] {
        guard let text, let value = ByteEncoding.bytes(fromHex: Substring(text)) else { throw Malformed(text: text ?? "nil") }
        return value
    }

    static func load() throws -> File {
        try PackageFiles.decode("testvectors/record/records.json", keys: .convertFromSnakeCase)
    }

    static func cases(_ type: String) throws -> [Case] {
        let file = try load()
        #expect(file.spec == "SECURITY.md §4.8")
        #expect(Set(file.cases.map(\.type)) == ["seal", "key", "reject-parse", "digest"], "records.json has only known case types")
        return file.cases.filter { $0.type == type }
    }

    @Test("each record seals to the file's bytes from its master key, salt, identity and nonce: key, tags, header, AD, sealed value")
    func sealsByteForByte() throws {
        let cases = try Self.cases("seal")
        #expect(cases.count == 4)
        for c in cases {
            let identity = try #require(c.identity).decoded()
            let compartmentKey = try KeyHierarchy.compartmentKey(masterKey: try SecureBytes(copying: try Self.bytes(c.masterKey)),
                                                                 vaultID: identity.vaultID, compartmentID: identity.compartmentID,
                                                                 version: identity.keyVersion, salt: try Self.bytes(c.versionSalt))
            let expectedCompartmentKey = try Self.bytes(c.compartmentKey)
            #expect(compartmentKey.withUnsafeBytes { Array($0) } == expectedCompartmentKey, "\(c.name): compartment key")
            let recordKey = try SealedRecordCodec.recordKey(compartmentKey: compartmentKey)
            let expectedRecordKey = try Self.bytes(c.recordKey)
            #expect(recordKey.withUnsafeBytes { Array($0) } == expectedRecordKey, "\(c.name): record key")
            let tags = SealedRecordCodec.Tags(identity)
            let expectedTags = try #require(c.tags)
            let expectedTagBytes = try Self.bytes(expectedTags.vault) + Self.bytes(expectedTags.compartment)
                + Self.bytes(expectedTags.row) + Self.bytes(expectedTags.field)
            #expect(tags.bytes == expectedTagBytes, "\(c.name): tags")
            let header = try Self.bytes(c.header)
            let expectedAD = try Self.bytes(c.ad)
            #expect(SealedRecordCodec.associatedData(header: header, identity: identity) == expectedAD, "\(c.name): AD")
            let plaintext = try Self.bytes(c.plaintext)
            let sealed = try SealedRecordCodec.seal(plaintext, identity: identity, recordKey: recordKey, nonce: try Self.bytes(c.nonce))
            let expectedSealed = try Self.bytes(c.sealed)
            #expect(sealed == expectedSealed, "\(c.name): sealed bytes")
            #expect(Array(sealed.prefix(SealedRecordCodec.headerSize)) == header, "\(c.name): header")
            let opened = try SealedRecordCodec.open(sealed, identity: identity, recordKey: recordKey)
            #expect(opened.exposedCopy() == plaintext, "\(c.name): opens to its plaintext")
        }
    }

    @Test("every moved or altered record of the file is refused with its reason's error code, and nothing opens")
    func refusesEveryMovedRecord() throws {
        var refused = 0
        for c in try Self.cases("seal") {
            let recordKey = try SecureBytes(copying: try Self.bytes(c.recordKey))
            for bad in try #require(c.mustNotOpen) {
                let expected = try #require(Self.reasons[bad.reason], "\(c.name): unknown reason \(bad.reason)")
                let sealed = try Self.bytes(bad.sealed ?? c.sealed)
                let code = errorCode { try SealedRecordCodec.open(sealed, identity: try bad.identity.decoded(), recordKey: recordKey) }
                #expect(code == expected, "\(c.name) / \(bad.change)")
                refused += 1
            }
        }
        #expect(refused >= 30, "the file covers each move for each record")
    }

    @Test("the record key is HKDF-SHA-256(compartment key, empty salt, \"vaultctl sealed record key v1\", 32)")
    func recordKeys() throws {
        let cases = try Self.cases("key")
        #expect(cases.count == 2)
        for c in cases {
            let compartmentKey = try SecureBytes(copying: try Self.bytes(c.compartmentKey))
            let key = try SealedRecordCodec.recordKey(compartmentKey: compartmentKey)
            let expected = try Self.bytes(c.recordKey)
            #expect(key.withUnsafeBytes { Array($0) } == expected, "\(c.name)")
            // The vault's transactions expand it from an HKDF-Extract kept for both keys: the same bytes.
            let shared = try SealedRecordCodec.recordKey(pseudoRandomKey: try HKDF.extract(salt: [], inputKeyMaterial: compartmentKey))
            #expect(shared.withUnsafeBytes { Array($0) } == expected, "\(c.name): from the shared extract")
        }
    }

    @Test("the digest key is HKDF-SHA-256(compartment key, empty salt, \"vaultctl sealed record digest key v1\", 32); a row's digest is its HMAC of the location and plaintext, cut to 16 bytes")
    func digests() throws {
        let cases = try Self.cases("digest")
        #expect(cases.count == 2)
        for c in cases {
            let compartmentKey = try SecureBytes(copying: try Self.bytes(c.compartmentKey))
            let key = try SealedRecordDigest.key(compartmentKey: compartmentKey)
            let expectedKey = try Self.bytes(c.digestKey)
            #expect(key.withUnsafeBytes { Array($0) } == expectedKey, "\(c.name): digest key")
            let shared = try SealedRecordDigest.key(pseudoRandomKey: try HKDF.extract(salt: [], inputKeyMaterial: compartmentKey))
            #expect(shared.withUnsafeBytes { Array($0) } == expectedKey, "\(c.name): digest key from the shared extract")
            let place = try #require(c.location)
            let location = try SealedRecordLocation(module: place.module, table: place.table, recordID: try Self.bytes(place.recordId), field: place.field)
            let digest = try Self.bytes(c.plaintext).withUnsafeBytes { SealedRecordDigest.digest(of: $0, at: location, key: key) }
            let expected = try Self.bytes(c.digest)
            #expect(digest == expected, "\(c.name): digest")
        }
    }

    @Test("values that are not records (empty, 60 bytes, version 0 or 2, key version 0) are refused as malformed before any key is used")
    func rejectsMalformed() throws {
        let cases = try Self.cases("reject-parse")
        #expect(cases.count == 5)
        for c in cases {
            #expect(c.reason == "malformed")
            let sealed = try Self.bytes(c.sealed)
            #expect(errorCode { try SealedRecordCodec.Header(parsing: sealed) } == .malformedRecord, "\(c.name)")
        }
    }
}
