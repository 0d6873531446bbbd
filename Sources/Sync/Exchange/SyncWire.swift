import CryptoVault
import Writing

/// The messages of the sync exchange (SECURITY.md §19.9), each a request or an answer body on the
/// paired devices' channel (§9.9). Big-endian; every body starts with the version byte; nothing may
/// follow the last field; ids in a list are strictly ascending, so each message has one encoding.
///
///     vector  = count:u16 (0...1024) (device:16 counter:u64 (≥ 1))*
///     tips    = count:u16 (0...512) (device:16 hash:32)*                   (each device one of the vector's)
///     records = count:u32 (0...4096) (length:u32 (1...4 MiB) record)*        (a record: §19.2, at most 4 MiB − 64 KiB)
///     offer   = project:16 access:u8 (1 mine, 2 editor, 3 viewer) origin:16 (zeros: none; else not mine)
///               role-since:u64 (0...2^63-1; 0 for mine) privileged:u8 (0, 1)
///               kind:u8 (1 document, 2 long-form) register:str8 (1...32) name:str16 (1...512)
///               roster:u16 (0...256) (device:16 signing-key:32 noise-key:32)*
///
///     sync.projects  request 0x03 (held)? (after:16)?       answer 0x03 more:u8 count:u16 (0...64) offer*   (more: count ≥ 1)
///     held    = count:u16 (1...1024) project:16*  (ascending, after `after`; 1 byte: first page, 17: after, else held)
///               an answer's offer of a held project has name-length 0 (not described), only in sync.projects
///     sync.offer     request 0x03 count:u16 (0...64) offer*  answer 0x03 count:u16 (0...64) (project:16 taken:u8)*
///     sync.pull      request 0x03 project:16 vector tips    answer 0x03 more:u8 vector tips records
///     sync.push      request 0x03 project:16 records        answer 0x03 stored:u32 count:u16 reason:str8*
///     sync.demotions request 0x03 demotions                 answer 0x03 demotions
///     demotions = count:u16 (0...256) (device:16 signing-key:32 demoted-at:u64 (0...2^63-1) demoted-by:16 signature:64)*
///
/// Version 2 (attack review s7, A8): offers had gained `origin` while the byte stayed 1, so a
/// device of version 1 would read an offer's fields at the wrong places. Each side refuses a
/// message of another version whole, naming its version. Still version 2 (never released before it):
/// the projects list is paged (review 17 s8, F15), `after` the last project of the page before,
/// each page's offers after it; an asker offers its own projects in pages of as many; the
/// owner's own devices pass on the devices the owner demoted (`sync.demotions`, review 17 s8, F4). Still
/// version 2: a pull's vector came with `tips`, the hash of the sender's record at each device's
/// counter (review 17 s10, N-s10-4 (c)), so a fork whose two records have one number is seen at
/// once instead of hidden by equal counters. Still version 2: a projects request names the projects
/// the asker holds, whose offers come without a name (review 17 s10, N-s10-6: the answerer read each
/// privileged project's name in a session to describe it to a device that held it).
///
/// Version 3 (issue 17 s18): the merge rule of block conflicts (SECURITY.md §19.3) and record body
/// version 2 (§19.2). The messages are version 2's; the byte changed because the same records show
/// other documents under the new rule, so a device of version 2 must be refused, naming the device
/// to update (`SyncVersionRefusal`), never left to diverge in silence.
public enum SyncWire {
    public static let version: UInt8 = 3
    public static let projectsKind = "sync.projects"
    public static let offerKind = "sync.offer"
    public static let pullKind = "sync.pull"
    public static let pushKind = "sync.push"
    public static let demotionsKind = "sync.demotions"
    public static let kinds = [projectsKind, offerKind, pullKind, pushKind, demotionsKind]

    public static let maximumDevices = 1024
    /// Tips in one pull message: with a vector of 1,024 devices (24,578 bytes) the tips of 512
    /// (24,578 bytes) still leave a batch its budget below `maximumMessage`.
    public static let maximumTips = 512
    public static let maximumRecords = 4096
    /// Offers in one message. Each offered project's compartment is named in the one egress
    /// decision that releases the message (33 bytes each in a detail of at most 4,096: at most 124),
    /// and 64 offers of full rosters (about 21 KiB each) fit a message many times.
    public static let maximumOffers = 64
    /// Pages of `sync.projects` one run asks for: 65,536 projects.
    public static let maximumPages = 1024
    public static let maximumRoster = 256
    /// Demotions in one `sync.demotions` list, and held from own devices (what a roster holds).
    public static let maximumDemotions = maximumRoster
    public static let maximumNameBytes = 512
    public static let maximumReasons = 4096
    /// The channel's largest body (§9.9): no message is longer.
    public static let maximumMessage = 4 << 20
    /// What a batch of records may fill: the largest record a vault takes with its length, so every
    /// record held can travel (alone, if need be). The rest of the largest message (a pull answer's
    /// version, flag, a vector of 1,024 devices, 512 tips and the count: 49,162 bytes) fits in the 64 KiB the
    /// codec leaves below `maximumMessage`.
    public static let batchBudget = ChangeRecordCodec.maximumSize + 4
    /// The wire's bound on one record's length: the message's. A record the codec refuses (over its
    /// `maximumSize`) still parses as part of the message, and is refused on its own
    /// (`malformedRecord`, recorded) while the rest of the batch is taken.
    public static let maximumRecordLength = maximumMessage

