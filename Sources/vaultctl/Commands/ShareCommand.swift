import CryptoVault
import PrivilegedSession

/// `vaultctl share`: privileged compartments are refused here, by the library's sharing policy.
enum ShareCommand {
    static let command = Command("share", synopsis: "share a compartment with a paired device", usage: """
        Usage: vaultctl share COMPARTMENT --with DEVICE --role viewer|editor [credential options]

        Wraps COMPARTMENT's key for a paired device: a viewer can open its bundles, an editor can
        also seal into it. A privileged compartment is never shared: the attempt is refused (exit 4)
        and recorded in the audit log.

        Options:
          --with DEVICE         the paired device (its id or name, see 'vaultctl peers list')
          --role ROLE           viewer or editor
        \(Credentials.help)
        """, options: Credentials.options + [OptionSpec(name: "--with", kind: .value), OptionSpec(name: "--role", kind: .value)],
        positionals: 1...1) { arguments in
            let device = try arguments.required("--with")
            let roleName = try arguments.required("--role")
            guard let role = ShareRole(rawValue: roleName) else {
                throw UsageError(message: "unknown role '\(roleName)': use viewer or editor", usage: arguments.usage)
            }
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try unlocked.compartment(named: arguments.positionals[0])
            try SharingPolicy.requireShareable(compartment, with: device, role: role, vault: unlocked)
            throw CommandError(message: "no device '\(device)' is paired with this vault", exitCode: .noInput,
                               hint: "pair it first ('vaultctl pair host' here, 'vaultctl pair join' there)")
        }
}
