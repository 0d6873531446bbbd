import CryptoVault
import Foundation
import PeerChannel
import Sync
import TestSupport
import Testing
@testable import Console

/// The devices page pairs a new device the way `vaultctl pair host` does (a real joiner on loopback
/// types the code the page shows), lists it, and forgets it; each step is on the record.
@Suite struct ConsoleDevicesTests {
    @Test("the page's code pairs a real joiner; the device is listed, then forgotten; pairing and revocation are recorded")
    func pairListAndForget() throws {
        let fixture = try ConsoleFixture()
        let untrusted = try fixture.request("POST", "/api/devices/pairing", json: ["address": "127.0.0.1:0"])
        #expect(untrusted.status == 400 && untrusted.errorCode == "invalidBody")   // whose device it is must be chosen
        let wrong = try fixture.request("POST", "/api/devices/pairing", json: ["address": "127.0.0.1:0", "trust": "friend"])
        #expect(wrong.status == 400 && wrong.errorCode == "invalidBody")
        let started = try #require(try fixture.json("POST", "/api/devices/pairing", ["address": "127.0.0.1:0", "trust": "mine"]) as? [String: Any])
        #expect(started["state"] as? String == "waiting" && started["expires_in"] as? Int ?? 0 > 290)
        let code = try #require(started["code"] as? String), address = try #require(started["address"] as? String)
        let again = try fixture.request("POST", "/api/devices/pairing", json: ["address": "127.0.0.1:0", "trust": "other"])
        #expect(again.status == 409 && again.errorCode == "conflict")
        let polled = try fixture.request("GET", "/api/devices")
        #expect(polled.text.contains("waiting") && !polled.text.contains(code))   // the code went to the POST's answer alone

        let other = try TestVault()
        let keys = try other.unlocked.deviceKeys(named: "laptop")
        let connection = try TCPConnection.connect(to: try SocketAddress(parsing: address), maximumFrameLength: PairingHost.maximumFrameLength,
                                                   timeoutSeconds: 30)
        let joined = try PairingJoiner(vault: other.unlocked, keys: keys)
            .join(connection, code: try PairingCode(parsing: try SecureBytes(copying: Array(code.utf8))))
        #expect(joined.peer.fingerprint == (try fixture.unlocked.deviceKeys().profile.fingerprint))

        let listed = try waitFor { () -> [String: Any]? in
            let devices = try #require(try fixture.json("GET", "/api/devices") as? [String: Any])
            return (devices["pairing"] as? [String: Any])?["state"] as? String == "paired" ? devices : nil
        }
        let paired = try #require(listed["paired"] as? [[String: Any]])
        let device = try #require(paired.first?["device"] as? [String: Any])
        #expect(paired.count == 1 && device["name"] as? String == "laptop" && paired[0]["role"] as? String == "hosted"
                && paired[0]["trust"] as? String == "mine")
        #expect(!(try fixture.request("GET", "/api/devices").text.contains(code)))   // the spent code is not shown again
        #expect(fixture.actions.contains("peer.pair") && fixture.actions.contains("console.pair-start"))

