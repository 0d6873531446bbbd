import Appliance
import CryptoVault
import Foundation
import Registers
import Testing
import TestSupport
import Writing

/// `vaultctl repair --from DEVICE` rebuilds every kind the writing model holds (issue 17, SECURITY.md
/// §19.10): documents and blocks, snapshots, branches and their decisions, edit events, entries
/// (characters, places, plot beats, snippets), the project's name and its archived flag. The desk
/// makes each kind, both devices sync, the laptop's store is damaged (a table dropped) and rebuilt
/// from the desk over the real channel between two hosts; then the two stores are compared kind by kind.
@Suite(.serialized)
struct RepairRebuildsEveryKindTests {
    /// Every kind of the fixture's project, each line naming its kind first.
    static func everything(_ f: SyncOverNetworkFixture, _ vault: CLIVault) throws -> [String: [String]] {
        try f.edit(vault) { store in
            let project = try store.project(f.project)
            var kinds: [String: [String]] = [:]
            kinds["project"] = ["name \(try store.name(of: project))", "archived \(project.isArchived)"]
            kinds["entries"] = try store.entries(in: f.project).map { entry in
                "\(entry.id.hex) \(entry.kind.rawValue) \(entry.orderKey) \(entry.name) | \(entry.body) | "
                    + entry.fields.sorted { $0.key.rawValue < $1.key.rawValue }.map { "\($0.key.rawValue)=\($0.value)" }.joined(separator: ",")
            }
            let nodes = try store.nodes(in: f.project)
            kinds["nodes"] = nodes.map { "\($0.id.hex) \($0.kind) \($0.parent?.hex ?? "-") \($0.orderKey) \($0.title)" }
            for node in nodes where node.kind == .scene {
                kinds["blocks", default: []] += try store.documentContent(of: node.id, in: f.project).blocks.map { "\($0.id.hex) \($0.kind) \($0.text)" }
                kinds["snapshots", default: []] += try store.snapshots(of: node.id, in: f.project).map { snapshot in
                    "\(snapshot.id.hex) \(snapshot.origin.rawValue) \(snapshot.title ?? "-") \(snapshot.deviceID.hex) \(snapshot.createdAt) "
                        + (try store.snapshotContent(snapshot.id, of: node.id, in: f.project).blocks.map(\.text).joined(separator: "/"))
                }.sorted()
                kinds["branches", default: []] += try store.branches(of: node.id, in: f.project).map { branch in
                    "\(branch.id.hex) \(branch.kind.rawValue) \(branch.state) \(branch.provenance) \(branch.base.hex) \(branch.createdAt) "
                        + "\(branch.decidedAt.map(String.init) ?? "-") \(branch.beforeAdoption?.hex ?? "-") \(branch.adoption?.hex ?? "-") "
                        + (try store.branchContent(branch.id, of: node.id, in: f.project).blocks.map(\.text).joined(separator: "/"))
                }.sorted()
            }
            kinds["project snapshots"] = try store.projectSnapshots(of: f.project).map { snapshot in
                "\(snapshot.id.hex) \(snapshot.origin.rawValue) \(snapshot.title ?? "-") \(snapshot.deviceID.hex) \(snapshot.createdAt) "
                    + (try store.projectSnapshotNodes(snapshot.id, of: f.project).map { "\($0.id.hex) \($0.title) \($0.snapshot?.hex ?? "-")" }
                        .joined(separator: ","))
            }.sorted()
            kinds["edit events"] = try store.editEvents(in: f.project).map { event in
                "\(event.id.hex) \(event.deviceID.hex) \(event.startedAt) \(event.edits) "
                    + event.documents.map { "\($0.document.hex)\($0.wordDelta)" }.joined(separator: ",")
            }.sorted()
            return kinds
        }
    }

    @Test func aRepairedStoreHoldsEveryKindThePeerHolds() throws {
        let f = try RepairFromDeviceTests.syncedFixture()
        let document = try #require(f.document)
        try f.edit(f.desk) { store in
            _ = try store.addEntry(.character, named: "Ada Okafor", body: "Claimant.", fields: [.personRole: "claimant"], in: f.project)
            _ = try store.addEntry(.place, named: "Harbour office", fields: [.placeDescription: "Second floor"], in: f.project)
            _ = try store.addEntry(.plotBeat, named: "Hearing", body: "Adjourned.", in: f.project)
            _ = try store.addEntry(.snippet, named: "Sign-off", body: "Kind regards", in: f.project)
            try store.rename(f.project, to: "Field notes — harbour")
            let titled = try store.createSnapshot(of: document, in: f.project, titled: "Before the visit")
            var proposal = try store.documentContent(of: document, in: f.project)
            proposal.blocks[0].text += " (suggested)"
            let adopted = try store.createBranch(of: document, in: f.project, base: titled.id, content: proposal, kind: .manual, provenance: "j.okafor")
            _ = try store.adopt(adopted.id, of: document, in: f.project)
            proposal.blocks[1].text += " (declined)"
            let declined = try store.createBranch(of: document, in: f.project, base: titled.id, content: proposal, kind: .aiSuggestion,
                                                  provenance: "assistant")
            _ = try store.discard(declined.id, of: document, in: f.project)
            _ = try store.createProjectSnapshot(of: f.project, titled: "Before archiving")
        }
        try f.type("laptop entry", into: 3, on: f.laptop)
        try #require(try f.sync().status == 0)
        try f.edit(f.desk) { store in try store.archive(f.project) }
        try #require(try f.sync().status == 0)
        let desk = try Self.everything(f, f.desk)
        #expect(try Self.everything(f, f.laptop) == desk, "sync did not carry every kind")
        for kind in ["project", "entries", "nodes", "blocks", "snapshots", "branches", "project snapshots", "edit events"] {
            #expect(desk[kind]?.isEmpty == false, "the fixture makes no \(kind)")
        }
        #expect(desk["project"] == ["name Field notes — harbour", "archived true"])
        #expect(desk["entries"]?.count == 4 && (desk["branches"]?.count ?? 0) >= 2)

        try RepairFromDeviceTests.damage(f.laptop, .droppedTable)
        let repaired = try f.hosts.run(.laptop, f.laptop, ["repair", "--from", f.deskFingerprint, "--address", f.channelAddress, "--json"])
        try #require(repaired.status == 0, "\(repaired.stderr)")
        let laptop = try Self.everything(f, f.laptop)
        for kind in desk.keys.sorted() { #expect(laptop[kind] == desk[kind], "after repair, \(kind) differ") }
        #expect(try f.laptop.run(["audit", "verify"], unlock: false).status == 0)
    }
}
