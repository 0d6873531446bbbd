import AuditChain
import CryptoVault
import Foundation
import PrivilegedSession
import Synchronization
import Testing

/// A vault audited by the real audit log, with a privileged compartment ("chart", healthcare), a second
/// privileged one ("memos", legal) and an ordinary one ("newsletter"), one stored bundle in each.
private final class SessionFixture {
    let root = NSTemporaryDirectory() + "session-test-\(UUID().uuidString)"
    let unlocked: UnlockedVault
    let chart: VaultCompartment, memos: VaultCompartment, newsletter: VaultCompartment
    let chartBundle: StoredBundle, memoBundle: StoredBundle, newsletterBundle: StoredBundle
    let chartText = String(repeating: "Patient reports improved sleep. ", count: 3000)
    let clock = TestClock()

    init() throws {
        unlocked = try Vault.create(at: root + "/vault", passphrase: try SecureBytes(copying: Array("correct horse battery staple".utf8)),
                                    kdf: .argon2idFloor, journal: AuditLog())
        chart = try unlocked.createCompartment(named: "chart", register: .healthcare)
        memos = try unlocked.createCompartment(named: "memos", register: .legal)
        newsletter = try unlocked.createCompartment(named: "newsletter", register: .general)
        chartBundle = try Self.put(chartText, named: "visit.txt", in: chart, vault: unlocked, root: root)
        memoBundle = try Self.put("privileged advice", named: "memo.txt", in: memos, vault: unlocked, root: root)
        newsletterBundle = try Self.put("spring issue", named: "spring.txt", in: newsletter, vault: unlocked, root: root)
    }

    deinit { try? FileManager.default.removeItem(atPath: root) }

    static func put(_ text: String, named name: String, in compartment: VaultCompartment, vault: UnlockedVault, root: String) throws -> StoredBundle {
        let path = root + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return try vault.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                             metadata: BundleMetadata(name: name, modificationTime: 0))
    }

    func start(limits: SessionLimits = .standard, purpose: String = "discharge summary for the attending physician") throws -> PrivilegedProcessingSession {
        try PrivilegedProcessingSession.start(vault: unlocked, compartment: chart, actor: "dr.osei", purpose: purpose,
                                              limits: limits, clock: .fractional { [clock] in clock.now.timeIntervalSince1970 })
    }

    func read(_ bundle: StoredBundle, in session: PrivilegedProcessingSession, range: Range<UInt64>? = nil) throws -> String {
        var bytes: [UInt8] = []
        try session.read(.stored(bundle.bundleID), range: range) { bytes += $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    var entries: [AuditEntry] { get throws { try AuditLogReader(vault: unlocked.vault).entries() } }

    func details(_ entry: AuditEntry) throws -> [String: String] {
        let details = try AuditLogReader.details(of: entry, vaultID: unlocked.vault.vaultID, keys: try unlocked.auditKeys())
        return Dictionary(uniqueKeysWithValues: details.map { ($0.name, $0.value) })
    }
}

/// A clock the tests move by hand.
private final class TestClock: Sendable {
    private let current = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
    var now: Date { current.withLock { $0 } }
    func advance(_ seconds: TimeInterval) { current.withLock { $0 += seconds } }
}

private func code(_ body: () throws -> Void) -> String? {
    do { try body(); return nil } catch let error as CryptoVaultError { return error.code.rawValue } catch let error as PrivilegedSessionError {
        return error.code.rawValue
    } catch { return "\(error)" }
}

@Suite("PrivilegedProcessingSession: the only way to read a privileged compartment")
struct PrivilegedProcessingSessionTests {
    @Test("outside a session a privileged bundle is refused (stored or as a file); an ordinary one opens")
    func refusedOutsideSession() throws {
        let fixture = try SessionFixture()
        #expect(code { _ = try fixture.unlocked.openStored(fixture.chartBundle.bundleID) } == "privilegedSessionRequired")
        let file = fixture.unlocked.vault.assetsPath + "/" + fixture.chartBundle.idString + ".vbundle"
        #expect(code { _ = try EncryptedBundle.open(try FileDescriptor.openForReading(file), vault: fixture.unlocked) } == "privilegedSessionRequired")
        var text: [UInt8] = []
        try fixture.unlocked.openStored(fixture.newsletterBundle.bundleID).decrypt { text += $0 }
        #expect(String(decoding: text, as: UTF8.self) == "spring issue")
    }

    @Test("a session reads its bundles, whole and by range, and the log shows start, each read and the end with counts")
    func recordsStartReadsAndEnd() throws {
        let fixture = try SessionFixture()
        let before = try fixture.entries.count
        let session = try fixture.start()
        #expect(try fixture.read(fixture.chartBundle, in: session) == fixture.chartText)
        #expect(try fixture.read(fixture.chartBundle, in: session, range: 32..<64) == "Patient reports improved sleep. ")
        try session.end()

        let entries = Array(try fixture.entries.dropFirst(before))
        #expect(entries.map(\.action) == ["session.start", "session.read", "session.read", "session.end"])
        #expect(entries.allSatisfy { $0.compartmentID == fixture.chart.id })
        #expect(entries[0].subjectID == session.id.bytes && entries[3].subjectID == session.id.bytes)
        #expect(entries[1].subjectID == fixture.chartBundle.bundleID.bytes)
        #expect(try fixture.details(entries[0]) == ["actor": "dr.osei", "purpose": "discharge summary for the attending physician"])
        #expect(try fixture.details(entries[1]) == ["session": session.idString, "bytes": "\(fixture.chartText.utf8.count)", "part": "content"])
        #expect(try fixture.details(entries[2])["bytes"] == "32")
        #expect(try fixture.details(entries[3]) == ["reason": "closed", "bundles": "2", "bytes": "\(fixture.chartText.utf8.count + 32)"])
        // The purpose is sealed: it is nowhere in the database file in clear.
        let database = try Data(contentsOf: URL(fileURLWithPath: fixture.unlocked.vault.databasePath))
        #expect(database.range(of: Data("discharge summary".utf8)) == nil)
    }

    @Test("a session reads only its own compartment")
    func ownCompartmentOnly() throws {
        let fixture = try SessionFixture()
        let session = try fixture.start()
        #expect(code { _ = try fixture.read(fixture.memoBundle, in: session) } == "privilegedSessionRequired")
        #expect(code { _ = try fixture.read(fixture.newsletterBundle, in: session) } == "privilegedSessionRequired")
        #expect(try fixture.read(fixture.chartBundle, in: session) == fixture.chartText)
    }

    @Test("after the idle timeout the session ends, its keys are gone and a read fails")
    func idleTimeout() throws {
        let fixture = try SessionFixture()
        let session = try fixture.start()
        fixture.clock.advance(4 * 60)
        #expect(try fixture.read(fixture.chartBundle, in: session) == fixture.chartText)
        fixture.clock.advance(4 * 60)  // 4 minutes since the last read: still alive
        #expect(try session.endIfExpired() == nil && session.isHoldingKeys)
        fixture.clock.advance(60)
        #expect(code { _ = try fixture.read(fixture.chartBundle, in: session) } == "sessionExpired")
        #expect(!session.isHoldingKeys)
        #expect(code { _ = try fixture.read(fixture.chartBundle, in: session) } == "sessionEnded")
        let last = try #require(try fixture.entries.last)
        #expect(last.action == "session.end")
        #expect(try fixture.details(last)["reason"] == "idle-timeout")
    }

    @Test("the absolute limit ends even a busy session; the daemon's timer ends it without a read")
    func absoluteLimit() throws {
        let fixture = try SessionFixture()
        let session = try fixture.start(limits: SessionLimits(idleTimeout: 300, absoluteLimit: 900))
        for _ in 0..<3 {
            fixture.clock.advance(240)
            _ = try fixture.read(fixture.chartBundle, in: session, range: 0..<4)
        }
        fixture.clock.advance(240)  // 960 s in all
        #expect(try session.endIfExpired() == .absoluteLimit)
        #expect(!session.isHoldingKeys)
        #expect(try session.endIfExpired() == nil, "an ended session does not end again")
        #expect(code { _ = try fixture.read(fixture.chartBundle, in: session) } == "sessionEnded")
        let ends = try fixture.entries.filter { $0.action == "session.end" }
        #expect(ends.count == 1)
        #expect(try fixture.details(ends[0]) == ["reason": "absolute-limit", "bundles": "3", "bytes": "12"])
    }

    @Test("ending wipes the keys and is recorded once, however often it is asked")
    func endIsFinal() throws {
        let fixture = try SessionFixture()
        let session = try fixture.start()
        try session.end()
        try session.end()
        #expect(!session.isHoldingKeys)
        #expect(try fixture.entries.filter { $0.action == "session.end" }.count == 1)
        #expect(code { _ = try fixture.read(fixture.chartBundle, in: session) } == "sessionEnded")
    }

    @Test("refused: a session on an ordinary compartment, an empty, overlong or control-character purpose, zero limits")
    func refusals() throws {
        let fixture = try SessionFixture()
        #expect(code { _ = try PrivilegedProcessingSession.start(vault: fixture.unlocked, compartment: fixture.newsletter, actor: "a", purpose: "p") }
                == "notPrivileged")
        for purpose in ["", "   ", String(repeating: "x", count: 1025), "line\u{1B}[2J"] {
            #expect(code { _ = try fixture.start(purpose: purpose) } == "invalidSessionText", "\(purpose.debugDescription)")
        }
        #expect(code { _ = try fixture.start(limits: SessionLimits(idleTimeout: 0, absoluteLimit: 60)) } == "invalidSessionLimits")
        #expect(try fixture.entries.filter { $0.action == "session.start" }.isEmpty, "a refused session records no start")
    }
}

