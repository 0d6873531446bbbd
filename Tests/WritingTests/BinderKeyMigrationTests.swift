import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// A vault whose store kept an order key of 256 bytes before 0e761ab lowered the bound to the change
/// record's 255 (review 17 s10, N-s10-2; "the 256-byte binder key migration", open since session 10):
/// the store reads such a row as damage, so that project's binder (or its entries of that kind) did not
/// open at all. The writing migration `binder-keys-1` gives the list holding it keys anew, in its order.
@Suite struct BinderKeyMigrationTests {
    /// The writing module as the build before this migration had it.
    static let before = ModuleSchema(module: "writing", migrations: Array(WritingSchema.module.migrations.prefix { $0.name != "binder-keys-1" }))

    /// A key of `length` bytes in the grammar, just after `1i`: what about 1,500 inserts before the
    /// second item of a folder made before 0e761ab.
    static func long(_ length: Int) -> String { "1i" + String(repeating: "h", count: length - 2) }

    @Test func aFolderAndAnEntryListHoldingA256ByteKeyOpenAgainInTheirOrderWithKeysARecordCarries() throws {
        #expect(Self.before.migrations.count == WritingSchema.module.migrations.count - 1)
        let old = try TestVault(modules: [Self.before])
        let (project, folder, scenes, places, other) = try old.unlocked.transaction { tx in
            let store = WritingStore(tx)
            let project = try store.createProject(named: "Harbour", register: .general, kind: .longForm)
            let folder = try store.addNode(.chapter, titled: "Part one", in: project.id)
            let scenes = try ["Arrival", "Storm", "Departure"].map { try store.addNode(.scene, titled: $0, in: project.id, under: folder.id) }
            let places = try ["Quay", "Lighthouse", "Inn"].map { try store.addEntry(.place, named: $0, in: project.id) }
            let other = try store.addNode(.scene, titled: "Epilogue", in: project.id)
            return (project, folder, scenes, places, other)
        }
        // As the store before 0e761ab kept them: the second item's key 256 bytes, still between its neighbours.
        #expect(scenes[0].orderKey == "1i" && scenes[2].orderKey > Self.long(256) && places[2].orderKey > Self.long(256))
        try old.tamper("UPDATE writing_nodes SET order_key = '\(Self.long(256))' WHERE id = X'\(scenes[1].id.hex)';"
                       + "UPDATE writing_entries SET order_key = '\(Self.long(256))' WHERE id = X'\(places[1].id.hex)'")
        let stuck = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [Self.before]).unlock(with: .passphrase(old.passphrase))
        let binderRefused = #expect(throws: WritingError.self) { try stuck.transaction { try WritingStore($0).nodes(in: project.id) } }
        let entriesRefused = #expect(throws: WritingError.self) { try stuck.transaction { try WritingStore($0).entries(.place, in: project.id) } }
        #expect(binderRefused?.code == .damagedRecord && entriesRefused?.code == .damagedRecord, "before the migration, read as damage")

        let upgraded = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(old.passphrase))
        let (nodes, entries) = try upgraded.transaction { tx in
            (try WritingStore(tx).nodes(in: project.id), try WritingStore(tx).entries(.place, in: project.id))
        }
        #expect(nodes.map(\.title) == ["Part one", "Arrival", "Storm", "Departure", "Epilogue"])
        #expect(entries.map(\.name) == ["Quay", "Lighthouse", "Inn"])
        let keys = nodes.filter { $0.parent == folder.id }.map(\.orderKey) + entries.map(\.orderKey)
        #expect(keys == ["6000001", "6000002", "6000003", "6000001", "6000002", "6000003"], "\(keys)")
        #expect(keys.allSatisfy(OrderKey.isValid))
        // A list that held no such key keeps its keys (the top level: the folder and the epilogue).
        #expect(nodes.filter { $0.parent == nil }.map(\.orderKey) == [folder.orderKey, other.orderKey])
        // The folder takes new items after them, as any list does.
        let added = try upgraded.transaction { tx in try WritingStore(tx).addNode(.scene, titled: "Return", in: project.id, under: folder.id) }
        #expect(added.orderKey == "6000004")
    }
}
