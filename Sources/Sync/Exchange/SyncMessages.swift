import CryptoVault
import Writing

/// What a device may do with a project it syncs with another (SECURITY.md §19.9): the owner's own
/// device does everything; a device the project is shared with does what its share grant's role says.
public enum SyncAccess: UInt8, Sendable, CaseIterable {
    case mine = 1, editor = 2, viewer = 3

    public var name: String {
        switch self {
        case .mine: "mine"
        case .editor: "editor"
        case .viewer: "viewer"
        }
    }

    /// Whether records from a device with this access are taken.
    public var writes: Bool { self != .viewer }
}

/// A device whose change records a project takes, as the device offering the project vouches for it:
/// its id must be the one its two public keys derive (`DeviceProfile.deriveIdentifier`).
public struct SyncRosterEntry: Sendable, Equatable {
    public let device: DeviceID
    public let signingKey: [UInt8]
    public let noiseKey: [UInt8]

    public init(device: DeviceID, signingKey: [UInt8], noiseKey: [UInt8]) {
        self.device = device
        self.signingKey = signingKey
        self.noiseKey = noiseKey
    }
}

/// One project a device offers a peer: enough for the peer to make the project (id, kind, register,
/// privileged flag, name) and to check its records (the roster), and whose project it is (`origin`).
public struct SyncProjectOffer: Sendable, Equatable {
    public let project: ProjectID
    public let access: SyncAccess
    /// nil: the project is the offering device's owner's own (made on one of the owner's devices, or
    /// received from one as such). Else the device it came from, someone else's that shared it with
    /// the offering device's owner: to an own device `access` is then the role that device gave
    /// (editor or viewer, never mine), so an owner's other devices hold it as its owner allowed
    /// (SECURITY.md §19.9, "Whose project it is").
    public let origin: DeviceID?
    /// When the project's origin set the role `access` says, by the origin's clock (seconds since
    /// the Unix epoch, as its share of the project was granted: `sync_shares.granted_at`), so a
    /// device given the role by several devices can tell the newer word; 0 when not known, and
    /// always for access `mine` (SECURITY.md §19.9, "Whose project it is").
    public let roleSince: UInt64
    public let privileged: Bool
    public let kind: ProjectKind
    public let register: Register
    /// Empty only in a `sync.projects` answer, for a project the request said the asker holds: not
    /// described (its name was read in a privileged session for nothing; review 17 s10, N-s10-6).
    public let name: String
    public let roster: [SyncRosterEntry]

    public init(project: ProjectID, access: SyncAccess, origin: DeviceID? = nil, roleSince: UInt64 = 0, privileged: Bool, kind: ProjectKind,
                register: Register, name: String, roster: [SyncRosterEntry]) {
        self.project = project
        self.access = access
        self.origin = origin
        self.roleSince = access == .mine ? 0 : roleSince
        self.privileged = privileged
        self.kind = kind
        self.register = register
        self.name = name
        self.roster = roster.sorted { $0.device.bytes.lexicographicallyPrecedes($1.device.bytes) }
    }

    static func kindByte(_ kind: ProjectKind) -> UInt8 { kind == .document ? 1 : 2 }

    /// The origin field of an offer of the offering owner's own project: 16 zero bytes.
    static let noOrigin = [UInt8](repeating: 0, count: 16)

    func encode(to out: inout [UInt8]) {
        out += project.bytes + [access.rawValue] + (origin?.bytes ?? Self.noOrigin)
        SyncWireReader.append(roleSince, size: 8, to: &out)
        out += [privileged ? 1 : 0, Self.kindByte(kind)]
        let register = Array(self.register.rawValue.utf8), name = Array(self.name.utf8)
        out.append(UInt8(register.count))
        out += register
        SyncWireReader.append(UInt64(name.count), size: 2, to: &out)
        out += name
        SyncWireReader.append(UInt64(roster.count), size: 2, to: &out)
        for entry in roster { out += entry.device.bytes + entry.signingKey + entry.noiseKey }
    }

