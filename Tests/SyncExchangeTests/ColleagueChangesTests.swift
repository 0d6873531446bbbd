import CryptoVault
@testable import Sync
import Testing
import TestSupport
import Writing

/// What a colleague-editor may not undo of the owner's project on the owner's devices (review 17
/// s8, F21; review 17 s10, "Small notes"; `OwnersProject`): a removal of the owner's document or
/// entry, an archiving or a rename of the project, made on someone else's device, are refused and
/// recorded on the owner's devices, and the owner's next commit writes back what they kept, so the
/// colleague's device shows it again too. The owner's own removals apply as ever. Three real vaults:
/// the desk answers on a real channel on loopback; the laptop (own) and the colleague ask.
@Suite(.serialized) struct ColleagueChangesTests {
    typealias F = SyncExchangeFixture
    typealias Setup = ColleaguePairedWithBothTests.Setup

    static func nodes(_ vault: TestVault, _ projectID: ProjectID) throws -> [String] {
        let project = try vault.unlocked.transaction { tx in try WritingStore(tx).project(projectID) }
        return try F.store(vault, project) { store in try store.nodes(in: projectID).map(\.title).sorted() }
    }

    static func project(_ vault: TestVault, _ id: ProjectID) throws -> WritingProject {
        try vault.unlocked.transaction { tx in try WritingStore(tx).project(id) }
    }

