import CryptoVault
import Writing

/// The versions a replica's records hold (SECURITY.md §19.3, operations 0x06 to 0x08), kept beside
/// its documents: every snapshot, branch, decision and edit event written, with the history entry
/// of the record that wrote it. What it shows is a function of the set of records, as the
/// documents are: each snapshot, branch and event is the write of least rank (an honest device
/// never writes one twice), and a branch's state is its decisions replayed in rank order.
struct VersionHistory: Sendable {
    struct Write<Value: Sendable>: Sendable {
        let entry: Int
        let value: Value
    }

    private(set) var snapshots: [SnapshotID: [Write<SyncedSnapshot>]] = [:]
    private(set) var branches: [BranchID: [Write<SyncedBranch>]] = [:]
    private(set) var decisions: [BranchID: [Write<SyncedDecision>]] = [:]
    private(set) var events: [EditEventID: [Write<SyncedEditEvent>]] = [:]
    /// Snapshot parts (0x0C) by snapshot and SHA-256, and the records that wrote them. Each part's
    /// bytes (the same whoever wrote them: the digest names them) are held once: by the part until
    /// a snapshot joins it, then as a range of that snapshot's payload (`PartBytes`).
    private(set) var parts: [PartKey: (bytes: PartBytes, entries: [Int])] = [:]
    /// Per device, the parts its own records wrote that none of its records' snapshots names yet,
    /// with their sizes: bounded by `maximumUnnamedPartBytes` (SECURITY.md §19.2).
    private(set) var unnamedParts: [DeviceID: [PartKey: Int]] = [:]
    /// Per device, the parts its own records' snapshots named.
    private var namedParts: [DeviceID: Set<PartKey>] = [:]

    /// The bytes of parts a device may have written and not named in its own records: one
    /// snapshot's largest payload. A writer sends a snapshot's parts and then the snapshot, so an
    /// honest device never has more; a hostile one cannot make every replica hold parts without end.
    static let maximumUnnamedPartBytes = VersionOperationCodec.maximumPartsLength

    struct PartKey: Hashable, Sendable {
        let snapshot: SnapshotID
        let digest: [UInt8]
    }

    /// Where a part's bytes are held.
    enum PartBytes: Sendable {
        case own([UInt8])
        /// Joined into its snapshot's write `write` (of `snapshots[key.snapshot]`), at `range` of its payload.
        case joined(write: Int, range: Range<Int>)
    }

    /// Per document, the history entries of the records that made a branch of it (every write: a
    /// removal that saw none of them keeps the document, SECURITY.md §19.3).
    var branchesMadeByDocument: [NodeID: [Int]] {
        var made: [NodeID: [Int]] = [:]
        for writes in branches.values { for write in writes { made[write.value.document, default: []].append(write.entry) } }
        return made
    }

    /// Snapshot ids in the order their first write was admitted (parents first): a delta's base
    /// comes before it.
    private(set) var snapshotOrder: [SnapshotID] = []
    private(set) var branchOrder: [BranchID] = []

    // MARK: Admitting a record

