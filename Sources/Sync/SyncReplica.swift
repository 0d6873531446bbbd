import CryptoVault
import Writing

/// One device's copy of a project's writing model as change records (SECURITY.md §19): the
/// records it holds, and the documents, binder and conflicts they make. What it shows is a function
/// of the set of records alone, never of the order they arrived in, so devices holding the same
/// records show byte-identical documents.
///
/// A peer's record is taken only if it parses, names this project, is signed by a device the owner
/// paired, is not held already, and follows from its parents; a record whose parents have not
/// arrived is held until they do (at most `maximumPending`). Every refusal is kept in `refusals`
/// with its reason, for the caller to audit.
public struct SyncReplica: Sendable {
    public static let maximumPending = 10_000

    public let project: ProjectID
    /// This device's identity, or nil for a replica that only receives.
    public let author: SyncAuthor?
    /// The vault's own devices (SECURITY.md §19.4's fork rule: a fork's copy one of them built on
    /// stays): this device and those trusted `mine` there (`VaultSync.ownDevices`). The owner's
    /// devices hold one set, so they keep the same copy; a device outside it may keep the other.
    public let own: Set<DeviceID>
    /// The devices whose records are taken, by id: their Ed25519 public keys.
    public private(set) var devices: [DeviceID: [UInt8]]

    var history = CausalHistory()
    private(set) var nodes: [NodeID: NodeRegister] = [:]
    private var blocks: [BlockID: BlockRegister] = [:]
    /// The blocks some merge point made a conflict of, and those with two or more heads: the only
    /// ones `liveConflicts` and `pendingHeld` can find a conflict in, so a conflicts() call looks at
    /// them, not at every block of the project.
    private var conflictedBlocks = Set<BlockID>(), multiHeadBlocks = Set<BlockID>()
    /// Which blocks each merge point folds (`MergePointScope`), and how many it looked at.
    private(set) var mergePointScope = MergePointScope()
    /// Whether merge points fold every block rather than those `mergePointScope` bounds them to:
    /// only tests turn the bound off, to show it changes no conflict.
    var foldsEveryBlockAtMergePoints = false
    private(set) var blocksOfDocument: [NodeID: Set<BlockID>] = [:]
    private var resolved: [BlockID: (value: BlockValue, conflicts: [HeldConflict])] = [:]
    private var durableConflicts: [BranchID: SyncConflict] = [:]
    /// For each conflict recorded by 0x03, the lowest-ranked record carrying it (whose view of the
    /// document its branch proposes when the records make no such conflict themselves).
    private(set) var durableCarriers: [BranchID: Int] = [:]
    /// For each conflict recorded by a founded 0x03 (`ConflictClaims`), the record whose side it
    /// loses: the record its branch is seen from, whether or not the records still make it.
    private(set) var foundedLosers: [BranchID: Int] = [:]
    private var pending: [[UInt8]: ChangeRecord] = [:]
    /// For each parent hash not held, the held records naming it: a record's arrival wakes only
    /// those waiting on it, so draining is linear in what waits, whatever order it came in.
    private var waiting: [[UInt8]: [[UInt8]]] = [:]
    /// Records the fork rule leaves out (SECURITY.md §19.4): a device's record of a number a kept
    /// record of lower rank has, or one built on such a record, with the device that forked. Kept
    /// so that a later rebuild weighs them again: the replica is a function of every record known.
    private var dropped: [[UInt8]: (record: ChangeRecord, device: DeviceID)] = [:] {
        didSet { droppedNumbers = nil }
    }
    /// The numbers of `dropped`'s records, worked out when first asked after a change (a record
    /// of one of them is weighed by the walk, `settle`).
    private var droppedNumbers: Set<Number>?
    /// Of `dropped`, the records refused unread (a third copy or more of a number that changes
    /// nothing the walk keeps, `choosesNothing`) and those built on one: kept while the replica is,
    /// never by the vault (`leftOutToKeep`), so a device that signs one number again and again costs
    /// a check and no storage (SECURITY.md §19.4).
    private var unweighed: Set<[UInt8]> = []
    /// Snapshots, branches, decisions and edit events (`VersionHistory`).
    var versions = VersionHistory()
    /// Entries, the project's name and archived flag (`ProjectRegisters`).
    var holdings = ProjectRegisters()
    public private(set) var refusals: [SyncRefusal] = []
    /// Whether a record's 0x03 operations must name conflicts its past makes (`ConflictClaims`):
    /// set while records are received, never while stored ones rebuild the replica.
    var checksConflictClaims = false
    /// Who received records may say made their versions (`RecordAttribution`): set while records
    /// are received, checked once a record's signature verified and its parents are held, and
    /// bound further by each record taken.
    var attribution: RecordAttribution?

    public init(project: ProjectID, author: SyncAuthor?, devices: [DeviceID: [UInt8]], own: Set<DeviceID> = []) {
        self.project = project
        self.author = author
        self.own = own.union(author.map { [$0.device] } ?? [])
        var devices = devices
        if let author { devices[author.device] = author.key.publicKey }
        self.devices = devices
    }

    // MARK: What it holds

    /// The highest counter held per device: what a peer compares to send only what is missing.
    public var versionVector: [DeviceID: UInt64] { history.versionVector }
    public var recordCount: Int { history.entries.count }
    public var pendingCount: Int { pending.count }

    /// The records a replica at `versionVector` lacks, parents first.
    public func records(missingFrom versionVector: [DeviceID: UInt64]) -> [ChangeRecord] {
        history.entries.filter { $0.record.counter > versionVector[$0.record.device] ?? 0 }.map(\.record)
    }

    public func contains(_ hash: [UInt8]) -> Bool { history.contains(hash) }

    /// Takes records of these devices too (a device paired since the replica was made, for a
    /// replica kept between steps: `SyncReplicaCache`). What it holds is unchanged: each record
    /// verified under the key it has, and a device's key is never replaced.
    mutating func admit(_ keys: [DeviceID: [UInt8]]) { devices.merge(keys) { held, _ in held } }

    // MARK: Receiving

    /// Takes a peer's record bytes: applied (with any held records it completes), held until its
    /// parents arrive, or refused with the reason (also kept in `refusals`).
    @discardableResult
    public mutating func receive(_ bytes: [UInt8]) -> ReceiveOutcome {
        do {
            return try receive(ChangeRecordCodec.parse(bytes))
        } catch {
            refusals.append(SyncRefusal(record: bytes.count >= 32 ? SHA256.hash(bytes) : nil, error: error))
            return .refused(error)
        }
    }

