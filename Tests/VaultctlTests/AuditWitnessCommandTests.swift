import Appliance
import AuditChain
import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif
import PeerChannel
import Testing

/// `vaultctl audit verify` on a vault whose log a paired device cosigned: the witnesses it lists, and
/// its failure when a stored cosignature was altered. The cosignature is obtained through the library
/// (the channel's command line is not there yet), with the witness's service called in memory.
@Suite("vaultctl audit verify: witnesses")
struct AuditWitnessCommandTests {
    @Test("audit verify lists the witness of the log by name and fingerprint, in text and JSON")
    func verifyListsWitnesses() throws {
        let (log, witness) = (try CLIVault(), try CLIVault())
        let fingerprint = try Self.cosign(log: log, witness: witness)
        let text = try expectSuccess(log.run(["audit", "verify"], unlock: false))
        #expect(text.stdout.contains("Witnessed by desk (\(fingerprint)): the checkpoint of "), "\(text.stdout)")
        let report = try #require(try jsonObject(try expectSuccess(log.run(["audit", "verify", "--json"], unlock: false)).stdout) as? [String: Any])
        let witnesses = try #require(report["witnesses"] as? [[String: Any]])
        #expect(witnesses.count == 1)
        #expect(witnesses.first?["name"] as? String == "desk" && witnesses.first?["fingerprint"] as? String == fingerprint)
        #expect(witnesses.first?["cosigned_at"] as? String == "2026-01-01T00:00:00Z")
        // The `audit.cosigned` entry and the verifications since came after the cosigned checkpoint.
        #expect(witnesses.first?["latest_checkpoint"] as? Bool == false && (witnesses.first?["entries_after"] as? Int ?? 0) > 0)
    }

    @Test("audit verify says so when no witness has cosigned, and the JSON list is empty")
    func verifyWithoutWitnesses() throws {
        let log = try CLIVault()
        #expect(try expectSuccess(log.run(["audit", "verify"], unlock: false)).stdout.contains("No witness has cosigned this log."))
        let report = try #require(try jsonObject(try expectSuccess(log.run(["audit", "verify", "--json"], unlock: false)).stdout) as? [String: Any])
        #expect((report["witnesses"] as? [Any])?.isEmpty == true)
    }

    @Test("audit verify exits 1 saying a witness cosignature does not verify when a stored one was altered")
    func verifyFailsOnAlteredCosignature() throws {
        let (log, witness) = (try CLIVault(), try CLIVault())
        let fingerprint = try Self.cosign(log: log, witness: witness)
        // The cosigned checkpoint's size, in the stored note only: the witness signed another text.
        let database = log.directory + "/vault.db"
        let size = try sqlite(database, "SELECT tree_size FROM audit_cosignatures").trimmingCharacters(in: .whitespacesAndNewlines)
        _ = try sqlite(database, "UPDATE audit_cosignatures SET cosigned_note = replace(cosigned_note, char(10) || '\(size)' || char(10), char(10) || '\(Int(size)! + 1)' || char(10))")
        let failed = try log.run(["audit", "verify"], unlock: false)
        #expect(failed.status == 1, "\(failed.stdout) \(failed.stderr)")
        // Since exports and verification carry cosignatures (§8.8 step 7), the verifier refuses it first,
        // naming the check but not the device (it knows the witness key, not the pairing's fingerprint).
        _ = fingerprint
        #expect(failed.stderr.contains("audit log verification FAILED: cosignature: a witness cosignature does not verify"), "\(failed.stderr)")
    }

    /// Pairs the two vaults (as `pair` would have stored it) and has `witness` cosign `log`'s latest
    /// checkpoint at 2026-01-01T00:00:00Z; returns the witness's fingerprint.
    static func cosign(log: CLIVault, witness: CLIVault) throws -> String {
        let passphrase = try SecureBytes(copying: Array(CLIVault.passphrase.utf8))
        let logVault = try Vault.open(at: log.directory, journal: AuditLog(), modules: VaultModules.all).unlock(with: .passphrase(passphrase))
        let witnessVault = try Vault.open(at: witness.directory, journal: AuditLog(), modules: VaultModules.all).unlock(with: .passphrase(passphrase))
        // `init` made each identity under the host's name: named as the test says (device.rename).
        let (logKeys, witnessKeys) = (try logVault.deviceKeys(named: "laptop"), try witnessVault.deviceKeys(named: "desk"))
        try logVault.storePairing(FamilyPairing(peer: witnessKeys.profile, role: .join, pairedAt: 1))
        try witnessVault.storePairing(FamilyPairing(peer: logKeys.profile, role: .host, pairedAt: 1))
        let service = try WitnessService(vault: witnessVault, keys: witnessKeys, clock: VaultClock { 1_767_225_600 })
        _ = try WitnessClient(vault: logVault).requestCosignature(over: InMemoryChannel(peer: witnessKeys.profile, service: service, caller: logKeys.profile))
        try logVault.vault.finishCommand()
        return witnessKeys.profile.fingerprint
    }
}

