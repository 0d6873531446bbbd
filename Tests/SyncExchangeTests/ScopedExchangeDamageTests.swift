import Appliance
import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A damaged row of the exchange's tables touches no more than it names (session 12, "rows"): one
/// whose project id is whole leaves that project local-only (its rows are not read as if whole) and
/// the other projects sync; one of a device's own rows (`sync_peers`, `sync_shares`) stops sync with
/// that device; anything else (a table gone, a row naming no whole id) stops sync with every device,
/// as before (`DamagedExchangeStateTests`). Each says what is damaged and that `vaultctl repair` mends it.
@Suite(.serialized) struct ScopedExchangeDamageTests {
    typealias F = SyncExchangeFixture

    /// Two projects made on the desk, each with a document, synced to the laptop once.
    static func twoProjects() throws -> (F, [(WritingProject, NodeID)]) {
        let f = try F()
        let projects = try ["Case file", "Other"].map { name in
            let project = try F.project(f.desk, name)
            return (project, try F.document(f.desk, in: project, "Notes", ["first"]))
        }
        try f.syncLaptop()
        return (f, projects)
    }

    static let projectDamage: [(table: String, sql: String)] = [
        ("sync_roster", "UPDATE sync_roster SET signing_key = randomblob(32) WHERE noise_key IS NOT NULL AND project_id = X'%@'"),
        ("sync_peer_vectors", "UPDATE sync_peer_vectors SET vector = x'ffff01' WHERE project_id = X'%@'"),
        ("sync_granted_here", "PRAGMA ignore_check_constraints = ON; INSERT INTO sync_granted_here (project_id, device_id, granted_at) VALUES (X'%@', X'00', 0)"),
    ]

    @Test(arguments: projectDamage.indices)
    func aDamagedRowOfOneProjectLeavesThatProjectLocalOnlyAndTheOthersSync(_ index: Int) throws {
        let (table, sql) = Self.projectDamage[index]
        let (f, projects) = try Self.twoProjects()
        let (damaged, other) = (projects[0], projects[1])
        try f.laptop.tamper(sql.replacingOccurrences(of: "%@", with: damaged.0.id.hex))
        for (project, document) in projects { try F.edit(f.desk, project, document, block: 0, to: "edited at the desk") }

        #expect(try SyncStatus.exchangeProblem(f.laptop.unlocked) == nil, "\(table): one project's row stopped every project")
        let report = try f.syncLaptop()
        let left = try #require(report.projects.first { $0.project == damaged.0.id }, "\(report)")
        #expect(left.localOnly?.contains("the sync state of project \(damaged.0.id) is damaged: the table \(table) holds") == true
                && left.localOnly?.contains("'vaultctl repair' mends it") == true, "\(table): \(left)")
        #expect(try F.texts(f.laptop, other.0.id, other.1) == ["edited at the desk"], "\(table): the other project did not sync")
        #expect(try F.texts(f.laptop, damaged.0.id, damaged.1) == ["first"])
        let states = try SyncStatus.projects(f.laptop.unlocked)
        #expect(states.contains { $0.project == damaged.0.id && { if case .localOnly(let why) = $0 { why.contains(table) } else { false } }($0.state) }, "\(states)")
        #expect(states.contains { $0.project == other.0.id && $0.syncs }, "\(states)")

