import CryptoVault

/// A document's versions (SECURITY.md §15.2): each snapshot is the document's content bytes
/// (`SnapshotContent`), packed and sealed in the project's compartment, as a keyframe (the whole
/// content) at the start of each chain and otherwise as the delta from the previous one, the deltas
/// gathered in groups (`SnapshotGroup`, one sealed record per up to 256 versions). A restore reads one
/// keyframe and the deltas after it (at most `chainLimit − 1`), and checks the result against the
/// sealed digest, so a damaged or reordered chain is refused rather than restored wrong.
extension WritingStore {
    /// A chain is a keyframe and at most 1023 deltas after it. A packed keyframe of the 100 KB
    /// automerge paper is about 35 KB, the worth of some hundred grouped deltas: a keyframe every
    /// 256 versions was three of them in the paper's 520 (`vaultbench trace`). Longer chains cost a
    /// read of an old version more: each delta is applied to a whole version (the rebuild budget
    /// below bounds that), and each record of the chain is opened and named in `record.open` (one
    /// group per up to 256 versions; before groups, one record per version, so 256 was the most). Vaults
    /// written with shorter chains keep them and read the same way.
    public static let chainLimit = 1024

    /// A new chain also starts before a restore would rebuild more than this many bytes along one
    /// (each delta applied makes a whole version): 32 MiB, so a long document's chains are shorter
    /// (a 1 MiB document's 33 snapshots) and a restore stays a few tens of milliseconds whatever its size.
    static let chainRebuildBudget = 64 << 20

    /// A group holds at most 256 snapshots and 64 KiB of unpacked deltas: it is sealed again as each
    /// member joins, so the bytes bound what one snapshot reseals, and a restore opens one record per
    /// group of its chain rather than one per version. The bytes are the limit that binds for real
    /// writing: the automerge paper's 500-character snapshots fill 64 KiB at about 90 to 100 members.
    /// With 64 members at most (until session 6) its groups stopped well short of it: nine groups
    /// where six now hold the same deltas (121 KB sealed, was 127), each with its own seal, header,
    /// row, index entries and part-used last page, and its DEFLATE starting again with no history. A
    /// writer's choice, not the format's (a reader takes any count its bytes can hold).
    static let groupLimit = 256
    static let groupBytes = 64 << 10

    /// Whether snapshot `sequence` (of `size` content bytes) starts a new chain, the last one having
    /// started at `lastKeyframe` (nil: none yet).
    static func startsChain(_ sequence: Int, size: Int, lastKeyframe: Int?) -> Bool {
        guard let lastKeyframe else { return true }
        let deltas = sequence - lastKeyframe
        return deltas >= chainLimit || deltas * max(size, 1) > chainRebuildBudget
    }

    var snapshotTable: SnapshotTable { SnapshotTable(database: transaction.database) }

    /// Takes a snapshot of the document's current content: titled when `title` is given, else
    /// automatic. An automatic snapshot of content equal to the latest snapshot's is not taken
    /// again (versions are content-addressed): the latest is returned.
    @discardableResult
    public func createSnapshot(of document: NodeID, in projectID: ProjectID, titled title: String? = nil) throws -> Snapshot {
        let title = try title.map { try Self.checkedName($0, "a snapshot title") }
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        let content = SnapshotContent.encode(try currentContent(of: document, in: project))
        let row = try addSnapshot(content, of: document, in: project, origin: title == nil ? .automatic : .titled, title: title)
        // An automatic call that found the latest unchanged returns it, with its own title if it has one.
        let kept = row.origin == .titled && title == nil ? try openText([try WritingRecord.snapshotTitle(row.id)], of: project)[0] : title
        return Snapshot(row, title: kept)
    }

