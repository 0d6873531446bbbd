import Appliance
import Foundation

/// `session start|list|end`: privileged processing sessions held by the running daemon.
enum SessionCommands {
    static let start = Command("session start", synopsis: "open a privileged processing session in the daemon", usage: "--compartment NAME --purpose TEXT", about: """
        Asks the running daemon ('vaultctl serve') to open a session on a privileged compartment, for
        you and a purpose (sealed in the audit log). While it lives, 'vaultctl open' and 'get' read
        that compartment's bundles through it; it ends after the daemon's idle or absolute limit, or
        with 'vaultctl session end'. Prints the session's id.
        """, options: [Option("--compartment", value: "NAME", "the privileged compartment"), Option("--purpose", value: "TEXT", "why you read it (name no patient: arguments are visible to local users)"), DaemonSocket.option], json: true, examples: ["vaultctl session start --compartment \"Session notes\" --purpose \"treatment review\""]) { arguments in
            guard let compartment = arguments.value("--compartment"), let purpose = arguments.value("--purpose") else {
                throw UsageError(message: "session start needs --compartment and --purpose", usage: arguments.usage)
            }
            let reply = try DaemonClient.ask(arguments, ControlMessage(["op": "session.start", "compartment": compartment, "purpose": purpose]))
            let sessions = try SessionListing.parse(reply.bytes("session"))
            if arguments.has("--json") { Output.json(sessions.first ?? [:]); return }
            for session in sessions {
                Output.line("\(session["id"] ?? "")")
                Output.note("Session open on '\(session["compartment"] ?? "")' until \(session["ends_by"] ?? "") at the latest (idle limit applies).")
            }
        }

    static let list = Command("session list", synopsis: "list the daemon's live sessions", about: """
        Lists the running daemon's live sessions: id, compartment, who opened it, when it ends at the
        latest (idle or absolute limit), and what it has read.
        """, options: [DaemonSocket.option], json: true, examples: ["vaultctl session list --json"]) { arguments in
            let sessions = try SessionListing.parse(try DaemonClient.ask(arguments, ControlMessage(["op": "session.list"])).bytes("sessions"))
            if arguments.has("--json") { Output.json(sessions); return }
            if sessions.isEmpty { Output.line("No live sessions.") }
            for session in sessions { Output.line(describe(session)) }
        }

    static let end = Command("session end", synopsis: "end a session (or --all) and wipe its keys", usage: "ID|--all", about: """
        Ends the daemon's session ID (or a unique prefix of at least 6 hex digits), or every session
        with --all: its keys are wiped and its end, with what it read, is recorded.
        """, options: [Option("--all", "every live session"), DaemonSocket.option], positionals: 0...1, json: true, examples: ["vaultctl session end 3f2a09", "vaultctl session end --all"]) { arguments in
            let id = arguments.has("--all") ? "all" : arguments.positionals.first
            guard let id, arguments.has("--all") != !arguments.positionals.isEmpty else {
                throw UsageError(message: "give a session id or --all (not both)", usage: arguments.usage)
            }
            let ended = try SessionListing.parse(try DaemonClient.ask(arguments, ControlMessage(["op": "session.end", "session": id])).bytes("sessions"))
            if arguments.has("--json") { Output.json(ended); return }
            Output.line(ended.isEmpty ? "No live sessions." : "Ended \(ended.count) session\(ended.count == 1 ? "" : "s"); their keys are wiped.")
        }

    private static func describe(_ session: [String: Any]) -> String {
        let id = (session["id"] as? String) ?? ""
        return "\(id.prefix(12))  \(session["compartment"] ?? "")  \(session["actor"] ?? "")  ends by \(session["ends_by"] ?? "")  "
            + "\(session["bundles_read"] ?? 0) bundles, \(session["bytes_read"] ?? 0) bytes"
    }
}
