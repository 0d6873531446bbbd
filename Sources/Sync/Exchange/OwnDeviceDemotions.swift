import CryptoVault

extension AuditAction {
    /// An own device said a device is no longer the owner's (SECURITY.md §19.9, "Demotions among own
    /// devices"; details: peer, the own device that passed it on; by, the own device where the owner
    /// said so; at, when it was said there, never later than this vault's now; signed-at, the time
    /// the entry names when that was later). The device is the entry's subject.
    public static let syncDeviceDemoted = AuditAction("sync.device-demoted")
}

/// Demotions among the owner's own devices (review 17 s8, F4): a device the owner says on one own
/// device is no longer theirs (`peers trust … other`, `peers revoke`) is kept in `sync_demotions`,
/// signed by that device, in the transaction that changes its trust, and passed to the owner's
/// other own devices at each exchange (`sync.demotions`), which check the signature and set it to
/// `other` too. Demotion wins, never promotion: only the owner's own word on a vault makes a device
/// `mine` there.
enum OwnDeviceDemotions {
    /// The detail `reason` of the `peer.trust` entry of a demotion an own device passed on.
    static let relayed = "relayed-demotion"
    /// How far past this vault's now a demotion's time may be (clocks differ): later ones are
    /// refused, earlier ones in the future taken as said now.
    static let futureSkewSeconds: Int64 = 300

    /// Why an entry of a list is not taken (the detail `why` of its `demotionRefused` entry).
    enum Refusal: String {
        /// Its signature is not its demoting device's: made up or changed on the way (or unsigned).
        case signature
        /// The demoting device is not one this vault pairs, or ever paired, as the owner's own.
        case signer
        /// The demoting device is held demoted here, and the entry is not about the device whose
        /// demotion of it is held (or the owner made that device `mine` again here since).
        case signerDemoted = "signer-demoted"
        /// The named device's signing key is not the one this vault pairs it with.
        case key
        /// Its time is more than `futureSkewSeconds` past this vault's now.
        case future
    }

    /// What one list did here: entries left out for the bound, entries refused and why.
    struct Taken {
        var full = 0
        var refused: [(SyncDemotion, Refusal)] = []
    }

    /// Whether this vault holds `sync_demotions`: the exchange's migrations are applied up to
    /// `exchange-13` (a vault that does not sync keeps nothing; one opened with an older list of
    /// them, as a test of an upgrade does, neither passes nor takes demotions).
    static func kept(in database: Database) throws -> Bool {
        let migrations = SyncExchangeSchema.module.migrations
        guard let table = migrations.firstIndex(where: { $0.name == "exchange-13" }) else { return false }
        return try AppliedModuleMigrations.modules(in: database).filter { $0 == SyncExchangeSchema.module.module }.count > table
    }

    /// This vault's own change of a device's level, in its transaction: `other` keeps the demotion,
    /// signed with this device's key, to pass on; `mine` lifts this vault's (the owner's word here;
    /// other own devices keep theirs), remembered as lifted. A device paired as someone else's was never demoted: nothing
    /// is kept. `wasMine`: the device's level here before the change was `mine`.
    static func noteLocal(_ trust: DeviceTrust, of device: FamilyPairing, wasMine: Bool, by keys: DeviceKeys, atPairing: Bool = false,
                          in tx: VaultTransaction, clock: VaultClock) throws {
        guard try kept(in: tx.database) else { return }
        let store = SyncExchangeStore(database: tx.database)
        guard trust == .other else { return try store.liftDemotion(of: device.peer.deviceID, at: clock.now()) }
        guard !atPairing else { return }
        try store.addDemotion(try SyncDemotion(signing: device.peer, at: UInt64(max(0, clock.now())), by: keys), wasMine: wasMine)
    }

    /// Takes the demotions a device that is or was the owner's (`peer`) passed on, in one
    /// transaction: each new one whose signature is its demoting device's is kept and recorded
    /// (`sync.device-demoted`), and a device this vault trusts `mine` is set to `other` (`peer.trust`,
    /// reason `relayed-demotion`). Not taken, silently: this device itself, the peer itself, a device
    /// held as demoted already, a device made `mine` here after the demotion was said (its time
    /// taken as at most `now`). Refused (`Refusal`): what `refusal(of:)` finds. Left out: entries
    /// past `SyncWire.maximumDemotions` held.
    static func take(_ list: SyncDemotionList, from peer: DeviceID, me: DeviceProfile, now: Int64, in tx: VaultTransaction) throws -> Taken {
        let store = SyncExchangeStore(database: tx.database)
        var taken = Taken()
        for entry in list.demotions where entry.device != me.deviceID && entry.device != peer {
            guard try store.demotion(of: entry.device) == nil else { continue }
            if let refusal = try refusal(of: entry, me: me, now: now, in: store) {
                taken.refused.append((entry, refusal))
                continue
            }
            // A time in the future is taken as now: it never outranks a later word here.
            let at = min(Int64(entry.demotedAt), now)
            guard try !promotedSince(entry.device, at: at, in: store) else { continue }
            guard try store.demotionCount() < SyncWire.maximumDemotions else {
                taken.full += 1
                continue
            }
            let wasMine = try DeviceTrust.stored(deviceID: entry.device, in: tx.database) == .mine
            try store.addDemotion(entry, wasMine: wasMine)
            var details: [VaultEvent.Detail] = [.init("peer", peer.hex), .init("by", entry.demotedBy.hex), .init("at", String(at))]
            if at != Int64(entry.demotedAt) { details.append(.init("signed-at", String(entry.demotedAt))) }
            try tx.record(.syncDeviceDemoted, subject: entry.device, details: details)
            if wasMine {
                _ = try DeviceTrust.set(.other, of: entry.device, atPairing: false, reason: relayed, in: tx)
            }
        }
        return taken
    }

