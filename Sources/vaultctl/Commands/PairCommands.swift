import CryptoVault
import Foundation
import PeerChannel

/// `pair host` and `pair join`: pairing two vaults with a one-time code (SECURITY.md §9.7).
enum PairCommands {
    static let defaultListen = "0.0.0.0:7420"
    /// How long one connection may take, start to end: a silent peer is dropped after this.
    static let connectionTimeoutSeconds = 30.0

    static let host = Command("pair host", synopsis: "show a one-time code and wait for a device to pair", about: """
        Prints a one-time pairing code and waits for 'vaultctl pair join' on the other device. The
        code works for 5 minutes and allows 3 failed attempts; read it to the other person, never send
        it over the network. On success both devices store the pairing (see 'vaultctl peers list').
        \(nameAbout)
        \(trustAbout)
        """, options: Credentials.options + [hostAddress, deviceName, trust], json: true,
        examples: ["vaultctl pair host --address 192.168.1.20:7420 --name desk", "vaultctl pair host --address [fd00::20]:7420"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let trust = try chosenTrust(arguments)
            let keys = try deviceKeys(unlocked, arguments)
            let listener = try TCPListener(address: try SocketAddress(parsing: arguments.value("--address") ?? defaultListen))
            let lease = PairingCodeLease(code: try PairingCode.generate())
            // With --json, stdout carries the one JSON document; the code is for a person, on stderr.
            let say: (String) -> Void = arguments.has("--json") ? { Output.note($0) } : { Output.line($0) }
            say("Pairing code: \(lease.code.displayed)")
            say("Listening on \(listener.address); the code works for 5 minutes and 3 failed attempts.")
            say("This device: \(keys.profile.name)  \(keys.profile.fingerprint)")
            let pairing = try serve(listener, host: PairingHost(vault: unlocked, keys: keys, lease: lease))
            try unlocked.setTrustPassingOnDemotion(trust, of: pairing, atPairing: true)
            report(pairing, trust: trust, this: keys.profile, json: arguments.has("--json"))
        }

    /// Serves attempts until a device pairs or the code dies (PairingHost.serveUntilPaired).
    private static func serve(_ listener: TCPListener, host: PairingHost) throws -> FamilyPairing {
        var host = host
        return try host.serveUntilPaired(on: listener, connectionTimeoutSeconds: connectionTimeoutSeconds) { peer, error in
            Output.note("vaultctl: pairing attempt from \(peer) failed: \(error.message)")
        }
    }

    /// Where `pair host` listens: `--address`, as every command names an address (`--listen` is the
    /// older spelling, still accepted).
    static let hostAddress = Option("--address", value: "ADDR:PORT", "the address and port to listen on (default \(defaultListen); "
                                    + "an IPv6 address in brackets, as [::]:7420; port 0 lets the system choose, and the chosen port is printed)",
                                    aliases: ["--listen"])

    static let join = Command("pair join", synopsis: "pair with a device that shows a code (asks for the code)", usage: "--address ADDR:PORT", about: """
        Connects to 'vaultctl pair host' at ADDR:PORT and pairs with it using the code it shows. The
        code is asked on the terminal (or read from --code-file; never from the command line). Case,
        spaces and hyphens do not matter, and I, L and O read as 1, 1 and 0.
        \(nameAbout)
        \(trustAbout)
        """, options: Credentials.options + [Option("--address", value: "ADDR:PORT", "where 'vaultctl pair host' listens (an IPv6 address in brackets, as [fd00::20]:7420)"),
                                             Option("--code-file", value: "PATH", "read the pairing code from the first line of PATH (- for stdin)"), deviceName, trust],
        positionals: 0...1, json: true, examples: ["vaultctl pair join --address 192.168.1.20:7420 --name laptop"]) { arguments in
            let address = try SocketAddress(parsing: try joinAddress(arguments))
            let unlocked = try VaultLocation.unlock(arguments)
            let trust = try chosenTrust(arguments)
            let keys = try deviceKeys(unlocked, arguments)
            let code = try PairingCode(parsing: try typedCode(arguments))
            let connection = try TCPConnection.connect(to: address, maximumFrameLength: PairingHost.maximumFrameLength,
                                                       timeoutSeconds: connectionTimeoutSeconds)
            let pairing = try PairingJoiner(vault: unlocked, keys: keys).join(connection, code: code)
            try unlocked.setTrustPassingOnDemotion(trust, of: pairing, atPairing: true)
            report(pairing, trust: trust, this: keys.profile, json: arguments.has("--json"))
        }

    /// `--name`: what this device is called, here and on the device it pairs with. Each person names
    /// the machine in front of them, as `tailscale up --hostname` or a node's `--node-name` does: it
    /// is the name that device sees at pairing and 'vaultctl device' shows, so two machines made from
    /// one image are not both "vm" on every device they pair with. Not asked when absent: pairing asks
    /// only for its code, and the name stays what it was (the host name when the device was made).
    static let deviceName = Option("--name", value: "NAME", "the name of this device, shown to the device it pairs with and by 'vaultctl device' "
                                   + "(1 to 64 bytes: letters, digits, punctuation, symbols, inner spaces; default: its current name)")

    static let nameAbout = """
        --name names this device before the pairing (recorded as device.rename, or as device.create
        the first time), so the other device stores it under that name; without it the device keeps
        its name, at first the host name. 'vaultctl device rename' changes either name later.
        """

    /// This device's keys, under `--name` if given (checked, and recorded if it changes the name).
    private static func deviceKeys(_ unlocked: UnlockedVault, _ arguments: ParsedArguments) throws -> DeviceKeys {
        guard let name = arguments.value("--name") else { return try unlocked.deviceKeys() }
        return try unlocked.deviceKeys(named: name)
    }

    /// `--address`, or the address as the one argument (the older form, still accepted); one of them.
    private static func joinAddress(_ arguments: ParsedArguments) throws -> String {
        switch (arguments.value("--address"), arguments.positionals.first) {
        case let (address?, nil), let (nil, address?): return address
        case (.some, .some): throw UsageError(message: "give the address once, as --address ADDR:PORT", usage: arguments.usage)
        case (nil, nil): throw UsageError(message: "missing --address", usage: arguments.usage)
        }
    }

    private static func typedCode(_ arguments: ParsedArguments) throws -> SecureBytes {
        if let path = arguments.value("--code-file") { return try SecretInput.firstLine(ofFile: path, what: "pairing code") }
        do {
            return try SecretInput.prompt("Pairing code: ")
        } catch let error as CommandError where error.exitCode == .usage {
            throw CommandError(message: "there is no terminal to ask for the pairing code", exitCode: .usage,
                               hint: "pass --code-file PATH (or - for standard input)")
        }
    }

    /// `--trust`: whose device the other one is, chosen on each screen (issue 17, SECURITY.md §19.8).
    static let trust = Option("--trust", value: "mine|other", "whose device the other one is: 'mine' (your own; privileged "
                              + "projects may sync to it) or 'other' (someone else's: privileged compartments are refused)")

    static let trustAbout = """
        --trust says whose device the other one is, on each screen: 'mine' (your own laptop or desk
        machine; privileged projects may sync to it) or 'other' (someone else's: only what sharing
        allows, privileged compartments refused). Asked on the terminal when absent; without a
        terminal it is 'other'. Recorded as peer.trust; 'vaultctl peers trust' changes it later.
        """

    /// The trust level from `--trust`, asked on the terminal when absent (before anything is sent),
    /// or 'other' (the level that grants nothing new) when there is no terminal to ask on.
    private static func chosenTrust(_ arguments: ParsedArguments) throws -> DeviceTrust {
        if let text = arguments.value("--trust") {
            guard let trust = DeviceTrust(rawValue: text) else {
                throw UsageError(message: "--trust is 'mine' or 'other', not '\(text)'", usage: arguments.usage)
            }
            return trust
        }
        let streams = StandardStreams.current
        guard streams.isOwn, streams.isTerminal(streams.input), streams.isTerminal(streams.error) else {
            Output.note("vaultctl: note: no --trust and no terminal to ask on: the other device is recorded as someone else's ('other')")
            return .other
        }
        for _ in 0..<3 {
            let answer = try Confirmation.ask("Is the other device yours ('mine') or someone else's ('other')? ")
            if let trust = DeviceTrust(rawValue: answer.lowercased()) { return trust }
        }
        throw CommandError(message: "no trust level chosen (answer 'mine' or 'other'); nothing was paired", exitCode: .usage)
    }

    private static func report(_ pairing: FamilyPairing, trust: DeviceTrust, this device: DeviceProfile, json: Bool) {
        if pairing.peer.name == device.name {
            Output.note("""
                vaultctl: note: both devices are named '\(device.name)'; tell them apart with 'vaultctl device rename \
                \(pairing.peer.fingerprint) NAME' here, or pair with --name NAME on each
                """)
        }
        if json {
            Output.json(PeersCommands.json(pairing, trust: trust))
            return
        }
        Output.line("Paired with \(pairing.peer.name)  \(pairing.peer.fingerprint)  (\(trust == .mine ? "your own device" : "someone else's device"))")
        Output.line("Compare this fingerprint with 'vaultctl device' on that device.")
    }
}
