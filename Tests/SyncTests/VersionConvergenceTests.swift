import CryptoVault
import Testing
@testable import Sync
import Writing

/// Random schedules of three devices taking snapshots, making branches, deciding them (an honest
/// device decides only what its replica shows open or adopted) and writing sessions, between
/// edits and partial syncs: every device, and a fourth that takes every record in a shuffled
/// order, ends with the same versions, the same settled branches and every decision ever made kept
/// in its branch's history (SECURITY.md §19.3).
@Suite struct VersionConvergenceTests {
    @Test func threeDevicesConvergeOnVersionsAndKeepEveryDecisionOverRandomSchedules() throws {
        var decided = 0, overruled = 0
        for seed in UInt64(1)...400 {
            let (made, lost) = try Self.run(seed: seed)
            decided += made
            overruled += lost
        }
        // The schedules did meet concurrent decisions, or the test proves little.
        #expect(decided > 400)
        #expect(overruled > 20)
    }

    /// The truth kept outside the code under test: every snapshot's content, every decision made.
    struct Truth {
        var contents: [SnapshotID: [UInt8]] = [:]
        var decisions: [BranchID: [SyncedDecision]] = [:]
        var events: [EditEventID: SyncedEditEvent] = [:]
    }

    static func run(seed: UInt64) throws -> (decided: Int, overruled: Int) {
        var generator = SeededGenerator(seed: seed)
        var fleet = try SyncFleet(devices: 3)
        var truth = Truth()
        let (document, _) = try fleet.replicas[0].createDocument(titled: "Memo")
        _ = try fleet.replicas[0].edit(document, to: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "facts")]))
        fleet.healAll(&generator)
        let auditDevices = try (0..<3).map { _ in try AuditDeviceID.random() }
        var sessions: [EditEventID?] = [nil, nil, nil]
        for step in 0..<40 {
            let device = Int.random(in: 0..<3, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0: try edit(document, on: device, in: &fleet, &generator)
            case 1: try snapshot(document, on: device, in: &fleet, &truth, auditDevices[device], time: Int64(step), &generator)
            case 2: try branch(document, on: device, in: &fleet, &truth, time: Int64(step), &generator)
            case 3: try decide(on: device, in: &fleet, &truth, time: Int64(step), &generator)
            case 4: try session(document, on: device, in: &fleet, &truth, &sessions[device], auditDevices[device], time: Int64(step), &generator)
            default:
                let to = (device + Int.random(in: 1..<3, using: &generator)) % 3
                fleet.sync(from: device, to: to, shuffle: &generator, shuffled: Bool.random(using: &generator))
            }
        }
        fleet.healAll(&generator)
        var observer = SyncReplica(project: fleet.project, author: nil, devices: fleet.replicas[0].devices)
        for record in fleet.replicas[0].records(missingFrom: [:]).shuffled(using: &generator) { observer.receive(record.encoded) }
        observer.endExchange()
        return try check(fleet.replicas + [observer], against: truth, seed: seed)
    }

    static func check(_ replicas: [SyncReplica], against truth: Truth, seed: UInt64) throws -> (decided: Int, overruled: Int) {
        var replicas = replicas
        let first = replicas[0]
        var overruled = 0
        for index in replicas.indices {
            #expect(replicas[index].refusals == [], "seed \(seed): replica \(index) refused \(replicas[index].refusals.map(\.error.message))")
            #expect(replicas[index].syncedSnapshotIDs == Set(truth.contents.keys), "seed \(seed)")
            #expect(replicas[index].syncedBranchIDs == Set(truth.decisions.keys), "seed \(seed)")
            #expect(replicas[index].syncedEditEvents == truth.events.values.sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }, "seed \(seed)")
            for document in first.documents {
                #expect(replicas[index].content(of: document) == replicas[0].content(of: document), "seed \(seed)")
            }
            for branch in first.syncedBranchIDs {
                let settled = replicas[index].settled(branch)
                #expect(settled == first.settled(branch), "seed \(seed): branch \(branch) settles differently on replica \(index)")
                // Every decision made is in the history, applied or overruled.
                #expect(Set(settled.decisions.map(\.decision)) == Set(truth.decisions[branch] ?? []), "seed \(seed): a decision was lost")
                if index == 0 { overruled += settled.decisions.filter { !$0.applied }.count }
            }
        }
        for snapshot in first.syncedSnapshots {
            // The content each record carries rebuilds the version taken.
            #expect(try rebuilt(snapshot, from: first) == truth.contents[snapshot.id], "seed \(seed)")
        }
        return (truth.decisions.values.reduce(0) { $0 + $1.count }, overruled)
    }

    static func rebuilt(_ snapshot: SyncedSnapshot, from replica: SyncReplica) throws -> [UInt8] {
        switch snapshot.payload {
        case .whole(let content): return content
        case .delta(let base, let delta):
            let baseSnapshot = try #require(replica.syncedSnapshots.first { $0.id == base })
            return try SnapshotDelta(parsing: delta).apply(to: try rebuilt(baseSnapshot, from: replica))
        case .parts:
            Issue.record("a replica keeps a snapshot in parts as the payload they join to")
            return []
        }
    }

    // MARK: Steps

    static func edit(_ document: NodeID, on device: Int, in fleet: inout SyncFleet, _ generator: inout SeededGenerator) throws {
        var blocks = fleet.replicas[device].content(of: document).blocks
        guard !blocks.isEmpty else { return }
        blocks[0].text += " w\(Int.random(in: 0..<1000, using: &generator))"
        _ = try fleet.replicas[device].edit(document, to: DocumentContent(blocks: blocks))
    }

    /// The snapshots of `document` this replica holds.
    static func held(_ document: NodeID, on replica: SyncReplica) -> [SyncedSnapshot] {
        replica.syncedSnapshots.filter { $0.document == document }
    }

    static func snapshot(_ document: NodeID, on device: Int, in fleet: inout SyncFleet, _ truth: inout Truth, _ auditDevice: AuditDeviceID,
                         time: Int64, _ generator: inout SeededGenerator) throws {
        let content = SnapshotContent.encode(fleet.replicas[device].content(of: document))
        let id = try SnapshotID.random()
        var payload = SnapshotPayload.whole(content)
        if let base = held(document, on: fleet.replicas[device]).randomElement(using: &generator), Bool.random(using: &generator) {
            payload = .delta(base: base.id, try SnapshotDelta.between(truth.contents[base.id]!, content).serialized())
        }
        let titled = Bool.random(using: &generator)
        _ = try fleet.replicas[device].commit([.version(.snapshot(SyncedSnapshot(
            id: id, document: document, origin: titled ? .titled : .automatic, title: titled ? "Version \(time)" : nil, deviceID: auditDevice,
            createdAt: time, digest: SHA256.hash(content), payload: payload)))])
        truth.contents[id] = content
    }

    static func branch(_ document: NodeID, on device: Int, in fleet: inout SyncFleet, _ truth: inout Truth, time: Int64,
                       _ generator: inout SeededGenerator) throws {
        guard let base = held(document, on: fleet.replicas[device]).randomElement(using: &generator) else { return }
        var proposal = try SnapshotContent.decode(truth.contents[base.id]!).blocks
        if !proposal.isEmpty { proposal[0].text += " proposed" }
        let delta = try SnapshotDelta.between(truth.contents[base.id]!, SnapshotContent.encode(DocumentContent(blocks: proposal))).serialized()
        let id = try BranchID.random()
        _ = try fleet.replicas[device].commit([.version(.branch(SyncedBranch(
            id: id, document: document, kind: .aiSuggestion, base: base.id, provenance: "assistant", createdAt: time, delta: delta)))])
        truth.decisions[id] = []
    }

    /// Decides a branch as the store would let this device: adopt or discard what it shows open,
    /// revert what it shows adopted by an adoption it has seen.
    static func decide(on device: Int, in fleet: inout SyncFleet, _ truth: inout Truth, time: Int64, _ generator: inout SeededGenerator) throws {
        let replica = fleet.replicas[device]
        guard let branch = replica.syncedBranches.randomElement(using: &generator) else { return }
        let settled = replica.settled(branch.id)
        let decision: SyncedDecision
        switch settled.state {
        case .open where Bool.random(using: &generator):
            let versions = held(branch.document, on: replica)
            decision = SyncedDecision(branch: branch.id, document: branch.document, decision: .adopt, decidedAt: time,
                                      before: versions.randomElement(using: &generator)!.id, version: versions.randomElement(using: &generator)!.id)
        case .open:
            decision = SyncedDecision(branch: branch.id, document: branch.document, decision: .discard, decidedAt: time, before: nil, version: nil)
        case .adopted:
            decision = SyncedDecision(branch: branch.id, document: branch.document, decision: .revert, decidedAt: time, before: nil, version: nil)
        default: return
        }
        _ = try fleet.replicas[device].commit([.version(.decision(decision))])
        truth.decisions[branch.id, default: []].append(decision)
    }

    /// This device's writing session: one more edit of the document, or, now and then, the session
    /// found over and the next begun.
    static func session(_ document: NodeID, on device: Int, in fleet: inout SyncFleet, _ truth: inout Truth, _ current: inout EditEventID?,
                        _ auditDevice: AuditDeviceID, time: Int64, _ generator: inout SeededGenerator) throws {
        var event: SyncedEditEvent
        if let id = current, let held = truth.events[id] {
            let ends = Int.random(in: 0..<4, using: &generator) == 0
            event = SyncedEditEvent(id: id, deviceID: auditDevice, startedAt: held.startedAt, lastEditAt: time, endedAt: ends ? time : nil,
                                    edits: held.edits + 1, documents: [EditedDocument(document: document, words: held.documents[0].words + 2)])
            if ends { current = nil }
        } else {
            let id = try EditEventID.random()
            event = SyncedEditEvent(id: id, deviceID: auditDevice, startedAt: time, lastEditAt: time, endedAt: nil, edits: 1,
                                    documents: [EditedDocument(document: document, words: 3)])
            current = id
        }
        _ = try fleet.replicas[device].commit([.version(.editEvent(event))])
        truth.events[event.id] = event
    }
}