/// A channel whose requests go straight to the peer's service, as `caller`.
final class InMemoryChannel: ChannelRequesting {
    let peer: DeviceProfile
    let service: any ChannelService
    let caller: DeviceProfile

    init(peer: DeviceProfile, service: any ChannelService, caller: DeviceProfile) {
        self.peer = peer
        self.service = service
        self.caller = caller
    }

    func request(_ kind: String, body: [UInt8]) throws -> [UInt8] { try service.respond(to: kind, body: body, from: caller) }
}

/// `vaultctl audit witness` over a real channel on loopback: the desk's `vaultctl serve --address`
/// answers as a witness, and the laptop asks it.
@Suite("vaultctl audit witness", .serialized)
struct AuditWitnessChannelTests {
    static func actions(_ vault: CLIVault, _ prefix: String) throws -> [(action: String, details: [String: String])] {
        try actions(in: vault.directory, passphraseFile: vault.passphraseFile, prefix)
    }

    static func actions(in directory: String, passphraseFile: String, _ prefix: String) throws -> [(action: String, details: [String: String])] {
        let log = try expectSuccess(CLI.run(["audit", "log", "--json", "--details", "--action", prefix, "--vault", directory,
                                             "--passphrase-file", passphraseFile]))
        return try #require(try jsonObject(log.stdout) as? [[String: Any]]).map {
            ($0["action"] as? String ?? "", $0["details"] as? [String: String] ?? [:])
        }
    }

    @Test("the desk cosigns the laptop's latest checkpoint; both record it and audit verify lists the desk")
    func witnessOverTheChannel() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let deskFingerprint = try PeersCommandTests.fingerprint(desk)
        let witnessed = try laptop.run(["audit", "witness", "--peer", deskFingerprint, "--address", address, "--json"])
        #expect(witnessed.status == 0, "\(witnessed.stderr)")
        let answer = try #require(try jsonObject(witnessed.stdout) as? [String: Any])
        let size = try #require(answer["tree_size"] as? Int)
        #expect((answer["cosigned_checkpoint"] as? String)?.contains("vaultctl-witness/") == true)

        let verified = try #require(try jsonObject(try expectSuccess(laptop.run(["audit", "verify", "--json"], unlock: false)).stdout) as? [String: Any])
        let witnesses = try #require(verified["witnesses"] as? [[String: Any]])
        #expect(witnesses.map { $0["fingerprint"] as? String } == [deskFingerprint] && witnesses.first?["tree_size"] as? Int == size)
        #expect(try Self.actions(laptop, "audit.cosigned").map(\.details["size"]) == [String(size)])
        #expect(try Self.actions(desk, "witness").map(\.action) == ["witness.cosign"])
    }

    @Test("a laptop restored from an older copy is refused as a rollback, on both sides' records, and exits 1")
    func restoredCopyRefused() throws {
        let (desk, laptop) = try PeersCommandTests.pairedVaults()
        let (daemon, address) = try ServeChannelTests.serve(desk)
        defer { kill(daemon.process.processIdentifier, SIGKILL) }
        let arguments = ["audit", "witness", "--peer", try PeersCommandTests.fingerprint(desk), "--address", address]
        try expectSuccess(laptop.run(arguments))
        let older = laptop.root + "/older"
        try FileManager.default.copyItem(atPath: laptop.directory, toPath: older)
        try expectSuccess(laptop.run(["compartment", "create", "Later", "--register", "general"]))
        try expectSuccess(laptop.run(arguments))

        let refused = try CLI.run(arguments + ["--vault", older, "--passphrase-file", laptop.passphraseFile])
        #expect(refused.status == 1, "\(refused.stdout) \(refused.stderr)")
        #expect(refused.stderr.contains("cut back or restored from an older copy"), "\(refused.stderr)")
        #expect(try Self.actions(in: older, passphraseFile: laptop.passphraseFile, "audit.witness-failed").map(\.details["reason"])
                == ["checkpointRollback"])
        #expect(try Self.actions(desk, "witness").map(\.action) == ["witness.cosign", "witness.cosign", "witness.refuse"])
        #expect(try Self.actions(desk, "witness.refuse").first?.details["reason"] == "oldSizeMismatch")
    }

    @Test("a device that is not paired is named, and nothing is sent")
    func unknownPeer() throws {
        let laptop = try CLIVault()
        let refused = try laptop.run(["audit", "witness", "--peer", "nobody", "--address", "127.0.0.1:9"])
        #expect(refused.status == 66 && refused.stderr.contains("no paired device"), "\(refused.stderr)")
    }
}
