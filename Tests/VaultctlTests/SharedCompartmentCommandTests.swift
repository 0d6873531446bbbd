import Appliance
import AuditChain
@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// `vaultctl open` and `seal` on a compartment another vault shared with this device: both roles
/// open the owner's bundles, an editor's bundles open at the owner, a viewer's seal exits 77 with the
/// reason, and every use is in the recipient's audit log with the owner's vault named.
@Suite("vaultctl open and seal: compartments shared with this device")
struct SharedCompartmentCommandTests {
    /// Two CLI vaults whose devices paired, the owner's "Memos" shared with the recipient as `role`
    /// through the library (the grant's exchange over the channel is tested in PeerChannelTests).
    final class SharedPair {
        let owner = try! CLIVault()
        let recipient = try! CLIVault()

        init(role: ShareRole) throws {
            #expect(try owner.run(["compartment", "create", "Memos", "--register", "general"]).status == 0)
            let ownerVault = try Self.unlock(owner), recipientVault = try Self.unlock(recipient)
            let ownerDevice = try ownerVault.deviceKeys(nameIfNew: "front-desk"), recipientDevice = try recipientVault.deviceKeys(nameIfNew: "laptop")
            try ownerVault.storePairing(FamilyPairing(peer: recipientDevice.profile, role: .host, pairedAt: 1))
            try recipientVault.storePairing(FamilyPairing(peer: ownerDevice.profile, role: .join, pairedAt: 1))
            try recipientVault.acceptShareGrant(try ownerVault.makeShareGrant(of: try ownerVault.compartment(named: "Memos"),
                                                                              for: recipientDevice.profile, role: role))
        }

        static func unlock(_ vault: CLIVault) throws -> UnlockedVault {
            try Vault.open(at: vault.directory, journal: AuditLog(), modules: VaultModules.all)
                .unlock(with: .passphrase(try SecureBytes(copying: Array(CLIVault.passphrase.utf8))))
        }

        /// Seals `text` with `vault`'s vaultctl into a new bundle file and returns the result and path.
        func seal(_ text: String, by vault: CLIVault) throws -> (CLI.Result, String) {
            let input = vault.root + "/plain-\(UUID().uuidString)", output = vault.root + "/\(UUID().uuidString).vbundle"
            try vault.write(text, to: input)
            return (try vault.run(["seal", "--compartment", "Memos", input, "-o", output]), output)
        }

        /// The `bundle.*` entries of `vault`'s log with their unsealed details.
        func bundleEntries(of vault: CLIVault) throws -> [(action: String, compartmentID: CompartmentID?, details: [VaultEvent.Detail])] {
            let unlocked = try Self.unlock(vault)
            let keys = try unlocked.auditKeys()
            return try AuditLogReader(vault: unlocked.vault).entries().filter { $0.action.hasPrefix("bundle.") }.map { entry in
                (entry.action, entry.compartmentID,
                 try AuditLogReader.details(of: entry, vaultID: unlocked.vault.vaultID, keys: keys).map { VaultEvent.Detail($0.name, $0.value) })
            }
        }

        var ownerVaultHex: String { get throws { ByteEncoding.hex(try Vault.open(at: owner.directory, journal: RecordingJournal(), modules: VaultModules.all).vaultID.bytes) } }
    }

    @Test("viewers and editors open the owner's bundles, each open recorded with the owner's vault", arguments: ["viewer", "editor"])
    func bothRolesOpenTheOwnersBundles(role: String) throws {
        let pair = try SharedPair(role: try #require(ShareRole(rawValue: role)))
        let (sealed, bundle) = try pair.seal("minutes of the meeting", by: pair.owner)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let opened = try pair.recipient.run(["open", bundle, "-o", "-"])
        #expect(opened.status == 0 && opened.stdout == "minutes of the meeting", "\(opened.stderr)")
        let entries = try pair.bundleEntries(of: pair.recipient)
        let open = try #require(entries.last)
        #expect(open.action == "bundle.open")
        let ownerVault = try pair.ownerVaultHex
        #expect(open.details.contains(.init("source-vault", ownerVault)), "\(open.details)")
        let listed = try pair.recipient.run(["compartment", "list", "--json"])
        let compartments = try JSONSerialization.jsonObject(with: Data(listed.stdout.utf8)) as? [[String: Any]] ?? []
        let shared = compartments.first { $0["name"] as? String == "Memos" }?["shared"] as? [String: Any]
        #expect(shared?["role"] as? String == role && shared?["source_vault_id"] as? String == ownerVault, "\(listed.stdout)")
    }

    @Test("a viewer's seal into the shared compartment exits 77 and says why")
    func aViewersSealIsRefused() throws {
        let pair = try SharedPair(role: .viewer)
        let (refused, output) = try pair.seal("not mine to add", by: pair.recipient)
        #expect(refused.status == 77, "\(refused.stderr)")
        #expect(refused.stderr.contains("shared with this device as viewer"), "\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output))
        #expect(try pair.bundleEntries(of: pair.recipient).isEmpty)
    }

    @Test("an editor seals into the shared compartment and the owner opens it")
    func anEditorsBundleOpensAtTheOwner() throws {
        let pair = try SharedPair(role: .editor)
        let (sealed, bundle) = try pair.seal("the editor's addendum", by: pair.recipient)
        #expect(sealed.status == 0, "\(sealed.stderr)")
        let seal = try #require(try pair.bundleEntries(of: pair.recipient).last)
        let ownerVault = try pair.ownerVaultHex
        #expect(seal.action == "bundle.seal" && seal.details.contains(.init("source-vault", ownerVault)), "\(seal.details)")
        let opened = try pair.owner.run(["open", bundle, "-o", "-"])
        #expect(opened.status == 0 && opened.stdout == "the editor's addendum", "\(opened.stderr)")
        let ownerOpen = try #require(try pair.bundleEntries(of: pair.owner).last)
        #expect(ownerOpen.action == "bundle.open" && !ownerOpen.details.contains { $0.name == "source-vault" })
        // A third vault, not shared with, cannot open it.
        let stranger = try CLIVault()
        #expect(try stranger.run(["open", bundle, "-o", "-"]).status == 65)
    }
}
