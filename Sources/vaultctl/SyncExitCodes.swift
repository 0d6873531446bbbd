import Sync

extension ExitCode {
    /// The exchange's failures (SECURITY.md §19.9): what the peer or this vault's policy refused is
    /// refused, a peer that broke the protocol bad data, a paused sync (or a peer that did not
    /// answer in time) unavailable.
    init(for error: SyncExchangeError) {
        switch error.code {
        case .notShared, .viewerCannotWrite, .privilegedRefused, .egressRefused, .offerRefused, .privilegedMismatch, .originMismatch, .notOwner,
             .rosterFull, .demotionRefused, .projectDestroyed: self = .refused
        case .malformedMessage, .tooManyRounds, .recordTooLarge, .inMemoryMode, .projectDamaged: self = .dataError
        case .paused, .deadlineExceeded, .tooManyRefusals, .quotaExceeded, .tooManyRequests: self = .unavailable
        case .unknownPeer: self = .noInput
        case .compartmentTaken: self = .cannotCreate
        }
    }

    static func hint(for error: SyncExchangeError) -> String? {
        switch error.code {
        // A pause's own words say which side paused it and how to resume it there (F17-8).
        case .notShared: "the owner shares a project with 'vaultctl share \"project ID\" --peer PEER --role viewer|editor'"
        default: nil
        }
    }
}

extension ExitCode {
    /// `vaultctl repair` (SECURITY.md §19.10): someone else's device is refused, a device whose
    /// records do not verify or differ from the audit log is bad data, a copy that failed an I/O error.
    init(for error: RepairError) {
        switch error.code {
        case .notOwnDevice, .notOwnThere: self = .refused
        case .recordRefused, .auditMismatch: self = .dataError
        case .copyFailed: self = .ioError
        case .localWordsAtRisk: self = .failure
        }
    }
}