    /// Writes `content` as the document's content (`replaceDocumentContent`) and takes an automatic
    /// snapshot of the result (`createSnapshot`), reading the stored blocks once instead of twice: the
    /// snapshot is the content just written, and its delta's base is the content the write replaced
    /// when the latest snapshot's sealed digest says that is the latest version (then one record of
    /// the chain is opened, not the chain). Content equal to the latest snapshot's takes none. A
    /// write that takes a snapshot records one `writing.content-write` with the snapshot's details
    /// too, rather than a content write and a `writing.snapshot-create` (SECURITY.md §15.2).
    @discardableResult
    public func replaceDocumentContentAndSnapshot(of document: NodeID, in projectID: ProjectID,
                                                  with content: DocumentContent) throws -> (change: ContentChange, snapshot: Snapshot) {
        var replaced: DocumentContent?, written: [VaultEvent.Detail]?
        let change = try replaceDocumentContent(of: document, in: projectID, with: content, reading: { replaced = $0 }, entry: { written = $0 })
        // The blocks are sealed as BlockEncoding encodes them and read back in this order: these are
        // the bytes createSnapshot would read.
        let project = try writable(projectID)
        let row = try addSnapshot(SnapshotContent.encode(content), of: document, in: project, origin: .automatic,
                                  title: nil, latestCandidate: replaced.map(SnapshotContent.encode), written: written)
        // Unchanged since a titled snapshot: that one is returned, with its title.
        let title = row.origin == .titled ? try openText([try WritingRecord.snapshotTitle(row.id)], of: project)[0] : nil
        return (change, Snapshot(row, title: title))
    }

    /// The document's snapshots, oldest first, with the titled ones' titles opened.
    public func snapshots(of document: NodeID, in projectID: ProjectID) throws -> [Snapshot] {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        let rows = try snapshotTable.all(of: document)
        let titled = rows.filter { $0.origin == .titled }
        let titles = try openText(try titled.map { try WritingRecord.snapshotTitle($0.id) }, of: project)
        let titleByID = Dictionary(uniqueKeysWithValues: zip(titled.map(\.id), titles))
        return rows.map { Snapshot($0, title: titleByID[$0.id]) }
    }

    /// The content the document had when `snapshot` was taken. A snapshot of another document or
    /// project is refused (`.notInProject`).
    public func snapshotContent(_ snapshot: SnapshotID, of document: NodeID, in projectID: ProjectID) throws -> DocumentContent {
        let project = try self.project(projectID)
        try checkDocument(document, in: project)
        return try SnapshotContent.decode(try contentBytes(of: try checkSnapshot(snapshot, of: document, in: project), in: project))
    }

    /// Makes the document's content what it was at `snapshot` (its blocks with their ids, so
    /// unchanged blocks stay as they are), recorded as a content write and a restore, and takes a
    /// new snapshot of the result (origin `.restore`), which it returns.
    @discardableResult
    public func restore(_ document: NodeID, in projectID: ProjectID, to snapshot: SnapshotID) throws -> Snapshot {
        let project = try writable(projectID)
        try checkDocument(document, in: project)
        let (bytes, restored) = try rebuild(try checkSnapshot(snapshot, of: document, in: project), in: project)
        try replaceDocumentContent(of: document, in: projectID, with: try SnapshotContent.decode(bytes))
        // The version is the restored one's content again: a reference to it, its content not stored again.
        let row = try addSnapshot(bytes, of: document, in: project, origin: .restore, title: nil, same: restored.contentSequence)
        try record(.writingSnapshotRestore, project, subject: document,
                   details: [.init("snapshot", snapshot.hex), .init("version", row.id.hex)])
        return Snapshot(row, title: nil)
    }

    // MARK: The chain