    /// `undescribed`: a name of length 0 is read as none (a `sync.projects` answer's offer).
    static func parse(_ reader: inout SyncWireReader, undescribed: Bool = false) throws(SyncExchangeError) -> SyncProjectOffer {
        let project = try reader.identifier(ProjectID.self)
        guard let access = SyncAccess(rawValue: UInt8(try reader.integer(1))) else { throw SyncWireReader.malformed("an unknown access") }
        let named = try reader.identifier(DeviceID.self)
        let origin = named.bytes == noOrigin ? nil : named
        // A project that came from someone else's device is never the offering owner's to give as `mine`.
        guard origin == nil || access != .mine else { throw SyncWireReader.malformed("an offer of access mine that names an origin") }
        let roleSince = try reader.integer(8, in: 0...UInt64(Int64.max), "a role's time")
        guard roleSince == 0 || access != .mine else { throw SyncWireReader.malformed("an offer of access mine that gives a role's time") }
        let privileged = try reader.integer(1, in: 0...1, "a privileged flag") == 1
        let kind: ProjectKind = try reader.integer(1, in: 1...2, "a project kind") == 1 ? .document : .longForm
        let registerLength = Int(try reader.integer(1, in: 1...32, "a register's length"))
        guard let register = Register(rawValue: String(decoding: try reader.take(registerLength), as: UTF8.self)) else {
            throw SyncWireReader.malformed("an unknown register")
        }
        let nameLength = Int(try reader.integer(2, in: (undescribed ? 0 : 1)...UInt64(SyncWire.maximumNameBytes), "a name's length"))
        guard let name = String(validating: try reader.take(nameLength), as: UTF8.self),
              name.precomposedStringWithCanonicalMapping == name,
              !name.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw SyncWireReader.malformed("a project name that is not NFC UTF-8 without control characters")
        }
        let count = try reader.count(2, maximum: SyncWire.maximumRoster, itemSize: 80, "roster entries")
        var roster: [SyncRosterEntry] = []
        for _ in 0..<count {
            let entry = SyncRosterEntry(device: try reader.identifier(DeviceID.self), signingKey: try reader.take(32), noiseKey: try reader.take(32))
            guard roster.last.map({ $0.device.bytes.lexicographicallyPrecedes(entry.device.bytes) }) ?? true else {
                throw SyncWireReader.malformed("a roster's devices are not strictly ascending")
            }
            guard DeviceProfile.deriveIdentifier(signingPublicKey: entry.signingKey, noisePublicKey: entry.noiseKey) == entry.device else {
                throw SyncWireReader.malformed("a roster entry's id is not the one its keys derive")
            }
            roster.append(entry)
        }
        return SyncProjectOffer(project: project, access: access, origin: origin, roleSince: roleSince, privileged: privileged, kind: kind,
                                register: register, name: name, roster: roster)
    }
}

/// `sync.projects` and `sync.offer`: lists of offers, at most `SyncWire.maximumOffers` in one message
/// (a page: review 17 s8, F15).
public enum SyncOffers {
    public static func serialize(_ offers: [SyncProjectOffer]) -> [UInt8] {
        var out: [UInt8] = [SyncWire.version]
        encode(offers, to: &out)
        return out
    }

    public static func parse(_ bytes: [UInt8]) throws(SyncExchangeError) -> [SyncProjectOffer] {
        var reader = SyncWireReader(bytes)
        try reader.version()
        let offers = try list(&reader)
        try reader.end()
        return offers
    }

    static func encode(_ offers: [SyncProjectOffer], to out: inout [UInt8]) {
        let sorted = offers.sorted { $0.project.bytes.lexicographicallyPrecedes($1.project.bytes) }
        SyncWireReader.append(UInt64(sorted.count), size: 2, to: &out)
        for offer in sorted { offer.encode(to: &out) }
    }

