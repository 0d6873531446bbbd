import Appliance
import CryptoVault
import Foundation
import PeerChannel
import PrivilegedSession
import Sync
import Synchronization
import Testing
import TestSupport
import Writing

/// Review 17 s10, N-s10-6: an exchange opens a privileged processing session (recorded, actor
/// `sync`) for a privileged project only when it has something of it to commit, send or take. A
/// save in an ordinary project syncs that project alone (`SyncInitiator.scope`: no other project
/// is described or stepped, on either device), and in any exchange a chart whose store and records
/// are as they were when its every change was last committed (`SyncSettledMark`) takes no step in
/// a session, on either side; nor does a whole exchange's projects page describe (a chart's name
/// read in a session) a project the asking own device holds. A chart that changed, on either device,
/// through this process or another, still syncs in the next exchange.
@Suite struct ExchangeSessionCostTests {
    typealias F = SyncExchangeFixture

    /// The compartments of the sessions sync opened on `vault`, in order.
    static func syncSessions(_ vault: TestVault) -> [CompartmentID?] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == .sessionStart && $0.details.contains { $0.name == "actor" && $0.value == "sync" } }.map(\.compartmentID)
        }
    }

    /// Three healthcare charts (privileged) with a visit each, made on `vault`.
    static func charts(on vault: TestVault) throws -> [(project: WritingProject, visit: NodeID)] {
        try (1...3).map { number in
            let chart = try F.project(vault, "Chart \(number)", register: .healthcare)
            #expect(chart.isPrivileged)
            return (chart, try F.document(vault, in: chart, "Visit", ["seen on the laptop, chart \(number)"]))
        }
    }

    /// `project` as `vault` holds it.
    static func held(_ project: WritingProject, on vault: UnlockedVault) throws -> WritingProject {
        try vault.transaction { tx in try WritingStore(tx).project(project.id) }
    }

    /// Writes `text` as the visit's first paragraph through `vault` (another handle: another process).
    static func edit(_ project: WritingProject, _ visit: NodeID, to text: String, through vault: UnlockedVault) throws {
        let held = try held(project, on: vault)
        let session = try PrivilegedProcessingSession.start(vault: vault, compartment: held.compartment, actor: "test", purpose: "test")
        defer { try? session.end() }
        try vault.transaction { tx in
            let store = WritingStore(tx, access: .session(session))
            var content = try store.documentContent(of: visit, in: held.id)
            content.blocks[0].text = text
            try store.replaceDocumentContent(of: visit, in: held.id, with: content)
        }
    }

    @Test func savesInAnOrdinaryProjectOpenNoPrivilegedSessionOnEitherDevice() throws {
        let f = try F()
        let charts = try Self.charts(on: f.laptop)
        let notes = try F.project(f.laptop, "Notes")
        let page = try F.document(f.laptop, in: notes, "Page", ["first"])
        let recorder = BackgroundSyncTests.Recorder()
        let background = BackgroundSyncTests.background(f, recorder, listen: nil)
        background.start()
        defer { background.stop() }
        // The first exchange (a sighting) carries the charts, in sessions on both devices.
        background.seen(f.deskKeys.profile.deviceID, at: f.server.address)
        #expect(try BackgroundSyncTests.eventually(20) {
            try recorder.successes == 1 && charts.allSatisfy { try F.hasProject(f.desk, $0.project.id) } && (try? F.texts(f.desk, notes.id, page)) == ["first"]
        }, "\(recorder.events.withLock { $0 })")
        let (laptopBefore, deskBefore) = (Self.syncSessions(f.laptop), Self.syncSessions(f.desk))
        #expect(!laptopBefore.isEmpty && !deskBefore.isEmpty)
        // Five saves in "Notes", each synced at once by its own exchange.
        for number in 1...5 {
            try F.edit(f.laptop, notes, page, block: 0, to: "save \(number)")
            #expect(try BackgroundSyncTests.eventually(20) {
                recorder.successes == 1 + number && (try? F.texts(f.desk, notes.id, page)) == ["save \(number)"]
            }, "save \(number): \(recorder.events.withLock { $0 })")
        }
        #expect(Self.syncSessions(f.laptop) == laptopBefore, "the laptop opened \(Self.syncSessions(f.laptop).count - laptopBefore.count) sessions")
        #expect(Self.syncSessions(f.desk) == deskBefore, "the desk opened \(Self.syncSessions(f.desk).count - deskBefore.count) sessions")
        #expect(recorder.failures.isEmpty)
    }

    /// How many of `sessions` are of `project`'s compartment.
    static func count(_ sessions: ArraySlice<CompartmentID?>, of project: WritingProject) -> Int {
        sessions.filter { $0 == project.compartment.id }.count
    }

    @Test func anExchangeWithNothingNewOpensNoSessionAndAChartThatChangedStillSyncs() throws {
        let f = try F()
        let charts = try Self.charts(on: f.laptop)
        // The first exchange brings the charts to the desk; the second settles what the desk took.
        try f.syncLaptop()
        try f.syncLaptop()
        // Each vault holds a project in a compartment of its own.
        let onDesk = try charts.map { try Self.held($0.project, on: f.desk.unlocked) }
        var laptopBefore = Self.syncSessions(f.laptop).count, deskBefore = Self.syncSessions(f.desk).count
        let idle = try f.syncLaptop()
        #expect(idle.projects.count == 3 && idle.sent == 0 && idle.received == 0)
        #expect(Self.syncSessions(f.laptop).count == laptopBefore, "an idle exchange opened sessions on the laptop")
        // The desk neither describes a chart the laptop holds (its name) nor takes a step of one.
        let idleOnDesk = Self.syncSessions(f.desk).dropFirst(deskBefore)
        #expect(idleOnDesk.isEmpty, "\(idleOnDesk)")
        // Chart 1 changes on the laptop, chart 2 on the desk (both through the daemon's own handle):
        // the next exchange carries both, and opens sessions of those two charts only.
        try Self.edit(charts[0].project, charts[0].visit, to: "revised on the laptop", through: f.laptop.unlocked)
        try Self.edit(charts[1].project, charts[1].visit, to: "revised on the desk", through: f.desk.unlocked)
        (laptopBefore, deskBefore) = (Self.syncSessions(f.laptop).count, Self.syncSessions(f.desk).count)
        let report = try f.syncLaptop()
        #expect(report.sent >= 1 && report.received >= 1)
        #expect(try F.texts(f.desk, charts[0].project.id, charts[0].visit) == ["revised on the laptop"])
        #expect(try F.texts(f.laptop, charts[1].project.id, charts[1].visit) == ["revised on the desk"])
        let changed: Set<CompartmentID?> = [charts[0].project.compartment.id, charts[1].project.compartment.id]
        let laptopOpened = Set(Self.syncSessions(f.laptop).dropFirst(laptopBefore)), deskOpened = Self.syncSessions(f.desk).dropFirst(deskBefore)
        #expect(laptopOpened == changed, "the laptop opened sessions of \(laptopOpened)")
        // On the desk: none of the unchanged chart; the two others for their steps.
        #expect(Self.count(deskOpened, of: onDesk[2]) == 0, "\(deskOpened)")
        #expect(Self.count(deskOpened, of: onDesk[0]) >= 1 && Self.count(deskOpened, of: onDesk[1]) >= 1, "\(deskOpened)")
        // A change made in another process (another handle on each vault), which this process's
        // marks cannot see, is found all the same: every chart is read there again.
        let otherDesk = try f.desk.reopen().unlock(with: .passphrase(f.desk.passphrase))
        let otherLaptop = try f.laptop.reopen().unlock(with: .passphrase(f.laptop.passphrase))
        try Self.edit(charts[2].project, charts[2].visit, to: "revised in another process on the desk", through: otherDesk)
        try Self.edit(charts[0].project, charts[0].visit, to: "revised in another process on the laptop", through: otherLaptop)
        try f.syncLaptop()
        #expect(try F.texts(f.laptop, charts[2].project.id, charts[2].visit) == ["revised in another process on the desk"])
        #expect(try F.texts(f.desk, charts[0].project.id, charts[0].visit) == ["revised in another process on the laptop"])
        // And everything is settled again: one more exchange carries nothing and opens nothing.
        try f.syncLaptop()
        (laptopBefore, deskBefore) = (Self.syncSessions(f.laptop).count, Self.syncSessions(f.desk).count)
        let last = try f.syncLaptop()
        #expect(last.sent == 0 && last.received == 0)
        #expect(Self.syncSessions(f.laptop).count == laptopBefore && Self.syncSessions(f.desk).count == deskBefore)
    }

    /// Review 17 s10, N-s10-6 (its remainder): a whole background exchange between own devices (a
    /// sighting after the device was out of sight) asked the answerer for its pages of offers, and
    /// the answerer read each chart's sealed name in a privileged session to describe it: one
    /// recorded session per chart per exchange, though the asker held every chart. The asker now
    /// says which projects it holds, and their offers come without a name: an idle whole exchange
    /// opens no session on either device, and a chart the asker lacks still arrives named.
    @Test func anIdleWholeBackgroundExchangeOpensNoSessionOfAChartTheAskerHolds() throws {
        let f = try F()
        let charts = try Self.charts(on: f.laptop)
        let desk = f.deskKeys.profile.deviceID
        let simulated = Mutex(1_000.0)
        let recorder = BackgroundSyncTests.Recorder()
        let background = BackgroundSyncTests.background(f, recorder, listen: nil, clock: VaultClock.forwardOnly { simulated.withLock { $0 } })
        background.start()
        defer { background.stop() }
        // Three sightings, each after the device was out of sight longer than the quiet time: three
        // whole exchanges. The first brings the charts to the desk; the second settles what it took.
        var opened: [(laptop: Int, desk: Int)] = []
        for number in 1...3 {
            let before = (laptop: Self.syncSessions(f.laptop).count, desk: Self.syncSessions(f.desk).count)
            background.seen(desk, at: f.server.address)
            #expect(BackgroundSyncTests.eventually(20) { recorder.successes == number }, "exchange \(number): \(recorder.events.withLock { $0 })")
            opened.append((Self.syncSessions(f.laptop).count - before.laptop, Self.syncSessions(f.desk).count - before.desk))
            simulated.withLock { $0 += 1_000 }
        }
        #expect(try charts.allSatisfy { try F.hasProject(f.desk, $0.project.id) })
        #expect(try charts.allSatisfy { chart in try Self.held(chart.project, on: f.desk.unlocked).isPrivileged })
        #expect(opened[0].desk >= 3, "the first exchange carries the charts in sessions: \(opened)")
        #expect(opened[2].laptop == 0 && opened[2].desk == 0, "sessions opened by the idle whole exchange (laptop, desk): \(opened[2])")
        #expect(recorder.failures.isEmpty)
        // A chart made on the desk since reaches the laptop named: what the laptop lacks is described.
        let late = try F.project(f.desk, "Chart 4", register: .healthcare)
        background.seen(desk, at: f.server.address)
        #expect(try BackgroundSyncTests.eventually(20) { try recorder.successes == 4 && F.hasProject(f.laptop, late.id) })
        #expect(try f.laptop.unlocked.transaction { tx in try WritingStore(tx).projects() }.contains { $0.id == late.id && $0.isPrivileged })
        let name = try Self.name(of: late, on: f.laptop.unlocked)
        #expect(name == "Chart 4")
    }

    /// `project`'s name as `vault` holds it, read in a session (a privileged project's).
    static func name(of project: WritingProject, on vault: UnlockedVault) throws -> String {
        let held = try held(project, on: vault)
        let session = try PrivilegedProcessingSession.start(vault: vault, compartment: held.compartment, actor: "test", purpose: "test")
        defer { try? session.end() }
        return try vault.transaction { tx in try WritingStore(tx, access: .session(session)).name(of: held) }
    }
}
