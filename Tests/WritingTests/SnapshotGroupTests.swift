import CryptoVault
import Testing
import TestSupport
@testable import Writing

/// Snapshot groups (SECURITY.md §15.2, record version 3): the deltas of up to 64 consecutive versions
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

    @Test("150 versions: a keyframe at 1, groups starting at 2, 66 and 130 (64 members each at most), every version read back byte for byte")
    func groupsHoldSixtyFourVersions() throws {
        let setting = try Setting()
        let versions = try history(150, setting, seed: 29)
        let rows = try setting.fixture.store { try $0.snapshotTable.all(of: setting.document.id) }
        #expect(rows.filter { $0.form == .keyframe }.map(\.sequence) == [1])
        #expect(rows.filter { $0.form == .group }.map(\.sequence) == [2, 66, 130])
        #expect(rows.allSatisfy { ($0.form == .grouped) == ($0.parts == 0) })
        for (snapshot, expected) in versions {
            #expect(try setting.content(snapshot.id) == expected, "version \(snapshot.sequence)")
        }
        // Only the group heads and the keyframe hold sealed records: three groups, not 149 deltas.
        let database = try Database(path: setting.fixture.vault.vault.databasePath, create: false, readOnly: true)
        #expect(try database.queryOne("SELECT count(*) AS n FROM sealed_records WHERE table_name = 'writing_snapshots'")?.integer("n") == 4)
    }

    @Test("a group's sealed value round-trips, and one cut short, with a member count past its bytes or a trailing delta byte is refused")
    func groupRecordsParseStrictly() throws {
        let document = try NodeID.random()
        let members = try (0..<3).map { index in
            SnapshotGroup.Member(id: try SnapshotID.random(), digest: SHA256.hash([UInt8(index)]),
                                 delta: SnapshotDelta(operations: [.copy(offset: 0, length: 5), .insert(Array("more \(index)".utf8))]).serialized())
        }
        let group = SnapshotGroup(document: document, sequence: 7, base: Array(repeating: 9, count: 16), members: members)
        let encoded = group.encoded()
        #expect(try SnapshotGroup(parsing: encoded) == group)
        #expect(try SnapshotGroup(parsing: group.appending(members[0]).encoded()).members.count == 4)
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
