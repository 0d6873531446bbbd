import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// Operations 0x06 to 0x08 against testvectors/sync/change-records.json (records "fourth" and
/// "fifth", written by the independent change_record.py): in any order they make the same
/// versions, and the merge settles the branch as SECURITY.md §19.3 says. And the parser's bounds.
@Suite struct VersionRecordTests {
    let records: [[UInt8]]
    let keys: [DeviceID: [UInt8]]
    let settled: [String: ChangeRecordVectors.Settled]

    init() throws {
        let vectors = try ChangeRecordVectors.load()
        records = vectors.records.map(\.record.bytes)
        keys = try ChangeRecordTests().keys
        settled = vectors.settled
    }

    /// The file's settled branches (computed by change_record.py's own replay of §19.3) are the
    /// replica's, whatever order the records arrive in: an adoption over a discard it had not seen.
    @Test func decisionsSettleAsTheIndependentReplaySays() throws {
        #expect(settled.count == 3)
        for order in [Array(records.indices), Array(records.indices.reversed()), [7, 6, 0, 5, 1, 4, 2, 3]] {
            var replica = SyncReplica(project: try ChangeRecordCodec.parse(records[0]).project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty)
            #expect(Set(replica.decidedBranches.map(\.hex)) == Set(settled.keys))
            for (branch, expected) in settled {
                let state = replica.settled(try BranchID(hex: branch))
                #expect(state.state.rawValue == expected.state)
                #expect(state.decidedAt == expected.decidedAt)
                #expect(state.before?.hex == expected.before)
                #expect(state.adoption?.hex == expected.adoption)
                let decisions = expected.decisions.map { "\($0.decision) \($0.device) \($0.counter) \($0.applied)" }
                #expect(state.decisions.map { "\($0.decision.decision) \($0.device.hex) \($0.counter) \($0.applied)" } == decisions)
            }
        }
    }

    /// Record `ninth` (0x09 and 0x0A, after both concurrent heads) shows its entries, name and
    /// archived flag whichever order the nine records arrive in.
    @Test func theNinthRecordsEntriesNameAndArchivedFlagShowInAnyOrder() throws {
        for order in [Array(0..<10), Array((0..<10).reversed()), [9, 8, 3, 0, 6, 4, 7, 2, 5, 1]] {
            var replica = SyncReplica(project: try ChangeRecordCodec.parse(records[0]).project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty)
            let entries = replica.holdings.entryValues(history: replica.history)
            let present = entries.values.compactMap { value -> String? in
                guard case .present(let entry) = value else { return nil }
                return "\(entry.kind.rawValue) \(entry.name) \(entry.fields.count)"
            }
            #expect(present.sorted() == ["character Ada Okafor 2", "place Harbour office 1"])
            #expect(entries.values.filter { $0 == .removed }.count == 1)
            #expect(replica.holdings.name(history: replica.history) == "Case file — Okafor")
            #expect(replica.holdings.archivedAt(history: replica.history) == .some(1_780_000_500))
            // Record `tenth`'s project snapshot, naming the document's second snapshot.
            let taken = try #require(replica.holdings.projectSnapshots.values.first?.snapshot)
            #expect(replica.holdings.projectSnapshots.count == 1 && taken.title == "Before the hearing" && taken.nodes.count == 2)
            #expect(taken.nodes.last?.snapshot.map { replica.syncedSnapshotIDs.contains($0) } == true)
        }
    }

    @Test func theVectorsInAnyOrderMakeTheSameVersionsAndSettleTheBranch() throws {
        #expect(records.count == 13)  // with `thirteenth`, of body version 2 (SECURITY.md §19.2)
        var settled: [SettledBranch] = []
        for order in [[0, 1, 2, 3, 4], [4, 3, 2, 1, 0], [3, 0, 4, 2, 1]] {
            var replica = SyncReplica(project: try ChangeRecordCodec.parse(records[0]).project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty)
            #expect(replica.syncedSnapshots.map { $0.title ?? "-" } == ["Before the visit", "-"])
            let branch = try #require(replica.syncedBranches.first)
            #expect(replica.syncedBranches.count == 1)
            #expect(branch.provenance == "assistant: a fuller plan")
            settled.append(replica.settled(branch.id))
            #expect(replica.syncedEditEvents.map(\.edits).sorted() == [1, 3])
            // The discard names a branch no record made: kept, and settled on its own.
            #expect(replica.decidedBranches.count == 2)
        }
        #expect(Set(settled.map { "\($0)" }).count == 1)
        #expect(settled[0].state == .reverted)
        #expect(settled[0].decisions.map { "\($0.decision.decision) \($0.applied)" } == ["adopt true", "revert true"])
        #expect(settled[0].decidedAt == 1_780_000_200)
        #expect(settled[0].before != nil && settled[0].adoption != nil)
    }

