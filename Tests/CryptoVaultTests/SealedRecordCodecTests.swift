@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("Sealed record codec: the identity is bound, each move refused for its own reason")
struct SealedRecordCodecTests {
    static let vaultID = Array(repeating: UInt8(0x11), count: 16)
    static let compartmentID = Array(repeating: UInt8(0x22), count: 16)

    static func location(_ record: UInt8 = 1, field: String = "text", table: String = "blocks", module: String = "writing") throws -> SealedRecordLocation {
        try SealedRecordLocation(module: module, table: table, recordID: [record, 0xAB], field: field)
    }

    static func identity(_ location: SealedRecordLocation, vault: [UInt8] = vaultID, compartment: [UInt8] = compartmentID,
                         version: UInt32 = 1) -> SealedRecordIdentity {
        // The tests' ids are all 16 bytes.
        SealedRecordIdentity(vaultID: try! VaultID(bytes: vault), compartmentID: try! CompartmentID(bytes: compartment), keyVersion: version,
                             location: location)
    }

    static func key() throws -> SecureBytes { try SecureBytes.random(count: 32) }

    @Test("a record opens at its identity to its plaintext; the sealed value is 61 bytes longer and never the same twice")
    func roundTrip() throws {
        let key = try Self.key()
        let identity = Self.identity(try Self.location())
        let plaintext = Array("A 200-byte paragraph of session notes.".utf8)
        let first = try SealedRecordCodec.seal(plaintext, identity: identity, recordKey: key)
        let second = try SealedRecordCodec.seal(plaintext, identity: identity, recordKey: key)
        #expect(first.count == plaintext.count + 61)
        #expect(first != second, "a fresh nonce each seal")
        #expect(try SealedRecordCodec.open(first, identity: identity, recordKey: key).exposedCopy() == plaintext)
        #expect(try SealedRecordCodec.open(try SealedRecordCodec.seal([], identity: identity, recordKey: key), identity: identity, recordKey: key).count == 0)
        let fromLocked = try SealedRecordCodec.seal(try SecureBytes(copying: plaintext), identity: identity, recordKey: key)
        #expect(try SealedRecordCodec.open(fromLocked, identity: identity, recordKey: key).exposedCopy() == plaintext, "sealed from SecureBytes")
    }

    @Test("a transaction's tag cache gives every identity the tags computed afresh, across vaults, compartments, records and fields")
    func tagCacheAgrees() throws {
        let cache = SealedRecordCodec.TagCache()
        let other = Array(repeating: UInt8(0x33), count: 16)
        for vault in [Self.vaultID, other] {
            for compartment in [Self.compartmentID, other] {
                for (record, field) in [(1, "text"), (2, "text"), (1, "title"), (3, "title")] {
                    let identity = Self.identity(try Self.location(UInt8(record), field: field), vault: vault, compartment: compartment)
                    #expect(cache.tags(for: identity) == SealedRecordCodec.Tags(identity))
                }
            }
        }
    }

    @Test("moved to another vault, compartment, record, table, module or field: each refused with its own code")
    func movesAreNamed() throws {
        let key = try Self.key()
        let here = try Self.location()
        let sealed = try SealedRecordCodec.seal(Array("title".utf8), identity: Self.identity(here), recordKey: key)
        let elsewhere: [(SealedRecordIdentity, CryptoVaultErrorCode)] = [
            (Self.identity(here, vault: Array(repeating: 0x33, count: 16)), .recordFromAnotherVault),
            (Self.identity(here, compartment: Array(repeating: 0x44, count: 16)), .recordFromAnotherCompartment),
            (Self.identity(try Self.location(2)), .recordFromAnotherRow),
            (Self.identity(try Self.location(table: "scenes")), .recordFromAnotherRow),
            (Self.identity(try Self.location(module: "sync")), .recordFromAnotherRow),
            (Self.identity(try Self.location(field: "title")), .recordFromAnotherField),
        ]
        for (identity, code) in elsewhere {
            #expect(errorCode { try SealedRecordCodec.open(sealed, identity: identity, recordKey: key) } == code, "\(identity.location)")
        }
    }

