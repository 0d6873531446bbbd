import CryptoVault

/// The records a replica holds, as a causal graph: each record's version vector (how many records
/// of each device are in its past, itself included), so "is A in B's past" is one comparison
/// (SECURITY.md §19.3). Records are admitted parents first; a device's records form one chain, so
/// holding a device's n-th record means holding its first n, and the replica's version vector
/// says exactly what it holds.
struct CausalHistory: Sendable {
    struct Entry: Sendable {
        let record: ChangeRecord
        let device: Int
        /// Records of device i in this record's past, itself included.
        let clock: [UInt64]

        func includes(device: Int, counter: UInt64) -> Bool { device < clock.count && clock[device] >= counter }
    }

    private(set) var entries: [Entry] = []
    private(set) var index: [[UInt8]: Int] = [:]
    private(set) var devices: [DeviceID] = []
    private var deviceIndex: [DeviceID: Int] = [:]
    /// Each device's entries by counter (a device's records are admitted in counter order).
    private var entriesOfDevice: [[Int]] = []
    /// Entries that are no record's parent: the parents of the next local record.
    private(set) var heads: Set<Int> = []
    /// The highest counter held of each device (by index).
    private(set) var clock: [UInt64] = []
    private(set) var maximumLamport: UInt64 = 0

    /// How far a record's Lamport time may be above its parents' greatest (SECURITY.md §19.4).
    static let maximumLamportStep: UInt64 = 1 << 32

    func contains(_ hash: [UInt8]) -> Bool { index[hash] != nil }

    /// Whether entry `a` is in entry `b`'s past (or is `b`).
    func precedes(_ a: Int, _ b: Int) -> Bool {
        entries[b].includes(device: entries[a].device, counter: entries[a].record.counter)
    }

    /// The order concurrent changes are settled in: Lamport time, then device id, then hash.
    func ranksBelow(_ a: Int, _ b: Int) -> Bool {
        let x = entries[a].record, y = entries[b].record
        if x.lamport != y.lamport { return x.lamport < y.lamport }
        if x.device != y.device { return x.device.bytes.lexicographicallyPrecedes(y.device.bytes) }
        return x.hash.lexicographicallyPrecedes(y.hash)
    }

    /// The replica's version vector: the highest counter held per device.
    var versionVector: [DeviceID: UInt64] {
        Dictionary(uniqueKeysWithValues: devices.enumerated().map { ($1, clock[$0]) })
    }

    func counter(of device: DeviceID) -> UInt64 { deviceIndex[device].map { clock[$0] } ?? 0 }

    /// Admits a record whose parents are all held, checking that its counter and Lamport time
    /// follow from them: anything else is a rewritten history or a cycle (`.causalityViolation`).
    mutating func admit(_ record: ChangeRecord) throws(SyncError) -> Int {
        insert(try prepare(record))
    }

    /// The entry `record` would be, checked against what is held, without admitting it (so that
    /// its operations can be checked against its past first).
    func prepare(_ record: ChangeRecord) throws(SyncError) -> Entry {
        let parents = record.parents.map { index[$0]! }
        let device = deviceIndex[record.device] ?? devices.count
        var merged = [UInt64](repeating: 0, count: max(devices.count, device + 1))
        for parent in parents {
            for (i, value) in entries[parent].clock.enumerated() where value > merged[i] { merged[i] = value }
        }
        let lamport = parents.map { entries[$0].record.lamport }.max() ?? 0
        guard record.lamport > lamport else {
            throw SyncError(.causalityViolation, "record \(Self.short(record.hash)) is not later than its parents (Lamport \(record.lamport) ≤ \(lamport))")
        }
        // A device's own records are one above their parents; a leap far beyond would win every
        // register and, repeated, use up the Lamport times every later record needs.
        guard record.lamport - lamport <= Self.maximumLamportStep else {
            throw SyncError(.causalityViolation, "record \(Self.short(record.hash)) leaps \(record.lamport - lamport) Lamport times past its parents (at most \(Self.maximumLamportStep))")
        }
        // Every record of the device up to its highest counter is held: another with one of those
        // counters (and another hash) is a fork of the device's history.
        guard device >= clock.count || clock[device] < record.counter else {
            throw SyncError(.equivocation, "device \(record.device) already has a record \(record.counter): a second one forks its history")
        }
        guard record.counter == merged[device] + 1 else {
            throw SyncError(.causalityViolation,
                            "record \(Self.short(record.hash)) is device \(record.device)'s number \(record.counter), but its parents hold \(merged[device]) of its records")
        }
        merged[device] = record.counter
        return Entry(record: record, device: device, clock: merged)
    }

    /// Whether entry `a` is in the past of the prepared entry `b` (not admitted yet), or is it.
    func precedes(_ a: Int, prepared b: Entry) -> Bool {
        a == entries.count || b.includes(device: entries[a].device, counter: entries[a].record.counter)
    }

    /// The entry of `device`'s `counter`-th record, if held.
    func entry(device: DeviceID, counter: UInt64) -> Int? {
        guard let index = deviceIndex[device], counter >= 1, counter <= UInt64(entriesOfDevice[index].count) else { return nil }
        return entriesOfDevice[index][Int(counter - 1)]
    }

    @discardableResult
    mutating func insert(_ entry: Entry) -> Int {
        let record = entry.record, device = entry.device
        if device == devices.count {
            devices.append(record.device)
            deviceIndex[record.device] = device
            clock.append(0)
            entriesOfDevice.append([])
        }
        let id = entries.count
        entries.append(entry)
        index[record.hash] = id
        for parent in record.parents { heads.remove(index[parent]!) }
        heads.insert(id)
        clock[device] = max(clock[device], record.counter)
        entriesOfDevice[device].append(id)
        maximumLamport = max(maximumLamport, record.lamport)
        return id
    }

    static func short(_ hash: [UInt8]) -> String { ByteEncoding.hex(Array(hash.prefix(8))) }
}
