import Appliance
import CryptoVault
import PeerChannel
import Sync
import TestSupport
import Writing

/// Someone else's device paired with the owner's laptop of a `SyncExchangeFixture` (trusted `other`
/// there): a `ForgingAnswerer` answering on a channel of its own on loopback, with a vault of its own
/// for its keys and for the share grants it may send (review 17, F2: a stranger that knows a project
/// id the owner's devices hold).
final class StrangerDevice {
    let answerer = ForgingAnswerer()
    let vault: TestVault
    let keys: DeviceKeys
    let server: ChannelServer
    private let fixture: SyncExchangeFixture

    init(pairedWithLaptopOf f: SyncExchangeFixture) throws {
        fixture = f
        vault = try TestVault(modules: SyncExchangeFixture.modules)
        keys = try vault.unlocked.deviceKeys(named: "stranger")
        answerer.answer(as: keys)
        try vault.unlocked.storePairing(FamilyPairing(peer: f.laptopKeys.profile, role: .host, pairedAt: 1))
        try f.laptop.unlocked.storePairing(FamilyPairing(peer: keys.profile, role: .join, pairedAt: 1))
        try vault.unlocked.setTrust(.other, of: f.laptopKeys.profile.deviceID, atPairing: true)
        try f.laptop.unlocked.setTrust(.other, of: keys.profile.deviceID, atPairing: true)
        let own = vault.unlocked
        server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: keys,
                                   pinnedPeers: { try own.vault.familyPairings() }, services: [answerer])
        server.start()
    }

    deinit { server.stop() }

    var device: DeviceID { keys.profile.deviceID }

    /// `vaultctl sync now --peer stranger` on the laptop.
    @discardableResult
    func syncLaptop() throws -> SyncRunReport {
        let client = try ChannelClient(connectingTo: server.address, localKeys: fixture.laptopKeys, peer: keys.profile)
        return try SyncInitiator(vault: fixture.laptop.unlocked, transport: ChannelSyncTransport(client), coordinator: nil).run()
    }

    /// A real share grant, signed by this device, of a compartment of its own named as a project's
    /// compartment is (`project <id>`), accepted by the laptop: what a stranger can always send.
    func grant(_ project: ProjectID, role: ShareRole = .editor) throws {
        let compartment = try vault.unlocked.createCompartment(named: "project \(project.hex)", register: .general, privileged: false)
        let grant = try vault.unlocked.makeShareGrant(of: compartment, for: fixture.laptopKeys.profile, role: role)
        _ = try fixture.laptop.unlocked.acceptShareGrant(grant)
    }
}
