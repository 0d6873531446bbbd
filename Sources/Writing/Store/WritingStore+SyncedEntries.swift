import Registers

/// The doors sync writes a project's entries, name and archived flag through (SECURITY.md §19.2,
/// operations 0x09 and 0x0A): what another of the owner's devices changed, written here with the
/// same ids and order, each recorded as the local change is, with the detail `from` (the sync
/// device id that made it).
extension WritingStore {
    /// Stores an entry as another device wrote it: added with its id, kind and order key, or its
    /// row and sealed value replaced. An id of another project's entry is refused (`notInProject`).
    public func putSyncedEntry(_ entry: ProjectEntry, in projectID: ProjectID, from device: String) throws {
        let project = try writable(projectID, receiving: true)
        var checked = entry
        checked.name = try Self.checkedName(entry.name, "a name")
        let encoded = EntryEncoding.encode(checked)
        guard encoded.count <= WritingLimits.maximumBlockBytes else {
            throw WritingError(.blockTooLarge, "an entry holds \(encoded.count) bytes; at most \(WritingLimits.maximumBlockBytes)")
        }
        let owner = try entryTable.project(of: entry.id)
        if let owner, owner != projectID { throw WritingError(.notInProject, "entry \(entry.id) belongs to another project") }
        if owner != nil { try entryTable.delete(entry.id) }
        try entryTable.insert(EntryTable.Row(id: entry.id, kind: entry.kind, orderKey: entry.orderKey), in: projectID, at: now)
        try seal(encoded, at: try WritingRecord.entry(entry.id), of: project)
        try rememberWords([Self.fingerprintedText(of: checked)], of: project)
        try record(owner == nil ? .writingEntryAdd : .writingEntryUpdate, project, subject: entry.id,
                   details: [.init("kind", entry.kind.rawValue), .init("from", device)])
    }

    /// Removes an entry another device removed (one not here is left alone).
    public func removeSyncedEntry(_ id: EntryID, in projectID: ProjectID, from device: String) throws {
        let project = try writable(projectID, receiving: true)
        guard try entryTable.project(of: id) == projectID else { return }
        try entryTable.delete(id)
        try remove(try WritingRecord.entry(id), of: project)
        try record(.writingEntryRemove, project, subject: id, details: [.init("from", device)])
    }

    /// Renames the project as another device did.
    public func renameSynced(_ projectID: ProjectID, to name: String, from device: String) throws {
        let name = try Self.checkedName(name, "a project name")
        let project = try writable(projectID, receiving: true)
        try sealName(name, of: project)
        try record(.writingProjectRename, project, subject: project.id, details: [.init("from", device)])
    }

    /// Archives the project as another device did (at the time it did), or brings it back.
    public func setSyncedArchived(_ projectID: ProjectID, at time: Int64?, from device: String) throws {
        let project = try self.project(projectID)
        try projectTable.setArchived(projectID, at: time)
        try record(.writingProjectArchive, project, subject: projectID,
                   details: [.init("archived", time == nil ? "no" : "yes"), .init("from", device)])
    }
}

extension ProjectEntry {
    /// The entry's sealed value (SECURITY.md §14.5), as a change record carries it (§19.2, 0x09).
    public var syncValue: [UInt8] { EntryEncoding.encode(self) }

    /// An entry from its sealed value (§14.5), as a change record carries it: refused
    /// (`damagedRecord`) when it does not decode exactly, a slot outside its kind's included.
    public init(syncValue bytes: [UInt8], id: EntryID, kind: EntryKind, orderKey: String) throws(WritingError) {
        self = try EntryEncoding.decode(bytes, id: id, kind: kind, orderKey: orderKey)
    }
}