    /// Why `entry` is refused here, if it is: its demoting device must be this one, or one this
    /// vault trusts `mine`, or one it held `mine` when it took that device's own demotion (so a
    /// device that demoted the owner's other devices first is still demoted by them: review s10), and
    /// then only about the device that demoted it; the signature must verify with that device's key
    /// as held here; a device paired here must be named by its pinned key; and the time may be at
    /// most `futureSkewSeconds` ahead of this vault's clock.
    static func refusal(of entry: SyncDemotion, me: DeviceProfile, now: Int64, in store: SyncExchangeStore) throws -> Refusal? {
        let signer = entry.demotedBy, database = store.database
        let pairing = try FamilyPairing.stored(deviceID: signer, in: database)
        var key: [UInt8]?
        if signer == me.deviceID {
            key = me.signingPublicKey
        } else if let held = try store.demotion(of: signer) {
            // A device held demoted speaks here only against the device whose demotion of it is
            // held (the two demoted each other: both stay demoted), and not once the owner made that
            // device `mine` again here (review s11 on ad1e099).
            guard entry.device == held.demotion.demotedBy, try store.liftedAt(of: entry.device) == nil else { return .signerDemoted }
            if held.wasMine { key = pairing?.peer.signingPublicKey ?? held.demotion.signingKey }
        } else if let pairing, try DeviceTrust.stored(deviceID: signer, in: database) == .mine {
            key = pairing.peer.signingPublicKey
        }
        guard let key else { return .signer }
        guard entry.isSigned(byKey: key) else { return .signature }
        if let named = try FamilyPairing.stored(deviceID: entry.device, in: database), named.peer.signingPublicKey != entry.signingKey { return .key }
        guard Int64(entry.demotedAt) <= now + futureSkewSeconds else { return .future }
        return nil
    }

    /// The device is `mine` here by a word said after the demotion (`at`, at most this vault's now):
    /// the owner's re-trust here wins a tie of seconds; a level set at pairing does not.
    private static func promotedSince(_ device: DeviceID, at: Int64, in store: SyncExchangeStore) throws -> Bool {
        if let lifted = try store.liftedAt(of: device), lifted >= at { return true }
        guard try DeviceTrust.stored(deviceID: device, in: store.database) == .mine,
              let setAt = try DeviceTrust.setAt(deviceID: device, in: store.database) else { return false }
        return setAt > at
    }
}

extension UnlockedVault {
    /// Sets a paired device's trust level (`setTrust`) and, in the same audited transaction, keeps a
    /// signed demotion to pass on to the owner's other own devices, or lifts this vault's on `mine`
    /// (`OwnDeviceDemotions`). What `vaultctl peers trust` and `pair` call.
    @discardableResult
    public func setTrustPassingOnDemotion(_ trust: DeviceTrust, of pairing: FamilyPairing, atPairing: Bool = false,
                                          clock: VaultClock = .system) throws -> Bool {
        let keys = try deviceKeys()
        return try transaction { tx in
            let wasMine = try DeviceTrust.stored(deviceID: pairing.peer.deviceID, in: tx.database) == .mine
            let changed = try DeviceTrust.set(trust, of: pairing.peer.deviceID, atPairing: atPairing, in: tx)
            try OwnDeviceDemotions.noteLocal(trust, of: pairing, wasMine: wasMine, by: keys, atPairing: atPairing, in: tx, clock: clock)
            // A restored vault's projects wait for a device made the owner's too, and no longer for
            // one made someone else's (SECURITY.md §19.10).
            if trust == .mine { try RestoredOwnRecords.awaitOwnDevice(pairing.peer.deviceID, in: tx, at: clock.now()) }
            try RestoredOwnRecords.settle(in: tx)
            return changed
        }
    }

    /// Revokes a pairing (`revokePairing`) and, in the same audited transaction, keeps the device's
    /// signed demotion to pass on to the owner's other own devices. What `vaultctl peers revoke` calls.
    @discardableResult
    public func revokePairingPassingOnDemotion(_ pairing: FamilyPairing, clock: VaultClock = .system) throws -> FamilyPairing {
        let keys = try deviceKeys()
        return try transaction { tx in
            let wasMine = try DeviceTrust.stored(deviceID: pairing.peer.deviceID, in: tx.database) == .mine
            let revoked = try FamilyPairing.revoke(deviceID: pairing.peer.deviceID, in: tx)
            try OwnDeviceDemotions.noteLocal(.other, of: revoked, wasMine: wasMine, by: keys, in: tx, clock: clock)
            // A revoked device is no longer awaited by a restored vault's projects (SECURITY.md §19.10):
            // its rows go now, so that a row naming a device not paired is a damaged one.
            try RestoredOwnRecords.forget(device: pairing.peer.deviceID, in: tx)
            try RestoredOwnRecords.settle(in: tx)
            return revoked
        }
    }

    /// The devices this vault trusts as the owner's own, other than `device`: each may still pair a
    /// device demoted or revoked here, and trusts it until the owner makes the same change there
    /// (or a sync passes the demotion on). What `peers trust|revoke` and the console's devices page
    /// name after a demotion. Read before a revoke: it deletes the pairing.
    public func otherOwnDevices(besides device: DeviceID) throws -> [FamilyPairing] {
        try vault.familyPairings().filter { pairing in
            try pairing.peer.deviceID != device && vault.trust(of: pairing.peer.deviceID) == .mine
        }
    }

    /// The demotions this vault holds (its own and those own devices passed on), devices ascending.
    public func heldDemotions() throws -> [SyncDemotion] {
        try vault.read { database in try SyncExchangeStore(database: database).demotions() }
    }
}
