import CryptoVault
import Writing

/// Who a record says made its versions, bound to the device that signed it (SECURITY.md §19.4,
/// attack review of issue 17). A snapshot (0x06), an edit event (0x08) and a project snapshot
/// (0x0B) name the audit device id (§4.7.1) of the device that made them, and the store shows that
/// device as their maker: an edit event of this device's is its own writing session, stamped in its
/// audit chain for a privileged project. A device sends only the versions it made, so:
///
/// - a record another device signed never names this vault's own audit device (this vault knows
///   which records it signed), and
/// - the version operations of one signer's records all name one audit device: one record names
///   at most one, and none another than the signer's records held here name.
///
/// Else `attributionMismatch`: a paired device could sign records saying another device made the
/// edit. (Whether another signer's audit device is claimed by a third device is not decided here:
/// with no record of which device holds which audit id, the first to claim it would win, and a
/// hostile device could then block the honest one's versions.)
struct RecordAttribution {
    private let own: AuditDeviceID
    private let author: DeviceID
    private var bySigner: [DeviceID: AuditDeviceID] = [:]

    /// The bindings the replica's held records make (each verified when taken), and this device's:
    /// a signer is bound by its earliest record that names a maker (a function of its chain, not of
    /// which records came together: attack review s6, A2).
    init(own: AuditDeviceID, author: DeviceID, held: [ChangeRecord]) {
        self.own = own
        self.author = author
        bySigner[author] = own
        for record in held.sorted(by: { ($0.device.hex, $0.counter) < ($1.device.hex, $1.counter) }) { bind(record) }
    }

    /// Binds the record's signer to the maker it names, when nothing bound it yet: called as each
    /// record is taken, parents first, so a signer's later records are checked against its earliest
    /// claim whether they came in one exchange or several. A record with two claims (taken before
    /// they were refused) binds the least by bytes, the same on every device.
    mutating func bind(_ record: ChangeRecord) {
        guard bySigner[record.device] == nil else { return }
        let claimed = Self.claims(of: record).min { $0.bytes.lexicographicallyPrecedes($1.bytes) }
        if let claimed { bySigner[record.device] = claimed }
    }

    /// The audit devices a record's version operations name as their maker.
    static func claims(of record: ChangeRecord) -> Set<AuditDeviceID> {
        var claimed = Set<AuditDeviceID>()
        for operation in record.operations {
            switch operation {
            case .version(.snapshot(let snapshot)): claimed.insert(snapshot.deviceID)
            case .version(.editEvent(let event)): claimed.insert(event.deviceID)
            case .project(.projectSnapshot(let snapshot)): claimed.insert(snapshot.deviceID)
            default: continue
            }
        }
        return claimed
    }

    /// Nil when what the record claims can be its signer's; else why not.
    func check(_ record: ChangeRecord) -> SyncError? {
        let claimed = Self.claims(of: record)
        let name = "record \(CausalHistory.short(record.hash)) of device \(record.device)"
        if record.device != author, claimed.contains(own) {
            return SyncError(.attributionMismatch, "\(name) names this device as the maker of its versions: only this device's own records do")
        }
        if claimed.count > 1 {
            return SyncError(.attributionMismatch, "\(name) names \(claimed.count) devices as the makers of its versions: a device sends only its own")
        }
        if let audit = claimed.first, let bound = bySigner[record.device], bound != audit {
            return SyncError(.attributionMismatch, "\(name) names another device as the maker of its versions than its records held here do")
        }
        return nil
    }
}
