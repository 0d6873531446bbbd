import CryptoVault
import Foundation
import Registers
import Writing

/// entry add, list, show, rm: a project's characters, places, plot beats and snippets, in its
/// register's words (a legal project's parties, venues and issues; a clinician's people and
/// treatment goals), with the register's field labels (a party's type and identification, a
/// person's relationship and background); what the register hides is neither shown nor read.
enum EntryCommands {
    static let kindOption = Option("--kind", value: "KIND",
                                   "character, place, plot-beat or snippet, or the register's word for it (party, person, issue, …)")

    static let add = Command("entry add", synopsis: "add a character, place, plot beat or snippet to a project", usage: "PROJECT NAME --kind KIND [FILE|-]", about: """
        Adds an entry named NAME of kind KIND to PROJECT (its name or id). Its fields and body are read
        from FILE (or standard input, as -), straight into memory: first lines 'Label: value' with the
        register's labels for the kind ('vaultctl entry show' prints the same form; a legal party has
        'Party type:' and 'Identification:', a clinical person 'Relationship:' and 'Background:'),
        then, after an empty line, the body. Without FILE the entry has a name only.

        \(WritingContext.sessionNote)
        """, options: [kindOption] + DocCommands.readOptions, positionals: 2...3, json: true, examples: [
            "vaultctl entry add \"Smith v. Jones\" \"Jane Smith\" --kind party jane.txt --purpose \"hearing\"",
            "vaultctl entry add \"The harbour\" \"The storm\" --kind plot-beat",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let kind = try Self.kind(try arguments.required("--kind"), project.register, usage: arguments.usage)
            let labels = FieldEditor(project.register)
            // Without FILE, no fields and no body (the empty text).
            let parsed = try arguments.positionals.count > 2
                ? EntryText.parse(try DocCommands.readText(arguments.positionals[2]), kind: kind, labels: labels)
                : EntryText.parse([UInt8](), kind: kind, labels: labels)
            let entry = try context.store(for: project) { store in
                try store.addEntry(kind, named: arguments.positionals[1], body: parsed.body, fields: parsed.fields, in: project.id)
            }
            if arguments.has("--json") { Output.json(json(entry, project.register)); return }
            Output.line("Added \(term(kind, project.register)) \(entry.id).")
        }

    static let list = Command("entry list", synopsis: "list a project's characters, places, plot beats and snippets", usage: "PROJECT", about: """
        Lists PROJECT's entries (only those of --kind KIND when given), each with its id and kind, in
        the register's words. Kinds the register hides (a healthcare project has no places) are
        not listed.

        \(WritingContext.sessionNote)
        """, options: [kindOption] + DocCommands.readOptions, positionals: 1...1, json: true, examples: [
            "vaultctl entry list \"Smith v. Jones\" --kind party --purpose \"prepare the hearing\"",
            "vaultctl entry list \"The harbour\" --json",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let kind = try arguments.value("--kind").map { try Self.kind($0, project.register, usage: arguments.usage) }
            let entries = try context.store(for: project) { try $0.entries(kind, in: project.id) }.filter { isShown($0.kind, project.register) }
            if arguments.has("--json") { Output.json(entries.map { json($0, project.register) }); return }
            let kinds = kind.map { [$0] } ?? EntryKind.allCases.filter { isShown($0, project.register) }
            Output.line(kinds.map { kind in
                let count = entries.filter { $0.kind == kind }.count
                return "\(count) \(term(kind, project.register, plural: count != 1))"
            }.joined(separator: ", "))
            for entry in entries {
                Output.line("\(entry.id)  \(term(entry.kind, project.register).padding(toLength: 16, withPad: " ", startingAt: 0)) \(entry.name)")
            }
        }

    static let show = Command("entry show", synopsis: "print an entry's fields and body", usage: "PROJECT ENTRY", about: """
        Prints entry ENTRY (its name or id) of PROJECT: its kind and name, then its fields as
        'Label: value' in the register's words and, after an empty line, its body (the form 'vaultctl
        entry add' reads). Fields the register hides are kept but not shown.

        \(WritingContext.sessionNote)
        """, options: [kindOption] + DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl entry show \"Smith v. Jones\" \"Jane Smith\" --purpose \"prepare the hearing\"",
        ]) { arguments in
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let entry = try Self.entry(arguments, context, project)
            if arguments.has("--json") { Output.json(json(entry, project.register)); return }
            let word = term(entry.kind, project.register)
            Output.line("\(word.prefix(1).uppercased() + word.dropFirst()): \(entry.name)")
            let text = EntryText.render(entry, labels: FieldEditor(project.register))
            if !text.isEmpty { Output.raw(text) }
        }

    static let remove = Command("entry rm", synopsis: "remove a character, place, plot beat or snippet", usage: "PROJECT ENTRY --yes", about: """
        Removes entry ENTRY (its name or id) of PROJECT and its sealed record. It cannot be brought
        back (except from a backup): --yes confirms; on a terminal without --yes you are asked to
        type YES.

        \(WritingContext.sessionNote)
        """, options: [Option("--yes", "confirm the removal"), kindOption] + DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl entry rm \"The harbour\" \"The storm\" --yes",
        ]) { arguments in
            try Confirmation.require(arguments.has("--yes"), flag: "--yes",
                                     consequence: "removing '\(arguments.positionals[1])' deletes it from the vault for good")
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let entry = try Self.entry(arguments, context, project)
            try context.store(for: project) { try $0.removeEntry(entry.id, in: project.id) }
            if arguments.has("--json") { Output.json(["removed": entry.id.hex, "kind": entry.kind.rawValue]); return }
            Output.line("Removed \(term(entry.kind, project.register)) \(entry.id).")
        }