    /// Records `eleventh` and `twelfth` (§19.2, 0x0C and content form 0x03): each snapshot in parts
    /// joins, whichever order the records arrive in, to the payload the independent reader joined,
    /// and is kept as that content (hashing to its digest) or delta (rebuilding to it); the cases the
    /// reader refuses to join (a part not in the record's past, parts joining to another digest) are
    /// refused here for the same reason.
    @Test func snapshotsInPartsJoinAsTheIndependentReaderJoinsThemAndAreRefusedAsItRefuses() throws {
        let vectors = try ChangeRecordVectors.load()
        #expect(vectors.joined.count == 2 && vectors.joinedRefused.count == 3)
        let project = try ChangeRecordCodec.parse(records[0]).project
        for order in [Array(records.indices), Array(records.indices.reversed()), [11, 3, 10, 0, 9, 1, 8, 2, 7, 4, 6, 5]] {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            for index in order { replica.receive(records[index]) }
            #expect(replica.refusals.isEmpty)
            var contents: [SnapshotID: [UInt8]] = [:]
            for snapshot in replica.syncedSnapshots {
                switch snapshot.payload {
                case .whole(let content): contents[snapshot.id] = content
                case .delta(let base, let delta): contents[snapshot.id] = try SnapshotDelta(parsing: delta).apply(to: try #require(contents[base]))
                case .parts: Issue.record("snapshot \(snapshot.id) kept in parts")
                }
                #expect(SHA256.hash(try #require(contents[snapshot.id])) == snapshot.digest)
                guard let joined = vectors.joined[snapshot.id.hex] else { continue }
                let payload: [UInt8] = switch snapshot.payload {
                case .whole(let bytes), .delta(_, let bytes): bytes
                case .parts: []
                }
                #expect(ByteEncoding.hex(SHA256.hash(payload)) == joined, "\(snapshot.id)")
            }
            #expect(Set(replica.syncedSnapshots.map(\.id.hex)).isSuperset(of: vectors.joined.keys))
        }
        for refused in vectors.joinedRefused {
            var replica = SyncReplica(project: project, author: nil, devices: keys)
            for record in records.prefix(10) { replica.receive(record) }
            let outcomes = refused.records.map { replica.receive($0.bytes) }
            guard case .refused(let error)? = outcomes.last else {
                Issue.record("\(refused.name) was not refused: \(outcomes)")
                continue
            }
            #expect(error.code.rawValue == refused.reason, "\(refused.name): \(error.message)")
        }
    }

    @Test func theDeltaSnapshotRebuildsToItsDigest() throws {
        var replica = SyncReplica(project: try ChangeRecordCodec.parse(records[0]).project, author: nil, devices: keys)
        for record in records.prefix(5) { replica.receive(record) }
        let snapshots = replica.syncedSnapshots
        guard case .whole(let first) = snapshots[0].payload, case .delta(let base, let delta) = snapshots[1].payload else {
            Issue.record("the vectors' first snapshot is whole and the second a delta")
            return
        }
        #expect(base == snapshots[0].id)
        let second = try SnapshotDelta(parsing: delta).apply(to: first)
        #expect(SHA256.hash(second) == snapshots[1].digest)
        #expect(try SnapshotContent.decode(second).blocks.map(\.text) == ["Edited at the desk! Plan: rest."])
    }

    /// A record that writes one snapshot twice, or a delta from a snapshot its past lacks, is refused
    /// for its reason and changes nothing.
    @Test func aSnapshotWrittenTwiceOrFromABaseNotSeenIsRefused() throws {
        var fleet = try SyncFleet(devices: 1)
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Memo")
        let content = SnapshotContent.encode(DocumentContent(blocks: []))
        func snapshot(_ id: SnapshotID, _ payload: SnapshotPayload) throws -> ChangeOperation {
            .version(.snapshot(SyncedSnapshot(id: id, document: document, origin: .automatic, title: nil, deviceID: try AuditDeviceID.random(),
                                              createdAt: 1, digest: SHA256.hash(content), payload: payload)))
        }
        let id = try SnapshotID.random()
        _ = try fleet.replicas[0].commit([try snapshot(id, .whole(content))])
        #expect(throws: SyncError(.causalityViolation, "")) { try fleet.replicas[0].commit([try snapshot(id, .whole(content))]) }
        let unseen = try snapshot(try SnapshotID.random(), .delta(base: try SnapshotID.random(), [1, 2, 0, 0, 0, 1, 0]))
        #expect(throws: SyncError(.causalityViolation, "")) { try fleet.replicas[0].commit([unseen]) }
        let twice = try snapshot(try SnapshotID.random(), .whole(content))
        #expect(throws: SyncError(.malformedRecord, "")) { try fleet.replicas[0].commit([twice, twice]) }
        #expect(fleet.replicas[0].syncedSnapshotIDs == [id])
    }

    @Test func anEditEventCountPastItsBytesIsRefusedBeforeAnyWork() throws {
        // 0x08 with a count of 4,096 documents and no bytes for them.
        let operation = [UInt8](repeating: 1, count: 16) + [UInt8](repeating: 2, count: 16) + [UInt8](repeating: 0, count: 16)
            + [0] + [0, 0, 0, 1] + [0, 0, 0x10, 0]
        var reader = SyncByteReader(operation)
        #expect(throws: SyncError(.malformedRecord, "")) { try VersionOperationCodec.parse(8, &reader) }
    }
}
