import CryptoVault

extension RestoredOwnRecords {
    /// Each device `awaited` names, as a refused change and `sync status` say it (vaultctl and the
    /// console alike): its name and fingerprint, whose it is, and what to do to sync with it.
    public static func describe(_ awaited: [Awaited], in vault: UnlockedVault) throws -> [String] {
        let pairings = Dictionary(try vault.vault.familyPairings().map { ($0.peer.deviceID, $0.peer) }, uniquingKeysWith: { first, _ in first })
        return try awaited.map { item in
            guard let kind = item.kind else { return "a device this vault cannot name (a damaged row)" }
            guard let device = item.device, let peer = pairings[device] else {
                return "one of your own devices (pair again one you paired with this device after the backup)"
            }
            let name = "\(peer.name) (\(peer.fingerprint))"
            switch kind {
            case .shared:
                return "\(name), someone else's: run 'vaultctl sync now --peer \(peer.fingerprint)' yourself "
                    + "(the daemon syncs with someone else's device only when it sees it on this network)"
            case .own where try vault.vault.trust(of: device) != .mine:
                return "\(name), held as someone else's since the restore: confirm it ('vaultctl peers trust --peer \(peer.fingerprint) mine') or revoke it"
            case .own, .anyOwn:
                return "\(name), your own"
            }
        }
    }
}