    static let all = [add, list, show, remove]

    // MARK: Words

    /// The lexicon's concept for a kind of entry (a snippet has none: it is called a snippet everywhere).
    static func concept(_ kind: EntryKind) -> TermKey? {
        switch kind {
        case .character: .character
        case .place: .place
        case .plotBeat: .plotBeat
        case .snippet: nil
        }
    }

    /// Whether the register shows entries of `kind` (a healthcare project hides places).
    static func isShown(_ kind: EntryKind, _ register: Register) -> Bool {
        concept(kind).map { !Lexicon(register).isHidden($0) } ?? true
    }

    static func term(_ kind: EntryKind, _ register: Register, plural: Bool = false) -> String {
        guard let concept = concept(kind) else { return plural ? "snippets" : "snippet" }
        return WritingContext.term(concept, register, plural: plural)
    }

    /// KIND: the model's name, or the register's word for it (singular or plural); a kind the
    /// register hides is refused, naming what the register has.
    static func kind(_ text: String, _ register: Register, usage: String) throws -> EntryKind {
        let word = text.lowercased()
        let lexicon = Lexicon(register)
        let found = EntryKind(rawValue: word) ?? EntryKind.allCases.first { kind in
            concept(kind).map { lexicon.singular($0) == word || lexicon.plural($0) == word } ?? (word == "snippets")
        }
        let shown = EntryKind.allCases.filter { isShown($0, register) }.map { term($0, register) }.joined(separator: ", ")
        guard let found else {
            throw UsageError(message: "unknown kind '\(text)': a \(register.rawValue) \(WritingContext.term(.project, register)) has \(shown)",
                             usage: usage)
        }
        guard isShown(found, register) else {
            throw UsageError(message: "a \(register.rawValue) \(WritingContext.term(.project, register)) has no \(found.rawValue) entries "
                             + "(its register hides them); it has \(shown)", usage: usage)
        }
        return found
    }

    // MARK: Lookup and output

    /// ENTRY: its id, or its name (the one entry with it, of --kind when given).
    static func entry(_ arguments: ParsedArguments, _ context: WritingContext, _ project: WritingProject) throws -> ProjectEntry {
        let kind = try arguments.value("--kind").map { try Self.kind($0, project.register, usage: arguments.usage) }
        let text = arguments.positionals[1]
        let entries = try context.store(for: project) { try $0.entries(kind, in: project.id) }
        if let id = try? EntryID(hex: text) {
            guard let found = entries.first(where: { $0.id == id }) else { throw WritingError(.nodeNotFound, "no entry \(id) in the \(WritingContext.term(.project, project.register))") }
            return found
        }
        let matches = entries.filter { $0.name == text.precomposedStringWithCanonicalMapping }
        guard matches.count <= 1 else {
            throw WritingError(.ambiguousName, "\(matches.count) entries are named '\(text)'; give the id ('vaultctl entry list' shows it) or --kind")
        }
        guard let found = matches.first else { throw WritingError(.nodeNotFound, "no entry named '\(text)' in the \(WritingContext.term(.project, project.register))") }
        return found
    }

    /// An entry as --json gives it: the visible fields with their labels (hidden ones are left out).
    static func json(_ entry: ProjectEntry, _ register: Register) -> [String: Any] {
        let labels = FieldEditor(register)
        let fields = entry.kind.slots.compactMap { slot -> [String: Any]? in
            guard let label = labels.label(slot), let value = entry.fields[slot] else { return nil }
            return ["slot": slot.rawValue, "label": label, "value": value]
        }
        return ["id": entry.id.hex, "kind": entry.kind.rawValue, "label": term(entry.kind, register), "name": entry.name,
                "body": entry.body, "fields": fields]
    }
}