    /// Refuses a record whose version operations do not follow from its past: a snapshot or
    /// branch written again (`.causalityViolation`; twice in one record, `.malformedRecord`), or a
    /// delta's or branch's base that is not a snapshot of the same document written in the
    /// record's past or earlier in the record (`.causalityViolation`). An event written twice in
    /// one record is `.malformedRecord`.
    ///
    /// Returns each snapshot in parts the record writes as the payload its parts join to (joined
    /// once here; `apply` keeps it), and refuses a record whose device's unnamed parts would pass
    /// `maximumUnnamedPartBytes` (`.malformedRecord`).
    func check(_ record: ChangeRecord, inPast: (Int) -> Bool) throws(SyncError) -> [SnapshotID: SnapshotPayload] {
        var written: [SnapshotID: NodeID] = [:], made = Set<BranchID>(), events = Set<EditEventID>()
        var partsHere: [PartKey: [UInt8]] = [:], joined: [SnapshotID: SnapshotPayload] = [:]
        func snapshotHeld(_ id: SnapshotID, of document: NodeID) -> Bool {
            written[id] == document || (snapshots[id] ?? []).contains { inPast($0.entry) && $0.value.document == document }
        }
        func part(_ key: PartKey) -> ArraySlice<UInt8>? {
            if let bytes = partsHere[key] { return bytes[...] }
            guard let held = parts[key], held.entries.contains(where: inPast) else { return nil }
            return bytes(of: key, held.bytes)
        }
        for case .version(let operation) in record.operations {
            switch operation {
            case .snapshot(let snapshot):
                guard written[snapshot.id] == nil else { throw SyncByteReader.malformed("snapshot \(snapshot.id) written twice in one record") }
                guard !(snapshots[snapshot.id] ?? []).contains(where: { inPast($0.entry) }) else {
                    throw SyncError(.causalityViolation, "snapshot \(snapshot.id) was written before, in the record's past")
                }
                if let base = snapshot.payload.base, !snapshotHeld(base, of: snapshot.document) {
                    throw SyncError(.causalityViolation, "snapshot \(snapshot.id)'s delta is from a snapshot of its document the record has not seen")
                }
                if case .parts = snapshot.payload { joined[snapshot.id] = try Self.joined(snapshot, part: part) }
                written[snapshot.id] = snapshot.document
            case .snapshotPart(let snapshotPart):
                guard partsHere.updateValue(snapshotPart.bytes, forKey: PartKey(snapshot: snapshotPart.snapshot, digest: snapshotPart.digest)) == nil else {
                    throw SyncByteReader.malformed("a part of snapshot \(snapshotPart.snapshot) written twice in one record")
                }
            case .branch(let branch):
                guard made.insert(branch.id).inserted else { throw SyncByteReader.malformed("branch \(branch.id) made twice in one record") }
                guard !(branches[branch.id] ?? []).contains(where: { inPast($0.entry) }) else {
                    throw SyncError(.causalityViolation, "branch \(branch.id) was made before, in the record's past")
                }
                guard snapshotHeld(branch.base, of: branch.document) else {
                    throw SyncError(.causalityViolation, "branch \(branch.id)'s base is not a snapshot of its document the record has seen")
                }
            case .decision: continue
            case .editEvent(let event):
                guard events.insert(event.id).inserted else { throw SyncByteReader.malformed("edit event \(event.id) written twice in one record") }
            }
        }
        let unnamed = unnamedPartBytes(after: record)
        guard unnamed <= Self.maximumUnnamedPartBytes else {
            throw SyncByteReader.malformed("device \(record.device) would have \(unnamed) bytes of snapshot parts no snapshot of its names (at most \(Self.maximumUnnamedPartBytes))")
        }
        return joined
    }

    /// The bytes of the parts `record`'s device wrote and did not name, in its records up to and
    /// including this one. A device's records form one chain and are admitted in order, so what
    /// is kept for it is exactly what the record's past holds of it: every device counts alike.
    func unnamedPartBytes(after record: ChangeRecord) -> Int {
        var unnamed = unnamedParts[record.device] ?? [:], named = namedParts[record.device] ?? []
        Self.note(record, unnamed: &unnamed, named: &named)
        return unnamed.values.reduce(0, +)
    }

    private static func note(_ record: ChangeRecord, unnamed: inout [PartKey: Int], named: inout Set<PartKey>) {
        for case .version(let operation) in record.operations {
            switch operation {
            case .snapshotPart(let part):
                let key = PartKey(snapshot: part.snapshot, digest: part.digest)
                if !named.contains(key) { unnamed[key] = part.bytes.count }
            case .snapshot(let snapshot):
                guard case .parts(_, _, let digests) = snapshot.payload else { continue }
                for digest in digests {
                    let key = PartKey(snapshot: snapshot.id, digest: digest)
                    named.insert(key)
                    unnamed[key] = nil
                }
            default: continue
            }
        }
    }

    /// A held part's bytes, wherever they are held.
    private func bytes(of key: PartKey, _ held: PartBytes) -> ArraySlice<UInt8> {
        switch held {
        case .own(let bytes): return bytes[...]
        case .joined(let write, let range):
            switch snapshots[key.snapshot]![write].value.payload {
            case .whole(let bytes), .delta(_, let bytes): return bytes[range]
            case .parts: return []  // never kept: a snapshot in parts is kept as what they join to
            }
        }
    }

