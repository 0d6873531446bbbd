import CryptoVault
import Synchronization

/// How many answers carrying records or offers the answering side gives one paired device other than
/// the owner's own in a time (SECURITY.md §19.9, "Answers are bounded"; review 17 s8, F7). Each such
/// answer costs this vault entries (the sealed names or records it opens, the egress funnel's
/// `egress.decision`): a device looping `sync.projects` (a request of one byte) or `sync.pull` from
/// the empty vector would else grow the audit log at its request rate.
///
/// Per device, a window of `seconds` on the forward-only clock from its first answer, two counts:
/// - every answer that is made (its names or records opened) counts toward `bound`, reserved before
///   anything is opened, so a device past it is refused unread; an answer that turns out to carry
///   nothing (no offer, no record) costs no entry and is given back;
/// - an answer that carries something new to the device (content it was not given in this window,
///   told by the answer's digest) counts toward `newBound` too. The same page of offers given again
///   (a colleague's daemon asks for it at every exchange, after each of its saves) is not new.
/// Past either, the request is refused (`tooManyRequests`), the window's first refusal recorded as one
/// summary and the others not at all. Kept in memory, one per `SyncResponder` like `SyncRefusalBudget`.
public final class SyncRequestBudget: Sendable {
    /// An honest colleague co-editing live syncs after each of its saves (every 0.5–2 s while it
    /// types): one page of offers (the same each time) and one batch of the owner's new records per
    /// exchange, at most 7,200 answers an hour at one save a second, 3,600 of them new.
    public static let defaultBound = 8_192
    public static let defaultNewBound = 4_096
    public static let defaultSeconds = 3_600.0

    struct Window {
        var start: Double
        var made = 0
        var given: Set<[UInt8]> = []
        var summarised = false
    }

    /// Whether an answer is made (or given), or refused, and whether that refusal is the window's
    /// one recorded summary (with the bound it passed).
    enum Admission: Equatable {
        case answer
        case refuse(summarise: Bool, bound: Int, counted: String)
    }

    public let bound: Int
    public let newBound: Int
    public let seconds: Double
    let clock: VaultClock
    private let windows = Mutex<[DeviceID: Window]>([:])

    public init(bound: Int = defaultBound, newBound: Int = defaultNewBound, seconds: Double = defaultSeconds, clock: VaultClock = .system) {
        self.bound = max(1, bound)
        self.newBound = max(1, newBound)
        self.seconds = seconds
        self.clock = clock
    }

    /// Before anything is opened for an answer to `device`: reserves it, if the window's bound allows.
    func reserve(_ device: DeviceID) -> Admission {
        update(device) { window in
            guard window.made < bound else { return refusal(&window, bound, "answers") }
            window.made += 1
            return .answer
        }
    }

    /// The reserved answer carries nothing (no entry was made for it): it is not counted.
    func giveBack(_ device: DeviceID) {
        _ = update(device) { window in
            window.made = max(0, window.made - 1)
            return .answer
        }
    }

    /// The made answer, by its digest: given if the device had it already in this window, or if it
    /// is new and the window's bound of new answers allows it.
    func admit(_ device: DeviceID, digest: [UInt8]) -> Admission {
        update(device) { window in
            if window.given.contains(digest) { return .answer }
            guard window.given.count < newBound else { return refusal(&window, newBound, "new answers") }
            window.given.insert(digest)
            return .answer
        }
    }

    private func refusal(_ window: inout Window, _ bound: Int, _ counted: String) -> Admission {
        let summarise = !window.summarised
        window.summarised = true
        return .refuse(summarise: summarise, bound: bound, counted: counted)
    }

    private func update(_ device: DeviceID, _ body: (inout Window) -> Admission) -> Admission {
        let now = clock.monotonic()
        return windows.withLock { all in
            var window = all[device] ?? Window(start: now)
            if now - window.start >= seconds || now < window.start { window = Window(start: now) }
            defer { all[device] = window }
            return body(&window)
        }
    }
}