    /// F21: the colleague's `doc rm` of the owner's document leaves its words on both own devices
    /// (before: gone from both, with no version), and on the colleague's device again after its next
    /// sync; the desk's own removal of another document reaches the laptop and the colleague as ever.
    /// `startsCold`: the desk's next commit after the refusal runs with no replica kept in memory, as
    /// in another process (a CLI `sync now`, a restarted daemon). Review 17 s12, N-s12-5: it then
    /// failed every exchange of the project for good ("no document … in the replica").
    @Test(arguments: [false, true])
    func aColleaguesRemovalOfTheOwnersDocumentIsRefusedAndWrittenBack(startsCold: Bool) throws {
        let s = try Setup()
        let project = try F.project(s.f.desk, "Contract")
        let appendix = try F.document(s.f.desk, in: project, "Appendix", ["Owner appendix words."])
        let terms = try F.document(s.f.desk, in: project, "Terms", ["Terms."])
        try F.share(project, of: s.f.desk, with: s.colleague, role: .editor)
        #expect(try s.f.syncLaptop().received == 1)
        #expect(try s.syncColleague().received == 1)

        try s.colleague.unlocked.transaction { tx in try WritingStore(tx).removeNode(appendix, in: project.id) }
        let pushed = try s.syncColleague()
        #expect(pushed.sent == 1 && pushed.refused == 0, "\(pushed)")
        #expect(try F.texts(s.f.desk, project.id, appendix) == ["Owner appendix words."])
        #expect(F.details(s.f.desk, .syncChangeRefused, "change") == ["document-removal"])
        #expect(F.details(s.f.desk, .syncChangeRefused, "device") == [s.colleagueKeys.profile.deviceID.hex])
        #expect(F.details(s.f.desk, .syncChangeRefused, "document") == [appendix.hex])

        for round in 1...2 {
            if startsCold { SyncReplicaCache.shared.drop(s.f.desk.unlocked) }
            // The laptop takes the colleague's removal and the desk's writing back of the document.
            let relayed = try s.f.syncLaptop()
            #expect(relayed.refused == 0 && relayed.projects.allSatisfy { $0.skipped == nil && $0.localOnly == nil }, "round \(round): \(relayed)")
            #expect(try F.texts(s.f.laptop, project.id, appendix) == ["Owner appendix words."], "round \(round)")
            #expect(try Self.nodes(s.f.laptop, project.id) == ["Appendix", "Terms"], "round \(round)")
            // The colleague's device shows it again.
            #expect(try s.syncColleague().refused == 0, "round \(round)")
            #expect(try F.texts(s.colleague, project.id, appendix) == ["Owner appendix words."], "round \(round)")
            guard round == 1 else { break }
            // The colleague removes it again: refused and written back again, as the first time.
            try s.colleague.unlocked.transaction { tx in try WritingStore(tx).removeNode(appendix, in: project.id) }
            #expect(try s.syncColleague().refused == 0)
            #expect(F.details(s.f.desk, .syncChangeRefused, "change") == ["document-removal", "document-removal"])
        }
        if startsCold { SyncReplicaCache.shared.drop(s.f.desk.unlocked) }

        // The owner's own removal (on the desk) applies everywhere, as before.
        try s.f.desk.unlocked.transaction { tx in try WritingStore(tx).removeNode(terms, in: project.id) }
        #expect(try s.f.syncLaptop().refused == 0)
        #expect(try s.syncColleague().refused == 0)
        for vault in [s.f.desk, s.f.laptop, s.colleague] { #expect(try Self.nodes(vault, project.id) == ["Appendix"]) }
        #expect(F.details(s.f.laptop, .syncChangeRefused, "change").isEmpty)
        let quiet = try s.f.syncLaptop()
        #expect(quiet.sent == 0 && quiet.received == 0, "\(quiet)")
    }

    /// The reviewer's note (review 17 s10): the colleague archives and renames the owner's project and
    /// removes an entry while the laptop edits: the desk keeps the project as the owner has it and
    /// takes the laptop's edit (before: archived, so the laptop's edit was refused, `writingRefused`),
    /// and every device comes to show the owner's name, the entry and the project not archived.
    @Test func aColleaguesArchiveRenameAndEntryRemovalAreRefusedAndWrittenBack() throws {
        let s = try Setup()
        let project = try F.project(s.f.desk, "Contract")
        let document = try F.document(s.f.desk, in: project, "Memo", ["Owner text."])
        let entry = try s.f.desk.unlocked.transaction { tx in
            try WritingStore(tx).addEntry(.character, named: "Ada Okafor", body: "Claimant.", in: project.id)
        }
        try F.share(project, of: s.f.desk, with: s.colleague, role: .editor)
        #expect(try s.f.syncLaptop().received == 1)
        #expect(try s.syncColleague().received == 1)

        try s.colleague.unlocked.transaction { tx in
            let store = WritingStore(tx)
            try store.removeEntry(entry.id, in: project.id)
            try store.rename(project.id, to: "Colleague's now")
            try store.archive(project.id)
        }
        try F.edit(s.f.laptop, try Self.project(s.f.laptop, project.id), document, block: 0, to: "Owner text, edited on the laptop.")
        #expect(try s.syncColleague().sent == 1)
        #expect(!(try Self.project(s.f.desk, project.id).isArchived))
        #expect(F.details(s.f.desk, .syncChangeRefused, "change").sorted() == ["archive", "entry-removal", "rename"])

        let laptop = try s.f.syncLaptop()
        #expect(laptop.refused == 0 && laptop.sent == 1, "\(laptop)")
        #expect(!F.details(s.f.laptop, .syncRecordRefused, "reason").contains("writingRefused"))
        #expect(try F.texts(s.f.desk, project.id, document) == ["Owner text, edited on the laptop."])
        #expect(try s.syncColleague().refused == 0)
        for vault in [s.f.desk, s.f.laptop, s.colleague] {
            let held = try Self.project(vault, project.id)
            #expect(!held.isArchived)
            let (name, entries) = try vault.unlocked.transaction { tx in
                (try WritingStore(tx).name(of: held), try WritingStore(tx).entries(in: project.id).map(\.name))
            }
            #expect(name == "Contract" && entries == ["Ada Okafor"])
        }
        #expect(try F.texts(s.colleague, project.id, document) == ["Owner text, edited on the laptop."])
    }
}
