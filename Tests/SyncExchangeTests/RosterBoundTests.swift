import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A project's roster stays within what one offer names (attack review s7, N1; SECURITY.md §19.9,
/// "Which keys verify"). A colleague's device (trusted `other` on the owner's desk) shared its
/// project with the desk, so its offers vouch for devices there; a hostile one names 200 fresh
/// devices at each exchange. Were they all kept, the desk's offer of the project to the owner's own
/// laptop would name more than 256, which every reader refuses whole: the laptop's `sync now` with
/// the desk and `repair --from desk` would both fail, for every project.
@Suite(.serialized) struct RosterBoundTests {
    typealias F = SyncExchangeFixture

    /// `count` devices no one paired: ids derived from fresh keys, as an offer's reader checks.
    static func freshDevices(_ count: Int) throws -> [SyncRosterEntry] {
        try (0..<count).map { _ in
            let signing = try SecureRandom.bytes(32), noise = try SecureRandom.bytes(32)
            return SyncRosterEntry(device: DeviceProfile.deriveIdentifier(signingPublicKey: signing, noisePublicKey: noise),
                                   signingKey: signing, noiseKey: noise)
        }
    }

    static func rosterCount(_ vault: TestVault, _ project: ProjectID) throws -> Int {
        try vault.unlocked.transaction { tx in try SyncExchangeStore(database: tx.database).rosterCount(of: project) }
    }

    /// The details of each of the vault's `sync.exchange-refused` entries of reason `rosterFull`.
    static func rosterFullRefusals(_ vault: TestVault) -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == .syncExchangeRefused }
                .map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first }) }
                .filter { $0["reason"] == "rosterFull" }
        }
    }

    @Test func aColleaguesRosterFloodNeverStopsTheOwnersDevicesSyncingNorRepair() throws {
        let f = try F()
        let colleague = try StrangerDevice(pairedWithDeskOf: f)
        let project = try ProjectID.random()
        try colleague.grant(project)
        colleague.answerer.offer(project, access: .editor, privileged: false)
        try colleague.answerer.plant(in: project)
        #expect(try colleague.syncOwner().received == 1)
        let first = try f.syncLaptop()
        #expect(first.projects.map(\.project) == [project] && first.received > 0 && first.refused == 0, "\(first)")

        // Twice 200 fresh devices: the desk keeps what fits in one offer, no more.
        for _ in 0..<2 {
            colleague.answerer.offer(project, access: .editor, privileged: false,
                                     roster: [colleague.answerer.rosterEntry] + (try Self.freshDevices(200)))
            try colleague.syncOwner()
        }
        let keptOnDesk = try Self.rosterCount(f.desk, project)
        #expect(keptOnDesk == SyncWire.maximumRoster)
        // Refused with its reason, once for the project and the colleague, not at every exchange.
        try colleague.syncOwner()
        let refusals = Self.rosterFullRefusals(f.desk)
        #expect(refusals.count == 1, "\(refusals)")
        let refusal = refusals.first ?? [:]
        #expect(refusal["peer"] == colleague.device.hex && refusal["project"] == project.hex && refusal["request"] == SyncWire.projectsKind,
                "\(refusal)")
        #expect(refusal["devices"] == "147" && refusal["bound"] == "256", "\(refusal)")

        // The owner's own devices still sync, and the laptop still repairs from the desk
        // (before the bound, both failed: the desk's offer named 403 devices, malformedMessage).
        try colleague.answerer.plant(in: project)
        #expect(try colleague.syncOwner().received == 1)
        let later = try f.syncLaptop()
        #expect(later.projects.map(\.project) == [project] && later.received == 1 && later.refused == 0, "\(later)")
        #expect(try Self.rosterCount(f.laptop, project) <= SyncWire.maximumRoster)
        let repair = try StoreRepair(vault: f.laptop.unlocked, transport: try f.transport()).run()
        #expect(repair.projects.map(\.project) == [project] && repair.records == first.received + 1, "\(repair)")
    }

    /// An offer names at most 256 devices whatever the roster holds (its own grants can take it
    /// past that): this device and the owner's own first, then the origin, then the rest by id.
    @Test func anOfferNamesTheOwnersDevicesAndTheOriginFirstAndNoMoreThanTheBound() throws {
        let f = try F()
        let colleague = try StrangerDevice(pairedWithDeskOf: f)
        let project = try ProjectID.random()
        try colleague.grant(project)
        colleague.answerer.offer(project, access: .editor, privileged: false)
        try colleague.syncOwner()
        let filler = try Self.freshDevices(SyncWire.maximumRoster + 10)
        try f.desk.unlocked.transaction { tx in
            // More than any offer brings, as if kept before the bound: the offer still names 256.
            for entry in filler {
                try tx.database.query("INSERT INTO sync_roster (project_id, device_id, signing_key, noise_key) VALUES (?, ?, ?, ?)",
                                      [.blob(project.bytes), .blob(entry.device.bytes), .blob(entry.signingKey), .blob(entry.noiseKey)])
            }
        }
        let endpoint = try SyncEndpoint(vault: f.desk.unlocked, peer: f.laptopKeys.profile)
        let held = try #require(try endpoint.project(project))
        let roster = try endpoint.offer(of: held, access: .mine).roster
        #expect(roster.count == SyncWire.maximumRoster)
        let named = Set(roster.map(\.device))
        #expect(named.contains(f.deskKeys.profile.deviceID) && named.contains(colleague.device))
        #expect(!named.contains(f.laptopKeys.profile.deviceID), "the peer is not named to itself")
        let expected = filler.map(\.device).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.prefix(SyncWire.maximumRoster - 2)
        #expect(named == Set(expected).union([f.deskKeys.profile.deviceID, colleague.device]))
    }
}
