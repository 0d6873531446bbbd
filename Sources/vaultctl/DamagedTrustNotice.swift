import CryptoVault

/// A paired device whose stored trust level is damaged is read as `other`, the level that grants
/// nothing (attack review s8, F10): every command that unlocks the vault, and `peers list`, says so
/// on stderr, naming the device and the command that sets its level again.
enum DamagedTrustNotice {
    static func lines(_ vault: Vault) -> [String] {
        guard let damaged = try? vault.devicesWithDamagedTrust(), !damaged.isEmpty else { return [] }
        let pairings = (try? vault.familyPairings()) ?? []
        return damaged.map { device in
            let named = pairings.first { $0.peer.deviceID == device }.map { "\($0.peer.name) (\(device.fingerprint))" } ?? device.fingerprint
            return "the trust level stored for device \(named) is damaged: it is read as 'other' (grants nothing) until "
                + "'vaultctl peers trust --peer \(device.fingerprint) mine|other' sets it again"
        }
    }

    static func print(_ vault: Vault) {
        for line in lines(vault) { Output.note("vaultctl: warning: \(line)") }
    }
}
