import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// The newer role a colleague gave stands on the owner's devices, whoever relays an older one
/// (attack review s7, A5; SECURITY.md §19.9, "Whose project it is"). The colleague (someone else's
/// real vault, paired with the owner's desk and laptop) shares its project with both; each share is
/// granted at a time of the colleague's clock, which its offers carry (`role-since`) and each
/// device keeps with the project's origin.
@Suite(.serialized) struct RoleRelayTests {
    typealias F = SyncExchangeFixture
    typealias Colleague = ProjectOwnershipTests.Colleague

    /// The colleague gives `device` `role` at `time` of its clock (`vaultctl share` there, at that time).
    static func give(_ colleague: Colleague, _ project: WritingProject, to device: DeviceID, _ role: ShareRole, at time: Int64) throws {
        try colleague.vault.unlocked.transaction { tx in
            try SyncExchangeStore(database: tx.database).setShare(of: project.compartment.id, with: device, role: role, at: time)
        }
    }

    static func held(_ vault: TestVault, _ id: ProjectID) throws -> (access: SyncAccess?, since: UInt64, viewOnly: Bool) {
        try vault.unlocked.transaction { tx in
            let store = SyncExchangeStore(database: tx.database)
            return (try store.origin(of: id)?.access, try store.roleSince(of: id), try WritingStore(tx).project(id).isViewOnly)
        }
    }

    @Test func aStaleRoleAnOwnDeviceRelaysNeverUndoesANewerOneAndANewerRelayedRoleStands() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        let draft = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.desk, role: .viewer)
        try F.share(memo, of: colleague.vault, with: f.laptop, role: .viewer)
        let desk = f.deskKeys.profile.deviceID, laptop = f.laptopKeys.profile.deviceID
        try Self.give(colleague, memo, to: desk, .viewer, at: 1_000)
        try Self.give(colleague, memo, to: laptop, .viewer, at: 1_000)
        try colleague.answer(f.desk, f.deskKeys)
        try colleague.answer(f.laptop, f.laptopKeys)
        #expect(try Self.held(f.desk, memo.id) == (.viewer, 1_000, true))

        // The colleague lets the laptop edit; the laptop hears it. The desk still holds viewer, of 1,000.
        try Self.give(colleague, memo, to: laptop, .editor, at: 2_000)
        try colleague.answer(f.laptop, f.laptopKeys)
        #expect(try Self.held(f.laptop, memo.id) == (.editor, 2_000, false))

        // The desk's offer relays its older viewer: the laptop stays an editor (before: viewer, view-only).
        try f.syncLaptop()
        #expect(try Self.held(f.laptop, memo.id) == (.editor, 2_000, false))
        try F.edit(f.laptop, try ProjectOwnershipTests.held(f.laptop, memo.id), draft, block: 0, to: "the laptop's words")
        #expect(try colleague.answer(f.laptop, f.laptopKeys).sent == 1)

        // A newer role relayed stands: the colleague makes the desk a viewer again at 3,000, the
        // desk hears it, and the laptop takes it from the desk's offer. The colleague's own older
        // word to the laptop (editor, of 2,000) then changes nothing: no flip at every exchange.
        try Self.give(colleague, memo, to: desk, .viewer, at: 3_000)
        try colleague.answer(f.desk, f.deskKeys)
        try f.syncLaptop()
        #expect(try Self.held(f.laptop, memo.id) == (.viewer, 3_000, true))
        try colleague.answer(f.laptop, f.laptopKeys)
        #expect(try Self.held(f.laptop, memo.id) == (.viewer, 3_000, true))
        #expect(F.details(f.laptop, .writingProjectViewOnly, "view-only") == ["yes", "no", "yes"])
    }

    /// Review 17 s11, N-s11-3: the laptop, the colleague's editor, writes; the desk, made a viewer
    /// later, relays that newer role. The laptop's edit is committed before it takes the role (signed
    /// while it was an editor: before, after, in a project it only viewed), and it pushes the record
    /// to the colleague, who gave it that role (before: a viewer pushed nothing, "synced", and the
    /// words reached no device). The desk takes it from the colleague, its origin; then all three
    /// show the laptop's words, and a later edit on the laptop is refused where it is made.
    @Test func anEditMadeInTheOlderRoleIsSignedBeforeTheNewerViewerRoleAndReachesEveryDevice() throws {
        let f = try F()
        let colleague = try Colleague(f)
        let memo = try colleague.vault.unlocked.createWritingProject(named: "Memo", register: .general, kind: .document)
        let draft = try F.document(colleague.vault, in: memo, "Draft", ["the colleague's words"])
        try F.share(memo, of: colleague.vault, with: f.laptop, role: .editor)
        try F.share(memo, of: colleague.vault, with: f.desk, role: .viewer)
        let desk = f.deskKeys.profile.deviceID, laptop = f.laptopKeys.profile.deviceID
        try Self.give(colleague, memo, to: laptop, .editor, at: 1_000)
        try Self.give(colleague, memo, to: desk, .viewer, at: 2_000)
        try colleague.answer(f.laptop, f.laptopKeys)
        try colleague.answer(f.desk, f.deskKeys)
        #expect(try Self.held(f.laptop, memo.id) == (.editor, 1_000, false))
        #expect(try Self.held(f.desk, memo.id) == (.viewer, 2_000, true))

        // The laptop writes (not yet a record), then syncs with the desk, which relays the newer role.
        try F.edit(f.laptop, try ProjectOwnershipTests.held(f.laptop, memo.id), draft, block: 0, to: "the laptop's words")
        let relayed = try f.syncLaptop()
        #expect(try Self.held(f.laptop, memo.id) == (.viewer, 2_000, true))
        let order = f.laptop.recording.events.withLock { events in
            (commit: events.lastIndex { $0.action == .syncRecordCommit }, viewOnly: events.lastIndex { $0.action == .writingProjectViewOnly })
        }
        let (commit, viewOnly) = (try #require(order.commit), try #require(order.viewOnly))
        #expect(commit < viewOnly, "the edit was signed after the project turned view-only")
        // The desk, a viewer, takes no new record of an own device but from the origin: it says so.
        #expect(relayed.projects.first { $0.project == memo.id }?.refusedByPeer == ["accessEnded"], "\(relayed)")

        // The colleague takes it from the laptop, in the role it was signed in.
        let pushed = try colleague.answer(f.laptop, f.laptopKeys)
        #expect(pushed.sent == 1 && pushed.refused == 0, "\(pushed)")
        #expect(try F.texts(colleague.vault, memo.id, draft) == ["the laptop's words"])
        // The desk takes it from the colleague; the laptop and the desk then agree.
        #expect(try colleague.answer(f.desk, f.deskKeys).received == 1)
        #expect(try F.texts(f.desk, memo.id, draft) == ["the laptop's words"])
        let quiet = try f.syncLaptop()
        #expect(quiet.refused == 0 && quiet.sent == 0, "\(quiet)")
        #expect(try F.texts(f.laptop, memo.id, draft) == ["the laptop's words"])

        // A later edit on the laptop is refused where it is made, with its reason.
        let refused = try #require(throws: WritingError.self) {
            try F.edit(f.laptop, try ProjectOwnershipTests.held(f.laptop, memo.id), draft, block: 0, to: "typed as a viewer")
        }
        #expect(refused.code == .viewOnly && refused.message.contains("view only"), "\(refused.message)")
        #expect(try F.texts(f.laptop, memo.id, draft) == ["the laptop's words"])
    }
}
