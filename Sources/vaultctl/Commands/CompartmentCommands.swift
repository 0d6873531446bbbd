import CryptoVault
import Foundation

enum CompartmentCommands {
    static let create = Command("compartment create", synopsis: "create a compartment", usage: "NAME --register REGISTER", about: """
        Creates a compartment with its own keys. REGISTER is one of:
          \(HelpText.wrap(Register.allCases.map(\.rawValue).joined(separator: ", "), width: 90).joined(separator: "\n  "))
        Healthcare and legal compartments are privileged unless --not-privileged is given.
        """, options: Credentials.options + [
            Option("--register", value: "REGISTER", "the professional register of what it will hold"), Option("--privileged", "privileged whatever the register"),
            Option("--not-privileged", "not privileged whatever the register"),
        ], positionals: 1...1, json: true, examples: ["vaultctl compartment create \"Session notes\" --register healthcare"]) { arguments in
            let registerName = try arguments.required("--register")
            guard let register = Register(rawValue: registerName) else {
                throw UsageError(message: "unknown register '\(registerName)'", usage: arguments.usage)
            }
            if arguments.has("--privileged") && arguments.has("--not-privileged") {
                throw UsageError(message: "--privileged and --not-privileged exclude each other", usage: arguments.usage)
            }
            let privileged: Bool? = arguments.has("--privileged") ? true : arguments.has("--not-privileged") ? false : nil
            let compartment = try VaultLocation.unlock(arguments)
                .createCompartment(named: arguments.positionals[0], register: register, privileged: privileged)
            if arguments.has("--json") { Output.json(json(compartment)); return }
            Output.line("Created compartment '\(compartment.name)' (\(register.rawValue)\(compartment.isPrivileged ? ", privileged" : "")).")
        }

    static let list = Command("compartment list", synopsis: "list compartments", about: """
        Lists compartments with their register, privileged flag and key versions, then those other
        vaults shared with this device (with the role and the device that shared them). Names are
        sealed in the vault, so listing needs the vault unlocked.
        """, options: Credentials.options, json: true, examples: ["vaultctl compartment list --json"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartments = try unlocked.compartments() + unlocked.sharedCompartments()
            if arguments.has("--json") { Output.json(compartments.map(json)); return }
            if compartments.isEmpty { Output.line("No compartments yet: 'vaultctl compartment create NAME --register R'."); return }
            for compartment in compartments {
                // A retired version is shown as such: its key is shredded, so what is sealed under it cannot be opened.
                let versions = compartment.keyVersions.map { "v\($0.version)\($0.retiredAt == nil ? "" : " (retired)")" }
                    .joined(separator: ",")
                let kind = compartment.sharing.map { "shared by \($0.senderDeviceID.fingerprint) as \($0.role.rawValue)" }
                    ?? "\(compartment.register.rawValue)\t\(compartment.isPrivileged ? "privileged" : "-")"
                Output.line("\(compartment.name)\t\(kind)\tkeys \(versions)")
            }
        }

    static let rotate = Command("compartment rotate", synopsis: "add a new key version to a compartment", usage: "NAME", about: """
        Adds a key version: new material is sealed with it, and what was sealed under earlier
        versions stays readable.
        """, options: Credentials.options, positionals: 1...1, json: true, examples: ["vaultctl compartment rotate \"Session notes\""]) { arguments in
            let version = try VaultLocation.unlock(arguments).rotateCompartment(named: arguments.positionals[0])
            if arguments.has("--json") { Output.json(["name": arguments.positionals[0], "version": version]); return }
            Output.line("Compartment '\(arguments.positionals[0])' now seals with key version \(version).")
        }

    static let retire = Command("compartment retire", synopsis: "shred an older key version of a compartment", usage: "NAME --version N --yes", about: """
        Shreds key version N: whatever is still sealed under it can no longer be opened, so rewrap it
        to the current version first. The version a compartment seals with cannot be retired; rotate
        first. --yes confirms you mean it; on a terminal without --yes you are asked to type YES.
        """, options: Credentials.options + [Option("--version", value: "N", "the key version to retire"), Option("--yes", "confirm")],
        positionals: 1...1, json: true, examples: ["vaultctl compartment retire \"Session notes\" --version 1 --yes"]) { arguments in
            guard let version = try arguments.integer("--version", in: 1...Int(UInt32.max)) else {
                throw UsageError(message: "missing --version", usage: arguments.usage)
            }
            let name = arguments.positionals[0]
            try Confirmation.require(arguments.has("--yes"), flag: "--yes",
                                     consequence: "retiring key version \(version) of '\(name)' shreds it: whatever is still sealed under it can never be opened again")
            try VaultLocation.unlock(arguments).retireCompartmentVersion(named: name, version: UInt32(version))
            if arguments.has("--json") { Output.json(["name": name, "retired": version]); return }
            Output.line("Key version \(version) of '\(name)' is retired and shredded.")
        }

    static let destroy = Command("compartment destroy", synopsis: "shred a compartment's keys (irreversible)", usage: "NAME --yes", about: """
        Shreds the compartment's key material and sealed name, and removes the bundles stored in
        it (rows and files). Everything sealed in it becomes unreadable for good, even to someone
        holding the master key or the passphrase. There is no
        undo; --yes confirms you mean it; on a terminal without --yes you are asked to type YES.
        A copy 'vaultctl repair' kept in VAULT/damaged/ holds the compartment's keys as they were:
        while there is one, this is refused, naming it; --remove-kept-copies removes every kept copy
        with the destruction (recorded in the audit log).
        """, options: Credentials.options + [Option("--yes", "confirm the destruction"), KeptCopies.option], positionals: 1...1, json: true,
        examples: ["vaultctl compartment destroy Newsletter --yes"]) { arguments in
            let name = arguments.positionals[0]
            // Refused before anything is asked: a YES typed for a destruction that would not be whole is wasted.
            let copies = try KeptCopies.refuseKeeping(arguments, command: "compartment destroy", consequence: """
                each holds '\(name)' with its keys as they were, so it would stay readable there
                """)
            try Confirmation.require(arguments.has("--yes"), flag: "--yes",
                                     consequence: "destroying '\(name)' shreds its keys: everything sealed in it becomes unreadable for good")
            let unlocked = try VaultLocation.unlock(arguments)
            let removed = try unlocked.destroyCompartment(named: name)
            let gone = try KeptCopies.remove(copies, unlocked, because: "compartment destroy")
            if arguments.has("--json") { Output.json(["destroyed": name, "bundles_removed": removed, "kept_copies_removed": gone]); return }
            Output.line("Compartment '\(name)' destroyed; its keys are gone and its \(removed) stored bundle(s) removed.")
            for copy in gone { Output.line("Removed the copy repair kept in \(copy).") }
        }

    /// A shared compartment also has `shared`: the owner's vault id, the device that shared it and the role.
    static func json(_ compartment: VaultCompartment) -> [String: Any] {
        var fields = ownJSON(compartment)
        if let share = compartment.sharing {
            fields["shared"] = ["source_vault_id": share.sourceVaultID.hex,
                                "sender_device_id": share.senderDeviceID.hex, "role": share.role.rawValue,
                                "granted_at": Output.timestamp(share.grantedAt)]
        }
        return fields
    }

    private static func ownJSON(_ compartment: VaultCompartment) -> [String: Any] {
        ["name": compartment.name, "id": compartment.id.hex, "register": compartment.register.rawValue,
         "privileged": compartment.isPrivileged, "created_at": Output.timestamp(compartment.createdAt),
         "key_versions": compartment.keyVersions.map { ["version": $0.version, "active": $0.isActive] }]
    }
}
