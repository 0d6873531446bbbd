import CryptoVault
import Foundation
import Synchronization

/// The only way to read a privileged compartment: a session opened for an actor and a purpose, which
/// holds the compartment's keys (in a `CompartmentKeyring`, in SecureBytes) until it ends, and which
/// the audit log accounts for from start to end:
///
///     session.start  compartment, subject = session id, details: actor, purpose (sealed)
///     session.read   compartment, subject = bundle id, details: session, bytes, part
///     session.end    compartment, subject = session id, details: reason, bundles, bytes
///
/// A session ends when closed, after `limits.idleTimeout` without a read, or after
/// `limits.absoluteLimit` in all; at its end the keys are wiped and every later read fails. Expiry is
/// checked at each read and by `endIfExpired()`, which a daemon calls on a timer.
public final class PrivilegedProcessingSession: Sendable {
    public let id: SessionID
    public let compartment: VaultCompartment
    public let actor: String
    public let startedAt: Date
    public let limits: SessionLimits
    private let vault: UnlockedVault
    let keyring: CompartmentKeyring
    /// Read with its fraction of a second (`VaultClock.date()`): idle and absolute limits are in seconds.
    private let clock: VaultClock
    private let state: Mutex<State>

    struct State {
        var lastUse: Date
        var bundlesRead = 0
        var bytesRead: UInt64 = 0
        var endReason: SessionEndReason?
    }

    /// What a session read: the bundle's verified header and metadata, and the bytes released.
    public struct Read: Sendable {
        public let header: BundleHeader
        public let metadata: BundleMetadata
        public let bytes: UInt64
    }

    /// What is known about a session, for `vaultctl session list`.
    public struct Summary: Sendable {
        public let id: SessionID
        public let compartment: VaultCompartment
        public let actor: String
        public let startedAt: Date
        public let lastUse: Date
        public let bundlesRead: Int
        public let bytesRead: UInt64
        public let endReason: SessionEndReason?

        public var idString: String { id.hex }
    }

    /// Opens a session on a privileged `compartment` and records its start. The purpose is sealed in
    /// the audit details (it may name a patient or a client); it must say something (1 to 1024 bytes).
    public static func start(vault: UnlockedVault, compartment: VaultCompartment, actor: String, purpose: String,
                             limits: SessionLimits = .standard,
                             clock: VaultClock = .system) throws -> PrivilegedProcessingSession {
        guard compartment.isPrivileged else {
            throw PrivilegedSessionError(.notPrivileged, "compartment '\(compartment.name)' is not privileged: it is read without a session")
        }
        // A privileged read is recorded, or it does not happen: the copy's log is removed with it.
        if let reason = vault.vault.inMemoryCopyReason {
            throw PrivilegedSessionError(.inMemoryMode, InMemoryCopyMarker.refusal(of: "a privileged session", reason: reason))
        }
        try SessionText.validate(purpose, as: "purpose", maximumBytes: 1024)
        try SessionText.validate(actor, as: "actor", maximumBytes: 255)
        guard limits.idleTimeout > 0, limits.absoluteLimit > 0 else {
            throw PrivilegedSessionError(.invalidSessionLimits, "session limits must be positive")
        }
        let session = PrivilegedProcessingSession(id: try SessionID.random(), vault: vault, compartment: compartment, actor: actor,
                                                  keyring: try vault.privilegedKeyring(for: compartment), limits: limits, clock: clock)
        do {
            try vault.record(VaultEvent(.sessionStart, compartmentID: compartment.id, subject: session.id,
                                        details: [.init("actor", actor), .init("purpose", purpose)]))
        } catch {
            // An unrecorded session must not hold keys.
            session.keyring.wipe()
            throw error
        }
        return session
    }

    private init(id: SessionID, vault: UnlockedVault, compartment: VaultCompartment, actor: String, keyring: CompartmentKeyring,
                 limits: SessionLimits, clock: VaultClock) {
        self.id = id
        self.vault = vault
        self.compartment = compartment
        self.actor = actor
        self.keyring = keyring
        self.limits = limits
        self.clock = clock
        startedAt = clock.date()
        state = Mutex(State(lastUse: startedAt))
    }

    public var idString: String { id.hex }

    /// Whether the session still holds its compartment's keys.
    public var isHoldingKeys: Bool { keyring.isHoldingKeys }