    // MARK: Version vectors

    public static func encode(_ vector: [DeviceID: UInt64], to out: inout [UInt8]) {
        let entries = vector.filter { $0.value > 0 }.sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
        SyncWireReader.append(UInt64(entries.count), size: 2, to: &out)
        for (device, counter) in entries {
            out += device.bytes
            SyncWireReader.append(counter, size: 8, to: &out)
        }
    }

    static func vector(_ reader: inout SyncWireReader) throws(SyncExchangeError) -> [DeviceID: UInt64] {
        let count = try reader.count(2, maximum: maximumDevices, itemSize: 24, "devices in a version vector")
        var vector: [DeviceID: UInt64] = [:]
        var last: [UInt8]? = nil
        for _ in 0..<count {
            let device = try reader.identifier(DeviceID.self)
            guard last.map({ $0.lexicographicallyPrecedes(device.bytes) }) ?? true else {
                throw SyncWireReader.malformed("a version vector's devices are not strictly ascending")
            }
            last = device.bytes
            vector[device] = try reader.integer(8, in: 1...UInt64(Int64.max), "a counter")
        }
        return vector
    }

    // MARK: Tips

    /// `tips`: the hash of the sender's record at each device's counter of its vector, of the first
    /// `maximumTips` devices by id that it names.
    public static func encode(tips: [DeviceID: [UInt8]], of vector: [DeviceID: UInt64], to out: inout [UInt8]) {
        let entries = kept(tips, of: vector).sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }
        SyncWireReader.append(UInt64(entries.count), size: 2, to: &out)
        for (device, hash) in entries { out += device.bytes + hash }
    }

    /// The tips a message keeps: 32-byte hashes of devices its vector names, the first
    /// `maximumTips` by id (so a message equals what it parses back to).
    static func kept(_ tips: [DeviceID: [UInt8]], of vector: [DeviceID: UInt64]) -> [DeviceID: [UInt8]] {
        let entries = tips.filter { vector[$0.key] != nil && $0.value.count == 32 }
            .sorted { $0.key.bytes.lexicographicallyPrecedes($1.key.bytes) }.prefix(maximumTips)
        return Dictionary(uniqueKeysWithValues: entries.map { ($0.key, $0.value) })
    }

    static func tips(_ reader: inout SyncWireReader, of vector: [DeviceID: UInt64]) throws(SyncExchangeError) -> [DeviceID: [UInt8]] {
        let count = try reader.count(2, maximum: maximumTips, itemSize: 48, "tips")
        var tips: [DeviceID: [UInt8]] = [:]
        var last: [UInt8]? = nil
        for _ in 0..<count {
            let device = try reader.identifier(DeviceID.self)
            guard last.map({ $0.lexicographicallyPrecedes(device.bytes) }) ?? true else {
                throw SyncWireReader.malformed("a pull's tips are not strictly ascending")
            }
            guard vector[device] != nil else { throw SyncWireReader.malformed("a tip names a device its vector does not") }
            last = device.bytes
            tips[device] = try reader.take(32)
        }
        return tips
    }

    // MARK: Record lists

    public static func encode(records: [[UInt8]], to out: inout [UInt8]) {
        SyncWireReader.append(UInt64(records.count), size: 4, to: &out)
        for record in records {
            SyncWireReader.append(UInt64(record.count), size: 4, to: &out)
            out += record
        }
    }

    static func records(_ reader: inout SyncWireReader) throws(SyncExchangeError) -> [[UInt8]] {
        let count = try reader.count(4, maximum: maximumRecords, itemSize: 5, "records")
        var records: [[UInt8]] = []
        for _ in 0..<count {
            let length = Int(try reader.integer(4, in: 1...UInt64(maximumRecordLength), "a record length"))
            records.append(try reader.take(length))
        }
        return records
    }

    /// The longest prefix of `records` that fits a batch; at least one when the first fits a message.
    public static func batch(_ records: ArraySlice<[UInt8]>) throws(SyncExchangeError) -> ArraySlice<[UInt8]> {
        var size = 0, end = records.startIndex
        while end < records.endIndex, end - records.startIndex < maximumRecords {
            size += 4 + records[end].count
            guard size <= batchBudget else { break }
            end += 1
        }
        if end == records.startIndex, let first = records.first {
            throw SyncExchangeError(.recordTooLarge, "a change record of \(first.count) bytes is larger than a sync message can carry")
        }
        return records[records.startIndex..<end]
    }
}
