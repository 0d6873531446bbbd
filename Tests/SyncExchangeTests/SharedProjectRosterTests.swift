import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A project shared with someone else's device still syncs between the owner's own devices
/// (SECURITY.md §19.9, "Which keys verify"): the desk offers its own devices the project's signers
/// that still write it, so the colleague's records the desk took verify on the laptop too, and the
/// desk's later records (which follow them) are not left waiting. Three real vaults; the desk
/// answers on a real channel on loopback, the laptop (the owner's) and the colleague (an editor) ask.
@Suite(.serialized) struct SharedProjectRosterTests {
    typealias F = SyncExchangeFixture

    @Test func aColleaguesEditsReachTheOwnersOtherDeviceAndTheOwnersLaterEditsStillFollow() throws {
        let f = try F()
        let colleague = try TestVault(modules: F.modules)
        let colleagueKeys = try colleague.unlocked.deviceKeys(named: "colleague")
        try f.desk.unlocked.storePairing(FamilyPairing(peer: colleagueKeys.profile, role: .host, pairedAt: 1))
        try colleague.unlocked.storePairing(FamilyPairing(peer: f.deskKeys.profile, role: .join, pairedAt: 1))
        try f.desk.unlocked.setTrust(.other, of: colleagueKeys.profile.deviceID, atPairing: true)
        try colleague.unlocked.setTrust(.other, of: f.deskKeys.profile.deviceID, atPairing: true)
        func syncColleague() throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: f.server.address, localKeys: colleagueKeys, peer: f.deskKeys.profile)
            return try SyncInitiator(vault: colleague.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        }

        let project = try F.project(f.desk, "Brief")
        let document = try F.document(f.desk, in: project, "Draft", ["first", "second"])
        try SyncControl.shared(project.compartment, with: colleagueKeys.profile.deviceID, role: .editor, in: f.desk.unlocked)
        #expect(try f.syncLaptop().received == 1)
        #expect(try syncColleague().received == 1)
        let colleagues = try colleague.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.edit(colleague, colleagues, document, block: 1, to: "second, by the colleague")
        #expect(try syncColleague().sent == 1)

        let relayed = try f.syncLaptop()
        #expect(relayed.received == 1 && relayed.refused == 0, "\(relayed)")
        #expect(try F.texts(f.laptop, project.id, document) == ["first", "second, by the colleague"])
        #expect(F.details(f.laptop, .syncRosterAdd, "device").contains(colleagueKeys.profile.deviceID.hex))
        // The desk's next edit follows the colleague's record: the laptop takes it too.
        try F.edit(f.desk, project, document, block: 0, to: "first, at the desk")
        let later = try f.syncLaptop()
        #expect(later.received == 1 && later.refused == 0, "\(later)")
        #expect(try F.texts(f.laptop, project.id, document) == ["first, at the desk", "second, by the colleague"])
    }
}
