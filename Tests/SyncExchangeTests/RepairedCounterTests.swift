import Appliance
import CryptoVault
import PeerChannel
import PrivilegedSession
@testable import Sync
import Testing
import TestSupport
import Writing

/// A device repaired from an own device that lacks some of its records never signs a second record
/// under a counter it used (review 17 s8, F14; SECURITY.md §19.10, §19.4): the laptop's audit log
/// says how far its own records of each project went, so until they are back the project takes no
/// change here (a change would be signed under one of their numbers, and the tablet holding the
/// first would see a fork and refuse the laptop for good); the tablet gives them back at the next
/// exchange, and the laptop's later records follow them. Three real vaults (the laptop's audit log
/// stored, as vaultctl's), all the owner's own; the desk and the laptop answer on real channels.
@Suite(.serialized) struct RepairedCounterTests {
    typealias F = SyncExchangeFixture

    final class Devices {
        let desk: TestVault, laptop: AuditedVault, tablet: TestVault
        let deskKeys: DeviceKeys, laptopKeys: DeviceKeys, tabletKeys: DeviceKeys
        let deskServer: ChannelServer, laptopServer: ChannelServer

        init() throws {
            desk = try TestVault(modules: F.modules)
            laptop = try AuditedVault(modules: F.modules)
            tablet = try TestVault(modules: F.modules)
            deskKeys = try desk.unlocked.deviceKeys(named: "desk")
            laptopKeys = try laptop.unlocked.deviceKeys(named: "laptop")
            tabletKeys = try tablet.unlocked.deviceKeys(named: "tablet")
            let all: [(UnlockedVault, DeviceKeys)] = [(desk.unlocked, deskKeys), (laptop.unlocked, laptopKeys), (tablet.unlocked, tabletKeys)]
            for (vault, keys) in all {
                for (_, other) in all where other.profile.deviceID != keys.profile.deviceID {
                    try vault.storePairing(FamilyPairing(peer: other.profile, role: .host, pairedAt: 1))
                    try vault.setTrust(.mine, of: other.profile.deviceID, atPairing: true)
                }
            }
            let deskVault = desk.unlocked, laptopVault = laptop.unlocked
            deskServer = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: deskKeys,
                                           pinnedPeers: { try deskVault.vault.familyPairings() },
                                           services: [SyncChannelService(vault: deskVault, coordinator: nil)])
            laptopServer = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: laptopKeys,
                                             pinnedPeers: { try laptopVault.vault.familyPairings() },
                                             services: [SyncChannelService(vault: laptopVault, coordinator: nil)])
            deskServer.start()
            laptopServer.start()
        }

        deinit {
            deskServer.stop()
            laptopServer.stop()
        }

        func toDesk(from keys: DeviceKeys) throws -> ChannelSyncTransport {
            ChannelSyncTransport(try ChannelClient(connectingTo: deskServer.address, localKeys: keys, peer: deskKeys.profile))
        }

        /// `vaultctl sync now --peer desk` on the laptop (one command: its log checkpointed).
        @discardableResult
        func laptopWithDesk() throws -> SyncRunReport {
            try laptop.command { try SyncInitiator(vault: laptop.unlocked, transport: try toDesk(from: laptopKeys), coordinator: nil).run() }
        }

        /// `vaultctl sync now --peer laptop` on the tablet.
        @discardableResult
        func tabletWithLaptop() throws -> SyncRunReport {
            let client = try ChannelClient(connectingTo: laptopServer.address, localKeys: tabletKeys, peer: laptopKeys.profile)
            let report = try SyncInitiator(vault: tablet.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
            try laptop.vault.finishCommand()
            return report
        }

        @discardableResult
        func tabletWithDesk() throws -> SyncRunReport {
            try SyncInitiator(vault: tablet.unlocked, transport: try toDesk(from: tabletKeys), coordinator: nil).run()
        }

        /// `vaultctl repair --from desk --discard-local` on the laptop: its document holds words the
        /// desk lacks (they are on the tablet), which a repair names and refuses to replace without
        /// the flag (review 17 s9, N-s9-6).
        func repairLaptopFromDesk() throws -> RepairReport {
            try laptop.command { try StoreRepair(vault: laptop.unlocked, transport: try toDesk(from: laptopKeys), discardingLocal: true).run() }
        }
    }

    static func edit(_ vault: UnlockedVault, _ project: ProjectID, _ document: NodeID, block index: Int, to text: String) throws {
        try vault.transaction { tx in
            let store = WritingStore(tx)
            var content = try store.documentContent(of: document, in: project)
            content.blocks[index].text = text
            try store.replaceDocumentContent(of: document, in: project, with: content)
        }
    }

    static func texts(_ vault: UnlockedVault, _ project: ProjectID, _ document: NodeID) throws -> [String] {
        try vault.transaction { tx in try WritingStore(tx).documentContent(of: document, in: project).blocks.map(\.text) }
    }

    @Test func aRepairedDeviceNeverReusesACounterAndGetsItsRecordsBackFromTheThirdOwnDevice() throws {
        let d = try Devices()
        let project = try F.project(d.desk, "Notes")
        let document = try F.document(d.desk, in: project, "Notes", ["desk line", "laptop's line"])
        #expect(try d.laptopWithDesk().received == 1)
        #expect(try d.tabletWithLaptop().received == 1)
        // The laptop's two records reach the tablet only; the desk is off.
        try Self.edit(d.laptop.unlocked, project.id, document, block: 1, to: "laptop line one")
        #expect(try d.tabletWithLaptop().received == 1)
        try Self.edit(d.laptop.unlocked, project.id, document, block: 1, to: "laptop line two")
        #expect(try d.tabletWithLaptop().received == 1)

        let report = try d.repairLaptopFromDesk()
        #expect(report.missing == 2, "\(report)")
        #expect(try Self.texts(d.laptop.unlocked, project.id, document) == ["desk line", "laptop's line"])
        // A change now would be the laptop's record 1 again, with other words: refused until they are back.
        do {
            try Self.edit(d.laptop.unlocked, project.id, document, block: 0, to: "too early")
            Issue.record("the repaired laptop took a change while its own records 1 and 2 of the project are only on the tablet")
        } catch let error as WritingError {
            #expect(error.code == .viewOnly && error.message.contains("own records"), "\(error)")
        }
        let withDesk = try d.laptopWithDesk()
        #expect(withDesk.sent == 0 && withDesk.refused == 0, "\(withDesk)")

        // The tablet gives the laptop its records back; from then on the laptop writes again.
        let back = try d.tabletWithLaptop()
        #expect(back.sent == 2 && back.refused == 0 && back.projects.allSatisfy { $0.refusedByPeer.isEmpty }, "\(back)")
        #expect(try Self.texts(d.laptop.unlocked, project.id, document) == ["desk line", "laptop line two"])
        try Self.edit(d.laptop.unlocked, project.id, document, block: 0, to: "laptop after repair")
        let after = try d.tabletWithLaptop()
        #expect(after.received == 1 && after.refused == 0, "\(after)")
        #expect(try F.texts(d.tablet, project.id, document) == ["laptop after repair", "laptop line two"])
        #expect(F.details(d.tablet, .syncForkFound, "device").isEmpty)
        #expect(!F.details(d.tablet, .syncRecordRefused, "reason").contains("equivocation"))

        // The desk takes all of it, from the laptop and from the tablet alike.
        let desk = try d.laptopWithDesk()
        #expect(desk.sent == 3 && desk.refused == 0 && desk.projects.allSatisfy { $0.refusedByPeer.isEmpty }, "\(desk)")
        let tabletDesk = try d.tabletWithDesk()
        #expect(tabletDesk.refused == 0 && tabletDesk.projects.allSatisfy { $0.refusedByPeer.isEmpty }, "\(tabletDesk)")
        #expect(try F.texts(d.desk, project.id, document) == ["laptop after repair", "laptop line two"])
    }

    /// No own device holds the laptop's records (they never left it): the owner lets the project take
    /// changes again (`vaultctl repair --write-anyway`), recorded; asked again, it awaited nothing.
    @Test func theOwnerMayStopWaitingWhenNoOwnDeviceHoldsTheRecords() throws {
        let d = try Devices()
        let project = try F.project(d.desk, "Notes")
        let document = try F.document(d.desk, in: project, "Notes", ["desk line", "laptop's line"])
        #expect(try d.laptopWithDesk().received == 1)
        try Self.edit(d.laptop.unlocked, project.id, document, block: 1, to: "laptop line one")
        #expect(try d.tabletWithLaptop().received == 2)

        #expect(try d.repairLaptopFromDesk().awaiting == [project.id: 1])
        let laptops = try d.laptop.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        #expect(laptops.isViewOnly)
        #expect(try OwnRecordsAwaited.writeAnyway(project.id, in: d.laptop.unlocked, access: .vault) == 1)
        try Self.edit(d.laptop.unlocked, project.id, document, block: 0, to: "laptop after repair")
        #expect(try OwnRecordsAwaited.writeAnyway(project.id, in: d.laptop.unlocked, access: .vault) == nil)
        let released = try d.laptop.reader.entries().filter { $0.action == AuditAction.syncOwnRecordsReleased.name }
        #expect(released.count == 1)
    }
}