    /// The payload a snapshot in parts joins to, `.whole` or `.delta`, checked as a record's own
    /// would be: every part in the record's past or earlier in it (else `.causalityViolation`), and
    /// the parts together exactly `length` bytes (counted before any is copied), a content that
    /// decodes (§15.2) and hashes to the digest, or a delta that parses (§15.1) (else
    /// `.malformedRecord`). Any other payload is returned as it is.
    static func joined(_ snapshot: SyncedSnapshot, part: (PartKey) -> ArraySlice<UInt8>?) throws(SyncError) -> SnapshotPayload {
        guard case .parts(let base, let length, let digests) = snapshot.payload else { return snapshot.payload }
        var pieces: [ArraySlice<UInt8>] = []
        for digest in digests {
            guard let piece = part(PartKey(snapshot: snapshot.id, digest: digest)) else {
                throw SyncError(.causalityViolation, "snapshot \(snapshot.id) names a part the record has not seen")
            }
            pieces.append(piece)
        }
        let total = pieces.reduce(0) { $0 + $1.count }
        guard total == length else { throw SyncByteReader.malformed("snapshot \(snapshot.id)'s parts are \(total) bytes, not its \(length)") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(length)
        for piece in pieces { bytes += piece }
        if let base {
            do { _ = try SnapshotDelta(parsing: bytes) } catch { throw SyncByteReader.malformed("a snapshot delta in parts: \(error.message)") }
            return .delta(base: base, bytes)
        }
        do { _ = try SnapshotContent.decode(bytes) } catch { throw SyncByteReader.malformed("a snapshot content in parts: \(error.message)") }
        guard SHA256.hash(bytes) == snapshot.digest else { throw SyncByteReader.malformed("a snapshot content in parts that is not its digest's") }
        return .whole(bytes)
    }

    /// Keeps an admitted record's version operations (in the record's order): a snapshot in parts
    /// as the payload its parts joined to (`joined`, from `check`), the parts then held only there.
    mutating func apply(_ record: ChangeRecord, entry: Int, joined: [SnapshotID: SnapshotPayload]) {
        for case .version(let operation) in record.operations { apply(operation, entry: entry, joined: joined) }
        var unnamed = unnamedParts[record.device] ?? [:], named = namedParts[record.device] ?? []
        Self.note(record, unnamed: &unnamed, named: &named)
        unnamedParts[record.device] = unnamed
        namedParts[record.device] = named
    }

    private mutating func apply(_ operation: VersionOperation, entry: Int, joined: [SnapshotID: SnapshotPayload]) {
        switch operation {
        case .snapshot(var snapshot):
            if case .parts(_, _, let digests) = snapshot.payload {
                guard let payload = joined[snapshot.id] else { return }
                snapshot = SyncedSnapshot(id: snapshot.id, document: snapshot.document, origin: snapshot.origin, title: snapshot.title,
                                          deviceID: snapshot.deviceID, createdAt: snapshot.createdAt, digest: snapshot.digest, payload: payload)
                if snapshots[snapshot.id] == nil { snapshotOrder.append(snapshot.id) }
                snapshots[snapshot.id, default: []].append(Write(entry: entry, value: snapshot))
                holdJoined(snapshot.id, digests: digests, write: snapshots[snapshot.id]!.count - 1)
                return
            }
            if snapshots[snapshot.id] == nil { snapshotOrder.append(snapshot.id) }
            snapshots[snapshot.id, default: []].append(Write(entry: entry, value: snapshot))
        case .snapshotPart(let part):
            let key = PartKey(snapshot: part.snapshot, digest: part.digest)
            parts[key] = (parts[key]?.bytes ?? .own(part.bytes), (parts[key]?.entries ?? []) + [entry])
        case .branch(let branch):
            if branches[branch.id] == nil { branchOrder.append(branch.id) }
            branches[branch.id, default: []].append(Write(entry: entry, value: branch))
        case .decision(let decision): decisions[decision.branch, default: []].append(Write(entry: entry, value: decision))
        case .editEvent(let event): events[event.id, default: []].append(Write(entry: entry, value: event))
        }
    }

    /// The parts a snapshot's write just joined are held from now on as ranges of its payload,
    /// their own bytes let go (a part joined before stays where it is).
    private mutating func holdJoined(_ snapshot: SnapshotID, digests: [[UInt8]], write: Int) {
        var offset = 0
        for digest in digests {
            let key = PartKey(snapshot: snapshot, digest: digest)
            guard let held = parts[key] else { return }
            let count = bytes(of: key, held.bytes).count
            if case .own = held.bytes { parts[key] = (.joined(write: write, range: offset..<offset + count), held.entries) }
            offset += count
        }
    }
}

/// A decision on a branch as the replay settled it: applied, agreeing, or overruled (kept in the history).
public struct SettledDecision: Sendable, Equatable {
    public let decision: SyncedDecision
    /// The device whose record carried it, and that record's counter.
    public let device: DeviceID
    public let counter: UInt64
    public let applied: Bool
    /// Not applied, but the same decision as the applied one, made without seeing it (the owner
    /// adopted one conflict on two devices at once): it agrees, and is not overruled.
    public let agrees: Bool

    init(decision: SyncedDecision, device: DeviceID, counter: UInt64, applied: Bool, agrees: Bool = false) {
        self.decision = decision
        self.device = device
        self.counter = counter
        self.applied = applied
        self.agrees = agrees
    }