    /// Stores `content` as the document's next snapshot (or, for an automatic one equal to the
    /// latest, returns the latest's row and stores nothing).
    /// `latestCandidate`, when given, is content the latest snapshot probably holds (what a write in
    /// this transaction replaced): it is used only if the latest's sealed digest is its hash.
    /// `written`, the details of a content write made with it: recorded in one `writing.content-write`
    /// with the snapshot's (or alone when no snapshot is stored).
    /// `same`, the sequence of an earlier snapshot (not itself a reference) whose content `content` is:
    /// the new version is then stored as a reference to it when that one is in its chain.
    func addSnapshot(_ content: [UInt8], of document: NodeID, in project: WritingProject, origin: SnapshotOrigin,
                     title: String?, latestCandidate: [UInt8]? = nil, written: [VaultEvent.Detail]? = nil, same: Int? = nil) throws -> SnapshotTable.Row {
        let latest = try snapshotTable.latest(of: document)
        let held = try latest.map { try latestVersion($0, candidate: latestCandidate, in: project) }
        if origin == .automatic, let latest, held?.content == content {
            if let written { try record(.writingContentWrite, project, subject: document, details: written) }
            return latest
        }
        // Content the latest holds already (a titled snapshot of unchanged content) is a reference to it.
        let same = try same ?? (held?.content == content ? latest.map { try openLinks([$0], in: project)[0].contentSequence } : nil)
        let row = try storeVersion(content, id: try SnapshotID.random(), of: document, in: project, after: latest, held: { held },
                                   origin: origin, deviceID: try deviceID(), createdAt: now, same: same)
        if let title { try seal(Array(title.utf8), at: try WritingRecord.snapshotTitle(row.id), of: project) }
        let taken: [VaultEvent.Detail] = [.init("snapshot", row.id.hex), .init("origin", origin.rawValue), .init("form", row.form.name)]
        if let written {
            try self.record(.writingContentWrite, project, subject: document, details: written + taken)
        } else {
            try self.record(.writingSnapshotCreate, project, subject: document, details: taken)
        }
        return row
    }

