import Appliance
import CryptoVault
import Foundation
import Sync
import Writing

/// Many small projects (review 17 s12, PERF): each replica a step rebuilds first checks that no stored
/// record names a project that is not here (`VaultSync.UnownedRecords`), which walked every project id
/// of the stored records: over P projects a cold exchange made O(P²) lookups. For P projects of one
/// short document each, every one committed as its first record:
/// - committing them, one transaction each, as the daemon commits a save;
/// - every project's replica rebuilt in one transaction, with no kept replica (what a cold exchange
///   does before its steps);
/// - the first sync of them all to an own device over the channel on loopback;
/// - a new own device's initial sync of them all from that device.
enum ManyProjectsBenchmarks {
    static let counts = [100, 300]

    static func run() throws {
        Benchmark.section("Many small projects: one short document each, a record each")
        for count in counts { try measure(count) }
        Benchmark.note("load average at the end: \(SyncBenchmarks.loadAverage()) (wall-clock figures stretch with it)")
    }

    static func measure(_ count: Int) throws {
        let root = NSTemporaryDirectory() + "vaultbench-projects-\(getpid())-\(count)"
        defer { try? FileManager.default.removeItem(atPath: root) }
        let desk = try SyncBenchDevice(root + "/desk", name: "desk")
        let laptop = try SyncBenchDevice(root + "/laptop", name: "laptop")
        try SyncBenchmarks.pairAsOwn(desk, laptop)
        let projects = try writeProjects(count, on: laptop)
        let devices = [desk.keys.profile.deviceID: desk.keys.profile.signingPublicKey]
        let commit = try SyncBenchmarks.Timing.of {
            for project in projects {
                _ = try laptop.vault.transaction { tx in
                    try VaultSync(WritingStore(tx), author: laptop.author, devices: devices).commitLocalChanges(in: project)
                }
            }
        }
        let rebuild = try SyncBenchmarks.Timing.of {
            try laptop.vault.transaction { tx in
                let sync = VaultSync(WritingStore(tx), author: laptop.author, devices: devices)
                for project in projects { _ = try sync.replica(of: project) }
            }
        }
        let deskDaemon = try ChannelListening.configured(address: "127.0.0.1:0", announce: false, vault: desk.vault)
        deskDaemon.start()
        defer { deskDaemon.stop() }
        var first = SyncRunReport()
        let firstTiming = try SyncBenchmarks.Timing.of { first = try laptop.sync(with: desk, at: deskDaemon.server.address) }
        let fresh = try SyncBenchDevice(root + "/fresh", name: "fresh")
        try SyncBenchmarks.pairAsOwn(desk, fresh)
        SyncReplicaCache.shared.drop(desk.vault)
        var initial = SyncRunReport()
        let initialTiming = try SyncBenchmarks.Timing.of { initial = try fresh.sync(with: desk, at: deskDaemon.server.address) }

        Benchmark.report("\(count) projects: each committed, own transaction", commit.wall * 1000, "ms")
        Benchmark.report("\(count) projects: every replica rebuilt, one transaction", rebuild.wall * 1000, "ms")
        Benchmark.report("\(count) projects: first sync to an own device", firstTiming.wall * 1000, "ms")
        Benchmark.note("sent \(first.sent) records of \(first.projects.count) projects; " + firstTiming.cpuNote)
        Benchmark.report("\(count) projects: a new own device's initial sync", initialTiming.wall * 1000, "ms")
        Benchmark.note("received \(initial.received) records of \(initial.projects.count) projects; " + initialTiming.cpuNote)
    }

    /// `count` projects made here, each with one document of one paragraph, fifty to a transaction.
    static func writeProjects(_ count: Int, on device: SyncBenchDevice) throws -> [ProjectID] {
        var made: [ProjectID] = []
        for start in stride(from: 0, to: count, by: 50) {
            made += try device.vault.transaction { tx in
                let store = WritingStore(tx)
                return try (start..<min(count, start + 50)).map { index in
                    let project = try store.createProject(named: "Matter \(index + 1)", register: .general, kind: .document)
                    let node = try store.addNode(.scene, titled: "Notes", in: project.id)
                    try store.replaceDocumentContent(of: node.id, in: project.id, with: DocumentContent(blocks: [
                        Block(id: try BlockID.random(), kind: .paragraph, text: SyncBenchmarks.paragraph(index)),
                    ]))
                    return project.id
                }
            }
        }
        return made
    }
}
