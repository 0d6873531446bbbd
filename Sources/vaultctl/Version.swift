/// What `vaultctl --version` prints. Raise it with each release; the schema version is separate
/// (`vaultctl status` shows it).
enum VaultctlVersion {
    static let current = "0.9.0"
}