    @discardableResult
    public mutating func receive(_ record: ChangeRecord) -> ReceiveOutcome {
        do throws(SyncError) {
            try check(record)
            if let forked = forkedParent(of: record) { return try weighOnLeftOut(record, forked: forked) }
            guard record.parents.allSatisfy(history.contains) else {
                guard pending.count < Self.maximumPending else {
                    throw SyncError(.tooManyPending, "over \(Self.maximumPending) records wait for their parents")
                }
                hold(record)
                return .held
            }
            try settle(record)
            return .applied(1 + drainPending(after: record.hash))
        } catch {
            refuse(record, error)
            return .refused(error)
        }
    }

    /// The device whose fork a parent of `record` is (or is built on), if any.
    private func forkedParent(of record: ChangeRecord) -> DeviceID? {
        for parent in record.parents { if let device = dropped[parent]?.device { return device } }
        return nil
    }

    /// Keeps a refusal of a parsed record, naming its device; a fork (or a record built on one)
    /// is left out (`dropped`), and so is every held record waiting on it.
    private mutating func refuse(_ record: ChangeRecord, _ error: SyncError) {
        if error.code == .equivocation, dropped[record.hash] == nil { dropped[record.hash] = (record, record.device) }
        refusals.append(SyncRefusal(record: record.hash, error: error, device: dropped[record.hash]?.device ?? record.device))
        if error.code == .equivocation { dropWaiting(on: record.hash) }
    }

    /// Weighs the held records waiting on a dropped record (`weighOnLeftOut`); those left out are
    /// refused as built on its fork, and those waiting on them in turn (through `refuse`).
    private mutating func dropWaiting(on hash: [UInt8]) {
        guard let device = dropped[hash]?.device, let children = waiting.removeValue(forKey: hash) else { return }
        for child in Self.byHash(children.compactMap { pending[$0] }) where pending[child.hash] != nil {
            pending[child.hash] = nil
            do { _ = try weighOnLeftOut(child, forked: device) } catch { refuse(child, error) }
        }
    }

    /// A record built on a left-out one (SECURITY.md §19.4): it waits while a parent is unknown; a
    /// record of another device than a left-out parent's backs that parent, so the replica is made
    /// again with it (the walk may keep both); any other is left out too, as built on the fork.
    private mutating func weighOnLeftOut(_ record: ChangeRecord, forked: DeviceID) throws(SyncError) -> ReceiveOutcome {
        // A remake since it was held may have kept its parents again: then it is taken as any record.
        if record.parents.allSatisfy(history.contains) {
            try settle(record)
            return .applied(1 + drainPending(after: record.hash))
        }
        guard record.parents.allSatisfy({ history.contains($0) || dropped[$0] != nil }) else {
            guard pending.count < Self.maximumPending else {
                throw SyncError(.tooManyPending, "over \(Self.maximumPending) records wait for their parents")
            }
            hold(record)
            return .held
        }
        // It backs a left-out parent of another device, or a held record of a fork more than it was.
        guard record.parents.contains(where: { dropped[$0].map { $0.record.device != record.device } ?? false }) || backsMore(record) else {
            leaveOut(record, forked: forked)
            throw SyncError(.equivocation, "record \(CausalHistory.short(record.hash)) is built on a fork of device \(forked)'s history")
        }
        try rebuild(taking: record)
        return .applied(1 + drainPending(after: record.hash))
    }

    /// Ends an exchange: records still waiting for parents are refused (`.missingParents`), or
    /// when a parent was left out by the fork rule, as built on a fork (`.equivocation`).
    public mutating func endExchange() {
        for record in Self.byHash(Array(pending.values)) where pending[record.hash] != nil {
            if let forked = forkedParent(of: record) {
                pending[record.hash] = nil
                leaveOut(record, forked: forked)
                refuse(record, SyncError(.equivocation, "record \(CausalHistory.short(record.hash)) is built on a fork of device \(forked)'s history"))
                continue
            }
            refuse(record, SyncError(.missingParents, "record \(CausalHistory.short(record.hash))'s parents never arrived"))
        }
        pending = [:]
        waiting = [:]
    }

    /// Leaves out a record built on a left-out one, naming the device that forked; unweighed with
    /// a parent that is (`unweighed`).
    private mutating func leaveOut(_ record: ChangeRecord, forked: DeviceID) {
        dropped[record.hash] = (record, forked)
        if record.parents.contains(where: unweighed.contains) { unweighed.insert(record.hash) }
    }

    /// Holds a record until its parents arrive, noted under each parent not held yet.
    private mutating func hold(_ record: ChangeRecord) {
        pending[record.hash] = record
        for parent in record.parents where !history.contains(parent) { waiting[parent, default: []].append(record.hash) }
    }

    static func byHash(_ records: [ChangeRecord]) -> [ChangeRecord] {
        records.sorted { $0.hash.lexicographicallyPrecedes($1.hash) }
    }

    private func check(_ record: ChangeRecord) throws(SyncError) {
        guard record.project == project else {
            throw SyncError(.unknownCompartment, "the record is for project \(record.project), which this replica holds no key for")
        }
        guard let key = devices[record.device] else { throw SyncError(.unknownDevice, "device \(record.device) is not one of the owner's paired devices") }
        guard record.isSigned(by: key) else { throw SyncError(.badSignature, "record \(CausalHistory.short(record.hash))'s signature does not verify under device \(record.device)'s key") }
        guard !history.contains(record.hash), pending[record.hash] == nil else {
            throw SyncError(.replayedRecord, "record \(CausalHistory.short(record.hash)) is held already")
        }
        // Left out by the fork rule before: it stays out while what left it out is held.
        if let device = dropped[record.hash]?.device {
            throw SyncError(.equivocation, "record \(CausalHistory.short(record.hash)) lost a fork of device \(device)'s history, or is built on one")
        }
    }

    /// A device's record and its number (SECURITY.md §19.4's fork rule keeps one record of each).
    private struct Number: Hashable {
        let device: DeviceID
        let counter: UInt64
    }

