import CryptoVault
import Sync

/// Which paired devices `sync now` without --peer asks (F17-8): each not paused here, but someone
/// else's device only while it shares a project with this vault, either way (`SyncPartners`, the
/// daemon's rule), or while a share grant it sent is here (its project may not have come yet: the
/// first sync brings it). Someone else's device that shares nothing has nothing to sync: asking it
/// waited for its announcement, failed the command when it was off, and wrote an audit entry on
/// both sides. It is skipped and said so; named with --peer, it is asked all the same.
enum SyncNowDevices {
    static let sharesNothing = "shares no project with this vault"

    /// `pairings` split into the devices to ask and those skipped because they share nothing.
    static func split(_ pairings: [FamilyPairing], in vault: UnlockedVault) throws -> (ask: [FamilyPairing], skipped: [FamilyPairing]) {
        let granting = Set(try vault.sharedCompartments().compactMap { $0.sharing?.senderDeviceID })
        var ask: [FamilyPairing] = [], skipped: [FamilyPairing] = []
        for pairing in pairings {
            let device = pairing.peer.deviceID
            if try granting.contains(device) || SyncPartners.isPartner(device, in: vault) { ask.append(pairing) } else { skipped.append(pairing) }
        }
        return (ask, skipped)
    }

    /// A skipped device as `sync now` says it: a line, and its entry in `--json`'s peers.
    static func line(_ pairing: FamilyPairing) -> String { "\(pairing.peer.name): skipped: \(sharesNothing)" }

    static func json(_ pairing: FamilyPairing) -> [String: Any] {
        ["peer": DeviceCommand.json(pairing.peer), "skipped": sharesNothing]
    }
}
