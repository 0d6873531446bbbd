import Registers

/// Characters, places, plot beats and snippets: each one sealed record (`EntryEncoding`) with its
/// name, body and the field slots its kind has; the register labels the slots and hides some.
extension WritingStore {
    public func addEntry(_ kind: EntryKind, named name: String, body: String = "", fields: [FieldSlot: String] = [:],
                         in projectID: ProjectID) throws -> ProjectEntry {
        let project = try writable(projectID)
        let last = try entryRows(in: project, kind: kind).last
        let entry = ProjectEntry(id: try EntryID.random(), kind: kind, name: try Self.checkedName(name, "a name"), body: body,
                                 fields: fields, orderKey: OrderKey.between(last?.orderKey, nil))
        let encoded = try Self.checkedEncoding(entry)
        try entryTable.insert(EntryTable.Row(id: entry.id, kind: kind, orderKey: entry.orderKey), in: projectID, at: now)
        try seal(encoded, at: try WritingRecord.entry(entry.id), of: project)
        try rememberWords([Self.fingerprintedText(of: entry)], of: project)
        try record(.writingEntryAdd, project, subject: entry.id, details: [.init("kind", kind.rawValue)])
        return entry
    }

    /// The project's entries of `kind` (all when nil), opened.
    public func entries(_ kind: EntryKind? = nil, in projectID: ProjectID) throws -> [ProjectEntry] {
        let project = try self.project(projectID)
        let rows = try entryRows(in: project, kind: kind)
        return try open(try rows.map { try WritingRecord.entry($0.id) }, of: project) { index, plaintext in
            try EntryEncoding.decode(plaintext, id: rows[index].id, kind: rows[index].kind, orderKey: rows[index].orderKey)
        }
    }

    /// Reseals an entry's name, body and fields (its id, kind and order stay).
    public func updateEntry(_ entry: ProjectEntry, in projectID: ProjectID) throws {
        let project = try writable(projectID)
        try checkEntry(entry.id, in: projectID)
        var checked = entry
        checked.name = try Self.checkedName(entry.name, "a name")
        try seal(try Self.checkedEncoding(checked), at: try WritingRecord.entry(entry.id), of: project)
        try rememberWords([Self.fingerprintedText(of: checked)], of: project)
        try record(.writingEntryUpdate, project, subject: entry.id)
    }

    public func removeEntry(_ id: EntryID, in projectID: ProjectID) throws {
        let project = try writable(projectID)
        try checkEntry(id, in: projectID)
        try entryTable.delete(id)
        try remove(try WritingRecord.entry(id), of: project)
        try record(.writingEntryRemove, project, subject: id)
    }

    /// The project's entry rows of `kind`; one another project's record claims (`strays`) is not among them.
    private func entryRows(in project: WritingProject, kind: EntryKind?) throws -> [EntryTable.Row] {
        let strays = try strays(in: project, .entries)
        return try entryTable.all(in: project.id, kind: kind).filter { !strays.contains($0.id.bytes) }
    }

    private func checkEntry(_ id: EntryID, in projectID: ProjectID) throws {
        guard let owner = try entryTable.project(of: id) else { throw WritingError(.nodeNotFound, "no entry \(id)") }
        guard owner == projectID else { throw WritingError(.notInProject, "entry \(id) belongs to another project") }
    }

    /// The entry's encoding, refusing a slot its kind has not and a value too large for one record.
    private static func checkedEncoding(_ entry: ProjectEntry) throws(WritingError) -> [UInt8] {
        if let slot = entry.fields.keys.first(where: { !entry.kind.slots.contains($0) }) {
            throw WritingError(.invalidText, "a \(entry.kind.rawValue) has no field \(slot.rawValue)")
        }
        let encoded = EntryEncoding.encode(entry)
        guard encoded.count <= WritingLimits.maximumBlockBytes else {
            throw WritingError(.blockTooLarge, "an entry holds \(encoded.count) bytes; at most \(WritingLimits.maximumBlockBytes)")
        }
        return encoded
    }
}
