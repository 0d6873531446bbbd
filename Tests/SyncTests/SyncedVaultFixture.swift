import CryptoVault
import TestSupport
@testable import Sync
import Writing

/// A vault with the writing and sync modules, a project in it, this device's author and a peer's:
/// what the suites that sync a real vault against an in-memory peer replica share.
protocol SyncedVaultFixture {
    var vault: TestVault { get }
    var project: WritingProject { get }
    var author: SyncAuthor { get }
    var peer: SyncAuthor { get }
}

extension SyncedVaultFixture {
    var devices: [DeviceID: [UInt8]] { [author.device: author.key.publicKey, peer.device: peer.key.publicKey] }

    /// A fresh vault with a project named `name`, and two authors.
    static func makeSyncedVault(project name: String) throws -> (TestVault, WritingProject, SyncAuthor, SyncAuthor) {
        let vault = try TestVault(modules: [WritingSchema.module, SyncSchema.module])
        let project = try vault.unlocked.createWritingProject(named: name, register: .general, kind: .document)
        return (vault, project, try SyncAuthor.random(), try SyncAuthor.random())
    }

    func sync<Result>(_ body: (VaultSync) throws -> Result) throws -> Result {
        try vault.unlocked.transaction { tx in try body(VaultSync(WritingStore(tx), author: author, devices: devices)) }
    }

    func store<Result>(_ body: (WritingStore) throws -> Result) throws -> Result {
        try vault.unlocked.transaction { tx in try body(WritingStore(tx)) }
    }
}