    /// Takes a record whose parents are held by the fork rule (SECURITY.md §19.4): when the replica
    /// knows another record of its device and number (a fork: a device restored from a backup, or a
    /// hostile one), or when the record backs a held record of a fork more than it was (the first of
    /// another device built on it, or the first of an own device), the replica is made again by the
    /// rule's walk over every record known.
    private mutating func settle(_ record: ChangeRecord) throws(SyncError) {
        let held = history.entry(device: record.device, counter: record.counter)
        guard held == nil, !numbersLeftOut.contains(Number(device: record.device, counter: record.counter)) else {
            guard !choosesNothing(record, held: held) else {
                unweighed.insert(record.hash)
                throw SyncError(.equivocation, "record \(CausalHistory.short(record.hash)) is one more record of device \(record.device)'s number \(record.counter), which it signed twice already: nothing of the owner's is built on it, so it is left out (SECURITY.md §19.4)")
            }
            return try rebuild(taking: record)
        }
        let backs = backsMore(record)
        try integrate(record)
        if backs { try rebuild(taking: nil) }
    }

    /// Whether `record`, of a device outside the own set and a number this replica knows two records
    /// of or more, is left out by SECURITY.md §19.4's rule 4 whatever is known, and its coming changes
    /// nothing the walk keeps: no known record is built on it, and the number's held record, if any,
    /// is built on by an own device (it stays; without one held, none is). Then it is refused without
    /// a remake (reviewer 13: each remake replays the project; a forker's third copy costs a check).
    private mutating func choosesNothing(_ record: ChangeRecord, held: Int?) -> Bool {
        guard !own.contains(record.device), waiting[record.hash] == nil else { return false }
        let rivals = dropped.values.filter { $0.record.device == record.device && $0.record.counter == record.counter }.count
        guard rivals + (held == nil ? 0 : 1) >= 2 else { return false }
        guard let held else { return true }
        return history.entries.indices.contains { other in
            let device = history.entries[other].record.device
            return device != record.device && own.contains(device) && history.precedes(held, other)
        }
    }

    /// The numbers of the records left out (`dropped`).
    private var numbersLeftOut: Set<Number> {
        mutating get {
            if let known = droppedNumbers { return known }
            let numbers = Set(dropped.values.map { Number(device: $0.record.device, counter: $0.record.counter) })
            droppedNumbers = numbers
            return numbers
        }
    }

    /// Whether `record` backs a held record of a contested number (one a left-out record also has)
    /// more than the held records do (SECURITY.md §19.4): it is of another device than that record's
    /// and built on it (through a held parent), and no held record of another device is, or none of
    /// an own device while its device is one. That can change the rule's walk; contested numbers are
    /// rare: nothing is looked at without one.
    private mutating func backsMore(_ record: ChangeRecord) -> Bool {
        let numbers = numbersLeftOut
        guard !numbers.isEmpty else { return false }
        let parents = record.parents.compactMap { history.index[$0] }
        for number in numbers where number.device != record.device {
            guard let held = history.entry(device: number.device, counter: number.counter),
                  parents.contains(where: { $0 == held || history.precedes(held, $0) }) else { continue }
            var backers = Set<DeviceID>()
            for other in history.entries.indices where other != held && history.entries[other].record.device != number.device
                && history.precedes(held, other) { backers.insert(history.entries[other].record.device) }
            if backers.isEmpty || (own.contains(record.device) && backers.isDisjoint(with: own)) { return true }
        }
        return false
    }

    /// How far a record of a contested number is backed (SECURITY.md §19.4): by a record of an own
    /// device other than its own, by one of any other device only, or by none.
    enum Backing: Int, Comparable {
        case none, other, own
        static func < (a: Backing, b: Backing) -> Bool { a.rawValue < b.rawValue }
    }

    /// SECURITY.md §19.4's weighing among `known`, for each contested number (another known record has
    /// its device and counter): a rival backed less than another is late (walked after all others); at a
    /// number a device outside the own set signed three times or more, a rival no own device built on is
    /// out (never kept: a device that signs one number again and again chooses nothing more); each with
    /// every record built on it.
    static func weigh(_ known: [ChangeRecord], own: Set<DeviceID>) -> (late: Set<[UInt8]>, out: Set<[UInt8]>) {
        var byNumber: [Number: [ChangeRecord]] = [:]
        for record in known { byNumber[Number(device: record.device, counter: record.counter), default: []].append(record) }
        let contested = byNumber.values.filter { $0.count > 1 }
        guard !contested.isEmpty else { return ([], []) }
        var children: [[UInt8]: [ChangeRecord]] = [:]
        for record in known { for parent in record.parents { children[parent, default: []].append(record) } }
        func backing(_ record: ChangeRecord) -> Backing {
            var seen: Set<[UInt8]> = [record.hash], frontier = [record], found = Backing.none
            while let next = frontier.popLast() {
                for child in children[next.hash] ?? [] where seen.insert(child.hash).inserted {
                    if child.device != record.device {
                        if own.contains(child.device) { return .own }
                        found = .other
                    }
                    frontier.append(child)
                }
            }
            return found
        }
        func withDescendants(_ roots: [ChangeRecord]) -> Set<[UInt8]> {
            var found = Set(roots.map(\.hash)), frontier = roots
            while let next = frontier.popLast() {
                for child in children[next.hash] ?? [] where found.insert(child.hash).inserted { frontier.append(child) }
            }
            return found
        }
        var late: [ChangeRecord] = [], out: [ChangeRecord] = []
        for rivals in contested {
            let levels = rivals.map(backing)
            let top = levels.max() ?? .none
            for (rival, level) in zip(rivals, levels) {
                if rivals.count >= 3 && !own.contains(rival.device) && level < .own { out.append(rival) } else if level < top { late.append(rival) }
            }
        }
        return (withDescendants(late), withDescendants(out))
    }