    /// Stores `content` as snapshot `latest.sequence + 1` of the document, with its row: a keyframe
    /// when a chain starts there (or the delta would be no smaller than the content), else its
    /// delta from `held()` (the latest's content, asked only then), joined to the latest's group
    /// when that has room, else the first of a new group.
    func storeVersion(_ content: [UInt8], id: SnapshotID, of document: NodeID, in project: WritingProject, after latest: SnapshotTable.Row?,
                      held: () throws -> HeldVersion?, origin: SnapshotOrigin, deviceID: AuditDeviceID, createdAt: Int64,
                      same: Int? = nil) throws -> SnapshotTable.Row {
        let sequence = (latest?.sequence ?? 0) + 1
        let digest = SHA256.hash(content)
        let row = { (form: SnapshotRecord.Form, parts: Int) in
            SnapshotTable.Row(id: id, project: project.id, document: document, sequence: sequence, form: form, origin: origin,
                              parts: parts, deviceID: deviceID, createdAt: createdAt)
        }
        let lastKeyframe = try snapshotTable.lastKeyframe(of: document)
        if let latest, !Self.startsChain(sequence, size: content.count, lastKeyframe: lastKeyframe),
           let previous = try held() {
            // Content held by a snapshot of this chain is a reference to it (a restore reads one chain);
            // a delta no smaller than the content (a document rewritten whole) is worth nothing: the content is stored.
            let reference = same.flatMap { $0 >= (lastKeyframe ?? Int.max) ? $0 : nil }
            let delta = reference == nil ? try SnapshotDelta.between(previous.content, content).serialized() : []
            if reference != nil || delta.count < content.count {
                let member = SnapshotGroup.Member(id: nil, digest: SnapshotGroup.check(id, content), delta: delta, reference: reference)
                // A group of version 3 (written before `versions-7`) is not joined: its members carry ids and full digests.
                if let group = previous.group, group.value.version == SnapshotGroup.version, group.value.members.count < Self.groupLimit,
                   group.value.deltaBytes + 4 + delta.count <= Self.groupBytes {
                    let grown = group.value.appending(member)
                    let stored = row(.grouped, 0)
                    try snapshotTable.insert(stored)
                    try sealParts(try grown.parts(), of: group.head, in: project)
                    return stored
                }
                let first = SnapshotGroup(document: document, sequence: sequence, base: latest.id.bytes, members: [member])
                let parts = try first.parts()
                let stored = row(.group, parts.count)
                try snapshotTable.insert(stored)
                for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.snapshotPart(id, index), of: project) }
                return stored
            }
        }
        let record = SnapshotRecord(form: .keyframe, document: document, sequence: sequence, base: latest?.id.bytes ?? Self.noBase,
                                    digest: digest, payload: content)
        let parts = record.parts()
        let stored = row(.keyframe, parts.count)
        try snapshotTable.insert(stored)
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.snapshotPart(id, index), of: project) }
        return stored
    }

    /// Seals a group again at its first member's row, with that row's part count made the new one's.
    private func sealParts(_ parts: [[UInt8]], of head: SnapshotTable.Row, in project: WritingProject) throws {
        for (index, part) in parts.enumerated() { try seal(part, at: try WritingRecord.snapshotPart(head.id, index), of: project) }
        for index in parts.count..<max(parts.count, head.parts) { try remove(try WritingRecord.snapshotPart(head.id, index), of: project) }
        if parts.count != head.parts { try snapshotTable.setParts(head.id, parts.count) }
    }

    static let noBase = [UInt8](repeating: 0, count: SnapshotID.size)

    /// The latest snapshot's content, with the group holding it (to join the next one to): `candidate`
    /// if the latest's sealed digest is its hash (one record opened), else read through its chain.
    func latestVersion(_ latest: SnapshotTable.Row, candidate: [UInt8]?, in project: WritingProject) throws -> HeldVersion {
        if let candidate {
            let link = try openLinks([latest], in: project)[0]
            if link.holds(candidate) { return HeldVersion(content: candidate, group: link.group) }
        }
        let (content, link) = try rebuild(latest, in: project)
        return HeldVersion(content: content, group: link.group)
    }

    /// The snapshot's content bytes (see `rebuild`).
    func contentBytes(of row: SnapshotTable.Row, in project: WritingProject) throws -> [UInt8] {
        try rebuild(row, in: project).content
    }

    /// The snapshot's content bytes and its link: its keyframe, then each delta up to it, every
    /// record checked against its rows and the chain, and the result against the sealed digest. Only
    /// the result is hashed: each record is sealed where it lies and names its place in the chain,
    /// so a version on the way that is not what was sealed makes a result that is not either
    /// (hashing each of 63 versions of a 100 KB document was a quarter of a restore's time, with
    /// 64-link chains).
    func rebuild(_ row: SnapshotTable.Row, in project: WritingProject) throws -> (content: [UInt8], link: StoredLink) {
        let chain = try snapshotTable.chain(of: row.document, to: row.sequence)
        guard let first = chain.first, first.form == .keyframe, chain.last?.id == row.id,
              chain.count <= Self.chainLimit,
              zip(chain, chain.dropFirst()).allSatisfy({ $1.sequence == $0.sequence + 1 }) else {
            throw WritingError(.damagedRecord, "snapshot \(row.id)'s chain has no keyframe within \(Self.chainLimit) or a gap")
        }
        var bytes: [UInt8] = []
        let links = try openLinks(chain, in: project)
        bytes = try replay(links)
        guard let last = links.last, last.holds(bytes) else {
            throw WritingError(.damagedRecord, "snapshot \(row.id)'s content is not the version it sealed")
        }
        return (bytes, last)
    }

    /// The content the last of `links` (consecutive, from a keyframe) holds, each applied in turn to the
    /// one before; `visit` is given each link with its content. A reference (a version-4 member
    /// naming an earlier snapshot's content) takes the content of a snapshot passed on the way: the
    /// writer makes one only within its chain, so a restore still reads one chain, and one naming a
    /// snapshot not passed (another chain's, or a later one) is refused as damage.
    func replay(_ links: [StoredLink], visit: (StoredLink, [UInt8]) throws -> Void = { _, _ in }) throws -> [UInt8] {
        let named = Set(links.compactMap { link -> Int? in
            if case .reference(let sequence) = link.payload { return sequence }
            return nil
        })
        var held: [Int: [UInt8]] = [:], bytes: [UInt8] = []
        for link in links {
            bytes = try link.apply(to: bytes) { sequence in
                guard let content = held[sequence] else {
                    throw WritingError(.damagedRecord, "snapshot \(link.row.id) references snapshot \(sequence), outside its chain")
                }
                return content
            }
            if named.contains(link.row.sequence) { held[link.row.sequence] = bytes }
            try visit(link, bytes)
        }
        return bytes
    }

    /// The stored versions of `rows` (consecutive snapshots of one document, oldest first), their
    /// records opened in one read, each checked against its row and its base (the snapshot before
    /// it). Rows that start inside a group read the group from its first member's row.
    func openLinks(_ rows: [SnapshotTable.Row], in project: WritingProject) throws -> [StoredLink] {
        guard let first = rows.first else { return [] }
        let lead = first.form == .grouped ? try snapshotTable.groupStart(of: first.document, before: first.sequence) : []
        let links = lead + rows
        guard links.first?.form != .grouped, zip(links, links.dropFirst()).allSatisfy({ $1.sequence == $0.sequence + 1 }) else {
            throw WritingError(.damagedRecord, "snapshot \(first.id) is in a group with no first member")
        }
        let holders = links.filter { $0.form != .grouped }
        let locations = try holders.flatMap { link in try (0..<link.parts).map { try WritingRecord.snapshotPart(link.id, $0) } }
        // A snapshot record spans several sealed parts, parsed as one array: each part is copied out
        // of locked memory here (SnapshotRecord, SnapshotGroup and SnapshotDelta read arrays).
        var values = try open(locations, of: project) { _, plaintext in [UInt8](plaintext) }[...]
        let take = { (link: SnapshotTable.Row) -> [UInt8] in
            defer { values = values.dropFirst(link.parts) }
            return Array(values.prefix(link.parts).joined())
        }
        var base = links[0].sequence == 1 ? Self.noBase : try snapshotTable.id(of: first.document, sequence: links[0].sequence - 1)?.bytes ?? Self.noBase
        var group: (head: SnapshotTable.Row, value: SnapshotGroup)?
        var result: [StoredLink] = []
        for link in links {
            let stored: StoredLink
            switch link.form {
            case .keyframe, .delta:
                group = nil
                let record = try SnapshotRecord(parsing: take(link))
                guard record.document == link.document, record.sequence == link.sequence, record.form == link.form, record.base == base else {
                    throw WritingError(.damagedRecord, "snapshot \(link.id)'s sealed value is not the one its row names")
                }
                stored = StoredLink(row: link, digest: record.digest, payload: record.form == .keyframe ? .content(try record.payload()) : .delta(try record.payload()), group: nil)
            case .group, .grouped:
                if link.form == .group {
                    let value = try SnapshotGroup(parsing: take(link))
                    guard value.document == link.document, value.sequence == link.sequence, value.base == base else {
                        throw WritingError(.damagedRecord, "snapshot \(link.id)'s sealed group is not the one its row names")
                    }
                    group = (link, value)
                }
                // A version-3 member names its id; a version-4 member's check binds it (refused at `holds`).
                guard let group, link.sequence - group.value.sequence < group.value.members.count,
                      group.value.members[link.sequence - group.value.sequence].id.map({ $0 == link.id }) ?? true else {
                    throw WritingError(.damagedRecord, "snapshot \(link.id) is not the member of its group its row names")
                }
                let member = group.value.members[link.sequence - group.value.sequence]
                stored = StoredLink(row: link, digest: member.digest, payload: member.reference.map { .reference($0) } ?? .delta(member.delta),
                                    group: group, idBound: group.value.version == SnapshotGroup.version)
            }
            base = link.id.bytes
            result.append(stored)
        }
        return Array(result.dropFirst(lead.count))
    }

    /// The snapshot's row, refusing one of another project or document, or none.
    func checkSnapshot(_ id: SnapshotID, of document: NodeID, in project: WritingProject) throws -> SnapshotTable.Row {
        guard let row = try snapshotTable.row(id) else { throw WritingError(.snapshotNotFound, "no snapshot \(id)") }
        guard row.project == project.id else { throw WritingError(.notInProject, "snapshot \(id) belongs to another project") }
        guard row.document == document else { throw WritingError(.notInProject, "snapshot \(id) belongs to another document") }
        return row
    }

    /// Removes a document's snapshots with their sealed records (the document is being removed).
    func removeSnapshots(of document: NodeID, in project: WritingProject) throws {
        for row in try snapshotTable.all(of: document) {
            for index in 0..<row.parts { try remove(try WritingRecord.snapshotPart(row.id, index), of: project) }
            if row.origin == .titled { try remove(try WritingRecord.snapshotTitle(row.id), of: project) }
        }
        try snapshotTable.deleteAll(of: document)
    }
}

extension Snapshot {
    init(_ row: SnapshotTable.Row, title: String?) {
        self.init(id: row.id, document: row.document, sequence: row.sequence, origin: row.origin, title: title,
                  isKeyframe: row.form == .keyframe, deviceID: row.deviceID, createdAt: row.createdAt)
    }
}
