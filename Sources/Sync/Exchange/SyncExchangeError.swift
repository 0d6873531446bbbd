import CryptoVault

/// The errors of the sync exchange (SECURITY.md §19.9): a code callers and tests match on, and a
/// message for people that never quotes document text. Equality compares codes only.
public typealias SyncExchangeError = CodedError<SyncExchangeErrorCode>

public enum SyncExchangeErrorCode: String, Sendable, CaseIterable {
    /// A message that is not in the grammar of §19.9: a wrong version, a length past the end or over
    /// its bound, a value outside its range, unsorted ids, or trailing bytes.
    case malformedMessage
    /// The peer may not sync this project: it is not the owner's own device and the project is not
    /// shared with it, or the share was revoked.
    case notShared
    /// The peer is a viewer of the project: its changes are refused.
    case viewerCannotWrite
    /// A privileged project and a device that is not the owner's own: never sent, never taken.
    case privilegedRefused
    /// The egress funnel did not release the records for this device.
    case egressRefused
    /// Sync with this device is paused on this side (`vaultctl sync pause`).
    case paused
    /// Only the owner's own devices may add a project to this vault, and another device only a
    /// project whose compartment it granted this vault (`vaultctl share`).
    case offerRefused
    /// The owner's own device offers a project this vault holds with the other privileged flag: not
    /// the same project (one of them was made from someone else's offer). Nothing of it is taken.
    case privilegedMismatch
    /// The owner's own device offers a project this vault made from someone else's device's offer,
    /// and does not sync it with that device (its roster does not name it): not the same project.
    case originMismatch
    /// The project came to the device from someone else's (its owner shared it): only a project's
    /// owner shares it, so the device never gives it on, and its offer of it makes nothing.
    case notOwner
    /// A project's roster keeps at most `SyncWire.maximumRoster` devices (what one offer names): the
    /// devices an offer names past that are not kept, recorded once per project and device. So are
    /// demotions own devices pass on past `SyncWire.maximumDemotions` held.
    case rosterFull
    /// An entry of an own device's `sync.demotions` list that is not taken: not signed by its
    /// demoting device, signed by a device never the owner's here or one the owner demoted here
    /// before it, naming a device by another key, or from the future (the detail `why`). The rest
    /// of the list is taken.
    case demotionRefused
    /// The device's refusals here passed their bound for the time (`SyncRefusalBudget`): its
    /// requests are refused unread, and recorded as one summary, until the window ends.
    case tooManyRefusals
    /// The exchange went on for longer than its bound of rounds.
    case tooManyRounds
    /// A change record too large to travel in one message.
    case recordTooLarge
    /// No paired device answers to that name, or it is ambiguous.
    case unknownPeer
    /// A device other than the owner's own would pass its day's bound of records or bytes added to
    /// the project here (`SyncDeviceQuota`): the batch is refused whole, none of it stored.
    case quotaExceeded
    /// The device had its budget of answers carrying records or offers for the time (`SyncRequestBudget`):
    /// such answers are refused until the window ends, recorded as one summary.
    case tooManyRequests
    /// The run went on past its deadline: the peer answers too slowly or stopped answering.
    case deadlineExceeded
    /// This vault is the in-memory mode's copy (SECURITY.md §19.10): what would need an audit entry
    /// the vault keeps (records or offers sent, a privileged project's session) is not done there,
    /// so the project (or the offer) is left for the run and the rest goes on.
    case inMemoryMode
    /// This vault destroyed the project's compartment (shredded the project, SECURITY.md §14.1): an
    /// offer of it makes nothing here, and it is not synced (review 17 s13, N-s13-1).
    case projectDestroyed
    /// This vault's row of the project makes no project (`DamagedProjectRow`: one flipped bit in its
    /// register, kind or compartment id): nothing is made over it, nor is it taken for a shred, and
    /// it is not synced until `vaultctl repair` there mends the row (review 17 s14, N-s14-8, N-s14-9).
    case projectDamaged
    /// A project this vault lacks is not made from the offer: both names its compartment takes here
    /// (`project ID`, `project ID (synced)`) are held, by another device's shared compartment or by
    /// a compartment of this vault's own with the other privileged flag. That offer alone is refused
    /// (rows14, session 14: `compartmentExists` failed the whole exchange).
    case compartmentTaken
}