    /// The replica made again from every record known and `record` (when one is taken) by the fork
    /// rule's one walk (SECURITY.md §19.4): records not late first, then late ones, each part in rank
    /// order; a record is kept when every parent is kept and no kept record has its number. What was
    /// held and is not kept is refused (`equivocation`, naming the device that forked) and left out.
    /// The records kept before are not checked again (they were when they came); `record` is, as any
    /// record received, and when it is refused or not kept nothing changes.
    private mutating func rebuild(taking record: ChangeRecord?) throws(SyncError) {
        let all = history.entries.map(\.record) + dropped.values.map { $0.record } + (record.map { [$0] } ?? [])
        let (late, out) = Self.weigh(all, own: own)
        let known = all.sorted { a, b in
            late.contains(a.hash) != late.contains(b.hash) ? late.contains(b.hash) : Self.ranks(b, above: a)
        }
        var kept = Set<[UInt8]>(), numbers = Set<Number>(), lost: [[UInt8]: (record: ChangeRecord, device: DeviceID)] = [:]
        var fresh = SyncReplica(project: project, author: author, devices: devices, own: own)
        fresh.foldsEveryBlockAtMergePoints = foldsEveryBlockAtMergePoints
        for candidate in known {
            if let parent = candidate.parents.first(where: { !kept.contains($0) }) {
                lost[candidate.hash] = (candidate, lost[parent]?.device ?? candidate.device)
                continue
            }
            guard !out.contains(candidate.hash), numbers.insert(Number(device: candidate.device, counter: candidate.counter)).inserted else {
                lost[candidate.hash] = (candidate, candidate.device)
                continue
            }
            kept.insert(candidate.hash)
            guard candidate.hash != record?.hash else { continue }
            // Kept before and checked then; a record that no longer follows from what is kept goes.
            do { try fresh.integrate(candidate) } catch {
                kept.remove(candidate.hash)
                lost[candidate.hash] = (candidate, candidate.device)
            }
        }
        fresh.checksConflictClaims = checksConflictClaims
        fresh.attribution = attribution
        var leftOut: SyncError?
        if let record {
            if kept.contains(record.hash), record.parents.allSatisfy(fresh.history.contains) {
                try fresh.integrate(record)
            } else {
                // Left out, naming the device that forked (not its own signer when built on a fork).
                let device = lost[record.hash]?.device ?? record.device
                lost[record.hash] = (record, device)
                leftOut = SyncError(.equivocation, "record \(CausalHistory.short(record.hash)) loses device \(device)'s fork (SECURITY.md §19.4), or is built on a record that does")
                // Nothing else changed: the replica stays as it is. A third copy of a number can change
                // what else is kept (rule 4: none of its copies stays), and then the remake is taken.
                if kept == Set(history.entries.map(\.record.hash)) {
                    dropped[record.hash] = (record, device)
                    throw leftOut!
                }
                kept.remove(record.hash)
            }
        }
        fresh.refusals = refusals
        for hash in lost.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) where history.contains(hash) {
            let loser = lost[hash]!
            fresh.refusals.append(SyncRefusal(record: hash, error: SyncError(.equivocation,
                "record \(CausalHistory.short(hash)) leaves the replica: device \(loser.device) signed two histories and the fork rule keeps the other"),
                                              device: loser.device, forkedNumber: loser.record.device == loser.device ? loser.record.counter : nil))
        }
        let revived = dropped.keys.filter { kept.contains($0) }
        fresh.dropped = lost
        fresh.unweighed = unweighed.filter { lost[$0] != nil }
        fresh.pending = pending
        fresh.waiting = waiting
        self = fresh
        // Held records that waited on a record the walk now keeps again are taken.
        for hash in revived.sorted(by: { $0.lexicographicallyPrecedes($1) }) { _ = drainPending(after: hash) }
        // Held records waiting on a record now left out go with it.
        for hash in lost.keys.sorted(by: { $0.lexicographicallyPrecedes($1) }) where hash != record?.hash { dropWaiting(on: hash) }
        if let leftOut { throw leftOut }
    }

    /// The records the fork rule left out of this replica (SECURITY.md §19.4), by hash.
    public var droppedRecords: Set<[UInt8]> { Set(dropped.keys) }

    /// The left-out records a vault keeps (`sync_fork_left_out`, SECURITY.md §19.4), each with the
    /// device that forked, in hash order: every one the walk weighed, so that a replica made again
    /// in another process knows the copies this one knew (reviewer 13's fk3: a vault that forgot
    /// them took each new copy as the second, and kept one more branch per copy).
    public var leftOutToKeep: [(record: ChangeRecord, device: DeviceID)] {
        dropped.filter { !unweighed.contains($0.key) }.values.sorted { $0.record.hash.lexicographicallyPrecedes($1.record.hash) }
    }

    /// Takes back a left-out record the vault kept (`leftOutToKeep`), without a walk: the stored
    /// records are those the walk kept with it. One that is held, not this project's, or does not
    /// verify under its device's key is passed over (forgotten, as before it was kept).
    public mutating func recallLeftOut(_ record: ChangeRecord, forkedBy device: DeviceID) {
        guard record.project == project, !history.contains(record.hash), let key = devices[record.device], record.isSigned(by: key) else { return }
        dropped[record.hash] = (record, device)
    }

    /// Applies the held records that `applied` completes, and those they complete in turn, in
    /// waves (each in hash order); returns how many were applied. Each held record is woken only by
    /// the arrival of a parent it waits on, so a chain of thousands that came children first
    /// drains in one pass over it, not one pass over every held record per record applied.
    private mutating func drainPending(after applied: [UInt8]) -> Int {
        var count = 0, woken = [applied]
        while !woken.isEmpty {
            // Each woken record is looked at: one still lacking a parent waits again (`hold`), one whose
            // parent a remake left out is weighed (`weighOnLeftOut`), below.
            let ready = woken.flatMap { waiting.removeValue(forKey: $0) ?? [] }.compactMap { pending[$0] }
            woken = []
            for record in Self.byHash(ready) where pending[record.hash] != nil {
                pending[record.hash] = nil
                // A rebuild earlier in this wave may have left a parent out (SECURITY.md §19.4).
                guard record.parents.allSatisfy(history.contains) else {
                    guard let forked = forkedParent(of: record) else { hold(record); continue }
                    do {
                        if case .applied(let applied) = try weighOnLeftOut(record, forked: forked) { count += applied }
                    } catch { refuse(record, error) }
                    continue
                }
                do {
                    try settle(record)
                    count += 1
                    woken.append(record.hash)
                } catch { refuse(record, error) }
            }
        }
        return count
    }

    /// Checks the operations against what is held and against the record's past, admits the
    /// record, then applies its operations: a refused record changes nothing.
    private mutating func integrate(_ record: ChangeRecord) throws(SyncError) {
        var seenNodes = Set<NodeID>(), seenTexts = Set<BlockID>()
        var written: [BlockID: (document: NodeID, value: BlockValue)] = [:]
        for operation in record.operations {
            switch operation {
            case .block(let document, let id, let value):
                guard written.updateValue((document, value), forKey: id) == nil else { throw SyncByteReader.malformed("block \(id) written twice in one record") }
                try checkDocument(document, of: id)
            case .node(let id, _):
                guard seenNodes.insert(id).inserted else { throw SyncByteReader.malformed("node \(id) written twice in one record") }
            case .text(let document, let id, _):
                guard seenTexts.insert(id).inserted else { throw SyncByteReader.malformed("block \(id)'s text edited twice in one record") }
                guard case .present? = written[id]?.value, written[id]?.document == document else {
                    throw SyncByteReader.malformed("text edits of block \(id) without the block's value before them")
                }
            case .conflict, .version, .project: break
            }
        }
        let prepared = try history.prepare(record)
        // Worked out while every block's text is in place (the record's own edited texts are taken
        // out below): the conflicts it records, their losing words those of the records they name.
        let (operations, losers) = try recordedOperations(of: record, prepared: prepared, checked: checksConflictClaims)
        if let error = attribution?.check(record) { throw error }
        let joined = try versions.check(record) { [history] in history.precedes($0, prepared: prepared) }
        try ProjectRegisters.check(record)
        // The edited texts are taken out of their registers (so they change in place, not in a
        // copy) and put back, their edits undone, if the record is refused.
        var texts: [BlockID: TextSequence] = [:]
        let heldHistory = history
        for case .text(_, let id, _) in record.operations {
            // Its edits change its text parent's view (SECURITY.md §19.3): the cursor is moved there first.
            withBlockRegister(id) { $0.prepareText(for: prepared, history: heldHistory) }
            texts[id] = blocks[id]?.takeText() ?? TextSequence()
        }
        do {
            try edit(&texts, by: record, prepared: prepared)
        } catch {
            for (id, text) in texts {
                var text = text
                text.undo(Int32(history.entries.count))
                blocks[id]?.text = text
            }
            throw error
        }
        let entry = history.insert(prepared)
        attribution?.bind(record)
        for operation in operations { apply(operation, entry: entry) }
        mergePointScope.note(Array(written.keys), writtenBy: entry)
        foundedLosers.merge(losers) { held, _ in held }
        versions.apply(record, entry: entry, joined: joined)
        for (id, text) in texts { blocks[id]?.text = text }
        if record.parents.count >= 2 { noteMergePoint(entry) }
    }

    /// A record of two or more parents is a merge point (SECURITY.md §19.3): each block's fold of
    /// its maximal writes in the record's past makes its conflicts there, facts of that record.
    /// Only the blocks written since the merge record's device's previous record are folded there
    /// (`MergePointScope`): the others' conflicts are made already.
    private mutating func noteMergePoint(_ entry: Int) {
        let history = self.history
        let scope = foldsEveryBlockAtMergePoints ? nil : mergePointScope.blocks(toFoldAt: entry, history: history)
        let folded = scope.map { Array($0) } ?? Array(blocks.keys)
        mergePointScope.count(examined: folded.count)
        for id in folded {
            let made = withBlockRegister(id) { register in
                register.noteMergePoint(entry, history: history)
                return !register.made.isEmpty
            }
            if made == true { conflictedBlocks.insert(id) }
        }
    }

    private func checkDocument(_ document: NodeID, of block: BlockID) throws(SyncError) {
        if let register = blocks[block], register.document != document {
            throw SyncError(.blockMoved, "block \(block) belongs to document \(register.document), not \(document)")
        }
    }

    /// Applies `record`'s text edits to `texts`, checked against its past: every character it
    /// names is one it had seen.
    private func edit(_ texts: inout [BlockID: TextSequence], by record: ChangeRecord, prepared: CausalHistory.Entry) throws(SyncError) {
        let entry = Int32(history.entries.count)
        let history = self.history
        let inPast: (Int32) -> Bool = { history.precedes(Int($0), prepared: prepared) }
        let ranksAbove: (Int32) -> Bool = { Self.ranks(history.entries[Int($0)].record, above: record) }
        try checkTextWork(of: record, on: texts, inPast: inPast)
        var offset: UInt64 = 0
        for case .text(_, let id, let edits) in record.operations {
            for edit in edits {
                switch edit {
                case .insert(let anchor, let inserted):
                    let scalars = Array(inserted.unicodeScalars)
                    guard offset + UInt64(scalars.count) <= UInt64(UInt32.max) else { throw SyncByteReader.malformed("too many characters inserted") }
                    var after: (entry: Int32, offset: UInt32)? = nil
                    if let anchor { after = (try self.entry(of: anchor, in: record), anchor.offset) }
                    try texts[id]!.insert(scalars, entry: entry, device: Int32(prepared.device), firstOffset: UInt32(offset), after: after, inPast: inPast, ranksAbove: ranksAbove)
                    offset += UInt64(scalars.count)
                case .delete(let first, let last):
                    try texts[id]!.delete(from: (try self.entry(of: first, in: record), first.offset),
                                          through: (try self.entry(of: last, in: record), last.offset), by: entry, inPast: inPast)
                }
            }
        }
        // Each edited text now shows the record's own view.
        for case .text(_, let id, _) in record.operations { texts[id]!.cursor = entry }
    }

    /// Refuses a record whose text edits would cost more than one record may (SECURITY.md §19.2):
    /// a block holding over `TextSequence.maximumCharacters` characters in its past with those it
    /// types, or edits times those characters over `TextSequence.maximumWork` in all. Both counted
    /// in the record's past alone, so every device decides alike whatever else it holds.
    private func checkTextWork(of record: ChangeRecord, on texts: [BlockID: TextSequence], inPast: (Int32) -> Bool) throws(SyncError) {
        var work = 0
        for case .text(_, let id, let edits) in record.operations {
            let characters = texts[id]!.characters(seenBy: inPast) + Self.typed(by: edits)
            guard characters <= TextSequence.maximumCharacters else {
                throw SyncByteReader.malformed("block \(id)'s text would hold \(characters) characters, deleted ones included (at most \(TextSequence.maximumCharacters))")
            }
            work += edits.count * characters
        }
        guard work <= TextSequence.maximumWork else {
            throw SyncByteReader.malformed("text edits costing \(work) character steps (at most \(TextSequence.maximumWork): edits times their block's characters)")
        }
    }

    /// The characters (Unicode scalars) `edits` insert.
    static func typed(by edits: [TextEdit]) -> Int {
        var count = 0
        for case .insert(_, let text) in edits { count += text.unicodeScalars.count }
        return count
    }

    /// The characters block `id`'s text holds here, deleted ones included: a record committed now
    /// has them all in its past.
    func characterCount(of id: BlockID) -> Int { blocks[id]?.text.items.count ?? 0 }

    /// The history entry of the record that typed `character` (the record itself for its own characters).
    private func entry(of character: CharacterID, in record: ChangeRecord) throws(SyncError) -> Int32 {
        if character.device == record.device, character.counter == record.counter { return Int32(history.entries.count) }
        guard let entry = history.entry(device: character.device, counter: character.counter) else {
            throw SyncError(.causalityViolation, "a text edit names a character of a record it has not seen")
        }
        return Int32(entry)
    }

    /// SECURITY.md §19.3's rank: Lamport time, then device id, then hash.
    static func ranks(_ x: ChangeRecord, above y: ChangeRecord) -> Bool {
        if x.lamport != y.lamport { return x.lamport > y.lamport }
        if x.device != y.device { return y.device.bytes.lexicographicallyPrecedes(x.device.bytes) }
        return y.hash.lexicographicallyPrecedes(x.hash)
    }

    private mutating func apply(_ operation: ChangeOperation, entry: Int) {
        switch operation {
        case .node(let id, let value):
            nodes[id, default: NodeRegister()].add(value, entry: entry, history: history)
        case .block(let document, let id, let value):
            blocks[id, default: BlockRegister(id: id, document: document)].add(value, entry: entry, history: history)
            if blocks[id]!.heads.count >= 2 { multiHeadBlocks.insert(id) } else { multiHeadBlocks.remove(id) }
            blocksOfDocument[document, default: []].insert(id)
            resolved[id] = nil
        case .text:
            break  // applied with the record's other text edits, once checked
        case .version:
            break  // applied with the record's other version operations, their parts joined once (`VersionHistory.apply`)
        case .project(let operation):
            holdings.apply(operation, entry: entry, history: history)
        case .conflict(let conflict):
            if durableCarriers[conflict.branch].map({ history.ranksBelow(entry, $0) }) ?? true { durableCarriers[conflict.branch] = entry }
            // Two devices name a conflict's branch alike; a hostile one might not: keep the least encoding.
            if let held = durableConflicts[conflict.branch], Self.encoding(held).lexicographicallyPrecedes(Self.encoding(conflict)) { return }
            durableConflicts[conflict.branch] = conflict
        }
    }

    static func encoding(_ conflict: SyncConflict) -> [UInt8] {
        var out: [UInt8] = []
        // A held conflict came in a record that parsed (or that `ChangeRecord.make` parsed), so it encodes.
        try? ChangeRecordCodec.encode(.conflict(conflict), to: &out)
        return out
    }

    // MARK: What it shows

    /// The binder's documents and folders present, by id (a document kept despite its removal
    /// among them, `keptDespiteRemoval`).
    public var binder: [NodeID: NodeValue] { nodeValues().filter { $0.value != .removed } }

    /// The documents' ids, in id order.
    public var documents: [NodeID] {
        binder.compactMap { id, value in
            if case .present(.scene, _, _, _) = value { return id }
            return nil
        }.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// A document's blocks in order (by order key, then id), with their keys.
    public mutating func orderedBlocks(of document: NodeID) -> [(orderKey: String, block: Block)] {
        var present: [(orderKey: String, block: Block)] = []
        for id in blocksOfDocument[document] ?? [] {
            if case .present(let key, let block) = resolve(id).value { present.append((key, block)) }
        }
        return Self.inReadingOrder(present)
    }

    /// Blocks by order key (bytes), then id.
    static func inReadingOrder(_ blocks: [(orderKey: String, block: Block)]) -> [(orderKey: String, block: Block)] {
        blocks.sorted { a, b in
            a.orderKey == b.orderKey ? a.block.id.bytes.lexicographicallyPrecedes(b.block.id.bytes)
                : a.orderKey.utf8.lexicographicallyPrecedes(b.orderKey.utf8)  // bytes, no copy per comparison
        }
    }

    /// The document as the store keeps it: its blocks in order, each one the merge made longer than
    /// a block may be shown as itself and its continuations (`BlockOverflow`, SECURITY.md §19.3),
    /// up to the first block that would take the document past the store's bound (`DocumentOverflow`:
    /// that one and those after it are in the document's overflow branches, `overflow(of:)`).
    public mutating func content(of document: NodeID) -> DocumentContent {
        DocumentContent(blocks: BlockOverflow.split(DocumentOverflow.parted(orderedBlocks(of: document).map(\.block)).shown, besides: holdsBlock))
    }

    /// The document's blocks past the store's bound, in reading order, whole as the records hold them
    /// (none when it fits): what `content(of:)` does not show (`DocumentOverflow`).
    mutating func blocksPastBound(of document: NodeID) -> [Block] {
        DocumentOverflow.parted(orderedBlocks(of: document).map(\.block)).past
    }

    /// The document's overflow branches (SECURITY.md §19.3): the blocks past the store's bound in
    /// pieces as a document shows them, grouped into proposals within the bound, each with the name
    /// every device gives it (`DocumentOverflow.name`). None when the document fits.
    public mutating func overflow(of document: NodeID) -> [(name: BranchID, content: DocumentContent)] {
        let past = blocksPastBound(of: document)
        guard !past.isEmpty else { return [] }
        return DocumentOverflow.groups(BlockOverflow.split(past, besides: holdsBlock)).map { (DocumentOverflow.name(of: document, proposing: $0), $0) }
    }

    /// Whether the records hold a block of this id, in any document, present or removed: the ids
    /// a continuation never takes (`BlockOverflow`).
    var holdsBlock: (BlockID) -> Bool {
        let held = blocks
        return { held[$0] != nil }
    }

    /// Every conflict the records hold as a fact: those founded 0x03s record, those the merge
    /// points held make, and removal conflicts (SECURITY.md §19.3), by conflict id. Not the pending
    /// ones (`pendingConflicts`): no record makes those yet.
    public mutating func conflicts() -> [SyncConflict] {
        var all = durableConflicts
        for held in liveConflicts() where all[held.conflict.branch] == nil { all[held.conflict.branch] = held.conflict }
        return all.values.sorted { $0.branch.bytes.lexicographicallyPrecedes($1.branch.bytes) }
    }

    /// The conflicts the records make (not those only a 0x03 records): the merge points' and the
    /// removals', each with the record whose view its branch proposes.
    mutating func liveConflicts() -> [HeldConflict] {
        let history = self.history
        return conflictedBlocks.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.flatMap { id in
            withBlockRegister(id) { $0.madeConflicts(history: history) } ?? []
        } + removalConflicts()
    }

    /// The conflicts the fold of the current heads makes that no merge point held makes yet
    /// (SECURITY.md §19.3): the document shows the winner already, and a device that writes the
    /// project makes them facts with its next record (`commitJoin`).
    public var pendingConflicts: [SyncConflict] {
        mutating get { pendingHeld().map(\.conflict) }
    }

    mutating func pendingHeld() -> [HeldConflict] {
        // A block of one head shows its write: no conflict to be pending.
        multiHeadBlocks.sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }.flatMap { id in
            resolve(id).conflicts.filter { blocks[id]?.made[$0.conflict.branch] == nil }
        }
    }

    /// Whether block `id` has a present write that record `entry` had not seen.
    func hasPresentWrite(of id: BlockID, unseenBy entry: Int) -> Bool {
        blocks[id]?.writes.contains { $0.value != .deleted && !history.precedes($0.entry, entry) } ?? false
    }

    /// The value of block `id`'s highest-ranked present write concurrent with record `entry`, with
    /// the text its record saw; nil when there is none.
    mutating func valueConcurrent(with entry: Int, in id: BlockID) -> BlockValue? {
        guard var register = blocks.removeValue(forKey: id) else { return nil }
        defer { blocks[id] = register }
        return register.value(concurrentWith: entry, history: history)
    }

    func blockRegister(_ id: BlockID) -> BlockRegister? { blocks[id] }

    /// `body` on block `id`'s register in place (taken out and put back, so that what it remembers
    /// stays, rather than going with a copy); nil when the block was never written.
    mutating func withBlockRegister<Result>(_ id: BlockID, _ body: (inout BlockRegister) -> Result) -> Result? {
        guard var register = blocks.removeValue(forKey: id) else { return nil }
        defer { blocks[id] = register }
        return body(&register)
    }

    /// Block `id` as record `entry` saw it (`BlockRegister.value(seenBy:)`).
    mutating func blockValue(_ id: BlockID, seenBy entry: Int, before: Bool = false) -> BlockValue? {
        guard var register = blocks.removeValue(forKey: id) else { return nil }
        defer { blocks[id] = register }
        return register.value(seenBy: entry, before: before, history: history)
    }

    mutating func resolve(_ id: BlockID) -> (value: BlockValue, conflicts: [HeldConflict]) {
        if let known = resolved[id] { return known }
        // Taken out and put back, so its memo is mutated in place rather than in a copy.
        var register = blocks.removeValue(forKey: id)!
        let result = register.resolve(history: history)
        blocks[id] = register
        resolved[id] = result
        return result
    }

    func blockValue(_ id: BlockID) -> BlockValue? { resolved[id]?.value }
    /// The characters a block shows now, in order (none for a block never written): their scalars,
    /// and their names, asked for one at a time (`name(ofShown:in:)`) since an edit names a few.
    func characters(of id: BlockID) -> (scalars: [Unicode.Scalar], indices: [Int32]) { blocks[id]?.shownCharacters() ?? ([], []) }
    func name(ofShown index: Int32, in id: BlockID) -> CharacterID {
        let character = blocks[id]!.text.items[Int(index)]
        let record = history.entries[Int(character.entry)].record
        return CharacterID(device: record.device, counter: record.counter, offset: character.offset)
    }
    func document(ofBlock id: BlockID) -> NodeID? { blocks[id]?.document }
    /// A node's value as shown. Only a removed one can show otherwise than its register says (kept
    /// despite its removal, or above such a document), so only then is the whole binder worked out.
    func nodeValue(_ id: NodeID) -> NodeValue? {
        guard let value = nodes[id]?.value(history: history) else { return nil }
        return value == .removed ? nodeValues()[id] : value
    }

    // MARK: Local changes

    /// The conflicts the replica holds that no record has made durable yet, as operations (0x03).
    ///
    /// Only those a record can carry (`ChangeRecordCodec.isCarried`): a 0x03 holds both sides
    /// whole, and a block the merge made longer than a reader takes (`BlockOverflow`) would make a
    /// record every reader refuses and leave the project local-only on every device that records
    /// it (review 17 s10, N-s10-5). Such a conflict stays in each device's own branches, which
    /// every device that merged both sides works out alike; a device that meets it only resolved
    /// does not get its branch.
    mutating func undurableConflicts() -> [ChangeOperation] {
        var named = Set<BranchID>()
        return (liveConflicts() + pendingHeld()).map(\.conflict).filter { durableConflicts[$0.branch] == nil && named.insert($0.branch).inserted }
            .map(ChangeOperation.conflict).filter(ChangeRecordCodec.isCarried)
    }

    /// After records arrived: when conflicts are pending (`pendingConflicts`), this device's record
    /// naming every head, carrying them (0x03) with the other conflicts no record made durable yet,
    /// in as many records as they need (SECURITY.md §19.3). Its first record is a merge point, so
    /// the pending conflicts become facts; the joins of two devices that met one merge make no
    /// further join (each block's heads are unchanged, so nothing is pending). None when nothing is
    /// pending.
    public mutating func commitJoin() throws -> [ChangeRecord] {
        guard !pendingHeld().isEmpty else { return [] }
        var operations = undurableConflicts()
        if operations.isEmpty, let pending = pendingHeld().first?.conflict {
            // Both sides too long for a record (`ChangeRecordCodec.isCarried`): a join still names every
            // head, with an operation that changes nothing: the project's name as the records hold it,
            // or the kept side's value written again (a 0x02 without text keeps its text parent's view).
            if let name = holdings.name(history: history) {
                operations = [.project(.name(name))]
            } else {
                var kept = pending.winning
                if case .present(let key, let block) = kept { kept = .present(orderKey: key, block: Block(id: block.id, kind: block.kind, rows: block.rows)) }
                operations = [.block(document: pending.document, pending.block, kept)]
            }
        }
        var made: [ChangeRecord] = []
        for chunk in try VaultSync.chunks(operations) { made.append(try commit(chunk, carryingConflicts: false)) }
        return made + (try joinHeads())
    }

    /// Makes, signs and applies this device's record of `operations`, adding every conflict the
    /// replica holds that no record has made durable yet (so that a write resolving a conflict
    /// carries the losing side's words with it), unless `carryingConflicts` is false (the caller
    /// cut them into records of their own, `VaultSync.commitInRecords`). A record the codec would
    /// refuse (over 4,096 operations or `ChangeRecordCodec.maximumSize`) is never made (`invalidChange`).
    public mutating func commit(_ operations: [ChangeOperation], carryingConflicts: Bool = true) throws -> ChangeRecord {
        guard let author else { throw SyncError(.invalidChange, "this replica only receives: it has no device key") }
        // Records are at most 2^63 - 1 in both (the codec refuses more): past that, nothing more is
        // committed rather than wrap (or trap).
        guard history.maximumLamport < ChangeRecordCodec.maximumTime, history.counter(of: author.device) < ChangeRecordCodec.maximumTime else {
            throw SyncError(.invalidChange, "project \(project)'s Lamport time or this device's counter is at its largest: nothing more can be committed")
        }
        let conflicts = carryingConflicts ? undurableConflicts() : []
        let counter = history.counter(of: author.device) + 1
        let record = try ChangeRecord.make(project: project, author: author, counter: counter,
                                           lamport: history.maximumLamport + 1,
                                           parents: headsToName,
                                           operations: Self.namingOwnCharacters(in: operations + conflicts, device: author.device, counter: counter))
        try integrate(record)
        return record
    }

    /// The heads a record of this device names (its parents): every one, or when there are more
    /// than a record names (`ChangeRecordCodec.maximumParents`: 65 signers none of whose latest
    /// records saw the others), the highest-ranked (Lamport time, device, hash), so the device's
    /// own latest record first; `joinHeads` names the rest (review 17 s10, N-s10-3).
    var headsToName: [[UInt8]] {
        history.heads.sorted { history.ranksBelow($1, $0) }.prefix(ChangeRecordCodec.maximumParents).map { history.entries[$0].record.hash }
    }

    /// After a commit that could not name every head: records of this device, each naming the one
    /// before it and up to 63 heads more, until one record follows every record held (SECURITY.md
    /// §19.2). A record holds at least one operation, and a join has nothing of its own to say, so
    /// each writes the project's name as the records hold it (the same name: nothing changes). None
    /// when one head is left, as after every commit of at most 64 heads. A replica holding no name
    /// (no record ever set one) cannot join: `invalidChange`, as a commit past 64 heads was before.
    public mutating func joinHeads() throws -> [ChangeRecord] {
        var joins: [ChangeRecord] = []
        while history.heads.count > 1 {
            guard let name = holdings.name(history: history) else {
                throw SyncError(.invalidChange, "project \(project) has \(history.heads.count) heads and no name a record could join them with")
            }
            joins.append(try commit([.project(.name(name))], carryingConflicts: false))
        }
        return joins
    }
}

