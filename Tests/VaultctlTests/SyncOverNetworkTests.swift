import AuditChain
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import Testing
import TestSupport
import Writing

/// Sync between two hosts over the real channel (issue 17): network namespaces joined by a veth pair
/// where the machine allows it (as the `TwoHosts` tests do), loopback otherwise (the test says which).
/// kill -9 of either side mid-sync: both devices end with byte-identical documents, every word typed
/// is in the document or a branch, nothing is applied twice, and both audit logs and record sets
/// verify. (The random edit and partition schedules run on three devices:
/// `ThreeDeviceSyncOverNetworkTests`.)
@Suite(.serialized)
struct SyncOverNetworkTests {
    /// How many kills must land inside an exchange (issue 17: at least 100).
    static let killRounds = Int(ProcessInfo.processInfo.environment["SYNC_KILL_ROUNDS"] ?? "") ?? 100
    /// Projects synced each round: each is a pull and a push of its own, so the exchange has steps to
    /// be killed between (`ExchangeProgress`).
    static let projects = 3

    /// Each round both devices edit every project, the laptop runs `sync now`, and the test watches
    /// the exchange from outside (`ExchangeProgress`): once it has reached a step chosen at random
    /// (from the laptop's first commit, after the projects list was answered, to the desk storing the
    /// last project's push), one side chosen at random is killed with SIGKILL. A kill counts as
    /// mid-sync only if the laptop then holds no record of the exchange ending without an error;
    /// rounds go on until `killRounds` did (bounded), and the kills must be spread over the exchange.
    @Test func killNineOfEitherSideMidSyncLosesAndDuplicatesNothing() throws {
        let clock = VaultClock.system
        let began = clock.monotonic()
        let f = try SyncOverNetworkFixture()
        for index in 1..<Self.projects { try f.addProject(named: "Project \(index)") }
        try #require(try f.sync().status == 0)
        print("SyncOverNetworkTests: kill -9 rounds over \(f.hosts.description), \(Self.projects) projects")
        let filler = (0..<400).map { "f\($0)" }.joined(separator: " ")
        let steps = 4 * Self.projects
        var tally = (laptopKilled: 0, deskKilled: 0, notMidSync: 0)
        /// Mid-sync kills by the step the exchange had reached when its side died.
        var midSyncAt = [Int](repeating: 0, count: steps + 1)
        var round = 0
        while midSyncAt.reduce(0, +) < Self.killRounds, round < Self.killRounds * 3 / 2 {
            round += 1
            // Several paragraphs of every document on each side; now and then a long paragraph.
            var deskEdits: [(document: Int, paragraph: Int, words: String)] = [], laptopEdits = deskEdits
            for document in 0..<Self.projects {
                deskEdits += [(document, round, "d\(round)x\(document)a"), (document, round + 2, "d\(round)x\(document)b")]
                laptopEdits += [(document, round + 1, "l\(round)x\(document)a"), (document, round + 3, "l\(round)x\(document)b")]
            }
            if round % 10 == 1 { laptopEdits.append((round % Self.projects, round, filler.replacingOccurrences(of: "f", with: "r\(round)f"))) }
            if round % 10 == 6 { deskEdits.append((round % Self.projects, round, filler.replacingOccurrences(of: "f", with: "s\(round)f"))) }
            try f.type(deskEdits, on: f.desk)
            try f.type(laptopEdits, on: f.laptop)
            let progress = try ExchangeProgress(desk: f.desk, laptop: f.laptop)
            let target = Int.random(in: 1...steps)
            let running = try f.startSync()
            let giveUp = clock.monotonic() + 60
            while running.process.isRunning, try progress.steps() < target, clock.monotonic() < giveUp { usleep(500) }
            if Bool.random() {
                // A sync that already ended is not killed (its pid may be another process's by now).
                if running.process.isRunning { kill(running.process.processIdentifier, SIGKILL) }
                running.process.waitUntilExit()
                tally.laptopKilled += 1
            } else {
                try f.killDaemon()
                running.process.waitUntilExit()
                tally.deskKilled += 1
            }
            // Where the exchange was when its side died; a kill before any step is not counted either.
            let reached = try progress.steps()
            if try reached == 0 || progress.endedCleanly() { tally.notMidSync += 1 } else { midSyncAt[min(reached, steps)] += 1 }
            try f.checkVaults("round \(round), after the kill", sameRecords: false)
            let resumed = try f.sync()
            try #require(resumed.status == 0, "round \(round): sync did not resume: \(resumed.stderr)")
            try f.checkConverged("round \(round)")
            try f.checkNoDuplicates("round \(round)")
            if round % 10 == 0 { try f.checkVaults("round \(round), resumed") }
        }
        try f.checkVaults("after \(round) rounds")
        let midSync = midSyncAt.reduce(0, +)
        print("SyncOverNetworkTests: \(round) kill -9 rounds in \(Int(clock.monotonic() - began)) s: laptop's sync killed \(tally.laptopKilled), "
              + "desk's daemon killed \(tally.deskKilled); \(midSync) kills mid-sync, by the step reached (0...\(steps)): \(midSyncAt); "
              + "\(tally.notMidSync) not (the exchange had ended, or had not begun)")
        #expect(midSync >= Self.killRounds, "only \(midSync) of \(round) kills landed inside an exchange")
        // Spread over the exchange: kills inside the first project's steps and inside the last's.
        let first = midSyncAt[1...4].reduce(0, +), last = midSyncAt[(steps - 3)...].reduce(0, +)
        #expect(first >= Self.killRounds / 10 && last >= Self.killRounds / 10,
                "kills mid-sync were not spread over the exchange: \(first) in the first project's steps, \(last) in the last's (\(midSyncAt))")
    }

    @Test func aPrivilegedProjectNeverReachesSomeoneElsesDeviceOverTheNetwork() throws {
        let f = try SyncOverNetworkFixture()
        let privileged = try f.edit(f.desk) { store in
            let project = try store.createProject(named: "Patient B", register: .healthcare, kind: .document)
            _ = try store.addNode(.scene, titled: "Intake", in: project.id)
            return project
        }
        #expect(privileged.isPrivileged)
        let laptopFingerprint = try PeersCommandTests.fingerprint(f.laptop)
        let demoted = try f.desk.run(["peers", "trust", "--peer", laptopFingerprint, "other"])
        try #require(demoted.status == 0, "\(demoted.stderr)")
        // The laptop asks as before (it still counts the desk as its own): nothing privileged comes back.
        _ = try f.sync()
        let laptop = try SyncOverNetworkFixture.open(f.laptop)
        let held = try laptop.transaction { tx in try WritingStore(tx).projects().map(\.id) }
        #expect(!held.contains(privileged.id))
        let desk = try SyncOverNetworkFixture.open(f.desk)
        let refusals = try AuditLogReader(vault: desk.vault).entries().filter { $0.action == "sync.exchange-refused" }
        #expect(!refusals.isEmpty, "the desk recorded no refusal")
    }
}
