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
    static let killRounds = Int(ProcessInfo.processInfo.environment["SYNC_KILL_ROUNDS"] ?? "") ?? 100

    @Test func killNineOfEitherSideMidSyncLosesAndDuplicatesNothing() throws {
        let f = try SyncOverNetworkFixture()
        print("SyncOverNetworkTests: kill -9 rounds over \(f.hosts.description)")
        // Enough text that a sync takes a while: each round adds a paragraph's worth on each side.
        let filler = (0..<400).map { "f\($0)" }.joined(separator: " ")
        var tally = (laptopKilled: 0, deskKilled: 0, finishedBeforeKill: 0)
        // Kills land anywhere in a sync: from its start to a little past a typical one's end.
        let start = Date()
        try #require(try f.sync().status == 0)
        let window = UInt32(Date().timeIntervalSince(start) * 1.2 * 1_000_000)
        for round in 1...Self.killRounds {
            try f.type("d\(round)", into: round, on: f.desk)
            try f.type("l\(round)", into: round + 1, on: f.laptop)
            if round % 10 == 1 { try f.type("r\(round)" + " " + filler.replacingOccurrences(of: "f", with: "r\(round)f"), into: round + 2, on: f.laptop) }
            let running = try f.startSync()
            usleep(UInt32.random(in: 0...window))
            if !running.process.isRunning { tally.finishedBeforeKill += 1 }
            if Bool.random() {
                kill(running.process.processIdentifier, SIGKILL)
                running.process.waitUntilExit()
                tally.laptopKilled += 1
            } else {
                try f.killDaemon()
                running.process.waitUntilExit()
                tally.deskKilled += 1
            }
            try f.checkVaults("round \(round), after the kill", sameRecords: false)
            let resumed = try f.sync()
            try #require(resumed.status == 0, "round \(round): sync did not resume: \(resumed.stderr)")
            try f.checkConverged("round \(round)")
            try f.checkNoDuplicates("round \(round)")
            if round % 10 == 0 { try f.checkVaults("round \(round), resumed") }
        }
        try f.checkVaults("after \(Self.killRounds) rounds")
        print("SyncOverNetworkTests: \(Self.killRounds) kill -9 rounds, kill window \(window / 1000) ms: laptop's sync killed \(tally.laptopKilled), desk's daemon killed "
              + "\(tally.deskKilled), \(tally.finishedBeforeKill) syncs had finished before their kill")
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
