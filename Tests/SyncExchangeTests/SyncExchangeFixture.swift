import Appliance
import CryptoVault
import PeerChannel
import PrivilegedSession
import Sync
import TestSupport
import Writing

/// Two real vaults in this process, paired with each other, each trusting the other as its test
/// says; the desk answers the exchange on a real channel on loopback (a `ChannelServer` with the
/// daemon's `SyncChannelService`), and the laptop asks (`SyncInitiator` over a `ChannelClient`).
final class SyncExchangeFixture {
    let desk: TestVault
    let laptop: TestVault
    let deskKeys: DeviceKeys
    let laptopKeys: DeviceKeys
    let server: ChannelServer

    static let modules = [WritingSchema.module, SyncSchema.module, SyncExchangeSchema.module]

    /// `deskTrusts` is the laptop's level on the desk; `laptopTrusts` the desk's on the laptop;
    /// `deskAnswers`, when given, answers the exchange on the desk's channel instead of its vault's
    /// `SyncChannelService` (a hostile answerer); `laptopModules`, the laptop's schemas (an older list: a
    /// vault made by an earlier binary).
    init(deskTrusts: DeviceTrust = .mine, laptopTrusts: DeviceTrust = .mine, deskAnswers: ChannelService? = nil,
         laptopModules: [ModuleSchema] = SyncExchangeFixture.modules) throws {
        desk = try TestVault(modules: Self.modules)
        laptop = try TestVault(modules: laptopModules)
        deskKeys = try desk.unlocked.deviceKeys(named: "desk")
        laptopKeys = try laptop.unlocked.deviceKeys(named: "laptop")
        try desk.unlocked.storePairing(FamilyPairing(peer: laptopKeys.profile, role: .host, pairedAt: 1))
        try laptop.unlocked.storePairing(FamilyPairing(peer: deskKeys.profile, role: .join, pairedAt: 1))
        try desk.unlocked.setTrust(deskTrusts, of: laptopKeys.profile.deviceID, atPairing: true)
        try laptop.unlocked.setTrust(laptopTrusts, of: deskKeys.profile.deviceID, atPairing: true)
        let deskVault = desk.unlocked
        server = try ChannelServer(address: SocketAddress(parsing: "127.0.0.1:0"), localKeys: deskKeys,
                                   pinnedPeers: { try deskVault.vault.familyPairings() },
                                   services: [deskAnswers ?? SyncChannelService(vault: desk.unlocked, coordinator: nil)])
        server.start()
    }

    deinit { server.stop() }

    /// A channel from the laptop to the desk's server, as the exchange's transport.
    func transport() throws -> ChannelSyncTransport {
        ChannelSyncTransport(try ChannelClient(connectingTo: server.address, localKeys: laptopKeys, peer: deskKeys.profile))
    }

    /// `vaultctl sync now` on the laptop, with the desk.
    @discardableResult
    func syncLaptop() throws -> SyncRunReport {
        try SyncInitiator(vault: laptop.unlocked, transport: try transport(), coordinator: nil).run()
    }

    // MARK: Sharing

    /// `vaultctl share "project ID" --peer RECIPIENT --role ROLE` run on `owner`: a real share grant of
    /// the project's compartment, signed by the owner's device and accepted by the recipient's vault
    /// (what lets the recipient make the project from the owner's offer), and the project shared for sync.
    static func share(_ project: WritingProject, of owner: TestVault, with recipient: TestVault, role: ShareRole) throws {
        let profile = try recipient.unlocked.deviceKeys().profile
        _ = try recipient.unlocked.acceptShareGrant(try owner.unlocked.makeShareGrant(of: project.compartment, for: profile, role: role))
        try SyncControl.shared(project.compartment, with: profile.deviceID, role: role, in: owner.unlocked)
    }

    // MARK: Writing

    /// A project made as `vaultctl project create` makes one: recorded as made here (`ProjectsMadeHere`).
    static func project(_ vault: TestVault, _ name: String, register: Register = .general) throws -> WritingProject {
        try vault.unlocked.createProjectMadeHere(named: name, register: register, kind: .document)
    }

    /// A document of the given paragraphs, written in one transaction (a privileged project's in a session).
    static func document(_ vault: TestVault, in project: WritingProject, _ title: String, _ paragraphs: [String]) throws -> NodeID {
        try store(vault, project) { store in
            let node = try store.addNode(.scene, titled: title, in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id,
                                             with: DocumentContent(blocks: try paragraphs.map { Block(id: try BlockID.random(), kind: .paragraph, text: $0) }))
            return node.id
        }
    }

    static func edit(_ vault: TestVault, _ project: WritingProject, _ document: NodeID, block index: Int, to text: String) throws {
        try store(vault, project) { store in
            var content = try store.documentContent(of: document, in: project.id)
            content.blocks[index].text = text
            try store.replaceDocumentContent(of: document, in: project.id, with: content)
        }
    }

    static func texts(_ vault: TestVault, _ projectID: ProjectID, _ document: NodeID) throws -> [String] {
        let project = try vault.unlocked.transaction { tx in try WritingStore(tx).project(projectID) }
        return try store(vault, project) { try $0.documentContent(of: document, in: projectID).blocks.map(\.text) }
    }

    static func store<Result>(_ vault: TestVault, _ project: WritingProject, _ body: (WritingStore) throws -> Result) throws -> Result {
        guard project.isPrivileged else { return try vault.unlocked.transaction { tx in try body(WritingStore(tx)) } }
        let session = try PrivilegedProcessingSession.start(vault: vault.unlocked, compartment: project.compartment, actor: "test", purpose: "test")
        defer { try? session.end() }
        return try vault.unlocked.transaction { tx in try body(WritingStore(tx, access: .session(session))) }
    }

    static func hasProject(_ vault: TestVault, _ id: ProjectID) throws -> Bool {
        try vault.unlocked.transaction { tx in try WritingStore(tx).projects().contains { $0.id == id } }
    }

    /// The details named `name` of every entry of `action`, in order.
    static func details(_ vault: TestVault, _ action: AuditAction, _ name: String) -> [String] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == action }.flatMap { $0.details.filter { $0.name == name }.map(\.value) }
        }
    }
}
