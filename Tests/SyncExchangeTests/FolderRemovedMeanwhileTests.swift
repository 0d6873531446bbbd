import CryptoVault
import Sync
import Testing
import TestSupport
import Writing

/// A document made in a folder that the owner's other device removed meanwhile (review 17, F5):
/// two real vaults in this process, synced over the channel. The folder stays on both with the
/// document in it, the same on each, rather than the document being shown nowhere.
@Suite struct FolderRemovedMeanwhileTests {
    typealias F = SyncExchangeFixture

    @Test func aDocumentMadeInAFolderTheOtherDeviceRemovedIsShownOnBothInThatFolder() throws {
        let f = try F()
        let project = try F.project(f.laptop, "Field notes")
        let (folder, first) = try F.store(f.laptop, project) { store -> (NodeID, NodeID) in
            let folder = try store.addNode(.chapter, titled: "Part one", in: project.id)
            let first = try store.addNode(.scene, titled: "Day one", in: project.id, under: folder.id)
            return (folder.id, first.id)
        }
        try f.syncLaptop()
        // The desk empties and removes the folder; the laptop, not knowing, writes a new document in it.
        let deskProject = try f.desk.unlocked.transaction { tx in try WritingStore(tx).project(project.id) }
        try F.store(f.desk, deskProject) { store in
            try store.removeNode(first, in: project.id)
            try store.removeNode(folder, in: project.id)
        }
        let made = try F.store(f.laptop, project) { store -> NodeID in
            let node = try store.addNode(.scene, titled: "Day two", in: project.id, under: folder)
            try store.replaceDocumentContent(of: node.id, in: project.id,
                                             with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "written in the folder")]))
            return node.id
        }
        try f.syncLaptop()
        try f.syncLaptop()
        for (name, vault) in [("desk", f.desk), ("laptop", f.laptop)] {
            let nodes = try vault.unlocked.transaction { tx in try WritingStore(tx).nodes(in: project.id) }
            let byID = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0) })
            #expect(byID[made]?.parent == folder, "\(name): the new document is not shown in its folder: \(nodes.map(\.title))")
            #expect(byID[folder]?.title == "Part one", "\(name): the folder was removed from under the new document")
            #expect(byID[first] == nil, "\(name): the document removed knowingly came back")
            #expect(try F.texts(vault, project.id, made) == ["written in the folder"])
        }
        let deskNodes = try f.desk.unlocked.transaction { tx in try WritingStore(tx).nodes(in: project.id).map(\.id) }
        let laptopNodes = try f.laptop.unlocked.transaction { tx in try WritingStore(tx).nodes(in: project.id).map(\.id) }
        #expect(Set(deskNodes) == Set(laptopNodes))
    }
}
