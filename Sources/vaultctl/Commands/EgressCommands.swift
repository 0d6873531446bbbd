import CryptoVault
import Foundation
import PrivilegedSession

/// `vaultctl egress check` and `vaultctl egress log`: the egress funnel from the command line.
enum EgressCommands {
    /// A payload is read whole (the leak guard needs all of it); beyond this it is refused, not cut.
    static let maximumPayload = 1 << 30

    static let check = Command("egress check", synopsis: "decide whether a payload may leave the vault", usage: "--to KIND:ID --from COMPARTMENT[,COMPARTMENT...] [FILE|-]", about: """
        Runs the payload (FILE, or standard input) through the egress funnel: the leak guard looks for
        identifiers, the policy of every compartment it derives from decides, and the decision is
        recorded in the audit log (the payload's hash and size, never the payload).
        Exit code 0: allow; 3: redact (findings replaced by typed placeholders); 4: refuse.
        Privileged content may go only to this vault (vault:self) or the owner's paired devices.
        """, options: Credentials.options + [
            Option("--to", value: "KIND:ID", "the destination; KIND is one of vault, device, file, share, model, sync (export: is read as file:)"), Option("--from", value: "NAMES", "the compartments the content derives from, comma-separated"),
            Option.output("write the payload that may leave (the redacted one for redact); nothing on refuse"), Option.force,
        ], positionals: 0...1, json: true, examples: ["vaultctl egress check --to model:summarizer --from Memos draft.txt -o released.txt"]) { arguments in
            let destination = try EgressDestination(parsing: try arguments.required("--to"))
            let names = try arguments.required("--from").split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            guard !names.contains(where: \.isEmpty) else { throw UsageError(message: "--from has an empty compartment name", usage: arguments.usage) }
            let payload = try readPayload(arguments.positionals.first ?? "-")
            let unlocked = try VaultLocation.unlock(arguments)
            let compartments = try names.map { try unlocked.compartment(named: $0) }
            let outcome = try EgressFunnel(vault: unlocked).submit(EgressRequest(destination: destination, compartments: compartments, payload: payload))
            if let released = outcome.released, let path = arguments.value("-o") {
                let output = try OutputTarget(path, force: arguments.has("--force"))
                try output.produce { output in try released.bytes.withUnsafeBytes { try output.write($0) } }
            }
            // With -o - the released payload alone goes to stdout (into whatever reads it); the report to stderr.
            report(outcome, json: arguments.has("--json"), toStandardError: arguments.value("-o") == "-")
            switch outcome.decision {
            case .allow: return
            case .redact: throw Decided(exitCode: .redacted)
            case .refuse: throw Decided(exitCode: .refused)
            }
        }

    static let log = Command("egress log", synopsis: "list the recorded egress decisions", about: """
        Every egress decision from the audit log: when, who, destination, compartments, decision,
        what it was made on, and the payload's size and SHA-256. A payload the leak guard scanned
        shows what it found (counts per kind); ciphertext it cannot read (a replica, a share grant)
        was decided on its metadata alone and shows as such ("content": "ciphertext", and no
        findings, in --json). A privileged export shows the session it was made in (its purpose
        is on that session's session.start entry).
        """, options: Credentials.options, json: true, examples: ["vaultctl egress log --json"]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let names = Dictionary(try unlocked.compartments().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
            let items = try EgressLog.items(of: unlocked)
            if arguments.has("--json") { Output.json(items.map { json($0, names: names) }); return }
            for item in items { Output.line(line(item, names: names)) }
        }

    private static func json(_ item: EgressLog.Item, names: [CompartmentID: String]) -> [String: Any] {
        ["seq": item.seq, "time": Output.timestamp(item.time), "actor": item.actor, "destination": item.record.destination,
         "compartments": item.record.compartmentIDs.map { names[$0] ?? "(destroyed)" }, "decision": item.record.decision.rawValue,
         "content": item.content.rawValue, "findings": item.content == .ciphertext ? NSNull() : item.record.findings as Any,
         "size": item.record.payloadSize, "sha256": BundleCommands.hex(item.record.payloadSHA256),
         "session": item.record.sessionID.map { $0 as Any } ?? NSNull()]
    }

    /// One decision on a line: what the leak guard found in a scanned payload, or, for ciphertext it
    /// could not scan, that it is ciphertext and its digest (the one thing that identifies it).
    private static func line(_ item: EgressLog.Item, names: [CompartmentID: String]) -> String {
        let from = item.record.compartmentIDs.map { names[$0] ?? "(destroyed)" }.joined(separator: ",")
        let lead = "\(item.seq)  \(Output.timestamp(item.time))  \(item.record.decision.rawValue)  \(item.record.destination)  from \(from)  \(item.record.payloadSize) bytes"
        switch item.content {
        case .ciphertext:
            return lead + "  ciphertext (not scanned; decided on metadata)  sha256 \(BundleCommands.hex(item.record.payloadSHA256))"
        case .plaintext:
            let findings = item.record.findings.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }
            let session = item.record.sessionID.map { "  in session \($0)" } ?? ""
            return lead + "  found: \(findings.isEmpty ? "nothing" : findings.joined(separator: ", "))" + session
        }
    }

    private static func readPayload(_ path: String) throws -> [UInt8] {
        let input = try InputFile(path)
        var payload: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        while true {
            let count = try buffer.withUnsafeMutableBytes { try input.descriptor.readFully(into: $0) }
            payload += buffer[0..<count]
            guard payload.count <= maximumPayload else {
                throw CommandError(message: "the payload is larger than \(maximumPayload >> 20) MiB; egress check reads it whole", exitCode: .dataError)
            }
            if count < buffer.count { return payload }
        }
    }

    private static func report(_ outcome: EgressOutcome, json: Bool, toStandardError: Bool) {
        let say: (String) -> Void = toStandardError ? { Output.note($0) } : { Output.line($0) }
        let findings = outcome.findings.map { ["kind": $0.kind.rawValue, "start": $0.range.lowerBound, "end": $0.range.upperBound] as [String: Any] }
        if json {
            let document: [String: Any] = ["decision": outcome.decision.rawValue, "destination": outcome.record.destination, "findings": findings,
                                           "size": outcome.record.payloadSize, "sha256": BundleCommands.hex(outcome.record.payloadSHA256)]
            if toStandardError { Output.jsonNote(document) } else { Output.json(document) }
            return
        }
        say("Decision: \(outcome.decision.rawValue) (to \(outcome.record.destination))")
        if outcome.findings.isEmpty { say("Found: nothing") }
        for hit in outcome.findings { say("Found: \(hit.kind.rawValue) at bytes \(hit.range.lowerBound)..<\(hit.range.upperBound)") }
    }
}

/// A decision that is not an error but has its own exit code (3 redact, 4 refuse); reported silently.
struct Decided: Error {
    let exitCode: ExitCode
}