    /// Neither applied nor agreeing: what `vaultctl conflicts` lists as overruled.
    public var isOverruled: Bool { !applied && !agrees }
}

/// A branch's state as every device settles it from the decisions its records hold.
public struct SettledBranch: Sendable, Equatable {
    public let state: BranchState
    /// The last applied decision's time.
    public let decidedAt: Int64?
    /// The applied adoption's snapshots (kept through a revert).
    public let before: SnapshotID?
    public let adoption: SnapshotID?
    /// Every decision, in the order replayed.
    public let decisions: [SettledDecision]
}

extension SyncReplica {
    /// The snapshots the records hold, in the order first written, each its write of least rank.
    var syncedSnapshots: [SyncedSnapshot] { versions.snapshotOrder.map { least(versions.snapshots[$0]!) } }
    /// The branches the records made, in the order first made, each its write of least rank.
    var syncedBranches: [SyncedBranch] { versions.branchOrder.map { least(versions.branches[$0]!) } }
    var syncedSnapshotIDs: Set<SnapshotID> { Set(versions.snapshots.keys) }
    var syncedBranchIDs: Set<BranchID> { Set(versions.branches.keys) }
    var decidedBranches: [BranchID] { versions.decisions.keys.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) } }

    /// Each edit event as last written: its write of highest rank (an event is written only by its
    /// own device, whose records form one chain, so that is its device's latest).
    var syncedEditEvents: [SyncedEditEvent] {
        versions.events.values.map { writes in writes.max { history.ranksBelow($0.entry, $1.entry) }!.value }
            .sorted { $0.id.bytes.lexicographicallyPrecedes($1.id.bytes) }
    }

    func syncedEditEvent(_ id: EditEventID) -> SyncedEditEvent? {
        versions.events[id].map { writes in writes.max { history.ranksBelow($0.entry, $1.entry) }!.value }
    }

    private func least<Value>(_ writes: [VersionHistory.Write<Value>]) -> Value {
        writes.min { history.ranksBelow($0.entry, $1.entry) }!.value
    }

    /// The branch's decisions replayed in rank order (SECURITY.md §19.3): an adopt or a discard
    /// applies to an open branch, a revert to an adopted one whose record has seen an adoption of
    /// it; an adopt also applies over a discard it had not seen (both devices decided at once: the
    /// adoption's words are in the document, so the branch says adopted). Anything else is
    /// overruled and kept, unless it is the decision the applied one is and was made without seeing
    /// it (neither in the other's past): then it agrees (two devices adopted, discarded or reverted
    /// the branch at once; merge-design §3). Lamport order puts every decision after those in its past.
    public func settled(_ branch: BranchID) -> SettledBranch {
        let writes = (versions.decisions[branch] ?? []).enumerated().sorted { a, b in
            a.element.entry != b.element.entry ? history.ranksBelow(a.element.entry, b.element.entry) : a.offset < b.offset
        }.map(\.element)
        var state = BranchState.open, decidedAt: Int64? = nil, adopt: SyncedDecision? = nil
        var discard: Int? = nil, settled: [SettledDecision] = [], lastApplied: VersionHistory.Write<SyncedDecision>? = nil
        for (position, write) in writes.enumerated() {
            let decision = write.value, record = history.entries[write.entry].record
            var applied = false
            switch (decision.decision, state) {
            case (.adopt, .open): applied = true
            case (.adopt, .discarded):
                // Over a discard it had not seen: the discard is overruled.
                if let index = discard, !history.precedes(writes[index].entry, write.entry) {
                    applied = true
                    settled[index] = settled[index].overruled
                    // And the discards that agreed with it.
                    for agreeing in settled.indices where settled[agreeing].agrees { settled[agreeing] = settled[agreeing].overruled }
                }
            case (.discard, .open):
                applied = true
                discard = position
            case (.revert, .adopted):
                // An adoption in its past, or earlier in its own record (`precedes` holds for the same entry).
                applied = writes[..<position].contains { $0.value.decision == .adopt && history.precedes($0.entry, write.entry) }
            default: break
            }
            let agrees = !applied && Self.agrees(write, with: lastApplied, in: history)
            if applied {
                lastApplied = write
                state = decision.decision == .adopt ? .adopted : decision.decision == .discard ? .discarded : .reverted
                decidedAt = decision.decidedAt
                if decision.decision == .adopt { adopt = decision }
            }
            settled.append(SettledDecision(decision: decision, device: record.device, counter: record.counter, applied: applied, agrees: agrees))
        }
        return SettledBranch(state: state, decidedAt: decidedAt, before: adopt?.before, adoption: adopt?.version, decisions: settled)
    }
}

extension SyncReplica {
    /// Whether `write` is the decision `applied` is, made concurrently with it (neither in the other's past).
    static func agrees(_ write: VersionHistory.Write<SyncedDecision>, with applied: VersionHistory.Write<SyncedDecision>?,
                       in history: CausalHistory) -> Bool {
        guard let applied, applied.value.decision == write.value.decision else { return false }
        return !history.precedes(applied.entry, write.entry) && !history.precedes(write.entry, applied.entry)
    }
}

extension SettledDecision {
    var overruled: SettledDecision { SettledDecision(decision: decision, device: device, counter: counter, applied: false) }
}
