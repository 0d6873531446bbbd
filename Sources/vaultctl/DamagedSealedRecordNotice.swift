import CryptoVault

/// A sealed record whose clear columns break their CHECK (reviewer15's R15-7: one bit of its
/// `key_version`) does not open, and only it: the vault opens, and the command that opens that
/// record names it (exit 65). The vault's open found it already (`Vault.damagedModuleRows`), so every
/// unlocking command says so once, with what mends it, rather than leaving it to whichever command
/// meets the record. The finding names the table, not the row: which record (and so which project)
/// is said by the command that opens it and by `vaultctl repair`.
enum DamagedSealedRecordNotice {
    /// The table whose findings this notice says.
    static let table = "sealed_records"

    static func lines(_ vault: Vault) -> [String] {
        guard let findings = vault.damagedModuleRows[table], !findings.isEmpty else { return [] }
        return ["\(findings.count) sealed record(s) hold a clear column past its CHECK (\(table), such as a key_version): "
            + "each does not open, and the command that opens it fails naming it (exit 65), until 'vaultctl repair' mends it"]
    }

    static func print(_ vault: Vault) {
        for line in lines(vault) { Output.note("vaultctl: warning: \(line)") }
    }
}
