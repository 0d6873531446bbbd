import CryptoVault

/// A writing session (the seed's WritingSession, SECURITY.md §15.5): one device's run of edits of
/// one project, each less than `WritingSessionRule.gap` after the one before. It is what the
/// device's SceneEditEvents merge into: the session lives in the row of `writing_edit_events` that
/// its edits update, and its `SceneEditEvent` (same id) is that row with the documents edited and
/// their word changes opened. So a session is read without opening anything (ids, the device and
/// times are clear), which is how the daemon finds the sessions to end when it stops.
public struct WritingSession: Sendable, Equatable {
    /// The id of the session's row, which is also its SceneEditEvent's.
    public let id: EditEventID
    public let project: ProjectID
    /// The vault's audit device id of the device writing (`vault_meta.device_id`).
    public let deviceID: AuditDeviceID
    /// The first and the latest edit (Unix seconds).
    public let startedAt: Int64
    public let lastEditAt: Int64
    /// The last edit's time once the session was found over; nil while an edit may still join it.
    public let endedAt: Int64?
    /// The content writes it merges.
    public let edits: Int

    /// Not yet found over: an edit soon enough joins it, and in a privileged project its end is still to be stamped.
    public var isOpen: Bool { endedAt == nil }

    /// Whether an edit at `time` (Unix seconds) joins this session rather than starting the next.
    public func continues(at time: Int64) -> Bool {
        isOpen && WritingSessionRule.continues(lastEdit: lastEditAt, at: time)
    }
}

extension WritingSession {
    init(_ row: EditEventTable.Row) {
        self.init(id: row.id, project: row.project, deviceID: row.deviceID, startedAt: row.startedAt, lastEditAt: row.lastEditAt,
                  endedAt: row.endedAt, edits: row.edits)
    }
}

extension SceneEditEvent {
    /// The writing session this event is the record of.
    public var session: WritingSession {
        WritingSession(id: id, project: project, deviceID: deviceID, startedAt: startedAt, lastEditAt: lastEditAt,
                       endedAt: endedAt, edits: edits)
    }
}

extension WritingStore {
    /// This device's writing sessions not yet found over, in every project, oldest first. Reads
    /// only clear columns, so it needs no session even for a privileged project: ending them does.
    public func openWritingSessions() throws -> [WritingSession] {
        try editEventTable.unended(device: try deviceID()).map(WritingSession.init)
    }
}
