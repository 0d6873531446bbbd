import AuditChain
import CryptoVault
import Foundation

/// A vault audited by the real audit log, in a temporary directory removed afterwards, with a
/// privileged compartment "chart" (healthcare) and an ordinary one "blog" (general).
class AuditedVaultFixture {
    let root = NSTemporaryDirectory() + "privileged-session-test-\(UUID().uuidString)"
    let unlocked: UnlockedVault
    let chart: VaultCompartment
    let blog: VaultCompartment

    init() throws {
        unlocked = try Vault.create(at: root + "/vault", passphrase: try SecureBytes(copying: Array("correct horse battery staple".utf8)),
                                    kdf: .argon2idFloor, journal: AuditLog())
        chart = try unlocked.createCompartment(named: "chart", register: .healthcare)
        blog = try unlocked.createCompartment(named: "blog", register: .general)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }
}
