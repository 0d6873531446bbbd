import CryptoVault
import Foundation
import Writing

/// project snapshot, versions, restore: versions of a whole project (SECURITY.md §15.2). A
/// document's own versions are 'vaultctl snapshot'; these take, list and restore every document
/// and the binder at once.
enum ProjectSnapshotCommands {
    static let versionNote = "VERSION is a project snapshot's id or its number ('vaultctl project versions' lists them)."

    static let create = Command("project snapshot", synopsis: "store a version of a whole project", usage: "PROJECT", about: """
        Stores the current version of every document of PROJECT (a document unchanged since its
        latest version links that one) together with the binder: every folder and document, its
        place and its title. With --title it is a named version. Without one, nothing is stored if
        nothing changed since the latest project version: that version is named. Prints its number
        and id.

        \(WritingContext.sessionNote)
        """, options: [SnapshotCommands.titleOption] + DocCommands.readOptions, positionals: 1...1, json: true, examples: [
            "vaultctl project snapshot \"The harbour\" --title \"Sent to the editor\"",
        ]) { arguments in
            let (context, project) = try open(arguments)
            defer { context.end() }
            let snapshot = try context.store(for: project) { try $0.createProjectSnapshot(of: project.id, titled: arguments.value("--title")) }
            if arguments.has("--json") { Output.json(json(snapshot)); return }
            Output.line("\(WritingContext.capitalizedTerm(.project, project.register)) version \(snapshot.sequence): \(snapshot.id).")
        }

    static let list = Command("project versions", synopsis: "list the stored versions of a whole project", usage: "PROJECT", about: """
        Lists the project-wide versions of PROJECT, oldest first: number, id, when, how it was made
        (automatic, titled, restore) and its title.

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 1...1, json: true, examples: [
            "vaultctl project versions \"The harbour\"",
        ]) { arguments in
            let (context, project) = try open(arguments)
            defer { context.end() }
            let snapshots = try context.store(for: project) { try $0.projectSnapshots(of: project.id) }
            if arguments.has("--json") { Output.json(snapshots.map(json)); return }
            Output.line("\(snapshots.count) \(WritingContext.term(.project, project.register)) version\(snapshots.count == 1 ? "" : "s")")
            for snapshot in snapshots { Output.line(line(snapshot)) }
        }

    static let restore = Command("project restore", synopsis: "make a stored project version the project again", usage: "PROJECT VERSION",
                                 about: """
        Makes project version VERSION of PROJECT current again, in one transaction: every document
        it held gets that version's content (documents unchanged are left alone), and every folder
        and document its place and title. The project as it was is stored first as a version of its
        own, so the restore can be undone by restoring that one, and the result is stored as a new
        version. Documents added since are kept. A version holding a document removed since is
        refused (exit 66), as its versions went with it.
        \(versionNote)

        \(WritingContext.sessionNote)
        """, options: DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl project restore \"The harbour\" 1",
        ]) { arguments in
            let (context, project) = try open(arguments)
            defer { context.end() }
            let result = try context.store(for: project) { store in
                try store.restoreProject(project.id, to: try resolve(arguments.positionals[1], in: try store.projectSnapshots(of: project.id)))
            }
            if arguments.has("--json") {
                Output.json(["before": json(result.before), "version": json(result.version), "documents_restored": result.documentsRestored])
                return
            }
            Output.line("Restored the \(WritingContext.term(.project, project.register)) (\(WritingContext.counted(result.documentsRestored, .scene, project.register)) "
                        + "changed); the version before is \(result.before.sequence), "
                        + "the result is version \(result.version.sequence): \(result.version.id).")
        }

    static let all = [create, list, restore]

    static func open(_ arguments: ParsedArguments) throws -> (WritingContext, WritingProject) {
        let context = try WritingContext(arguments)
        return (context, try context.project(arguments.positionals[0]))
    }

    /// VERSION: an id as given (the store refuses another project's), or a number in `snapshots`.
    static func resolve(_ text: String, in snapshots: [ProjectSnapshot]) throws -> ProjectSnapshotID {
        if let id = try? ProjectSnapshotID(hex: text) { return id }
        guard let number = Int(text), let found = snapshots.first(where: { $0.sequence == number }) else {
            throw WritingError(.snapshotNotFound, "no project version '\(text)' ('vaultctl project versions' shows them)")
        }
        return found.id
    }

    static func line(_ snapshot: ProjectSnapshot) -> String {
        let when = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: TimeInterval(snapshot.createdAt)))
        return "\(String(snapshot.sequence).padding(toLength: 4, withPad: " ", startingAt: 0)) \(snapshot.id)  \(when)  "
            + "\(snapshot.origin.rawValue.padding(toLength: 9, withPad: " ", startingAt: 0))\(snapshot.title ?? "")"
    }

    static func json(_ snapshot: ProjectSnapshot) -> [String: Any] {
        ["id": snapshot.id.hex, "number": snapshot.sequence, "origin": snapshot.origin.rawValue,
         "title": snapshot.title.map { $0 as Any } ?? NSNull(), "device": snapshot.deviceID.hex, "created_at": snapshot.createdAt]
    }
}