@Suite("Sealed records of a privileged compartment are read only through a live session")
struct PrivilegedSealedRecordTests {
    @Test("a live session opens its compartment's record (recorded as record.open); without one, or after it ended, it is refused")
    func sessionGatesRecords() throws {
        let fixture = try SessionFixture()
        let location = try SealedRecordLocation(module: "writing", table: "blocks", recordID: [1], field: "text")
        try fixture.unlocked.transaction { try $0.sealRecord(Array("diagnosis".utf8), at: location, in: fixture.chart) }
        let refused = try #require(throws: CryptoVaultError.self) {
            try fixture.unlocked.transaction { try $0.openRecord(at: location, in: fixture.chart) }
        }
        #expect(refused.code == .privilegedSessionRequired)
        let session = try fixture.start()
        let value = try fixture.unlocked.transaction { try session.openRecord(at: location, in: $0) }
        #expect(value.exposedCopy() == Array("diagnosis".utf8))
        var batch: [[UInt8]] = []
        try fixture.unlocked.transaction { tx in try session.openRecords(at: [location, location], in: tx) { _, plaintext in batch.append(Array(plaintext)) } }
        #expect(batch == [Array("diagnosis".utf8), Array("diagnosis".utf8)])
        let actions = try AuditLogReader(vault: fixture.unlocked.vault).entries().map(\.action)
        #expect(actions.suffix(3) == ["session.start", "record.open", "record.open"], "\(actions)")
        try session.end()
        let ended = try #require(throws: PrivilegedSessionError.self) {
            try fixture.unlocked.transaction { try session.openRecord(at: location, in: $0) }
        }
        #expect(ended.code == .sessionEnded)
    }
}
