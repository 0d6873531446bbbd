import CryptoVault
import Foundation
import Writing

/// activity: a project's writing sessions, one per device per session (SECURITY.md §15.5).
enum ActivityCommand {
    static let endOption = Option("--end", "end this device's writing session of the project now (in a privileged project its end is stamped into the audit log)")

    static let command = Command("activity", synopsis: "who wrote what in a project, session by session", usage: "PROJECT", about: """
        Lists the writing sessions of PROJECT (its name or id), oldest first: when each began and
        had its last edit, the device, how many edits it merged, its net change in words, and each
        document it changed with that document's change. Edits by one device less than
        \(WritingSessionRule.gap / 60) minutes apart are one session; a longer pause starts the
        next. A session still open is marked 'open'.

        Listing ends this device's sessions whose last edit is \(WritingSessionRule.gap / 60) minutes
        ago or more; --end ends the current one now. In a privileged project each session's start
        and end are stamped into the audit log (ids, counts and times; never a word of the text).

        \(WritingContext.sessionNote)
        """, options: [endOption] + DocCommands.readOptions, positionals: 1...1, json: true, examples: [
            "vaultctl activity \"The harbour\"",
            "vaultctl activity \"Intake notes\" --end --purpose \"close today's notes\" --json",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let (events, nodes) = try context.store(for: project) { store in
                try store.endWritingSessions(in: project.id, now: arguments.has("--end"))
                return (try store.editEvents(in: project.id), try store.nodes(in: project.id))
            }
            let titles = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.title) })
            if arguments.has("--json") { Output.json(events.map { json($0, titles) }); return }
            Output.line("\(events.count) writing session(s)")
            for event in events {
                Output.line("\(moment(event.startedAt)) to \(moment(event.lastEditAt))  device \(event.deviceID.hex.prefix(8))  "
                            + "\(event.edits) edit(s)  \(signed(event.wordDelta)) words\(event.endedAt == nil ? "  open" : "")")
                for edit in event.documents {
                    Output.line("    \(edit.document)  \(signed(edit.wordDelta).padding(toLength: 8, withPad: " ", startingAt: 0)) "
                                + (titles[edit.document] ?? "(removed)"))
                }
            }
        }

    static func moment(_ seconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
    }

    static func signed(_ words: Int) -> String { words > 0 ? "+\(words)" : String(words) }

    static func json(_ event: SceneEditEvent, _ titles: [NodeID: String]) -> [String: Any] {
        ["id": event.id.hex, "device": event.deviceID.hex, "started_at": event.startedAt,
         "last_edit_at": event.lastEditAt, "ended_at": event.endedAt.map { $0 as Any } ?? NSNull(), "edits": event.edits, "words": event.wordDelta,
         "documents": event.documents.map { ["id": $0.document.hex, "title": titles[$0.document].map { $0 as Any } ?? NSNull(), "words": $0.wordDelta] }]
    }
}
