import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// Snapshot groups (SECURITY.md §15.2, record version 3): the deltas of up to 256 consecutive versions
/// in one sealed record at the first one's row, read back byte for byte from any member, and refused
/// as damage when a row is moved in its group or a group is not the one its row names.
@Suite struct SnapshotGroupTests {
    typealias Setting = SnapshotStoreTests.Setting

    /// `count` versions of an evolving document, each written and snapshotted in one step.
    func history(_ count: Int, _ setting: Setting, seed: UInt64) throws -> [(Snapshot, DocumentContent)] {
        var random = SeededGenerator(seed: seed)
        var content = DocumentContent(), versions: [(Snapshot, DocumentContent)] = []
        for index in 0..<count {
            content = try SnapshotStoreTests.evolve(content, index, &random)
            let written = content
            versions.append((try setting.fixture.store { store in
                try store.replaceDocumentContentAndSnapshot(of: setting.document.id, in: setting.project.id, with: written).snapshot
            }, content))
        }
        return versions
    }

    @Test("300 versions: a keyframe at 1, groups starting at 2 and 258 (256 members each at most), every version read back byte for byte")
    func groupsHoldTwoHundredFiftySixVersions() throws {
        let setting = try Setting()
        let versions = try history(300, setting, seed: 29)
        let rows = try setting.fixture.store { try $0.snapshotTable.all(of: setting.document.id) }
        #expect(rows.filter { $0.form == .keyframe }.map(\.sequence) == [1])
        #expect(rows.filter { $0.form == .group }.map(\.sequence) == [2, 258])
        #expect(rows.allSatisfy { ($0.form == .grouped) == ($0.parts == 0) })
        for (snapshot, expected) in versions {
            #expect(try setting.content(snapshot.id) == expected, "version \(snapshot.sequence)")
        }
        // Only the group heads and the keyframe hold sealed records: two groups, not 299 deltas.
        let database = try Database(path: setting.fixture.vault.vault.databasePath, create: false, readOnly: true)
        #expect(try database.queryOne("SELECT count(*) AS n FROM sealed_records WHERE table_name = 'writing_snapshots'")?.integer("n") == 3)
    }

    @Test("a group's sealed value round-trips, and one cut short, with a member count past its bytes or a trailing delta byte is refused")
    func groupRecordsParseStrictly() throws {
        let document = try NodeID.random()
        let members = try (0..<3).map { index in
            SnapshotGroup.Member(id: nil, digest: SnapshotGroup.check(try SnapshotID.random(), [UInt8(index)]),
                                 delta: SnapshotDelta(operations: [.copy(offset: 0, length: 5), .insert(Array("more \(index)".utf8))]).serialized())
        }
        let group = SnapshotGroup(document: document, sequence: 7, base: Array(repeating: 9, count: 16), members: members)
        let encoded = try group.encoded()
        #expect(encoded[0] == 4 && group.version == SnapshotGroup.version)
        #expect(try SnapshotGroup(parsing: encoded) == group)
        #expect(try SnapshotGroup(parsing: try group.appending(members[0]).encoded()).members.count == 4)
        let damaged = { (bytes: [UInt8]) -> WritingErrorCode? in writingCode { _ = try SnapshotGroup(parsing: bytes) } }
        #expect(damaged(Array(encoded.dropLast())) == .damagedRecord)
        var count = encoded
        count[2 + 16 + 4 + 16 + 3] = 200
        #expect(damaged(count) == .damagedRecord)
        var version = encoded
        version[0] = 2
        #expect(damaged(version) == .damagedRecord)
        // A v2 snapshot record with the group form is refused too: forms 3 and 4 are not records of their own.
        var record = SnapshotRecord(form: .keyframe, document: document, sequence: 1, base: WritingStore.noBase, digest: SHA256.hash([1]), payload: [1]).encoded()
        record[1] = 3
        #expect(writingCode { _ = try SnapshotRecord(parsing: record) } == .damagedRecord)
    }

    @Test("version 3 groups (ids and 32-byte digests, u32 lengths and version-1 deltas) still parse and encode back byte for byte")
    func versionThreeGroupsParse() throws {
        let members = try (0..<3).map { index in
            SnapshotGroup.Member(id: try SnapshotID.random(), digest: SHA256.hash([UInt8(index)]),
                                 delta: SnapshotDelta(operations: [.copy(offset: 0, length: 5), .insert(Array("more \(index)".utf8))]).serialized())
        }
        let group = SnapshotGroup(version: SnapshotGroup.version3, document: try NodeID.random(), sequence: 2, base: Array(repeating: 1, count: 16), members: members)
        let encoded = try group.encoded()
        #expect(encoded[0] == 3)
        let parsed = try SnapshotGroup(parsing: encoded)
        #expect(parsed == group && parsed.members.map(\.id) == members.map(\.id))
        #expect(try parsed.encoded() == encoded)
    }

