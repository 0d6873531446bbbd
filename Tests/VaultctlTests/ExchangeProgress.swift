import AuditChain
import CryptoVault
import Foundation
import Sync

/// How far one `sync now` between the fixture's two vaults has got, read from outside both processes
/// (their database files, read-only, while they write): no hook in the code under test.
///
/// Every step of the exchange (SECURITY.md §19.9) that moves records commits on one side, so each
/// shows as a (project, device) group of `sync_records` growing on one vault. For each project, in
/// order: the laptop commits its own edits as a record before it pulls; the desk commits its own
/// when it answers the pull; the laptop stores what the pull brought; the desk stores what the push
/// brought. With both devices editing every project in a round, that is four steps per project,
/// all after the first request (the projects list) was answered and before the laptop records the
/// exchange's end (`sync.exchange`, with `sync_peers.last_error`, in one transaction).
final class ExchangeProgress {
    private let desk: Database
    private let laptop: Database
    private let baseline: [String: Int]
    /// The laptop's `sync.exchange` entries before the round.
    private let exchangesBefore: Int

    init(desk deskVault: CLIVault, laptop laptopVault: CLIVault) throws {
        desk = try Database(path: deskVault.directory + "/" + Vault.databaseName, create: false, readOnly: true)
        laptop = try Database(path: laptopVault.directory + "/" + Vault.databaseName, create: false, readOnly: true)
        baseline = try Self.groups(desk: desk, laptop: laptop)
        exchangesBefore = try Self.exchangesRecorded(laptop)
    }

    /// How many of the steps have happened since this round began: groups of records (per vault,
    /// project and device) that grew.
    func steps() throws -> Int {
        try Self.groups(desk: desk, laptop: laptop).filter { $0.value > baseline[$0.key, default: 0] }.count
    }

    /// Whether the laptop recorded the exchange as ended without an error since the round began:
    /// then the exchange had finished, and a kill did not interrupt it.
    func endedCleanly() throws -> Bool {
        guard try Self.exchangesRecorded(laptop) > exchangesBefore else { return false }
        let errors = try laptop.query("SELECT last_error FROM sync_peers WHERE last_error IS NOT NULL")
        return errors.isEmpty
    }

    private static func groups(desk: Database, laptop: Database) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (side, database) in [("desk", desk), ("laptop", laptop)] {
            for row in try database.query("SELECT project_id, device_id, count(*) AS n FROM sync_records GROUP BY project_id, device_id") {
                let key = side + ":" + (try row.blob("project_id") + row.blob("device_id")).map { String(format: "%02x", $0) }.joined()
                counts[key] = Int(try row.integer("n"))
            }
        }
        return counts
    }

    private static func exchangesRecorded(_ laptop: Database) throws -> Int {
        var count = 0
        try AuditLogReader.forEachEncodedEntry(in: laptop) { encoded in
            if try AuditEntry(decoding: Array(encoded)).action == AuditAction.syncExchange.name { count += 1 }
        }
        return count
    }
}
