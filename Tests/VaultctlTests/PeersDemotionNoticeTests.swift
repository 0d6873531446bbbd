import CryptoVault
import Foundation
import Sync
import Testing

/// `peers trust … other` and `peers revoke` name the owner's other own devices and the command to
/// run on each (review s8, F4: trust is per vault, so an own device that still trusts a demoted
/// device as 'mine' keeps sending it every privileged project).
@Suite(.serialized)
struct PeersDemotionNoticeTests {
    /// Desk D paired with laptop L and tablet M, both trusted 'mine' on D.
    static func ownDevices() throws -> (desk: CLIVault, laptop: CLIVault, tablet: CLIVault) {
        let desk = try CLIVault(), laptop = try CLIVault(), tablet = try CLIVault()
        for joining in [laptop, tablet] {
            let host = try PairCommandTests.startHost(desk, ["--address", "127.0.0.1:0", "--trust", "mine"])
            let joined = try PairCommandTests.join(joining, host.address, code: host.code, extra: ["--trust", "mine"])
            let hosted = host.finish()
            guard joined.status == 0, hosted.status == 0 else { throw CLIError(message: "pairing failed: \(joined.stderr) \(hosted.stderr)") }
        }
        return (desk, laptop, tablet)
    }

    @Test func demotingADeviceNamesTheOtherOwnDevicesAndTheCommandForEach() throws {
        let (desk, laptop, tablet) = try Self.ownDevices()
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop), tabletFingerprint = try PeersCommandTests.fingerprint(tablet)
        let demoted = try desk.run(["peers", "trust", "--peer", laptopFingerprint, "other"])
        #expect(demoted.status == 0, "\(demoted.stderr)")
        #expect(demoted.stdout.contains("someone else's device"))
        let lines = demoted.stdout.split(separator: "\n").map(String.init)
        let tabletLine = lines.first { $0.contains(tabletFingerprint) }
        #expect(tabletLine?.hasSuffix("vaultctl peers trust --peer \(laptopFingerprint) other") == true, "\(demoted.stdout)")
        #expect(demoted.stdout.contains("Make the same change on each of them"))
        // The laptop itself is not a device to run it on.
        #expect(!lines.contains { $0.hasPrefix("  on ") && $0.contains("(\(laptopFingerprint))") }, "\(demoted.stdout)")

        // Again (nothing changed): still named, since the other devices may not be done yet.
        let json = try #require(try PairCommandTests.json(try desk.run(["peers", "trust", "--peer", laptopFingerprint, "other", "--json"])) as? [String: Any])
        #expect(json["changed"] as? Bool == false)
        let named = try #require(json["also_change_on"] as? [[String: Any]])
        #expect(named.count == 1)
        #expect((named.first?["peer"] as? [String: Any])?["fingerprint"] as? String == tabletFingerprint)
        #expect(named.first?["command"] as? String == "vaultctl peers trust --peer \(laptopFingerprint) other")

        // Making a device 'mine' is this vault's word alone: nothing to name.
        let promoted = try desk.run(["peers", "trust", "--peer", laptopFingerprint, "mine", "--json"])
        #expect(((try PairCommandTests.json(promoted) as? [String: Any])?["also_change_on"] as? [Any])?.isEmpty == true, "\(promoted.stdout)")
        let plain = try desk.run(["peers", "trust", "--peer", laptopFingerprint, "other"])
        #expect(plain.status == 0 && plain.stdout.contains(tabletFingerprint))
        let toMine = try desk.run(["peers", "trust", "--peer", laptopFingerprint, "mine"])
        #expect(toMine.status == 0 && !toMine.stdout.contains(tabletFingerprint), "\(toMine.stdout)")
    }

    @Test func revokingADeviceNamesTheOtherOwnDevicesAndTheCommandForEach() throws {
        let (desk, laptop, tablet) = try Self.ownDevices()
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop), tabletFingerprint = try PeersCommandTests.fingerprint(tablet)
        let revoked = try desk.run(["peers", "revoke", "--peer", laptopFingerprint])
        #expect(revoked.status == 0, "\(revoked.stderr)")
        let tabletLine = revoked.stdout.split(separator: "\n").first { $0.contains(tabletFingerprint) }
        #expect(tabletLine?.hasSuffix("vaultctl peers revoke --peer \(laptopFingerprint)") == true, "\(revoked.stdout)")
        // A device trusted 'other' here is not one of the owner's: not named.
        #expect(try desk.run(["peers", "trust", "--peer", tabletFingerprint, "other"]).status == 0)
        let json = try #require(try PairCommandTests.json(try desk.run(["peers", "revoke", "--peer", tabletFingerprint, "--json"])) as? [String: Any])
        #expect((json["also_change_on"] as? [Any])?.isEmpty == true, "\(json)")
    }

    /// The devices the vault holds as demoted, to pass on to the owner's other own devices (F4 (b)).
    static func demoted(_ vault: CLIVault) throws -> [String] {
        let unlocked = try SyncOverNetworkFixture.open(vault)
        defer { try? unlocked.vault.finishCommand() }
        return try unlocked.heldDemotions().map { $0.device.fingerprint }
    }

    @Test func peersTrustOtherAndRevokeKeepTheDemotionToPassOnAndMineLiftsIt() throws {
        let (desk, laptop, tablet) = try Self.ownDevices()
        let laptopFingerprint = try PeersCommandTests.fingerprint(laptop), tabletFingerprint = try PeersCommandTests.fingerprint(tablet)
        #expect(try Self.demoted(desk).isEmpty, "pairing 'mine' demotes nothing")
        #expect(try desk.run(["peers", "trust", "--peer", laptopFingerprint, "other"]).status == 0)
        #expect(try Self.demoted(desk) == [laptopFingerprint])
        #expect(try desk.run(["peers", "trust", "--peer", laptopFingerprint, "mine"]).status == 0)
        #expect(try Self.demoted(desk).isEmpty, "the owner's word 'mine' here lifts this vault's demotion")
        #expect(try desk.run(["peers", "revoke", "--peer", tabletFingerprint]).status == 0)
        #expect(try Self.demoted(desk) == [tabletFingerprint])
    }
}