extension SyncReplica {
    /// `operations` with each insert anchored on the record's own character by counter 0
    /// (`LocalChanges.ownCharacter`: an offset among its 0x04 operation's inserts) named in full:
    /// the record's counter, and the offset among all the record's inserts (SECURITY.md §19.2).
    static func namingOwnCharacters(in operations: [ChangeOperation], device: DeviceID, counter: UInt64) -> [ChangeOperation] {
        var typed: UInt32 = 0
        return operations.map { operation in
            guard case .text(let document, let block, let edits) = operation else { return operation }
            let base = typed
            return .text(document: document, block, edits.map { edit in
                guard case .insert(let anchor, let text) = edit else { return edit }
                typed += UInt32(text.unicodeScalars.count)
                guard let anchor, anchor.counter == 0, anchor.device == device else { return edit }
                return .insert(after: CharacterID(device: device, counter: counter, offset: base + anchor.offset), text: text)
            })
        }
    }
}

/// What became of a received record.
public enum ReceiveOutcome: Sendable, Equatable {
    /// Applied, with this many records in all (itself and the held ones it completed).
    case applied(Int)
    /// Held until its parents arrive.
    case held
    case refused(SyncError)
}

/// A refused record: its hash when it parsed far enough to have one, and why.
public struct SyncRefusal: Sendable, Equatable {
    public let record: [UInt8]?
    public let error: SyncError
    /// The device the record names (for a fork, the device that forked), when it parsed.
    public let device: DeviceID?
    /// For a held record of the forking device that the fork rule took out of the replica (SECURITY.md
    /// §19.4): its number, so that the exchange names where the fork is though no peer sent it.
    public let forkedNumber: UInt64?