        // `repair` mends it (one audited transaction), and the project syncs again.
        let mend = try DamagedExchangeStateTests.mend(f.laptop)
        #expect((mend.dropped[table] ?? 0) >= 1, "\(mend)")
        #expect(F.details(f.laptop, .syncExchangeMended, "dropped").count == 1)
        let again = try f.syncLaptop()
        #expect(again.projects.allSatisfy { $0.localOnly == nil && $0.skipped == nil }, "\(again)")
        #expect(try F.texts(f.laptop, damaged.0.id, damaged.1) == ["edited at the desk"])
    }

    @Test func theAnswerersDamagedRowOfOneProjectRefusesThatProjectAlone() throws {
        let (f, projects) = try Self.twoProjects()
        let (damaged, other) = (projects[0], projects[1])
        try f.desk.tamper("PRAGMA ignore_check_constraints = ON; INSERT INTO sync_granted_here (project_id, device_id, granted_at) VALUES (X'\(damaged.0.id.hex)', X'00', 0)")
        for (project, document) in projects { try F.edit(f.desk, project, document, block: 0, to: "edited at the desk") }
        let report = try f.syncLaptop()
        #expect(try F.texts(f.laptop, other.0.id, other.1) == ["edited at the desk"])
        // Not offered, nor answered: the laptop's copy stays as it was, and says so.
        #expect(try F.texts(f.laptop, damaged.0.id, damaged.1) == ["first"])
        #expect(report.projects.first { $0.project == damaged.0.id }.map { $0.skipped != nil || $0.localOnly != nil } ?? true, "\(report)")
    }

    @Test func aDamagedRowOfADeviceStopsSyncWithThatDeviceSayingWhich() throws {
        let (f, projects) = try Self.twoProjects()
        let desk = f.deskKeys.profile.deviceID
        try f.laptop.tamper("PRAGMA ignore_check_constraints = ON; UPDATE sync_peers SET paused = 7 WHERE device_id = X'\(desk.hex)'")
        #expect(try SyncStatus.exchangeProblem(f.laptop.unlocked) == nil)
        do {
            try f.syncLaptop()
            Issue.record("the laptop synced with a device whose row is damaged")
        } catch let error as SyncError {
            #expect(error.code == .damagedSyncState && error.message.contains("the sync state of device \(desk.hex) is damaged: the table sync_peers holds 1 row(s)")
                    && error.message.contains("'vaultctl repair' mends it"), "\(error)")
        }
        let peers = try SyncStatus.read(f.laptop.unlocked)
        #expect(peers.first { $0.device == desk }?.damaged?.contains("sync_peers") == true, "\(peers)")
        // The projects are not the damage: each is its own sync state, and it is shown as such.
        #expect(try SyncStatus.projects(f.laptop.unlocked).allSatisfy { if case .ready = $0.state { true } else { false } })
        let mend = try DamagedExchangeStateTests.mend(f.laptop)
        #expect(mend.dropped["sync_peers"] == 1, "\(mend)")
        // The damaged device row came back paused: a pause is never lost. The owner resumes.
        try SyncControl.setPaused(false, device: desk, in: f.laptop.unlocked)
        try F.edit(f.desk, projects[0].0, projects[0].1, block: 0, to: "after the mend")
        try f.syncLaptop()
        #expect(try F.texts(f.laptop, projects[0].0.id, projects[0].1) == ["after the mend"])
    }

    /// Review 17 s13, LOW 5 (reviewer13 q1.sh): the ANSWERER's row of the asking device damaged. The
    /// asker is refused every exchange: said as that device's refusal (which device, what is wrong
    /// there, what mends it: there, not here), and each project it syncs with that device is NOT IN
    /// SYNC with it in `sync status` (before: "syncs"), recorded once however often it asks, until
    /// an exchange with it completes.
    @Test func anAnswerersDamagedRowOfTheAskerIsSaidAsItsRefusalAndLeavesEveryProjectNotInSyncUntilOneCompletes() throws {
        let (f, projects) = try Self.twoProjects()
        let desk = f.deskKeys.profile, laptop = f.laptopKeys.profile.deviceID
        // The desk's row of the laptop (one a push there writes) with a value past its CHECK.
        try f.desk.tamper("PRAGMA ignore_check_constraints = ON; INSERT OR REPLACE INTO sync_peers (device_id, paused) VALUES (X'\(laptop.hex)', 7)")
        for _ in 0..<2 {
            let refusal = try #require(throws: SyncPeerFailure.self) { try f.syncLaptop() }
            #expect(refusal.code == .damagedSyncState)
            #expect(refusal.message.hasPrefix("\(desk.name) refuses every sync with this device: its sync state there is damaged ("), "\(refusal.message)")
            #expect(refusal.message.contains("the sync state of device \(laptop.hex) is damaged: the table sync_peers holds 1 row(s)")
                    && refusal.message.contains("'vaultctl repair' on \(desk.name) mends it") && refusal.message.contains("nothing on this device needs mending"),
                    "\(refusal.message)")
        }
        let states = try SyncStatus.projects(f.laptop.unlocked)
        for (project, _) in projects {
            let state = try #require(states.first { $0.project == project.id })
            #expect(!state.syncs && state.skipped.map(\.peer) == [desk.deviceID], "\(state)")
            #expect(state.skipped.first?.reason.hasPrefix("peer-damagedSyncState: \(desk.name) refuses every sync with this device") == true, "\(state)")
        }
        let peer = try #require(try SyncStatus.read(f.laptop.unlocked).first { $0.device == desk.deviceID })
        #expect(Set(peer.notInSync) == Set(projects.map(\.0.id)) && peer.lastError == "peer-damagedSyncState", "\(peer)")
        // Recorded once per project, though asked twice.
        #expect(F.details(f.laptop, .syncProjectSkipped, "reason") == ["peer-damagedSyncState", "peer-damagedSyncState"])

        // Mended there (`vaultctl repair` runs with the daemon stopped: a new one answers after; the
        // damaged row comes back paused, and the owner resumes it): the next exchange completes, and
        // every project syncs again.
        _ = try DamagedExchangeStateTests.mend(f.desk)
        try SyncControl.setPaused(false, device: laptop, in: f.desk.unlocked)
        let deskVault = f.desk.unlocked
        let server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: f.deskKeys,
                                       pinnedPeers: { try deskVault.vault.familyPairings() },
                                       services: [SyncChannelService(vault: deskVault, coordinator: nil)])
        server.start()
        defer { server.stop() }
        let client = try ChannelClient(connectingTo: server.address, localKeys: f.laptopKeys, peer: f.deskKeys.profile)
        try SyncInitiator(vault: f.laptop.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
        #expect(try SyncStatus.projects(f.laptop.unlocked).allSatisfy(\.syncs))
        #expect(try SyncStatus.read(f.laptop.unlocked).first { $0.device == desk.deviceID }?.notInSync == [])
    }

    /// Only the projects synced with the refusing device are said not in sync with it: a colleague
    /// refusing every exchange leaves its shared project, never the owner's own project it is not
    /// shared with.
    @Test func aColleaguesRefusalOfEveryExchangeLeavesOnlyTheProjectsSyncedWithIt() throws {
        let (f, project, _) = try StrayOriginTests.shared()
        let own = try F.project(f.laptop, "Mine alone")
        try f.desk.tamper("DROP TABLE sync_forks")
        let refusal = try #require(throws: SyncPeerFailure.self) { try f.syncLaptop() }
        #expect(refusal.message.contains("refuses every sync with this device: its sync state there is damaged (")
                && refusal.message.contains("the table sync_forks is missing"), "\(refusal.message)")
        let states = try SyncStatus.projects(f.laptop.unlocked)
        #expect(states.first { $0.project == project.id }?.syncs == false, "\(states)")
        #expect(states.first { $0.project == own.id }?.syncs == true, "\(states)")
    }
}
