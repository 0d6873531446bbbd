import CryptoVault
import Foundation
import Registers
import Sync
import Writing

/// project create, list, show, rename, archive: writing projects, each with a compartment of its own.
enum ProjectCommands {
    static let create = Command("project create", synopsis: "create a writing project", usage: "NAME --register REGISTER", about: """
        Creates a writing project and its own compartment (named "project ID"); the name is sealed in
        it. REGISTER is one of:
          \(HelpText.wrap(Register.allCases.map(\.rawValue).joined(separator: ", "), width: 90).joined(separator: "\n  "))
        The register decides the project's words ('vaultctl lexicon'), templates and privacy:
        healthcare and legal projects are privileged unless --not-privileged is given. --kind is
        document (a block editor: notes, memos, briefs; the default) or long-form (a book).
        """, options: [
            Option("--register", value: "REGISTER", "the professional register the project is written in"),
            Option("--kind", value: "KIND", "document or long-form (default: document)"),
            Option("--privileged", "privileged whatever the register"), Option("--not-privileged", "not privileged whatever the register"),
        ] + Credentials.options, positionals: 1...1, json: true, examples: [
            "vaultctl project create \"Intake notes\" --register healthcare",
            "vaultctl project create \"The harbour\" --register fiction --kind long-form",
        ]) { arguments in
            guard let register = try WritingContext.register(arguments) else { throw UsageError(message: "missing --register", usage: arguments.usage) }
            let kindText = arguments.value("--kind") ?? ProjectKind.document.rawValue
            guard let kind = ProjectKind(rawValue: kindText) else {
                throw UsageError(message: "--kind is document or long-form, not '\(kindText)'", usage: arguments.usage)
            }
            if arguments.has("--privileged") && arguments.has("--not-privileged") {
                throw UsageError(message: "--privileged and --not-privileged exclude each other", usage: arguments.usage)
            }
            let privileged: Bool? = arguments.has("--privileged") ? true : arguments.has("--not-privileged") ? false : nil
            let project = try VaultLocation.unlock(arguments)
                .createProjectMadeHere(named: arguments.positionals[0], register: register, kind: kind, privileged: privileged)
            if arguments.has("--json") { Output.json(json(project, name: arguments.positionals[0])); return }
            let word = WritingContext.term(.project, register)
            let traits = [register.rawValue, kind == .longForm ? kind.rawValue : nil, project.isPrivileged ? "privileged" : nil].compactMap { $0 }
            Output.line("Created \(word) \(project.id) (\(traits.joined(separator: ", "))).")
        }

