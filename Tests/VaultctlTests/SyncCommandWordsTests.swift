import Foundation
import Testing
import TestSupport

/// Review 17 F17-8, F17-10 and F17-12, over the real binary: what the sync and register commands
/// say and how they exit when something is off. A pause names the side that paused it and where it
/// is resumed, never a request's wire name ('sync.offer'); a device that cannot be reached is named,
/// exits 74 and is in `sync status` with when it was tried; port 0 is a usage error and a host name
/// that does not resolve says so; a chart that is not privileged says it.
@Suite(.serialized)
struct SyncCommandWordsTests {
    @Test func aPauseOnTheOtherDeviceIsSaidInWordsWithWhereToResumeAndExits69() throws {
        let f = try SyncOverNetworkFixture()
        let paused = try f.hosts.run(.desk, f.desk, ["sync", "pause"])
        #expect(paused.status == 0, "\(paused.stderr)")

        let refused = try f.sync()
        #expect(refused.status == 69, "\(refused.status): \(refused.stderr)")
        #expect(refused.stderr.contains("refused: sync with this device is paused on ") && refused.stderr.contains("'vaultctl sync resume' on "),
                "\(refused.stderr)")
        #expect(!refused.stderr.contains("'sync."), "a request's wire name reached the owner: \(refused.stderr)")
        #expect(!refused.stderr.contains("resumes it on this side"), "the hint pointed at this side: \(refused.stderr)")

        #expect(try f.hosts.run(.desk, f.desk, ["sync", "resume"]).status == 0)
        let again = try f.sync()
        #expect(again.status == 0, "\(again.status): \(again.stderr)")
    }

    @Test func aDeviceThatCannotBeReachedIsNamedExits74AndSyncStatusSaysWhenItWasTried() throws {
        let f = try SyncOverNetworkFixture()
        let before = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(before.status == 0 && !before.stdout.contains("failed"), "\(before.stdout)")
        // Port 1 of the desk's address: nothing listens there.
        let unreached = try f.hosts.run(.laptop, f.laptop, ["sync", "now", "--peer", f.deskFingerprint, "--address", f.hosts.address(.desk) + ":1"])
        #expect(unreached.status == 74, "\(unreached.status): \(unreached.stderr)")
        #expect(unreached.stderr.contains("sync with ") && unreached.stderr.contains(" failed: "), "\(unreached.stderr)")

        let status = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(status.status == 0, "\(status.stderr)")
        #expect(status.stdout.contains(", last try ") && status.stdout.contains(" failed: connectionFailed"), "\(status.stdout)")
        let listed = try RepairCommandTests.json(try f.hosts.run(.laptop, f.laptop, ["sync", "status", "--json"]))
        let desk = try #require((listed["peers"] as? [[String: Any]])?.first, "\(listed)")
        #expect(desk["last_error"] as? String == "connectionFailed" && desk["last_attempt_at"] is String, "\(desk)")

        // Reached again: the error is gone.
        #expect(try f.sync().status == 0)
        let after = try f.hosts.run(.laptop, f.laptop, ["sync", "status"])
        #expect(!after.stdout.contains("failed"), "\(after.stdout)")
    }

    @Test func portZeroIsAUsageErrorAndAHostNameThatDoesNotResolveSaysSo() throws {
        let f = try SyncOverNetworkFixture()
        let zero = try f.hosts.run(.laptop, f.laptop, ["sync", "now", "--peer", f.deskFingerprint, "--address", "127.0.0.1:0"])
        #expect(zero.status == 64 && zero.stderr.contains("port 0 is not where a device listens"), "\(zero.status): \(zero.stderr)")
        let unresolved = try f.hosts.run(.laptop, f.laptop, ["sync", "now", "--peer", f.deskFingerprint, "--address", "nonexistent.invalid:17450"])
        #expect(unresolved.status == 74, "\(unresolved.status): \(unresolved.stderr)")
        #expect(unresolved.stderr.contains("'nonexistent.invalid' does not resolve"), "\(unresolved.stderr)")
        #expect(!unresolved.stderr.contains("is not an ADDR:PORT"), "\(unresolved.stderr)")
    }

    @Test func aProjectGivenAPrivilegedRegisterLaterSaysItIsNotPrivilegedAndIsListedSo() throws {
        let vault = try CLIVault()
        try WritingCommandTests.ok(vault, ["project", "create", "Shared2", "--register", "general"])
        let charted = try WritingCommandTests.ok(vault, ["project", "register", "Shared2", "healthcare"])
        #expect(charted.contains("is now a") && charted.contains("It is NOT privileged"), "\(charted)")
        #expect(charted.contains("may be shared with someone else's device"), "\(charted)")
        let listing = try WritingCommandTests.ok(vault, ["project", "list"])
        let line = try #require(listing.split(separator: "\n").first { $0.contains("Shared2") }, "\(listing)")
        #expect(line.contains("healthcare") && line.contains("NOT privileged"), "\(line)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(try WritingCommandTests.ok(vault, ["project", "register", "Shared2", "legal", "--json"]).utf8)) as? [String: Any])
        #expect(json["privileged"] as? Bool == false, "\(json)")

        // A privileged one given an ordinary register says it stays privileged.
        try WritingCommandTests.ok(vault, ["project", "create", "Intake", "--register", "healthcare"])
        let plain = try WritingCommandTests.ok(vault, ["project", "register", "Intake", "general", "--purpose", "tidy the registers"])
        #expect(plain.contains("It stays privileged"), "\(plain)")
        let listed = try WritingCommandTests.ok(vault, ["project", "list"])
        #expect(listed.split(separator: "\n").contains { $0.contains("general") && $0.contains("privileged") && !$0.contains("NOT privileged") }, "\(listed)")
    }
}
