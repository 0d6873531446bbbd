import CryptoVault
import Foundation
import Testing
import TestSupport
@testable import Sync
import Writing

/// A clock the test sets: each device's store reads it, so sessions and times are exact.
final class TestTime: @unchecked Sendable {
    private let lock = NSLock()
    private var value: Int64

    init(_ start: Int64) { value = start }

    var now: Int64 {
        get { lock.withLock { value } }
        set { lock.withLock { value = newValue } }
    }

    var clock: VaultClock { VaultClock { [self] in now } }
}

/// Several real vaults of one owner holding one project, each with its own device key: the model
/// the version sync tests drive, every step in the vault's own audited transaction as the daemon's.
struct VersionFleet {
    let project: ProjectID
    let vaults: [TestVault]
    let authors: [SyncAuthor]
    let time = TestTime(1_780_000_000)
    var keys: [DeviceID: [UInt8]] { Dictionary(uniqueKeysWithValues: authors.map { ($0.device, $0.key.publicKey) }) }

    init(devices count: Int, modules: [ModuleSchema] = [WritingSchema.module, SyncSchema.module]) throws {
        vaults = try (0..<count).map { _ in try TestVault(modules: modules) }
        authors = try (0..<count).map { _ in try SyncAuthor.random() }
        let made = try vaults[0].unlocked.createWritingProject(named: "Case files", register: .general, kind: .document)
        project = made.id
        for vault in vaults.dropFirst() {
            try vault.unlocked.transaction { tx in
                _ = try WritingStore(tx).addSyncedProject(made.id, named: "Case files", register: .general, kind: .document, privileged: false)
            }
        }
    }

    func store<Result>(_ device: Int, _ body: (WritingStore) throws -> Result) throws -> Result {
        try vaults[device].unlocked.transaction { tx in try body(WritingStore(tx, clock: time.clock)) }
    }

    func sync<Result>(_ device: Int, _ body: (VaultSync) throws -> Result) throws -> Result {
        try vaults[device].unlocked.transaction { tx in
            try body(VaultSync(WritingStore(tx, clock: time.clock), author: authors[device], devices: keys))
        }
    }

    /// One exchange as the daemon makes it: both commit, then `to` takes what `from` holds and it lacks.
    /// Returns what `to` stored; every record must be taken.
    @discardableResult
    func sync(from: Int, to: Int) throws -> SyncReceipt {
        try sync(from) { try $0.commitLocalChanges(in: project) }
        try sync(to) { try $0.commitLocalChanges(in: project) }
        let vector = try sync(to) { try $0.replica(of: project).versionVector }
        let records = try sync(from) { try $0.records(of: project, missingFrom: vector) }
        let receipt = try sync(to) { try $0.receive(records, for: project) }
        #expect(receipt.refused == [], "refused: \(receipt.refused.map(\.error.message))")
        return receipt
    }

    /// Every pair both ways, twice: afterwards every vault holds every record.
    func syncAll() throws {
        for _ in 0..<2 {
            for from in vaults.indices { for to in vaults.indices where to != from { try sync(from: from, to: to) } }
        }
    }

    /// A document made on `device` with paragraphs `texts`.
    func document(on device: Int, _ texts: [String]) throws -> NodeID {
        try store(device) { store in
            let node = try store.addNode(.scene, titled: "Visit notes", in: project)
            try store.replaceDocumentContent(of: node.id, in: project, with: DocumentContent(blocks: try texts.map {
                Block(id: try BlockID.random(), kind: .paragraph, text: $0)
            }))
            return node.id
        }
    }

    /// The document's content on `device` with paragraph `index` made `text`.
    func edit(_ document: NodeID, on device: Int, paragraph index: Int, to text: String) throws {
        try store(device) { store in
            var blocks = try store.documentContent(of: document, in: project).blocks
            blocks[index].text = text
            try store.replaceDocumentContent(of: document, in: project, with: DocumentContent(blocks: blocks))
        }
    }

    func content(_ document: NodeID, on device: Int) throws -> DocumentContent {
        try store(device) { try $0.documentContent(of: document, in: project) }
    }

    func snapshots(_ document: NodeID, on device: Int) throws -> [Snapshot] {
        try store(device) { try $0.snapshots(of: document, in: project) }
    }

    func branches(_ document: NodeID, on device: Int) throws -> [Branch] {
        try store(device) { try $0.branches(of: document, in: project) }
    }
}

extension Snapshot {
    /// What a device lists of a snapshot, but its place in the local chain (`sequence`, `isKeyframe`).
    var listed: String { "\(id.hex) \(origin.rawValue) \(title ?? "-") \(deviceID.hex) \(createdAt)" }
}