    @Test("compact deltas: ops round-trip with relative copy offsets (a copy back, a copy forward, inserts between), and a non-minimal number, a zero-length op, two inserts in a row, a copy continuing the last one, a copy before the start and a cut are refused")
    func compactDeltasParseStrictly() throws {
        let delta = SnapshotDelta(operations: [.copy(offset: 300, length: 40), .insert(Array("new words".utf8)), .copy(offset: 0, length: 290),
                                               .copy(offset: 5000, length: 200_000), .insert([0, 1, 2])])
        let compact = delta.compact()
        #expect(try SnapshotDelta(compact: compact[...]) == delta)
        // copy 300 from cursor 0: zigzag 600, head 1200 = varint B0 09; length 40 = 28.
        #expect(Array(compact.prefix(3)) == [0xB0, 0x09, 0x28])
        let refused = { (bytes: [UInt8]) -> WritingErrorCode? in writingCode { _ = try SnapshotDelta(compact: bytes[...]) } }
        #expect(refused([0x80, 0x00, 0x05]) == .damagedRecord)          // copy head 0 written in two bytes
        #expect(refused([0x00, 0x00]) == .damagedRecord)                // a copy of length 0
        #expect(refused([0x01]) == .damagedRecord)                      // an insert of length 0
        #expect(refused([0x03, 0x41, 0x03, 0x42]) == .damagedRecord)    // two inserts in a row
        #expect(refused([0x00, 0x05, 0x00, 0x05]) == .damagedRecord)    // a copy continuing the last one (relative offset 0)
        #expect(refused([0x02, 0x05]) == .damagedRecord)                // offset −1
        #expect(refused([0x05, 0x41]) == .damagedRecord)                // an insert of 2 with 1 byte
        #expect(refused([0xFF, 0xFF, 0xFF, 0xFF, 0x7F, 0x01]) == .damagedRecord)  // a number of 2^35 − 1
        #expect(try SnapshotDelta(compact: [0x00, 0x05, 0x03, 0x41, 0x00, 0x05][...]).operations
                == [.copy(offset: 0, length: 5), .insert([0x41]), .copy(offset: 5, length: 5)])  // after an insert, a copy may continue
    }

    @Test("a chain of version-3 groups (written before versions-7) reads back; the next snapshot starts a version-4 group instead of joining it, and every version reads")
    func versionThreeGroupsAreNotJoined() throws {
        let setting = try Setting()
        var random = SeededGenerator(seed: 37)
        var content = DocumentContent(), versions: [DocumentContent] = []
        for index in 0..<12 {
            content = try SnapshotStoreTests.evolve(content, index, &random)
            versions.append(content)
        }
        // Versions 1-8 as before versions-7: a keyframe, then one version-3 group of 7 members.
        var ids = [try setting.fixture.store { store in
            try store.replaceDocumentContentAndSnapshot(of: setting.document.id, in: setting.project.id, with: versions[0]).snapshot.id
        }]
        let threeIDs = try (1..<8).map { _ in try SnapshotID.random() }
        let members = try (1..<8).map { index in
            SnapshotGroup.Member(id: threeIDs[index - 1], digest: SHA256.hash(SnapshotContent.encode(versions[index])),
                                 delta: try SnapshotDelta.between(SnapshotContent.encode(versions[index - 1]), SnapshotContent.encode(versions[index])).serialized())
        }
        let group = SnapshotGroup(version: SnapshotGroup.version3, document: setting.document.id, sequence: 2, base: ids[0].bytes, members: members)
        try setting.fixture.store { store in
            let project = try store.writable(setting.project.id)
            try store.replaceDocumentContent(of: setting.document.id, in: project.id, with: versions[7])
            for (index, id) in threeIDs.enumerated() {
                try store.snapshotTable.insert(SnapshotTable.Row(id: id, project: project.id, document: setting.document.id, sequence: index + 2,
                                                                 form: index == 0 ? .group : .grouped, origin: .automatic, parts: index == 0 ? 1 : 0,
                                                                 deviceID: try store.deviceID(), createdAt: store.now))
            }
            try store.seal(try group.encoded(), at: try WritingRecord.snapshotPart(threeIDs[0], 0), of: project)
        }
        ids += threeIDs
        for expected in versions[8...] {
            ids.append(try setting.fixture.store { store in
                try store.replaceDocumentContentAndSnapshot(of: setting.document.id, in: setting.project.id, with: expected).snapshot.id
            })
        }
        #expect(try setting.fixture.store { try $0.snapshotTable.all(of: setting.document.id).map(\.form) }
                == [.keyframe, .group] + Array(repeating: .grouped, count: 6) + [.group] + Array(repeating: .grouped, count: 3))
        for (index, (id, expected)) in zip(ids, versions).enumerated() { #expect(try setting.content(id) == expected, "version \(index + 1)") }
    }

    /// The version-4 group holding the document's snapshot `sequence`, opened.
    func group(holding sequence: Int, _ setting: Setting) throws -> SnapshotGroup {
        try setting.fixture.store { store in
            let project = try store.writable(setting.project.id)
            let head = try #require(try store.snapshotTable.all(of: setting.document.id).last { $0.form == .group && $0.sequence <= sequence })
            let parts = try store.open((0..<head.parts).map { try WritingRecord.snapshotPart(head.id, $0) }, of: project) { _, plaintext in [UInt8](plaintext) }
            return try SnapshotGroup(parsing: Array(parts.joined()))
        }
    }

    @Test("content-addressed: a restore is a reference to the version restored (not stored again), a restore of that restore names the same version, a titled snapshot of unchanged content names the latest; every version reads back, and the ones after a reference too")
    func identicalContentIsAReference() throws {
        let setting = try Setting()
        var versions = try history(6, setting, seed: 41)
        let restored = try setting.fixture.store { try $0.restore(setting.document.id, in: setting.project.id, to: versions[2].0.id) }
        #expect(restored.sequence == 7 && restored.origin == .restore)
        let member = { (sequence: Int) throws -> SnapshotGroup.Member in
            let value = try self.group(holding: sequence, setting)
            return value.members[sequence - value.sequence]
        }
        let seventh = try member(7)
        #expect(seventh.reference == 3 && seventh.delta.isEmpty)
        versions.append((restored, versions[2].1))
        // A restore of the restore names version 3 itself: a reference never names a reference.
        let again = try setting.fixture.store { try $0.restore(setting.document.id, in: setting.project.id, to: restored.id) }
        #expect(try member(8).reference == 3)
        versions.append((again, versions[2].1))
        let titled = try setting.snapshot("Unchanged")
        let ninth = try member(9)
        #expect(titled.sequence == 9 && ninth.reference == 3)
        versions.append((titled, versions[2].1))
        var random = SeededGenerator(seed: 43), content = versions[2].1
        for index in 6..<9 {
            content = try SnapshotStoreTests.evolve(content, index, &random)
            let written = content
            versions.append((try setting.fixture.store { store in
                try store.replaceDocumentContentAndSnapshot(of: setting.document.id, in: setting.project.id, with: written).snapshot
            }, content))
        }
        let tenth = try member(10)
        #expect(tenth.reference == nil && !tenth.delta.isEmpty)
        for (snapshot, expected) in versions { #expect(try setting.content(snapshot.id) == expected, "version \(snapshot.sequence)") }
    }

    @Test("two grouped rows swapped (ids moved in the group), or a grouped row made a group's start, are refused as damage; the others still read")
    func movedMembersAreRefused() throws {
        let setting = try Setting()
        let versions = try history(6, setting, seed: 31)
        let (third, fourth) = (versions[2].0, versions[3].0)
        try setting.fixture.vault.tamper("""
            UPDATE writing_snapshots SET sequence = 100 WHERE id = X'\(third.id.hex)';
            UPDATE writing_snapshots SET sequence = 3 WHERE id = X'\(fourth.id.hex)';
            UPDATE writing_snapshots SET sequence = 4 WHERE id = X'\(third.id.hex)';
            """)
        #expect(writingCode { try setting.content(third.id) } == .damagedRecord)
        #expect(writingCode { try setting.content(fourth.id) } == .damagedRecord)
        #expect(try setting.content(versions[1].0.id) == versions[1].1)
        try setting.fixture.vault.tamper("""
            UPDATE writing_snapshots SET sequence = 100 WHERE id = X'\(third.id.hex)';
            UPDATE writing_snapshots SET sequence = 4 WHERE id = X'\(fourth.id.hex)';
            UPDATE writing_snapshots SET sequence = 3 WHERE id = X'\(third.id.hex)';
            """)
        #expect(try setting.content(fourth.id) == versions[3].1)
        // Made a group's start, it names a record that is not there: refused, and nothing is restored.
        try setting.fixture.vault.tamper("UPDATE writing_snapshots SET form = 'group', parts = 1 WHERE id = X'\(fourth.id.hex)'")
        #expect(throws: (any Error).self) { try setting.content(fourth.id) }
    }
}
