import CryptoVault
import PeerChannel
@testable import Sync
import Testing
import TestSupport
import Writing

/// A stranger that knows a project id the owner's devices hold cannot pre-claim it on a new own
/// device (review 17, F2; SECURITY.md §19.9 "Who makes a project"): the owner's laptop, paired with
/// its desk (`mine`) and with someone else's device (`other`, a `ForgingAnswerer`), syncs with the
/// stranger first. A project is made from someone else's offer only when that device granted this
/// vault the project's compartment; an own device's offer of a project that differs from the one
/// held (privileged flag, or a project that came from someone else's device the own device does not
/// sync it with) is refused and recorded; nothing of the owner's project ever reaches the stranger.
@Suite(.serialized) struct PreClaimedProjectTests {
    typealias F = SyncExchangeFixture

    static func held(_ vault: TestVault, _ id: ProjectID) throws -> WritingProject {
        try vault.unlocked.transaction { tx in try WritingStore(tx).project(id) }
    }

    /// The details named `name` of the laptop's `sync.exchange-refused` entries.
    static func refusals(_ f: F, _ name: String = "reason") -> [String] { F.details(f.laptop, .syncExchangeRefused, name) }

    @Test func aStrangersOfferOfAnIdItNeverGrantedMakesNothingAndTheOwnersPrivilegedProjectNeverReachesIt() throws {
        let f = try F()
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let patient = try F.project(f.desk, "Patient A", register: .healthcare)
        let visit = try F.document(f.desk, in: patient, "Visit", ["a finding only the owner's devices hold"])
        stranger.answerer.offer(patient.id, access: .editor, privileged: false)
        try stranger.answerer.plant(in: patient.id)

        // `sync now` runs the pairings in list order: the stranger comes first.
        let first = try stranger.syncLaptop()
        #expect(try !F.hasProject(f.laptop, patient.id))
        #expect(first.projects.map(\.refused) == [["offerRefused"]], "\(first)")
        #expect(Self.refusals(f) == ["offerRefused"])
        #expect(stranger.answerer.pulled.isEmpty)

        try f.syncLaptop()
        #expect(try Self.held(f.laptop, patient.id).isPrivileged)
        #expect(try F.texts(f.laptop, patient.id, visit) == ["a finding only the owner's devices hold"])

        let again = try stranger.syncLaptop()
        #expect(again.sent == 0 && again.received == 0, "\(again)")
        #expect(stranger.answerer.pushed[patient.id] == nil && stranger.answerer.pulled.isEmpty)
        #expect(Self.refusals(f) == ["offerRefused", "privilegedRefused"])
        #expect(!F.details(f.laptop, .egressDecision, "destination").contains("device:\(stranger.device.hex)"))
    }

    @Test func anOwnDevicesPrivilegedOfferOfAProjectAStrangerMadeHereIsRefusedAndNothingOfTheOwnersReachesTheStranger() throws {
        let f = try F()
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let patient = try F.project(f.desk, "Patient A", register: .healthcare)
        let visit = try F.document(f.desk, in: patient, "Visit", ["a finding only the owner's devices hold"])
        // A stranger can always grant this vault a compartment of its own named as the project's is.
        try stranger.grant(patient.id)
        stranger.answerer.offer(patient.id, access: .editor, privileged: false)
        try stranger.answerer.plant(in: patient.id)
        #expect(try stranger.syncLaptop().received == 1)
        #expect(try !Self.held(f.laptop, patient.id).isPrivileged)

        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == patient.id })
        #expect(entry.refused == ["privilegedMismatch"] && entry.received == 0 && entry.sent == 0, "\(report)")
        #expect(Self.refusals(f) == ["privilegedMismatch"])
        #expect(Self.refusals(f, "origin") == [stranger.device.hex])
        #expect(try HostileAnswererTests.nodeCount(f.laptop, Self.held(f.laptop, patient.id)) == 1, "the stranger's node only")

        _ = try stranger.syncLaptop()
        #expect(!(stranger.answerer.pushedSigners[patient.id] ?? []).contains(f.deskKeys.profile.deviceID))
    }

    @Test func anOwnDevicesOfferOfAProjectAStrangerMadeHereThatItDoesNotSyncWithThatStrangerIsRefused() throws {
        let f = try F()
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let memo = try F.project(f.desk, "Memo")
        _ = try F.document(f.desk, in: memo, "Draft", ["words the owner never shared"])
        try stranger.grant(memo.id)
        stranger.answerer.offer(memo.id, access: .editor, privileged: false)
        try stranger.answerer.plant(in: memo.id)
        #expect(try stranger.syncLaptop().received == 1)

        let report = try f.syncLaptop()
        let entry = try #require(report.projects.first { $0.project == memo.id })
        #expect(entry.refused == ["originMismatch"] && entry.received == 0 && entry.sent == 0, "\(report)")
        #expect(Self.refusals(f) == ["originMismatch"])
        #expect(Self.refusals(f, "origin") == [stranger.device.hex])
        #expect(try HostileAnswererTests.nodeCount(f.laptop, Self.held(f.laptop, memo.id)) == 1, "the stranger's node only")

        _ = try stranger.syncLaptop()
        #expect(!(stranger.answerer.pushedSigners[memo.id] ?? []).contains(f.deskKeys.profile.deviceID))
    }

    /// An own device's roster of a privileged project is taken for the devices this vault cannot
    /// judge (not paired here: a third own device), never for one this vault pairs as someone
    /// else's: that one is left out, and the refusal recorded with the device.
    @Test func anOwnDevicesRosterOfAPrivilegedProjectNeverAddsADevicePairedHereAsSomeoneElses() throws {
        let answerer = ForgingAnswerer()
        let f = try F(deskAnswers: answerer)
        answerer.answer(as: f.deskKeys)
        let stranger = try StrangerDevice(pairedWithLaptopOf: f)
        let tablet = try TestVault(modules: F.modules).unlocked.deviceKeys(named: "tablet").profile
        let patient = try F.project(f.laptop, "Patient A", register: .healthcare)
        _ = try F.document(f.laptop, in: patient, "Visit", ["history"])
        let tabletEntry = SyncRosterEntry(device: tablet.deviceID, signingKey: tablet.signingPublicKey, noiseKey: tablet.noisePublicKey)
        answerer.offer(patient.id, access: .mine, privileged: true, register: .healthcare,
                       roster: [answerer.rosterEntry, stranger.answerer.rosterEntry, tabletEntry].sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) })
        try f.syncLaptop()
        let added = F.details(f.laptop, .syncRosterAdd, "device")
        #expect(added.contains(tablet.deviceID.hex))
        #expect(!added.contains(stranger.device.hex))
        #expect(Self.refusals(f) == ["privilegedRefused"])
        #expect(Self.refusals(f, "device") == [stranger.device.hex])
    }
}
