import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// Snapshot records since packing (SECURITY.md §15.2, record version 2): what is written is packed,
/// a vault's version-1 records (unpacked, keyframes every 32) stay readable and new versions chain
/// onto them, and a delta no smaller than its content is stored as a keyframe.
@Suite struct SnapshotUpgradeTests {
    typealias Setting = SnapshotStoreTests.Setting

    /// The records of their own (keyframes and deltas, not groups) of the document's snapshots, in
    /// sequence order, as they are stored.
    func records(_ setting: Setting) throws -> [SnapshotRecord] {
        try setting.fixture.store { store in
            let rows = try store.snapshotTable.all(of: setting.document.id).filter { $0.form == .keyframe || $0.form == .delta }
            let project = try store.writable(setting.project.id)
            return try rows.map { row in
                let parts = try store.open((0..<row.parts).map { try WritingRecord.snapshotPart(row.id, $0) }, of: project) { _, plaintext in [UInt8](plaintext) }
                return try SnapshotRecord(parsing: Array(parts.joined()))
            }
        }
    }

    /// The forms of the document's snapshot rows, in sequence order.
    func forms(_ setting: Setting) throws -> [SnapshotRecord.Form] {
        try setting.fixture.store { try $0.snapshotTable.all(of: setting.document.id).map(\.form) }
    }

    /// Stores `versions` as the code before packing did: version-1 records, a keyframe every 32.
    func writeUnpacked(_ versions: [DocumentContent], _ setting: Setting) throws -> [SnapshotID] {
        var ids: [SnapshotID] = [], previous: [UInt8] = []
        for (index, content) in versions.enumerated() {
            try setting.write(content)
            let bytes = SnapshotContent.encode(content), sequence = index + 1
            let form: SnapshotRecord.Form = index % 32 == 0 ? .keyframe : .delta
            let payload = form == .keyframe ? bytes : try SnapshotDelta.between(previous, bytes).serialized()
            ids.append(try setting.fixture.store { store in
                let project = try store.writable(setting.project.id)
                let row = SnapshotTable.Row(id: try SnapshotID.random(), project: project.id, document: setting.document.id, sequence: sequence,
                                            form: form, origin: .automatic, parts: 1, deviceID: try store.deviceID(), createdAt: store.now)
                let record = SnapshotRecord(form: form, document: setting.document.id, sequence: sequence,
                                            base: ids.last?.bytes ?? WritingStore.noBase, digest: SHA256.hash(bytes), stored: .plain(payload))
                try store.snapshotTable.insert(row)
                try store.seal(record.encoded(), at: try WritingRecord.snapshotPart(row.id, 0), of: project)
                return row.id
            })
            previous = bytes
        }
        return ids
    }

    @Test("40 version-1 snapshots read back; 30 more chain onto them as a group; all 70 read back; keyframes at 1 and 33 (old), the new ones continuing 33's chain")
    func unpackedVaultsStayReadable() throws {
        let setting = try Setting()
        var random = SeededGenerator(seed: 19)
        var content = DocumentContent(), versions: [DocumentContent] = []
        for index in 0..<70 {
            content = try SnapshotStoreTests.evolve(content, index, &random)
            versions.append(content)
        }
        var ids = try writeUnpacked(Array(versions[..<40]), setting)
        for (id, expected) in zip(ids, versions) { #expect(try setting.content(id) == expected) }
        for expected in versions[40...] {
            try setting.write(expected)
            ids.append(try setting.snapshot().id)
        }
        for (index, (id, expected)) in zip(ids, versions).enumerated() { #expect(try setting.content(id) == expected, "version \(index + 1)") }
        let stored = try records(setting)
        #expect(stored.map(\.sequence) == Array(1...40))
        #expect(stored.filter { $0.form == .keyframe }.map(\.sequence) == [1, 33])
        #expect(stored.allSatisfy { record in
            if case .plain = record.stored { return true }
            return false
        })
        #expect(try forms(setting)[40...] == [.group] + Array(repeating: .grouped, count: 29))
    }

    /// Stores `versions` as main before groups did (record version 2, packed, one record per version):
    /// a keyframe at 1, deltas after it.
    func writeUngrouped(_ versions: [DocumentContent], in project: WritingProject, document: NodeID, _ unlocked: UnlockedVault) throws -> [SnapshotID] {
        var ids: [SnapshotID] = [], previous: [UInt8] = []
        for (index, content) in versions.enumerated() {
            let bytes = SnapshotContent.encode(content), sequence = index + 1
            let form: SnapshotRecord.Form = index == 0 ? .keyframe : .delta
            let payload = form == .keyframe ? bytes : try SnapshotDelta.between(previous, bytes).serialized()
            ids.append(try unlocked.transaction { tx in
                let store = WritingStore(tx)
                try store.replaceDocumentContent(of: document, in: project.id, with: content)
                let row = SnapshotTable.Row(id: try SnapshotID.random(), project: project.id, document: document, sequence: sequence,
                                            form: form, origin: .automatic, parts: 1, deviceID: try store.deviceID(), createdAt: store.now)
                let record = SnapshotRecord(form: form, document: document, sequence: sequence, base: ids.last?.bytes ?? WritingStore.noBase,
                                            digest: SHA256.hash(bytes), payload: payload)
                try store.snapshotTable.insert(row)
                try store.seal(record.encoded(), at: try WritingRecord.snapshotPart(row.id, 0), of: try store.writable(project.id))
                return row.id
            })
            previous = bytes
        }
        return ids
    }

