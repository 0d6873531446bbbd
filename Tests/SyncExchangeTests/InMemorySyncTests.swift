import Appliance
import AuditChain
import CryptoVault
import PeerChannel
import Sync
import Testing
import TestSupport
import Writing

/// `sync now` from the in-memory mode's copy (SECURITY.md §19.10, review 17 F5c): what would need
/// an audit entry the vault keeps (an offer or records sent, a privileged project's session) is
/// refused project by project with the reason, and the rest of the run goes on: the owner still
/// reads what the own device holds.
@Suite struct InMemorySyncTests {
    typealias F = SyncExchangeFixture

    @Test func theCopySkipsWhatWouldLeaveOrNeedASessionAndStillPullsTheRest() throws {
        let f = try F()
        let notes = try F.project(f.desk, "Field notes")
        let document = try F.document(f.desk, in: notes, "Day one", ["from the desk"])
        let patient = try F.project(f.desk, "Patient A", register: .healthcare)
        #expect(patient.isPrivileged)
        _ = try F.document(f.desk, in: patient, "Visit", ["history"])

        let (root, copy) = try InMemoryStore.makeCopy(of: f.laptop.directory, reason: "the table writing_blocks is missing")
        defer { InMemoryStore.remove(root) }
        let copied = try Vault.open(at: copy, journal: AuditLog(), modules: f.laptop.modules).unlock(with: .passphrase(f.laptop.passphrase))
        // A project the copy holds and the desk does not: the run offers it to the own device.
        let local = try copied.createWritingProject(named: "Written in memory", register: .general, kind: .document)

        let client = try ChannelClient(connectingTo: f.server.address, localKeys: try copied.deviceKeys(), peer: f.deskKeys.profile)
        let report = try SyncInitiator(vault: copied, transport: ChannelSyncTransport(client), coordinator: nil).run()

        let byProject = Dictionary(uniqueKeysWithValues: report.projects.map { ($0.project, $0) })
        #expect(byProject[notes.id]?.received ?? 0 >= 1 && byProject[notes.id]?.skipped == nil, "\(report)")
        #expect(byProject[patient.id]?.skipped?.hasPrefix("inMemoryMode: a privileged session is refused in in-memory mode") == true, "\(report)")
        #expect(byProject[local.id]?.skipped?.hasPrefix("inMemoryMode: an egress is refused in in-memory mode") == true, "\(report)")
        let texts = try copied.transaction { tx in try WritingStore(tx).documentContent(of: document, in: notes.id).blocks.map(\.text) }
        #expect(texts == ["from the desk"])
        #expect(!(try F.hasProject(f.desk, local.id)), "a project left the in-memory copy")
    }
}
