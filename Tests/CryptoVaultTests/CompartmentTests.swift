@testable import CryptoVault
import Foundation
import Testing
import TestSupport

@Suite("Compartments: sealed names, key versions, shredding")
struct CompartmentTests {
    @Test("healthcare and legal are privileged by default, others are not, and flags override")
    func privilegedDefaults() throws {
        let fixture = try TestVault()
        for register in Register.allCases {
            let compartment = try fixture.unlocked.createCompartment(named: register.rawValue, register: register)
            #expect(compartment.isPrivileged == (register == .healthcare || register == .legal), "\(register)")
        }
        #expect(try fixture.unlocked.createCompartment(named: "public ward", register: .healthcare, privileged: false).isPrivileged == false)
        #expect(try fixture.unlocked.createCompartment(named: "memo", register: .founder, privileged: true).isPrivileged)
        #expect(try fixture.unlocked.compartments().count == Register.allCases.count + 2)
    }

    @Test("a name is unique, validated, and never stored in clear")
    func names() throws {
        let fixture = try TestVault()
        let name = "Smith v. Jones (privileged)"
        _ = try fixture.unlocked.createCompartment(named: name, register: .legal)
        #expect(errorCode { try fixture.unlocked.createCompartment(named: name, register: .legal) } == .compartmentExists)
        #expect(errorCode { try fixture.unlocked.createCompartment(named: "", register: .legal) } == .invalidName)
        #expect(errorCode { try fixture.unlocked.createCompartment(named: " padded", register: .legal) } == .invalidName)
        #expect(errorCode { try fixture.unlocked.createCompartment(named: "tab\there", register: .legal) } == .invalidName)
        #expect(errorCode { try fixture.unlocked.compartment(named: "Smith") } == .compartmentNotFound)
        try Database(path: fixture.vault.databasePath, create: false).checkpointAndTruncateLog()
        #expect(!fixture.databaseFileBytes().contains(subsequence: Array("Smith v. Jones".utf8)))
        #expect(try fixture.reopen().unlock(with: .passphrase(fixture.passphrase)).compartments().map(\.name) == [name])
    }

    @Test("keys differ per compartment and per version, and are stable across unlocks")
    func keyDerivation() throws {
        let fixture = try TestVault()
        let notes = try fixture.unlocked.createCompartment(named: "notes", register: .healthcare)
        let memos = try fixture.unlocked.createCompartment(named: "memos", register: .legal)
        #expect(try fixture.unlocked.compartmentKey(for: notes, version: 1) != fixture.unlocked.compartmentKey(for: memos, version: 1))
        #expect(try fixture.unlocked.rotateCompartment(named: "notes") == 2)
        let rotated = try fixture.unlocked.compartment(named: "notes")
        #expect(rotated.keyVersions.map(\.version) == [1, 2] && rotated.currentVersion == 2)
        let versionOne = try fixture.unlocked.compartmentKey(for: rotated, version: 1)
        #expect(versionOne != (try fixture.unlocked.compartmentKey(for: rotated, version: 2)))
        let again = try fixture.reopen().unlock(with: .passphrase(fixture.passphrase))
        #expect(try again.compartmentKey(for: rotated, version: 1) == versionOne)
        #expect(errorCode { try again.compartmentKey(for: rotated, version: 3) } == .unknownKeyVersion)
    }

    @Test("retiring an older version shreds its salt; the current version cannot be retired")
    func retire() throws {
        let fixture = try TestVault()
        _ = try fixture.unlocked.createCompartment(named: "memos", register: .legal)
        #expect(errorCode { try fixture.unlocked.retireCompartmentVersion(named: "memos", version: 1) } == .invalidInput)
        _ = try fixture.unlocked.rotateCompartment(named: "memos")
        let salt = try fixture.vault.withDatabase { try $0.queryOne("SELECT salt FROM compartment_keys WHERE version = 1")?.blob("salt") } ?? []
        let keyTwo = try fixture.unlocked.compartmentKey(for: try fixture.unlocked.compartment(named: "memos"), version: 2)
        try fixture.unlocked.retireCompartmentVersion(named: "memos", version: 1)
        let memos = try fixture.unlocked.compartment(named: "memos")
        #expect(memos.keyVersions.map(\.isActive) == [false, true] && memos.currentVersion == 2)
        #expect(errorCode { try fixture.unlocked.compartmentKey(for: memos, version: 1) } == .unknownKeyVersion)
        #expect(try fixture.unlocked.compartmentKey(for: memos, version: 2) == keyTwo)
        #expect(salt.count == 32 && !fixture.databaseFileBytes().contains(subsequence: salt))
        #expect(errorCode { try fixture.unlocked.retireCompartmentVersion(named: "memos", version: 1) } == .unknownKeyVersion)
        #expect(try fixture.unlocked.rotateCompartment(named: "memos") == 3)
    }

    @Test("names are compared in NFC: a decomposed spelling finds, and collides with, the composed one")
    func unicodeNormalisation() throws {
        let fixture = try TestVault()
        let created = try fixture.unlocked.createCompartment(named: "Cafe\u{301}", register: .fiction)
        #expect(Array(created.name.utf8) == Array("Caf\u{e9}".utf8))
        #expect(try fixture.unlocked.compartment(named: "Caf\u{e9}").id == created.id)
        #expect(errorCode { try fixture.unlocked.createCompartment(named: "Caf\u{e9}", register: .fiction) } == .compartmentExists)
    }