    public init(record: [UInt8]?, error: SyncError, device: DeviceID? = nil, forkedNumber: UInt64? = nil) {
        self.record = record
        self.error = error
        self.device = device
        self.forkedNumber = forkedNumber
    }
}

/// A binder node's history: last writer (highest rank among the heads) wins.
struct NodeRegister: Sendable {
    private var writes: [(entry: Int, value: NodeValue)] = []
    private var heads: [Int] = []

    mutating func add(_ value: NodeValue, entry: Int, history: CausalHistory) {
        heads.removeAll { history.precedes(writes[$0].entry, entry) }
        heads.append(writes.count)
        writes.append((entry, value))
    }

    func value(history: CausalHistory) -> NodeValue { winner(history: history).value }

    /// The head of highest rank: its record's history entry and its value.
    func winner(history: CausalHistory) -> (entry: Int, value: NodeValue) {
        let winner = heads.max { history.ranksBelow(writes[$0].entry, writes[$1].entry) }!
        return writes[winner]
    }

    /// The value of the highest-ranked write that left the node present, if any did.
    func lastPresent(history: CausalHistory) -> NodeValue? {
        writes.filter { $0.value != .removed }.max { history.ranksBelow($0.entry, $1.entry) }?.value
    }

    /// The history entries of the writes that removed the node.
    var removals: [Int] { writes.filter { $0.value == .removed }.map(\.entry) }

    /// The heads (writes no later write of the node has in its past): history entry and value.
    var headWrites: [(entry: Int, value: NodeValue)] { heads.map { writes[$0] } }
}
