import CryptoVault
import Foundation

/// `peers list`: the devices this vault paired with (SECURITY.md §4.1, §9.7).
enum PeersCommands {
    static let list = Command("peers list", synopsis: "list the devices this vault is paired with (no unlock)", usage: """
        Usage: vaultctl peers list [--vault DIR] [--json]

        Lists paired devices: name, fingerprint, which side hosted the pairing, and when it was made.
        Needs no passphrase: pairings hold only public keys.
        """) { arguments in
            let pairings = try VaultLocation.open(arguments).familyPairings()
            if arguments.has("--json") {
                Output.json(pairings.map(json))
                return
            }
            if pairings.isEmpty { Output.line("No paired devices; pair one with 'vaultctl pair host' or 'vaultctl pair join'.") }
            for pairing in pairings {
                let role = pairing.role == .host ? "hosted" : "joined"
                Output.line("\(pairing.peer.name)  \(pairing.peer.fingerprint)  \(role)  \(Output.timestamp(pairing.pairedAt))")
            }
        }

    static func json(_ pairing: FamilyPairing) -> [String: Any] {
        ["peer": DeviceCommand.json(pairing.peer), "role": pairing.role.rawValue, "paired_at": Output.timestamp(pairing.pairedAt)]
    }
}