    @Test("a vault at versions-5 (a packed record per version) upgrades to versions-6: its rows are kept, its versions read back, and new ones join its chain as a group")
    func versionsFiveUpgrades() throws {
        let before = ModuleSchema(module: "writing", migrations: Array(WritingSchema.module.migrations.prefix { $0.name != "versions-6" }))
        #expect(before.migrations.last?.name == "versions-5")
        let old = try TestVault(modules: [before])
        let project = try old.unlocked.createWritingProject(named: "Notes", register: .fiction, kind: .document)
        let document = try old.unlocked.transaction { tx in try WritingStore(tx).addNode(.scene, titled: "Draft", in: project.id) }
        var random = SeededGenerator(seed: 23)
        var content = DocumentContent(), versions: [DocumentContent] = []
        for index in 0..<30 {
            content = try SnapshotStoreTests.evolve(content, index, &random)
            versions.append(content)
        }
        var ids = try writeUngrouped(Array(versions[..<20]), in: project, document: document.id, old.unlocked)
        let columns = "quote(id) || quote(node_id) || sequence || form || origin || parts || quote(device_id) || created_at"
        let dump = { (vault: Vault) in
            try Database(path: vault.databasePath, create: false, readOnly: true).query("SELECT \(columns) AS line FROM writing_snapshots ORDER BY rowid")
                .map { try $0.text("line") }
        }
        let stored = try dump(old.vault)
        let upgraded = try Vault.open(at: old.directory, journal: RecordingJournal(), modules: [WritingSchema.module])
            .unlock(with: .passphrase(old.passphrase))
        #expect(try dump(upgraded.vault) == stored)
        #expect(try Database(path: upgraded.vault.databasePath, create: false, readOnly: true).query("PRAGMA foreign_key_check").isEmpty)
        for expected in versions[20...] {
            ids.append(try upgraded.transaction { tx in
                try WritingStore(tx).replaceDocumentContentAndSnapshot(of: document.id, in: project.id, with: expected).snapshot.id
            })
        }
        try upgraded.transaction { tx in
            let store = WritingStore(tx)
            for (index, (id, expected)) in zip(ids, versions).enumerated() {
                #expect(try store.snapshotContent(id, of: document.id, in: project.id) == expected, "version \(index + 1)")
            }
            let listed = try store.snapshots(of: document.id, in: project.id)
            #expect(listed.map(\.id) == ids && listed.filter(\.isKeyframe).map(\.sequence) == [1])
            #expect(try store.snapshotTable.all(of: document.id).map(\.form)
                    == [.keyframe] + Array(repeating: .delta, count: 19) + [.group] + Array(repeating: .grouped, count: 9))
        }
    }

    @Test("a version's record is packed: a 100-paragraph keyframe of repeated prose seals to a fraction of its content")
    func keyframesArePacked() throws {
        let setting = try Setting()
        let content = try WritingFixture.paragraphs((0..<100).map { "Paragraph \($0): the client said no, twice, and then once more." })
        try setting.write(content)
        _ = try setting.snapshot()
        let record = try #require(try records(setting).first)
        guard case .packed(let size, let packed) = record.stored else { Issue.record("a new record is not packed"); return }
        #expect(size == SnapshotContent.encode(content).count && packed.count * 4 < size)
        #expect(try record.payload() == SnapshotContent.encode(content))
    }

    @Test("a version whose delta is no smaller than its content (the document rewritten whole) is stored as a keyframe")
    func rewrittenWholeIsAKeyframe() throws {
        let setting = try Setting()
        try setting.write(try WritingFixture.paragraphs(["The first draft, every word of it."]))
        _ = try setting.snapshot()
        try setting.write(try WritingFixture.paragraphs(["Something else entirely."]))
        let second = try setting.snapshot()
        var grown = try setting.content(second.id)
        grown.blocks.append(Block(id: try BlockID.random(), kind: .paragraph, text: "And a second paragraph, longer than the first one."))
        try setting.write(grown)
        let third = try setting.snapshot()
        #expect(second.isKeyframe && !third.isKeyframe)
        #expect(try setting.content(third.id).blocks.map(\.text) == ["Something else entirely.", "And a second paragraph, longer than the first one."])
    }
}
