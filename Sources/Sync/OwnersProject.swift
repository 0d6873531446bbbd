import CryptoVault
import Writing

/// What someone else's device may not undo of the owner's project on the owner's devices (review
/// 17 s8, F21; review 17 s10, "Small notes"): remove a document or an entry, archive the project or
/// rename it. A colleague-editor's edits merge like one's own; these four are refused: the owner's
/// device does not apply such a write, records that it did not (`sync.change-refused`, once: in
/// the receive that brought the record), and keeps what it has, which its next commit writes (the
/// document or entry present, the project brought back, its name), so every device, the
/// colleague's too, comes to show it again. Nothing the owner wrote leaves the owner's devices by
/// another's hand, and no own device is left refusing the others' edits of an archived project.
/// The owner's own removals, archiving and renames, from any own device, apply as ever, and so
/// does a colleague's bringing back an archived project (it takes nothing away).
///
/// Whose a write is, is its record's device. Someone else's device is one that is not this device
/// and is trusted `other` here, or (paired before trust levels, or not paired here) was granted a
/// share of the project's compartment here. A device this vault knows neither way (a colleague
/// paired with another own device only) is taken as today: this device then follows the own
/// device that refused it, whose commit writes the value back. Only in the owner's projects: in
/// a project someone else shared with this vault, its owner's writes apply.
struct OwnersProject {
    /// Whether the rule applies: the project is the owner's own and the vault keeps trust or shares.
    let applies: Bool
    private let me: DeviceID
    private let project: WritingProject
    private let database: Database
    private let withShares: Bool

    init(_ project: WritingProject, me: DeviceID, database: Database) throws {
        self.me = me
        self.project = project
        self.database = database
        withShares = try AppliedModuleMigrations.modules(in: database).contains(SyncExchangeSchema.module.module)
        applies = try !SharedProjectOrigin.isSomeoneElses(project.id, me: me, in: database)
    }

    /// Whether `device` is someone else's (the type's rule).
    func isSomeoneElses(_ device: DeviceID) throws -> Bool {
        guard applies, device != me else { return false }
        switch try DeviceTrust.stored(deviceID: device, in: database) {
        case .mine?: return false
        case .other?: return true
        case nil:
            guard withShares else { return false }
            return try SyncExchangeStore(database: database).everShared(project.compartment.id, with: device)
        }
    }

    /// Of a register's heads (history entries, any order), the winning one when someone else's
    /// device wrote it, with the highest-ranked head no such device wrote (nil: none). Nil when
    /// the winner is not someone else's: the register's value applies.
    func overruled(_ heads: [Int], history: CausalHistory) throws -> (winner: Int, owners: Int?)? {
        let ranked = heads.sorted { history.ranksBelow($1, $0) }
        guard let winner = ranked.first, try isSomeoneElses(history.entries[winner].record.device) else { return nil }
        let owners = try ranked.dropFirst().first { try !isSomeoneElses(history.entries[$0].record.device) }
        return (winner, owners)
    }
}

extension OwnersProject {
    /// Records the refusal of the write `winner` made (`sync.change-refused`: change, device, hash,
    /// and what it names) when its record arrived in this receive (`arrived`): once, not at each
    /// later receive that still keeps the value before this device's next commit writes it back.
    func recordRefused(_ change: String, winner: Int, history: CausalHistory, arrived: Set<[UInt8]>,
                       in transaction: VaultTransaction, naming details: [VaultEvent.Detail] = []) throws {
        let record = history.entries[winner].record
        guard arrived.contains(record.hash) else { return }
        try transaction.record(.syncChangeRefused, compartment: project.compartment.id, subject: project.id,
                               details: [.init("change", change), .init("device", record.device.hex),
                                         .init("hash", ByteEncoding.hex(record.hash))] + details)
    }
}

extension SyncReplica {
    /// The winning removal of node `id` (its history entry) when the owner's devices refuse it
    /// (`OwnersProject`): someone else's device made it, and no head of the node an owner's device
    /// wrote removes it too. Nil when it applies.
    func refusedRemoval(of id: NodeID, by owners: OwnersProject) throws -> Int? {
        guard owners.applies, let register = nodes[id] else { return nil }
        let heads = register.headWrites
        guard let (winner, ownersHead) = try owners.overruled(heads.map(\.entry), history: history),
              heads.first(where: { $0.entry == winner })?.value == .removed else { return nil }
        if let ownersHead, heads.first(where: { $0.entry == ownersHead })?.value == .removed { return nil }
        return winner
    }
}