    static let list = Command("project list", synopsis: "list writing projects", about: """
        Lists projects: id, name, register, kind, whether privileged or archived, and whose device
        shared it when it is someone else's project (its owner names it, any name). A privileged
        project's name shows as (privileged) unless --purpose opens a one-command session on it (each
        name read is recorded) or the running daemon holds a session of its compartment.
        """, options: [WritingContext.purposeOption] + Credentials.options, json: true, examples: [
            "vaultctl project list",
            "vaultctl project list --purpose \"find the intake chart\" --json",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            VaultLocation.warnOfDamagedLinks(context.vault)
            let origins = try SharedProjectOrigin.all(in: context.vault)
            let rows = try context.projects().map { project in json(project, listed: try context.listedName(of: project), sharedBy: origins[project.id]) }
            if arguments.has("--json") { Output.json(rows); return }
            let unread = try unreadInMemory(context, listed: Set(rows.compactMap { $0["id"] as? String }))
            if rows.isEmpty && unread == nil { Output.line("No projects yet: 'vaultctl project create NAME --register R'."); return }
            if let unread { Output.line(unread) }
            for row in rows {
                // The kind is said only when it is long-form: "document", the default, is also a
                // concept the register may call otherwise (a note, to a clinician).
                let flags = [(row["kind"] as? String) == ProjectKind.longForm.rawValue ? ProjectKind.longForm.rawValue : nil,
                             privacyFlag(row), row["archived"] is NSNull ? nil : "archived",
                             (row["shared_by"] as? [String: Any]).map { "someone else's, shared by device \($0["name"]!) (\($0["role"]!))" }]
                    .compactMap { $0 }.joined(separator: ", ")
                Output.line("\(row["id"]!)  \(shownName(row))  \(row["register"]!)\(flags.isEmpty ? "" : "  " + flags)")
            }
        }

    /// In in-memory mode the copy's writing store is empty (or holds what a sync brought): the vault's
    /// own projects, whose compartments it still holds, are said not read, never "No projects yet"
    /// (reviewer s17, F17-5). Nil outside the mode or when every one of them is listed.
    private static func unreadInMemory(_ context: WritingContext, listed: Set<String>) throws -> String? {
        guard let reason = InMemoryMode.reason else { return nil }
        let projects = Set(try context.vault.compartments().compactMap { ProjectRowMend.projectID(namedIn: $0.name)?.hex })
        let unread = projects.subtracting(listed)
        guard !unread.isEmpty else { return nil }
        return "\(unread.count) project(s) of this vault are not read in in-memory mode (\(reason)): "
            + "'vaultctl repair --from DEVICE' rebuilds them from an own device ('vaultctl serve' with 'vaultctl sync now' reads its copy meanwhile)."
    }

    static let show = Command("project show", synopsis: "show a writing project", usage: "PROJECT", about: """
        Shows PROJECT (its name or id): register, kind, compartment, privacy, how many folders and
        documents it holds, in the register's words, and the register's citation style and theme colour.

        \(WritingContext.sessionNote)
        """, options: [WritingContext.purposeOption] + Credentials.options, positionals: 1...1, json: true, examples: [
            "vaultctl project show \"The harbour\"",
            "vaultctl project show 3f2a09c4e1b7d8a6f0c2e4b6d8a0c2e4 --purpose \"audit preparation\" --json",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let outline = try context.store(for: project) { try $0.outline(of: project.id) }
            let folders = outline.filter { $0.kind == .chapter }.count, documents = outline.count - folders
            let sharedBy = try SharedProjectOrigin.all(in: context.vault)[project.id]
            var row = json(project, listed: try context.listedName(of: project), sharedBy: sharedBy)
            row["documents"] = documents
            row["folders"] = folders
            row["citation"] = project.register.profile.citationStyle.rawValue
            row["theme"] = project.register.profile.themeColour.hex
            if arguments.has("--json") { Output.json(row); return }
            let register = project.register
            Output.line("\(WritingContext.term(.project, register).capitalized) \(project.id)")
            Output.line("  name         \(shownName(row))")
            if let sharedBy { Output.line("  origin       \(sharedBy.label)") }
            Output.line("  register     \(register.rawValue)\(project.isPrivileged ? " (privileged)" : "")")
            // The kind and the compartment's name are values, quoted: '--kind document', a compartment 'project ID'.
            Output.line("  kind         '\(project.kind.rawValue)'")
            Output.line("  compartment  '\(project.compartment.name)'")
            Output.line("  created      \(Output.timestamp(project.createdAt))\(project.archivedAt.map { ", archived \(Output.timestamp($0))" } ?? "")")
            Output.line("  holds        \(documents) \(WritingContext.term(.scene, register, plural: documents != 1)), "
                        + "\(folders) \(WritingContext.term(.chapter, register, plural: folders != 1))")
            Output.line("  citation     \(register.profile.citationStyle.displayName)")
            Output.line("  theme        \(register.profile.themeColour.hex)")
        }

    static let rename = Command("project rename", synopsis: "rename a writing project", usage: "PROJECT NEW-NAME", about: """
        Gives PROJECT (its name or id) a new name, sealed in its compartment. Its id and compartment stay.

        \(WritingContext.sessionNote)
        """, options: [WritingContext.purposeOption] + Credentials.options, positionals: 2...2, json: true, examples: [
            "vaultctl project rename \"The harbour\" \"The lighthouse\"",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            try context.rowStore(for: project) { try $0.rename(project.id, to: arguments.positionals[1]) }
            if arguments.has("--json") { Output.json(["id": project.id.hex, "name": arguments.positionals[1]]); return }
            Output.line("Renamed \(WritingContext.term(.project, project.register)) \(project.id).")
        }

    static let archive = Command("project archive", synopsis: "archive a writing project (or bring it back)", usage: "PROJECT", about: """
        Archives PROJECT (its name or id): it is kept whole and can be read as before, and refuses
        changes until --undo brings it back.

        \(WritingContext.sessionNote)
        """, options: [Option("--undo", "bring an archived project back"), WritingContext.purposeOption] + Credentials.options,
        positionals: 1...1, json: true, examples: [
            "vaultctl project archive \"Smith v. Jones\"",
            "vaultctl project archive \"Smith v. Jones\" --undo",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let archived = !arguments.has("--undo")
            try context.rowStore(for: project) { try $0.archive(project.id, archived) }
            if arguments.has("--json") { Output.json(["id": project.id.hex, "archived": archived]); return }
            Output.line("\(archived ? "Archived" : "Brought back") \(WritingContext.term(.project, project.register)) \(project.id).")
        }

    static let register = Command("project register", synopsis: "change a writing project's register", usage: "PROJECT REGISTER", about: """
        Gives PROJECT (its name or id) another register: its words, field labels and templates change,
        and no record moves (the register is presentation only). Its compartment and privacy stay:
        a project made ordinary stays ordinary as a chart or a matter (said, and listed as NOT
        privileged), one made privileged stays privileged.

        \(WritingContext.sessionNote)
        """, options: [WritingContext.purposeOption] + Credentials.options, positionals: 2...2, json: true, examples: [
            "vaultctl project register \"The harbour\" screenwriting",
        ]) { arguments in
            guard let register = Register(rawValue: arguments.positionals[1]) else {
                throw UsageError(message: "unknown register '\(arguments.positionals[1])'", usage: arguments.usage)
            }
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            try context.rowStore(for: project) { try $0.setRegister(project.id, register) }
            if arguments.has("--json") {
                Output.json(["id": project.id.hex, "register": register.rawValue, "privileged": project.isPrivileged])
                return
            }
            Output.line("The \(WritingContext.term(.project, project.register)) \(project.id) is now a \(WritingContext.term(.project, register)) "
                        + "(\(register.rawValue)).")
            if let note = privacyNote(project, becoming: register) { Output.line(note) }
        }

    static let all = [create, list, show, rename, archive, register]

    /// "privileged", or "NOT privileged" for a project of a register whose projects are privileged
    /// unless made otherwise (a chart given the healthcare register later stays ordinary, and may
    /// be shared with someone else's device: said where the owner looks, F17-12); else nil.
    static func privacyFlag(_ row: [String: Any]) -> String? {
        if (row["privileged"] as? Bool) == true { return "privileged" }
        let register = (row["register"] as? String).flatMap(Register.init(rawValue:))
        return register?.isPrivilegedByDefault == true ? "NOT privileged" : nil
    }

    /// What a new register does not change, said when it matters: privacy is the compartment's.
    static func privacyNote(_ project: WritingProject, becoming register: Register) -> String? {
        switch (project.isPrivileged, register.isPrivilegedByDefault) {
        case (false, true):
            "It is NOT privileged (its compartment is ordinary): unlike a \(WritingContext.term(.project, register)) made as "
                + "\(register.rawValue), it may be shared with someone else's device and is read without a session. For privileged "
                + "\(register.rawValue) work, make a new project ('vaultctl project create NAME --register \(register.rawValue)')."
        case (true, false): "It stays privileged (its compartment is): read in a session, never shared with someone else's device."
        default: nil
        }
    }

    /// `shared_by`: whose the project is when someone else's device shared it with this vault (F17: it
    /// may carry any name, one of the owner's privileged charts' included), else null.
    /// `json(_:name:sharedBy:)` for a name as a listing reads it: one that does not open is null,
    /// with `name_damaged` saying why (R15-8).
    static func json(_ project: WritingProject, listed: Result<String?, DamagedProjectName>, sharedBy: SharedProjectOrigin?) -> [String: Any] {
        switch listed {
        case .success(let name): return json(project, name: name, sharedBy: sharedBy)
        case .failure(let damage):
            var row = json(project, name: nil, sharedBy: sharedBy)
            row["name_damaged"] = damage.reason
            return row
        }
    }

    /// A row's name as the text output shows it: the name, or why there is none.
    static func shownName(_ row: [String: Any]) -> String {
        if let name = row["name"] as? String { return name }
        return row["name_damaged"] == nil ? "(privileged)" : "(name damaged)"
    }

    static func json(_ project: WritingProject, name: String?, sharedBy: SharedProjectOrigin? = nil) -> [String: Any] {
        ["id": project.id.hex, "name": name ?? NSNull(), "register": project.register.rawValue, "kind": project.kind.rawValue,
         "privileged": project.isPrivileged, "compartment": project.compartment.name,
         "created_at": Output.timestamp(project.createdAt), "archived": project.archivedAt.map { Output.timestamp($0) } ?? NSNull(),
         "shared_by": sharedBy.map { ["device": $0.device.hex, "name": $0.name, "role": $0.role] as [String: Any] } ?? NSNull()]
    }
}