    /// `undescribed`: offers may come without a name (a `sync.projects` answer; never `sync.offer`,
    /// whose offers make projects on the answerer).
    static func list(_ reader: inout SyncWireReader, undescribed: Bool = false) throws(SyncExchangeError) -> [SyncProjectOffer] {
        let count = try reader.count(2, maximum: SyncWire.maximumOffers, itemSize: 40, "projects")
        var offers: [SyncProjectOffer] = []
        for _ in 0..<count {
            let offer = try SyncProjectOffer.parse(&reader, undescribed: undescribed)
            guard offers.last.map({ $0.project.bytes.lexicographicallyPrecedes(offer.project.bytes) }) ?? true else {
                throw SyncWireReader.malformed("the projects are not strictly ascending")
            }
            offers.append(offer)
        }
        return offers
    }

    /// The answer to `sync.offer`: each project offered, and whether it is now held.
    public static func serializeTaken(_ taken: [(ProjectID, Bool)]) -> [UInt8] {
        var out: [UInt8] = [SyncWire.version]
        let sorted = taken.sorted { $0.0.bytes.lexicographicallyPrecedes($1.0.bytes) }
        SyncWireReader.append(UInt64(sorted.count), size: 2, to: &out)
        for (project, held) in sorted { out += project.bytes + [held ? 1 : 0] }
        return out
    }

    public static func parseTaken(_ bytes: [UInt8]) throws(SyncExchangeError) -> [ProjectID: Bool] {
        var reader = SyncWireReader(bytes)
        try reader.version()
        let count = try reader.count(2, maximum: SyncWire.maximumOffers, itemSize: 17, "projects")
        var taken: [ProjectID: Bool] = [:]
        var last: [UInt8]? = nil
        for _ in 0..<count {
            let project = try reader.identifier(ProjectID.self)
            guard last.map({ $0.lexicographicallyPrecedes(project.bytes) }) ?? true else {
                throw SyncWireReader.malformed("the projects are not strictly ascending")
            }
            last = project.bytes
            taken[project] = try reader.integer(1, in: 0...1, "a taken flag") == 1
        }
        try reader.end()
        return taken
    }
}

/// `sync.pull`: what the asker holds of a project; the answer, records it lacks and what the answerer holds.
/// Both carry, beside the vector, the sender's `tips`: the hash of its record at each device's
/// counter, so either side sees a fork whose two records have one number (N-s10-4 (c)).
public struct SyncPullRequest: Sendable, Equatable {
    public let project: ProjectID
    public let held: [DeviceID: UInt64]
    public let tips: [DeviceID: [UInt8]]

    public init(project: ProjectID, held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]] = [:]) {
        self.project = project
        self.held = held.filter { $0.value > 0 }
        self.tips = SyncWire.kept(tips, of: self.held)
    }

    public func serialized() -> [UInt8] {
        var out = [SyncWire.version] + project.bytes
        SyncWire.encode(held, to: &out)
        SyncWire.encode(tips: tips, of: held, to: &out)
        return out
    }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        project = try reader.identifier(ProjectID.self)
        held = try SyncWire.vector(&reader)
        // A pull that ends at its vector is of a build before pulls carried tips (the same version 2).
        guard reader.remaining > 0 else { throw SyncWireReader.malformed(Self.withoutTips) }
        tips = try SyncWire.tips(&reader, of: held)
        try reader.end()
    }

    /// Why a pull without tips is refused: its asker runs a build of vaultctl from before pulls
    /// carried them, within the same exchange version 2 (closing note s11, Left open), and must be
    /// updated. Said to that device, whose build shows the answerer's words.
    static let withoutTips = "a pull without tips, from a build of vaultctl older than this device's (within exchange version 2): "
        + "update vaultctl on the device that asked"

    /// `error`, a refusal of this pull, said plainly when a device of the build before pulls carried
    /// tips refused it: that build reads the pull to its vector and refuses the tips' bytes after it
    /// as "N bytes follow the last field" (N the tips' bytes), words it cannot change. Nil for any other.
    public func refusedByOlderBuild(_ error: SyncExchangeError, peer name: String) -> SyncExchangeError? {
        var withoutTips = [SyncWire.version] + project.bytes
        SyncWire.encode(held, to: &withoutTips)
        guard error.code == .malformedMessage, error.message.hasSuffix(": \(serialized().count - withoutTips.count) bytes follow the last field") else {
            return nil
        }
        return SyncExchangeError(.malformedMessage, "\(name) runs an older build of vaultctl, whose pulls carry no tips (within exchange "
                                 + "version 2): update vaultctl on \(name), then try again (\(error.message))")
    }
}