        let fingerprint = try #require(device["fingerprint"] as? String)
        #expect(fixture.actions.contains("peer.trust"))
        let changed = try #require(try fixture.json("POST", "/api/devices/\(fingerprint)/trust", ["trust": "other"]) as? [String: Any])
        #expect(changed["changed"] as? Bool == true && fixture.actions.last == "peer.trust")
        let relisted = try #require((try fixture.json("GET", "/api/devices") as? [String: Any])?["paired"] as? [[String: Any]])
        #expect(relisted.first?["trust"] as? String == "other")
        _ = try fixture.json("DELETE", "/api/devices/\(fingerprint)")
        #expect(((try fixture.json("GET", "/api/devices") as? [String: Any])?["paired"] as? [Any])?.isEmpty == true)
        #expect(fixture.actions.last == "peer.revoke")
        let unknown = try fixture.request("DELETE", "/api/devices/\(fingerprint)")
        #expect(unknown.status == 404 && unknown.errorCode == "notFound")
    }

    /// Review 17 s12, N-s12-1: the page's revoke and "someone else's" kept no signed demotion, so the
    /// owner's other devices never learned it and kept sending the tablet privileged projects. They
    /// now do what `vaultctl peers revoke|trust` do: the demotion is kept to pass on at the next sync,
    /// and the answer names each other own device with the command that makes the change there now.
    @Test("the page's revoke and 'someone else's' keep a signed demotion for the owner's other devices and name them")
    func revokeAndDemotionArePassedOn() throws {
        let fixture = try ConsoleFixture()
        _ = try fixture.unlocked.deviceKeys(named: "laptop")
        var fingerprints: [String: String] = [:], ids: [String: DeviceID] = [:]
        for name in ["desk", "tablet", "phone"] {
            let keys = try TestVault().unlocked.deviceKeys(named: name)
            try fixture.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .host, pairedAt: 1))
            try fixture.unlocked.setTrustPassingOnDemotion(.mine, of: FamilyPairing(peer: keys.profile, role: .host, pairedAt: 1), atPairing: true)
            fingerprints[name] = keys.profile.fingerprint
            ids[name] = keys.profile.deviceID
        }
        #expect(try fixture.unlocked.heldDemotions().isEmpty)
        let tablet = try #require(fingerprints["tablet"]), phone = try #require(fingerprints["phone"]), desk = try #require(fingerprints["desk"])

        let revoked = try #require(try fixture.json("DELETE", "/api/devices/\(tablet)") as? [String: Any])
        #expect(fixture.actions.last == "peer.revoke")
        #expect(try fixture.unlocked.heldDemotions().map(\.device) == [ids["tablet"]])
        let revokedNames = Self.alsoChangeOn(revoked)
        #expect(revokedNames.map(\.fingerprint).sorted() == [desk, phone].sorted(), "\(revoked)")
        #expect(revokedNames.allSatisfy { $0.command == "vaultctl peers revoke --peer \(tablet)" }, "\(revoked)")

        let demoted = try #require(try fixture.json("POST", "/api/devices/\(phone)/trust", ["trust": "other"]) as? [String: Any])
        #expect(demoted["changed"] as? Bool == true && fixture.actions.last == "peer.trust")
        #expect(Set(try fixture.unlocked.heldDemotions().map(\.device)) == Set([ids["tablet"], ids["phone"]].compactMap { $0 }))
        let demotedNames = Self.alsoChangeOn(demoted)
        #expect(demotedNames.map(\.fingerprint) == [desk] && demotedNames.first?.command == "vaultctl peers trust --peer \(phone) other", "\(demoted)")

        // 'mine' again lifts this vault's demotion of the phone and names nothing.
        let promoted = try #require(try fixture.json("POST", "/api/devices/\(phone)/trust", ["trust": "mine"]) as? [String: Any])
        #expect(Self.alsoChangeOn(promoted).isEmpty && promoted["changed"] as? Bool == true)
        #expect(try fixture.unlocked.heldDemotions().map(\.device) == [ids["tablet"]])
    }

    private static func alsoChangeOn(_ answer: [String: Any]) -> [(fingerprint: String, command: String)] {
        ((answer["also_change_on"] as? [[String: Any]]) ?? []).map {
            (($0["device"] as? [String: Any])?["fingerprint"] as? String ?? "", $0["command"] as? String ?? "")
        }
    }

    @Test("a cancelled wait ends as failed, saying it was cancelled; a bad address is refused")
    func cancelAndBadAddress() throws {
        let fixture = try ConsoleFixture()
        _ = try fixture.json("POST", "/api/devices/pairing", ["address": "127.0.0.1:0", "trust": "other"])
        _ = try fixture.json("DELETE", "/api/devices/pairing")
        let ended = try waitFor { () -> [String: Any]? in
            let pairing = (try fixture.json("GET", "/api/devices") as? [String: Any])?["pairing"] as? [String: Any]
            return pairing?["state"] as? String == "failed" ? pairing : nil
        }
        #expect((ended["reason"] as? String)?.contains("cancelled") == true && ended["code"] == nil)
        let bad = try fixture.request("POST", "/api/devices/pairing", json: ["address": "not an address", "trust": "mine"])
        #expect(bad.status == 400 && bad.errorCode == "invalidBody")
    }

    /// Polls `probe` every 50 ms for up to 10 s.
    private func waitFor<T>(_ probe: () throws -> T?) throws -> T {
        for _ in 0..<200 {
            if let value = try probe() { return value }
            Thread.sleep(forTimeInterval: 0.05)
        }
        throw FixtureError("not reached within 10 s")
    }
}
