import Appliance
import CryptoVault
import PeerChannel
import Sync
import TestSupport
import Writing

/// Someone else's device paired with one of the owner's devices of a `SyncExchangeFixture` (its
/// laptop, unless a test says the desk; trusted `other` there): a `ForgingAnswerer` answering on a
/// channel of its own on loopback, with a vault of its own for its keys and for the share grants it
/// may send (review 17, F2: a stranger that knows a project id the owner's devices hold).
final class StrangerDevice {
    let answerer = ForgingAnswerer()
    let vault: TestVault
    let keys: DeviceKeys
    let server: ChannelServer
    /// The owner's device it is paired with, and that device's keys.
    private let owner: TestVault
    private let ownerKeys: DeviceKeys

    convenience init(pairedWithLaptopOf f: SyncExchangeFixture) throws {
        try self.init(pairedWith: f.laptop, keys: f.laptopKeys)
    }

    convenience init(pairedWithDeskOf f: SyncExchangeFixture) throws {
        try self.init(pairedWith: f.desk, keys: f.deskKeys)
    }

    private init(pairedWith owner: TestVault, keys ownerKeys: DeviceKeys) throws {
        self.owner = owner
        self.ownerKeys = ownerKeys
        vault = try TestVault(modules: SyncExchangeFixture.modules)
        keys = try vault.unlocked.deviceKeys(named: "stranger")
        answerer.answer(as: keys)
        try vault.unlocked.storePairing(FamilyPairing(peer: ownerKeys.profile, role: .host, pairedAt: 1))
        try owner.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .join, pairedAt: 1))
        try vault.unlocked.setTrust(.other, of: ownerKeys.profile.deviceID, atPairing: true)
        try owner.unlocked.setTrust(.other, of: keys.profile.deviceID, atPairing: true)
        let own = vault.unlocked
        server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: keys,
                                   pinnedPeers: { try own.vault.familyPairings() }, services: [answerer])
        server.start()
    }

    deinit { server.stop() }

    var device: DeviceID { keys.profile.deviceID }

    /// `vaultctl sync now --peer stranger` on the owner's device it is paired with.
    @discardableResult
    func syncOwner() throws -> SyncRunReport {
        let client = try ChannelClient(connectingTo: server.address, localKeys: ownerKeys, peer: keys.profile)
        return try SyncInitiator(vault: owner.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
    }

    /// `vaultctl sync now --peer stranger` on the laptop (the device it is paired with).
    @discardableResult
    func syncLaptop() throws -> SyncRunReport { try syncOwner() }

    /// A real share grant, signed by this device, of a compartment of its own named as a project's
    /// compartment is (`project <id>`), accepted by the owner's device: what a stranger can always send.
    func grant(_ project: ProjectID, role: ShareRole = .editor) throws {
        let compartment = try vault.unlocked.createCompartment(named: "project \(project.hex)", register: .general, privileged: false)
        let grant = try vault.unlocked.makeShareGrant(of: compartment, for: ownerKeys.profile, role: role)
        _ = try owner.unlocked.acceptShareGrant(grant)
    }
}
