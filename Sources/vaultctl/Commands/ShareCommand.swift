import CryptoVault
import PeerChannel
import PrivilegedSession
import Sync

/// `vaultctl share`: an ordinary compartment's keys, wrapped for a paired device and sent over the
/// channel (SECURITY.md §9, "Sharing compartments"); a privileged compartment is refused here, by the
/// library's sharing policy, before anything else.
enum ShareCommand {
    static let command = Command("share", synopsis: "share a compartment with a paired device", usage: "COMPARTMENT --peer PEER --role viewer|editor --address ADDR:PORT", about: """
        Wraps the keys of COMPARTMENT (every active key version) for a paired device, signs them with
        this device's key and sends them over the encrypted channel to that device's 'vaultctl serve':
        a viewer can open the compartment's bundles, an editor can also seal new ones into it. The
        share is recorded in the audit log with the device, the role and the key versions; a refusal
        by the device is recorded with its reason. A privileged compartment is never shared: the
        attempt is refused (exit 4) and recorded.

        The role is kept by the other device's vaultctl, not by cryptography: a viewer holds the same
        key as an editor. Accept bundles back into this compartment only from editors.
        """, options: Credentials.options + [Option("--peer", value: "PEER", "the paired device: its name or fingerprint (see 'vaultctl peers list')", aliases: ["--with"]), Option("--role", value: "ROLE", "viewer or editor"),
                                             Option("--address", value: "ADDR:PORT", "where the device's 'vaultctl serve' listens for the channel")],
        positionals: 1...1, json: true, examples: ["vaultctl share Memos --peer laptop --role viewer --address 192.168.1.20:\(ChannelServer.defaultPort)"]) { arguments in
            let (unlocked, compartment, pairing, role) = try resolve(arguments)
            let address = try SocketAddress(parsing: try arguments.required("--address"))
            let channel = try ChannelClient(connectingTo: address, localKeys: try unlocked.deviceKeys(), peer: pairing.peer)
            let grant = try ShareSender.share(compartment, role: role, vault: unlocked, over: channel, clearing: try EgressFunnel(vault: unlocked))
            // A project's compartment: the project now syncs with the device in that role (SECURITY.md §19.9).
            try SyncControl.shared(compartment, with: pairing.peer.deviceID, role: role, in: unlocked)
            if arguments.has("--json") {
                Output.json(["compartment": compartment.name, "peer": DeviceCommand.json(pairing.peer), "role": role.rawValue,
                             "key_versions": grant.keyVersions.map { Int($0) }])
                return
            }
            let versions = grant.keyVersions.map { "v\($0)" }.joined(separator: ",")
            Output.note("Shared '\(compartment.name)' with \(pairing.peer.name) (\(pairing.peer.fingerprint)) as \(role.rawValue), key versions \(versions).")
        }

    static let revoke = Command("share revoke", synopsis: "record that a device should lose a shared compartment", usage: "COMPARTMENT --peer PEER", about: """
        Records in the audit log that PEER should no longer have COMPARTMENT, and says what makes it
        so. Keys a device already received cannot be taken back: it can still open whatever was
        sealed under them. What stops it reading what comes next is a new key version it does not get:
        rotate the compartment, share it again with the devices that keep access, rewrap the stored
        bundles and retire the old versions (the commands are printed).
        """, options: Credentials.options + [Option("--peer", value: "PEER", "the paired device: its name or fingerprint (see 'vaultctl peers list')", aliases: ["--with"])], positionals: 1...1, json: true, examples: ["vaultctl share revoke Memos --peer laptop"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try unlocked.compartment(named: arguments.positionals[0])
            let pairing = try PeerSelection.pairing(try arguments.required("--peer"), in: try unlocked.vault.familyPairings())
            try unlocked.record(VaultEvent(.compartmentShareRevoke, compartmentID: compartment.id, subject: pairing.peer.deviceID,
                                           details: [.init("peer", pairing.peer.name)]))
            // Sync of the compartment's project with the device stops at its next request (SECURITY.md §19.9).
            try SyncControl.revoked(compartment, from: pairing.peer.deviceID, in: unlocked)
            let name = compartment.name
            if arguments.has("--json") {
                Output.json(["compartment": name, "peer": DeviceCommand.json(pairing.peer), "recorded": true,
                             "next_steps": ["vaultctl compartment rotate '\(name)'",
                                            "vaultctl share '\(name)' --peer OTHER --role ROLE --address ADDR:PORT",
                                            "vaultctl compartment rewrap '\(name)'", "vaultctl compartment retire '\(name)' --version OLD --yes"]])
                return
            }
            Output.line("""
                Recorded: \(pairing.peer.name) (\(pairing.peer.fingerprint)) should no longer have '\(name)'.
                It keeps the keys it received and can open what was sealed under them. So that it cannot open what comes next:
                  vaultctl compartment rotate '\(name)'
                  vaultctl share '\(name)' --peer OTHER --role ROLE --address ADDR:PORT   (each device that keeps access)
                  vaultctl compartment rewrap '\(name)'   then   vaultctl compartment retire '\(name)' --version OLD --yes
                """)
        }

    /// The compartment (after the sharing policy), the paired device and the role the arguments name.
    static func resolve(_ arguments: ParsedArguments) throws -> (UnlockedVault, VaultCompartment, FamilyPairing, ShareRole) {
        let device = try arguments.required("--peer")
        let roleName = try arguments.required("--role")
        guard let role = ShareRole(rawValue: roleName) else {
            throw UsageError(message: "unknown role '\(roleName)': use viewer or editor", usage: arguments.usage)
        }
        let unlocked = try VaultLocation.unlock(arguments)
        let compartment = try unlocked.compartment(named: arguments.positionals[0])
        try SharingPolicy.requireShareable(compartment, with: device, role: role, vault: unlocked)
        let pairing = try PeerSelection.pairing(device, in: try unlocked.vault.familyPairings())
        // A project someone else shared with this vault is its owner's to share (SECURITY.md §19.9).
        try SyncControl.requireOwner(of: compartment, sharingWith: pairing.peer.deviceID, role: role, in: unlocked)
        return (unlocked, compartment, pairing, role)
    }
}