    @Test("an altered byte anywhere (header, nonce, ciphertext, tag) is refused; the wrong key is refused as corrupt")
    func alterationsRefused() throws {
        let key = try Self.key()
        let identity = Self.identity(try Self.location())
        let sealed = try SealedRecordCodec.seal(Array("clinical field".utf8), identity: identity, recordKey: key)
        for index in sealed.indices {
            var altered = sealed
            altered[index] ^= 0x01
            #expect(errorCode { try SealedRecordCodec.open(altered, identity: identity, recordKey: key) } != nil, "byte \(index)")
        }
        var ciphertext = sealed
        ciphertext[50] ^= 0x80
        #expect(errorCode { try SealedRecordCodec.open(ciphertext, identity: identity, recordKey: key) } == .corruptRecord)
        #expect(errorCode { try SealedRecordCodec.open(sealed, identity: identity, recordKey: try Self.key()) } == .corruptRecord)
        #expect(errorCode { try SealedRecordCodec.open(Array(sealed.dropLast()), identity: identity, recordKey: key) } == .corruptRecord)
        #expect(errorCode { try SealedRecordCodec.open(sealed + [0], identity: identity, recordKey: key) } == .corruptRecord)
    }

    @Test("a key version edited in the header is refused: against its row's version, and as corrupt if the row agrees")
    func keyVersionBound() throws {
        let key = try Self.key()
        let identity = Self.identity(try Self.location(), version: 2)
        var sealed = try SealedRecordCodec.seal(Array("x".utf8), identity: identity, recordKey: key)
        sealed[4] = 3
        #expect(errorCode { try SealedRecordCodec.open(sealed, identity: identity, recordKey: key) } == .corruptRecord)
        #expect(errorCode { try SealedRecordCodec.open(sealed, identity: identity.at(keyVersion: 3), recordKey: key) } == .corruptRecord)
    }

    @Test("sizes are checked first: over 1 MiB of plaintext is refused at seal, over 1 MiB + 61 bytes at open")
    func sizeBounds() throws {
        let key = try Self.key()
        let identity = Self.identity(try Self.location())
        let largest = [UInt8](repeating: 7, count: SealedRecordCodec.maximumPlaintextSize)
        let sealed = try SealedRecordCodec.seal(largest, identity: identity, recordKey: key)
        #expect(try SealedRecordCodec.open(sealed, identity: identity, recordKey: key).exposedCopy() == largest)
        #expect(errorCode { try SealedRecordCodec.seal(largest + [0], identity: identity, recordKey: key) } == .invalidInput)
        #expect(errorCode { try SealedRecordCodec.open(sealed + [0], identity: identity, recordKey: key) } == .malformedRecord)
        #expect(errorCode { try SealedRecordCodec.open(Array(sealed.prefix(60)), identity: identity, recordKey: key) } == .malformedRecord)
    }

    @Test("locations: names of 1 to 64 characters of a-z, 0-9, '_', '-', ids of 1 to 64 bytes; anything else is refused")
    func locationsValidated() throws {
        let good = String(repeating: "a", count: 64)
        #expect(throws: Never.self) { try SealedRecordLocation(module: good, table: "t-1_x", recordID: Array(repeating: 0, count: 64), field: "f") }
        for (module, table, field) in [("", "t", "f"), (good + "a", "t", "f"), ("Writing", "t", "f"), ("m", "t b", "f"), ("m", "t", "é"),
                                       ("m", "t", "f/g"), ("m", "t.x", "f")] {
            #expect(errorCode { try SealedRecordLocation(module: module, table: table, recordID: [1], field: field) } == .invalidRecordLocation,
                    "\(module) \(table) \(field)")
        }
        #expect(errorCode { try SealedRecordLocation(module: "m", table: "t", recordID: [], field: "f") } == .invalidRecordLocation)
        #expect(errorCode { try SealedRecordLocation(module: "m", table: "t", recordID: Array(repeating: 0, count: 65), field: "f") } == .invalidRecordLocation)
    }
}
