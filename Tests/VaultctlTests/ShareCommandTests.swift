import Foundation
import Testing

/// `vaultctl share`: a privileged compartment is refused (exit 4) and the refusal is an audit entry.
@Suite("vaultctl share: privileged compartments are never shared")
struct ShareCommandTests {
    @Test("sharing a privileged compartment exits 4, says why, and records share.refused with sealed details")
    func privilegedRefused() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "Probate", "--register", "legal"]).status == 0)
        for role in ["viewer", "editor"] {
            let shared = try vault.run(["share", "Probate", "--with", "front-desk-laptop", "--role", role])
            #expect(shared.status == 4, "\(role): \(shared.stderr)")
            #expect(shared.stderr.contains("'Probate' is privileged") && shared.stderr.contains("never shared"), "\(shared.stderr)")
        }
        let log = try vault.run(["audit", "log", "--json"])
        let entries = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        let refusals = entries.filter { $0["action"] as? String == "share.refused" }
        #expect(refusals.count == 2)
        #expect(refusals.allSatisfy { ($0["detail_hashes"] as? [String: Any])?.keys.sorted() == ["device", "role"] }, "\(refusals)")
        let database = try Data(contentsOf: URL(fileURLWithPath: vault.directory + "/vault.db"))
        #expect(database.range(of: Data("front-desk-laptop".utf8)) == nil, "the device name is sealed, not in clear")
    }

    @Test("an ordinary compartment needs a paired device; a bad role or compartment is refused with its code")
    func otherOutcomes() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "Blog", "--register", "general"]).status == 0)
        let unpaired = try vault.run(["share", "Blog", "--with", "laptop", "--role", "viewer"])
        #expect(unpaired.status == 66 && unpaired.stderr.contains("no paired device has the name or fingerprint 'laptop'"), "\(unpaired.stderr)")
        let badRole = try vault.run(["share", "Blog", "--with", "laptop", "--role", "owner"])
        #expect(badRole.status == 64 && badRole.stderr.contains("unknown role 'owner'"), "\(badRole.stderr)")
        let missing = try vault.run(["share", "Nope", "--with", "laptop", "--role", "viewer"])
        #expect(missing.status == 66, "\(missing.stderr)")
        let log = try vault.run(["audit", "log", "--json"])
        #expect(!log.stdout.contains("share.refused"), "only privileged refusals are share.refused entries")
    }
}
