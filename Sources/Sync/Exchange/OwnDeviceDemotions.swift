import CryptoVault

extension AuditAction {
    /// An own device said a device is no longer the owner's (SECURITY.md §19.9, "Demotions among own
    /// devices"; details: peer, the own device that passed it on; by, the own device where the owner
    /// said so; at, when it was said there). The device is the entry's subject.
    public static let syncDeviceDemoted = AuditAction("sync.device-demoted")
}

/// Demotions among the owner's own devices (review 17 s8, F4): a device the owner says on one own
/// device is no longer theirs (`peers trust … other`, `peers revoke`) is kept in `sync_demotions`,
/// in the transaction that changes its trust, and passed to the owner's other own devices at each
/// exchange (`sync.demotions`), which set it to `other` too. Demotion wins, never promotion: only
/// the owner's own word on a vault makes a device `mine` there.
enum OwnDeviceDemotions {
    /// The detail `reason` of the `peer.trust` entry of a demotion an own device passed on.
    static let relayed = "relayed-demotion"

    /// Whether this vault holds the exchange's tables (a vault that does not sync keeps nothing).
    static func kept(in database: Database) throws -> Bool {
        try AppliedModuleMigrations.modules(in: database).filter { $0 == SyncExchangeSchema.module.module }.count
            == SyncExchangeSchema.module.migrations.count
    }

    /// This vault's own change of a device's level, in its transaction: `other` keeps the demotion
    /// to pass on, `mine` lifts this vault's (the owner's word here; other own devices keep theirs).
    /// A device paired as someone else's was never demoted: nothing is kept.
    static func noteLocal(_ trust: DeviceTrust, of device: FamilyPairing, by me: DeviceID, atPairing: Bool = false,
                          in tx: VaultTransaction, clock: VaultClock) throws {
        guard try kept(in: tx.database) else { return }
        let store = SyncExchangeStore(database: tx.database)
        guard trust == .other else { return try store.removeDemotion(of: device.peer.deviceID) }
        guard !atPairing else { return }
        try store.addDemotion(SyncDemotion(device: device.peer.deviceID, signingKey: device.peer.signingPublicKey,
                                           demotedAt: UInt64(max(0, clock.now())), demotedBy: me))
    }

    /// Takes the demotions an own device (`peer`) passed on, in one transaction: each new one is
    /// kept and recorded (`sync.device-demoted`), and a device this vault trusts `mine` is set to
    /// `other` (`peer.trust`, reason `relayed-demotion`). Not taken: this device itself, the peer
    /// itself, a device made `mine` here after the demotion was said (the owner's later word here
    /// stands), and entries past `SyncWire.maximumDemotions` held. Returns how many of those were
    /// left out for the bound.
    static func take(_ list: SyncDemotionList, from peer: DeviceID, me: DeviceID, in tx: VaultTransaction) throws -> Int {
        let store = SyncExchangeStore(database: tx.database)
        var full = 0
        for entry in list.demotions where entry.device != me && entry.device != peer {
            guard try store.demotion(of: entry.device) == nil, try !promotedSince(entry, in: tx.database) else { continue }
            guard try store.demotionCount() < SyncWire.maximumDemotions else {
                full += 1
                continue
            }
            try store.addDemotion(entry)
            try tx.record(.syncDeviceDemoted, subject: entry.device,
                          details: [.init("peer", peer.hex), .init("by", entry.demotedBy.hex), .init("at", String(entry.demotedAt))])
            if try DeviceTrust.stored(deviceID: entry.device, in: tx.database) == .mine {
                _ = try DeviceTrust.set(.other, of: entry.device, atPairing: false, reason: relayed, in: tx)
            }
        }
        return full
    }

    /// The device is `mine` here by a word said after the demotion (both clocks' seconds).
    private static func promotedSince(_ entry: SyncDemotion, in database: Database) throws -> Bool {
        guard try DeviceTrust.stored(deviceID: entry.device, in: database) == .mine,
              let setAt = try DeviceTrust.setAt(deviceID: entry.device, in: database) else { return false }
        return setAt > Int64(entry.demotedAt)
    }
}

extension UnlockedVault {
    /// Sets a paired device's trust level (`setTrust`) and, in the same audited transaction, keeps a
    /// demotion to pass on to the owner's other own devices, or lifts this vault's on `mine`
    /// (`OwnDeviceDemotions`). What `vaultctl peers trust` and `pair` call.
    @discardableResult
    public func setTrustPassingOnDemotion(_ trust: DeviceTrust, of pairing: FamilyPairing, atPairing: Bool = false,
                                          clock: VaultClock = .system) throws -> Bool {
        let me = try deviceKeys().profile.deviceID
        return try transaction { tx in
            let changed = try DeviceTrust.set(trust, of: pairing.peer.deviceID, atPairing: atPairing, in: tx)
            try OwnDeviceDemotions.noteLocal(trust, of: pairing, by: me, atPairing: atPairing, in: tx, clock: clock)
            return changed
        }
    }

    /// Revokes a pairing (`revokePairing`) and, in the same audited transaction, keeps the device's
    /// demotion to pass on to the owner's other own devices. What `vaultctl peers revoke` calls.
    @discardableResult
    public func revokePairingPassingOnDemotion(_ pairing: FamilyPairing, clock: VaultClock = .system) throws -> FamilyPairing {
        let me = try deviceKeys().profile.deviceID
        return try transaction { tx in
            let revoked = try FamilyPairing.revoke(deviceID: pairing.peer.deviceID, in: tx)
            try OwnDeviceDemotions.noteLocal(.other, of: revoked, by: me, in: tx, clock: clock)
            return revoked
        }
    }

    /// The demotions this vault holds (its own and those own devices passed on), devices ascending.
    public func heldDemotions() throws -> [SyncDemotion] {
        try vault.read { database in try SyncExchangeStore(database: database).demotions() }
    }
}