public struct SyncPullAnswer: Sendable, Equatable {
    /// Whether the answerer holds more the asker lacks than fitted in this answer.
    public let more: Bool
    public let held: [DeviceID: UInt64]
    public let tips: [DeviceID: [UInt8]]
    public let records: [[UInt8]]

    public init(more: Bool, held: [DeviceID: UInt64], tips: [DeviceID: [UInt8]] = [:], records: [[UInt8]]) {
        self.more = more
        self.held = held.filter { $0.value > 0 }
        self.tips = SyncWire.kept(tips, of: self.held)
        self.records = records
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = [SyncWire.version, more ? 1 : 0]
        SyncWire.encode(held, to: &out)
        SyncWire.encode(tips: tips, of: held, to: &out)
        SyncWire.encode(records: records, to: &out)
        return out
    }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        more = try reader.integer(1, in: 0...1, "a more flag") == 1
        held = try SyncWire.vector(&reader)
        tips = try SyncWire.tips(&reader, of: held)
        records = try SyncWire.records(&reader)
        try reader.end()
    }
}

/// `sync.push`: records the answerer lacks; the answer, how many it stored and why it refused the rest.
public struct SyncPushRequest: Sendable, Equatable {
    public let project: ProjectID
    public let records: [[UInt8]]

    public init(project: ProjectID, records: [[UInt8]]) {
        self.project = project
        self.records = records
    }

    public func serialized() -> [UInt8] {
        var out = [SyncWire.version] + project.bytes
        SyncWire.encode(records: records, to: &out)
        return out
    }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        project = try reader.identifier(ProjectID.self)
        records = try SyncWire.records(&reader)
        try reader.end()
    }
}

public struct SyncPushAnswer: Sendable, Equatable {
    public let stored: Int
    /// The code of each refusal (`SyncErrorCode` names), in the order of the records refused.
    public let refused: [String]

    public init(stored: Int, refused: [String]) {
        self.stored = stored
        self.refused = refused
    }

    public func serialized() -> [UInt8] {
        var out: [UInt8] = [SyncWire.version]
        SyncWireReader.append(UInt64(stored), size: 4, to: &out)
        SyncWireReader.append(UInt64(refused.count), size: 2, to: &out)
        for reason in refused {
            let bytes = Array(reason.utf8.prefix(64))
            out.append(UInt8(bytes.count))
            out += bytes
        }
        return out
    }

    public init(parsing bytes: [UInt8]) throws(SyncExchangeError) {
        var reader = SyncWireReader(bytes)
        try reader.version()
        let stored = Int(try reader.integer(4, in: 0...UInt64(SyncWire.maximumRecords), "a stored count"))
        let count = try reader.count(2, maximum: SyncWire.maximumReasons, itemSize: 2, "reasons")
        var refused: [String] = []
        for _ in 0..<count {
            let length = Int(try reader.integer(1, in: 1...64, "a reason's length"))
            let reason = try reader.take(length)
            guard reason.allSatisfy({ (0x21...0x7E).contains($0) }) else { throw SyncWireReader.malformed("a reason that is not printable ASCII") }
            refused.append(String(decoding: reason, as: UTF8.self))
        }
        try reader.end()
        self.stored = stored
        self.refused = refused
    }
}
