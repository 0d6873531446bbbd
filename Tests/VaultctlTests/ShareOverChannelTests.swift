import AuditChain
@testable import CryptoVault
import Foundation
import Testing

/// `vaultctl share` end to end: two vaults paired with `pair host`/`pair join`, the recipient's
/// `vaultctl serve --address` answering `share.grant` over the channel on loopback.
@Suite("vaultctl share: over the channel to a paired device's daemon")
struct ShareOverChannelTests {
    /// The owner (desk) with "Memos" and the privileged "Probate", the recipient (laptop) serving.
    final class Devices {
        let owner: CLIVault, recipient: CLIVault
        let daemon: CLI.Running
        let address: String
        let recipientFingerprint: String

        init(recipientHasMemos: Bool = false) throws {
            (owner, recipient) = try PeersCommandTests.pairedVaults()
            #expect(try owner.run(["compartment", "create", "Memos", "--register", "general"]).status == 0)
            #expect(try owner.run(["compartment", "create", "Probate", "--register", "legal"]).status == 0)
            if recipientHasMemos { #expect(try recipient.run(["compartment", "create", "Memos", "--register", "general"]).status == 0) }
            recipientFingerprint = try PeersCommandTests.fingerprint(recipient)
            (daemon, address) = try ServeChannelTests.serve(recipient)
        }

        deinit {
            kill(daemon.process.processIdentifier, SIGTERM)
            daemon.process.waitUntilExit()
        }

        func share(_ compartment: String, role: String) throws -> CLI.Result {
            try owner.run(["share", compartment, "--with", recipientFingerprint, "--role", role, "--address", address])
        }

        static func actions(_ vault: CLIVault) throws -> [String] {
            let log = try vault.run(["audit", "log", "--json"])
            return (try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []).compactMap { $0["action"] as? String }
        }
    }

    @Test("share --json prints the share as one JSON document: compartment, peer, role and key versions")
    func shareAsJSON() throws {
        let devices = try Devices()
        let shared = try devices.owner.run(["share", "Memos", "--peer", devices.recipientFingerprint, "--role", "editor",
                                            "--address", devices.address, "--json"])
        #expect(shared.status == 0, "\(shared.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(shared.stdout.utf8)) as? [String: Any], "\(shared.stdout)")
        #expect(object["compartment"] as? String == "Memos" && object["role"] as? String == "editor" && object["key_versions"] as? [Int] == [1])
        #expect((object["peer"] as? [String: Any])?["fingerprint"] as? String == devices.recipientFingerprint)
        #expect(JSONOutputTests.badKeys(object).isEmpty)
    }

    @Test("a share reaches the daemon, is recorded on both sides, and the recipient opens the owner's bundles")
    func shareAndUse() throws {
        let devices = try Devices()
        let shared = try devices.share("Memos", role: "viewer")
        #expect(shared.status == 0 && shared.stderr.contains("Shared 'Memos' with") && shared.stderr.contains("as viewer, key versions v1"),
                "\(shared.stderr)")
        let log = try devices.owner.run(["audit", "log", "--json"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        let share = try #require(entries.last { $0["action"] as? String == "compartment.share" })
        #expect((share["detail_hashes"] as? [String: Any])?.keys.sorted() == ["key-versions", "name", "peer", "role"], "\(share)")
        #expect(try Devices.actions(devices.recipient).contains("share.receive"))

        let input = devices.owner.root + "/memo.txt", bundle = devices.owner.root + "/memo.vbundle"
        try devices.owner.write("shared minutes", to: input)
        #expect(try devices.owner.run(["seal", "--compartment", "Memos", input, "-o", bundle]).status == 0)
        let opened = try devices.recipient.run(["open", bundle, "-o", "-"])
        #expect(opened.status == 0 && opened.stdout == "shared minutes", "\(opened.stderr)")
        let refused = try devices.recipient.run(["seal", "--compartment", "Memos", input, "-o", devices.recipient.root + "/mine.vbundle"])
        #expect(refused.status == 77, "\(refused.stderr)")
    }

    @Test("the daemon's refusal exits with its reason and is recorded; a privileged compartment never reaches it")
    func refusals() throws {
        let devices = try Devices(recipientHasMemos: true)
        let clash = try devices.share("Memos", role: "editor")
        #expect(clash.status == 73 && clash.stderr.contains("already exists"), "\(clash.stderr)")
        let privileged = try devices.share("Probate", role: "viewer")
        #expect(privileged.status == 4 && privileged.stderr.contains("never shared"), "\(privileged.stderr)")
        let ownerActions = try Devices.actions(devices.owner)
        #expect(ownerActions.contains("compartment.share-failed") && ownerActions.contains("share.refused"))
        #expect(!ownerActions.contains("compartment.share"))
        let recipientActions = try Devices.actions(devices.recipient)
        #expect(recipientActions.filter { $0 == "share.grant-refused" }.count == 1 && !recipientActions.contains("share.receive"))
        let noAddress = try devices.owner.run(["share", "Memos", "--with", devices.recipientFingerprint, "--role", "viewer"])
        #expect(noAddress.status == 64, "\(noAddress.stderr)")
    }

    @Test("share revoke records the intent and says to rotate")
    func revokeRecordsIntent() throws {
        let devices = try Devices()
        #expect(try devices.share("Memos", role: "editor").status == 0)
        let revoked = try devices.owner.run(["share", "revoke", "Memos", "--with", devices.recipientFingerprint])
        #expect(revoked.status == 0 && revoked.stdout.contains("vaultctl compartment rotate 'Memos'"), "\(revoked.stderr)")
        #expect(try Devices.actions(devices.owner).contains("compartment.share-revoke"))
    }
}