    @Test("a hostile key version number in the database is refused, not trapped on")
    func hostileVersionNumber() throws {
        let fixture = try TestVault()
        _ = try fixture.unlocked.createCompartment(named: "x", register: .general)
        try fixture.tamper("PRAGMA ignore_check_constraints = ON; UPDATE compartment_keys SET version = 1099511627776")
        #expect(errorCode { try fixture.unlocked.compartment(named: "x") } == .corruptVault)
    }

    @Test("destroy shreds the salts from the database file and its log; the key can never be derived again")
    func destroyShreds() throws {
        let fixture = try TestVault()
        let doomed = try fixture.unlocked.createCompartment(named: "doomed", register: .legal)
        _ = try fixture.unlocked.rotateCompartment(named: "doomed")
        let salts = try fixture.vault.withDatabase { database in
            try database.query("SELECT salt FROM compartment_keys WHERE compartment_id = ?", [.integer(doomed.rowID)]).map { try $0.blob("salt") }
        }
        let sealedName = try fixture.vault.withDatabase { try $0.queryOne("SELECT sealed_name FROM compartments")?.blob("sealed_name") } ?? []
        #expect(salts.count == 2)
        #expect(salts.allSatisfy { fixture.databaseFileBytes().contains(subsequence: $0) })
        try fixture.unlocked.destroyCompartment(named: "doomed")
        let remaining = fixture.databaseFileBytes()
        for salt in salts { #expect(!remaining.contains(subsequence: salt)) }
        #expect(!remaining.contains(subsequence: sealedName))
        #expect(errorCode { try fixture.unlocked.compartmentKey(for: doomed, version: 1) } == .unknownKeyVersion)
        #expect(errorCode { try fixture.unlocked.compartment(named: "doomed") } == .compartmentNotFound)
        #expect(try fixture.unlocked.createCompartment(named: "doomed", register: .legal).id != doomed.id)
    }

    // MARK: Inside a caller's transaction

    struct Injected: Error {}

    @Test("a compartment made in a transaction that then fails leaves no row, no key salt and no entry")
    func createdInARolledBackTransaction() throws {
        let fixture = try TestVault()
        let before = fixture.recording.actions
        var made: VaultCompartment?
        #expect(throws: Injected.self) {
            try fixture.unlocked.transaction { tx in
                made = try tx.createCompartment(named: "draft", register: .legal)
                throw Injected()
            }
        }
        let compartment = try #require(made)
        #expect(fixture.recording.actions == before)
        let rows = try fixture.vault.withDatabase { database in
            try database.queryOne("SELECT (SELECT count(*) FROM compartments) + (SELECT count(*) FROM compartment_keys) AS n")?.integer("n")
        }
        #expect(rows == 0)
        #expect(errorCode { try fixture.unlocked.compartment(named: "draft") } == .compartmentNotFound)
        #expect(errorCode { try fixture.unlocked.compartmentKey(for: compartment, version: 1) } == .unknownKeyVersion)
        #expect(try fixture.unlocked.createCompartment(named: "draft", register: .legal).id != compartment.id)
    }

    @Test("a compartment made in a caller's transaction commits with the caller's entries, in one batch, and is usable inside it")
    func createdWithOtherChanges() throws {
        let fixture = try TestVault()
        let location = try SealedRecordLocation(module: "test", table: "memos", recordID: [1], field: "text")
        let (compartment, key, opened) = try fixture.unlocked.transaction { tx in
            let compartment = try tx.createCompartment(named: "Memo", register: .legal, privileged: false)
            let key = try tx.vault.compartmentKey(for: compartment, version: 1, in: tx.database)
            _ = try tx.sealRecord(Array("kept".utf8), at: location, in: compartment)
            return (compartment, key, try tx.openRecord(at: location, in: compartment))
        }
        #expect(opened.withUnsafeBytes { Array($0) } == Array("kept".utf8))
        #expect(fixture.recording.batches.withLock { $0.last } == ["compartment.create", "record.seal", "record.open"])
        let create = try #require(fixture.recording.events.withLock { $0.dropLast(2).last })
        #expect(create.compartmentID == compartment.id)
        #expect(create.details == [.init("name", "Memo"), .init("register", "legal"), .init("privileged", "no")])
        #expect(try fixture.unlocked.compartment(named: "Memo").id == compartment.id)
        #expect(try fixture.unlocked.compartmentKey(for: compartment, version: 1) == key)
    }

    @Test("in a transaction, a taken name is refused (.compartmentExists) before anything is written")
    func takenNameInATransaction() throws {
        let fixture = try TestVault()
        _ = try fixture.unlocked.createCompartment(named: "notes", register: .general)
        #expect(errorCode { try fixture.unlocked.transaction { try $0.createCompartment(named: "notes", register: .legal) } } == .compartmentExists)
        #expect(try fixture.unlocked.compartments().map(\.register) == [.general])
    }
}
