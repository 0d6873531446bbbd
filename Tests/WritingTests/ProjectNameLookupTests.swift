import CryptoVault
import Foundation
import PrivilegedSession
import Testing
import TestSupport
@testable import Writing

/// A project's name lookup hash (SECURITY.md §14.1, migration model-2): a name finds its project
/// without opening any name, so no session is needed to tell which privileged project it is.
@Suite struct ProjectNameLookupTests {
    @Test("a privileged project is told by its name's lookup hash with the vault's access alone: nothing opened, nothing recorded")
    func toldWithoutOpening() throws {
        let fixture = try WritingFixture()
        let smith = try fixture.project("Smith, J.", register: .healthcare, kind: .document)
        let jones = try fixture.project("Jones, A.", register: .healthcare, kind: .document)
        let recorded = fixture.vault.recording.actions.count
        #expect(try fixture.store { try $0.nameMatches("Smith, J.") } == [smith.id: .named, jones.id: .namedOtherwise])
        #expect(try fixture.store { try $0.nameMatches("Smith") } == [smith.id: .namedOtherwise, jones.id: .namedOtherwise])
        #expect(fixture.vault.recording.actions.count == recorded, "\(fixture.vault.recording.actions.dropFirst(recorded))")
        // The same access cannot open the name: what told them apart was the hash.
        #expect(writingCode { try fixture.store { try $0.name(of: smith) } } == .privilegedSessionRequired)
    }

    @Test("a name typed decomposed finds the project named with it composed (both NFC)")
    func nameIsNFC() throws {
        let fixture = try WritingFixture()
        let chart = try fixture.project("Se\u{301}ance 12", register: .healthcare, kind: .document)
        #expect(try fixture.store { try $0.nameMatches("S\u{e9}ance 12") } == [chart.id: .named])
    }

    @Test("two projects with one name: both are told, with different hashes (each bound to its project's id)")
    func hashIsBoundToTheProject() throws {
        let fixture = try WritingFixture()
        let first = try fixture.project("Intake", register: .healthcare, kind: .document)
        let second = try fixture.project("Intake", register: .legal, kind: .document)
        #expect(try fixture.store { try $0.nameMatches("Intake") } == [first.id: .named, second.id: .named])
        let lookups = try fixture.store { store in try [first.id, second.id].map { try store.projectTable.row($0)?.nameLookup } }
        #expect(lookups[0] != nil && lookups[1] != nil && lookups[0] != lookups[1], "\(lookups)")
    }

    @Test("a rename writes the new name's hash: the old name no longer finds the project; a rename received by sync too")
    func renameWritesTheHash() throws {
        let fixture = try WritingFixture()
        let chart = try fixture.project("Smith, J.", register: .healthcare, kind: .document)
        try fixture.store { try $0.rename(chart.id, to: "Smith, Jane") }
        #expect(try fixture.store { try $0.nameMatches("Smith, J.") } == [chart.id: .namedOtherwise])
        #expect(try fixture.store { try $0.nameMatches("Smith, Jane") } == [chart.id: .named])
        try fixture.store { try $0.receivingChanges().renameSynced(chart.id, to: "Smith, Jane A.", from: "laptop") }
        #expect(try fixture.store { try $0.nameMatches("Smith, Jane A.") } == [chart.id: .named])
    }

    @Test("a vault made before model-2 upgrades with no hash (told only by opening); reading the name in a session writes it")
    func upgradedRowGetsItsHashWhenRead() throws {
        let before = ModuleSchema(module: "writing", migrations: Array(WritingSchema.module.migrations.prefix { $0.name != "model-2" }))
        #expect(WritingSchema.module.migrations.contains { $0.name == "model-2" } && before.migrations.count < WritingSchema.module.migrations.count)
        let old = try TestVault(modules: [before])
        let chart = try old.unlocked.createWritingProject(named: "Smith, J.", register: .healthcare, kind: .document)
        let upgraded = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(old.passphrase))
        #expect(try upgraded.transaction { try WritingStore($0).nameMatches("Smith, J.") } == [chart.id: .unknown])
        let session = try PrivilegedProcessingSession.start(vault: upgraded, compartment: chart.compartment, actor: "dr.osei", purpose: "review")
        defer { try? session.end() }
        #expect(try upgraded.transaction { try WritingStore($0, access: .session(session)).nameKeepingLookup(of: chart) } == "Smith, J.")
        #expect(try upgraded.transaction { try WritingStore($0).nameMatches("Smith, J.") } == [chart.id: .named])
        #expect(try upgraded.transaction { try WritingStore($0).nameMatches("Jones, A.") } == [chart.id: .namedOtherwise])
    }
}