    public var summary: Summary {
        state.withLock { state in
            Summary(id: id, compartment: compartment, actor: actor, startedAt: startedAt, lastUse: state.lastUse,
                    bundlesRead: state.bundlesRead, bytesRead: state.bytesRead, endReason: state.endReason)
        }
    }

    /// Reads a bundle of the session's compartment (a stored one by id, or a bundle file) to `sink`,
    /// all of it or `range`, and records the read. Fails if the session has ended or expired (an
    /// expired session ends here, and says why).
    @discardableResult
    public func read(_ source: BundleSource, range: Range<UInt64>? = nil, threads: Int = BundleThreads.available,
                     sink: (UnsafeRawBufferPointer) throws -> Void) throws -> Read {
        try beginUse()
        let opened: OpenedBundle
        switch source {
        case .stored(let bundleID): opened = try vault.openStored(bundleID, keyring: keyring)
        case .file(let descriptor): opened = try EncryptedBundle.open(descriptor, vault: vault, keyring: keyring)
        }
        // Recorded before the first plaintext byte is released (WriteAheadRead), with what the
        // read is to release: a kill part way cannot leave plaintext out and the log silent.
        let planned = range.map(opened.releasedLength(of:)) ?? opened.plaintextLength
        var released: UInt64 = 0
        let counting: (UnsafeRawBufferPointer) throws -> Void = { bytes in
            try sink(bytes)
            released += UInt64(bytes.count)
        }
        try WriteAheadRead.run(planned: planned, record: { try recordRead(opened.header, bytes: $0, part: "content") }, to: counting) { sink in
            if let range { try opened.read(range, threads: threads, sink: sink) } else { try opened.decrypt(threads: threads, sink: sink) }
        }
        return Read(header: opened.header, metadata: opened.metadata, bytes: released)
    }

    /// The sealed file name of a stored bundle of the session's compartment (for `vaultctl ls`): the
    /// name is privileged too, so reading it is recorded as a `session.read` with part `name` and no
    /// payload bytes. Fails as `read` does if the session has ended or expired.
    public func storedName(_ bundleID: BundleID) throws -> String {
        try beginUse()
        let opened = try vault.openStored(bundleID, keyring: keyring)
        try recordRead(opened.header, bytes: 0, part: "name")
        return opened.metadata.name
    }

    /// Ends the session (recording why, with its counts) and wipes its keys. Ending twice is harmless.
    public func end(_ reason: SessionEndReason = .closed) throws {
        let counts: (bundles: Int, bytes: UInt64)? = state.withLock { state in
            guard state.endReason == nil else { return nil }
            state.endReason = reason
            return (state.bundlesRead, state.bytesRead)
        }
        keyring.wipe()
        guard let counts else { return }
        try vault.record(VaultEvent(.sessionEnd, compartmentID: compartment.id, subject: id,
                                    details: [.init("reason", reason.rawValue), .init("bundles", "\(counts.bundles)"),
                                              .init("bytes", "\(counts.bytes)")]))
    }

    /// Ends the session if a limit has passed; returns the reason if it ended now.
    @discardableResult
    public func endIfExpired() throws -> SessionEndReason? {
        let due = state.withLock { state -> SessionEndReason? in
            guard state.endReason == nil else { return nil }
            return limits.expiry(start: startedAt, lastUse: state.lastUse, now: clock.date())
        }
        guard let due else { return nil }
        try end(due)
        return due
    }

    /// Checks the session may read now, ending it if it has expired, and marks it used.
    func beginUse() throws {
        if let reason = try endIfExpired() {
            throw PrivilegedSessionError(.sessionExpired, "the session ended (\(reason.rawValue)); start a new one")
        }
        let ended = state.withLock { state -> SessionEndReason? in
            if state.endReason == nil { state.lastUse = clock.date() }
            return state.endReason
        }
        if let ended { throw PrivilegedSessionError(.sessionEnded, "the session has ended (\(ended.rawValue)); start a new one") }
    }

    private func recordRead(_ header: BundleHeader, bytes: UInt64, part: String) throws {
        state.withLock { state in
            state.bundlesRead += 1
            state.bytesRead += bytes
        }
        try vault.record(VaultEvent(.sessionRead, compartmentID: compartment.id, subject: header.bundleID,
                                    details: [.init("session", idString), .init("bytes", "\(bytes)"), .init("part", part)]))
    }
}

/// Where a session reads a bundle from.
public enum BundleSource: Sendable {
    /// A bundle kept in the vault, by id.
    case stored(BundleID)
    /// A bundle file, opened for reading.
    case file(FileDescriptor)
}
