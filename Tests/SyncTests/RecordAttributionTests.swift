import CryptoVault
import Testing
import TestSupport
@testable import Sync
import Writing

/// A record's versions are attributed to the device that signed it (attack review of issue 17,
/// finding 3; SECURITY.md §19.4): a peer cannot sign an edit event, a snapshot or a project
/// snapshot saying this device made it, nor name two makers, nor another maker than its records
/// held here name. Each such record is refused (`attributionMismatch`), recorded with the device,
/// and nothing of it is written; the peer's honest versions are taken.
@Suite struct RecordAttributionTests: SyncedVaultFixture {
    let vault: TestVault
    let project: WritingProject
    let author: SyncAuthor
    let peer: SyncAuthor

    init() throws { (vault, project, author, peer) = try Self.makeSyncedVault(project: "Session notes") }

    /// A document made here, committed, and taken by the peer's replica.
    func start() throws -> (document: NodeID, peer: SyncReplica) {
        let document = try store { store in
            let node = try store.addNode(.scene, titled: "Intake", in: project.id)
            try store.replaceDocumentContent(of: node.id, in: project.id,
                                             with: DocumentContent(blocks: [Block(id: try BlockID.random(), kind: .paragraph, text: "notes")]))
            return node.id
        }
        let record = try #require(try sync { try $0.commitLocalChanges(in: project.id) })
        var replica = SyncReplica(project: project.id, author: peer, devices: devices)
        #expect(replica.receive(record.encoded) == .applied(1))
        return (document, replica)
    }

    func event(by maker: AuditDeviceID, in document: NodeID) throws -> ChangeOperation {
        .version(.editEvent(SyncedEditEvent(id: try EditEventID.random(), deviceID: maker, startedAt: 100, lastEditAt: 160, endedAt: nil,
                                            edits: 3, documents: [EditedDocument(document: document, words: 12)])))
    }

    func refusals() -> [[String: String]] {
        vault.recording.events.withLock { events in
            events.filter { $0.action == .syncRecordRefused }.map { Dictionary($0.details.map { ($0.name, $0.value) }, uniquingKeysWith: { a, _ in a }) }
        }
    }

    /// The project's edit events but this device's own writing session of `start()`.
    func events() throws -> [EditEventStatus] {
        let own = try store { try $0.auditDeviceID() }
        return try store { try $0.editEventStatuses(in: project.id) }.filter { $0.deviceID != own || $0.startedAt == 100 }
    }

    @Test func aPeersEditEventSayingThisDeviceMadeItIsRefusedAndRecorded() throws {
        var (document, replica) = try start()
        let own = try store { try $0.auditDeviceID() }
        let forged = try replica.commit([try event(by: own, in: document)])
        let receipt = try sync { try $0.receive([forged.encoded], for: project.id) }
        #expect(receipt.stored == 0)
        #expect(receipt.refused.map(\.error.code) == [.attributionMismatch])
        #expect(receipt.refused.first?.error.message.contains("names this device as the maker") == true)
        #expect(refusals() == [["reason": "attributionMismatch", "hash": ByteEncoding.hex(forged.hash), "device": peer.device.hex]])
        #expect(try events().isEmpty, "no edit event of this device's that it never made")
    }

    @Test func aPeerNamingAnotherMakerThanItsRecordsHeldOrTwoMakersIsRefusedItsOwnIsTaken() throws {
        var (document, replica) = try start()
        let peersOwn = try AuditDeviceID.random(), another = try AuditDeviceID.random()
        let honest = try replica.commit([try event(by: peersOwn, in: document)])
        #expect(try sync { try $0.receive([honest.encoded], for: project.id) }.stored == 1)
        #expect(try events().map(\.deviceID) == [peersOwn])

        let other = try replica.commit([try event(by: another, in: document)])
        let refused = try sync { try $0.receive([other.encoded], for: project.id) }
        #expect(refused.stored == 0 && refused.refused.map(\.error.code) == [.attributionMismatch], "\(refused)")
        #expect(refused.refused.first?.error.message.contains("than its records held here do") == true)

        var fresh = SyncReplica(project: project.id, author: peer, devices: devices)
        for record in try sync({ try $0.storedRecords(of: project, missingFrom: [:]) }) { _ = fresh.receive(record) }
        let two = try fresh.commit([try event(by: peersOwn, in: document), try event(by: another, in: document)])
        let both = try sync { try $0.receive([two.encoded], for: project.id) }
        #expect(both.refused.map(\.error.code) == [.attributionMismatch])
        #expect(both.refused.first?.error.message.contains("names 2 devices") == true)
        #expect(try events().map(\.deviceID) == [peersOwn])
        #expect(refusals().map { $0["reason"] } == ["attributionMismatch", "attributionMismatch"])
    }

    /// A2 (attack review s6): the binding is a function of the signer's chain, not of how records
    /// were batched. r1 names one maker, r2 (after r1) another: r2 is refused whether r1 came in an
    /// earlier receive (the test above) or in the same one, before or after it.
    @Test func theVerdictOnALaterRecordDoesNotDependOnWhetherItsPastCameInTheSameReceive() throws {
        var (document, replica) = try start()
        let first = try AuditDeviceID.random(), second = try AuditDeviceID.random()
        let r1 = try replica.commit([try event(by: first, in: document)])
        let r2 = try replica.commit([try event(by: second, in: document)])
        let receipt = try sync { try $0.receive([r2.encoded, r1.encoded], for: project.id) }
        #expect(receipt.stored == 1, "\(receipt)")
        #expect(receipt.refused.map(\.error.code) == [.attributionMismatch], "\(receipt)")
        #expect(receipt.refused.first?.record == r2.hash)
        #expect(receipt.refused.first?.error.message.contains("than its records held here do") == true)
        #expect(refusals() == [["reason": "attributionMismatch", "hash": ByteEncoding.hex(r2.hash), "device": peer.device.hex]])
        #expect(try events().map(\.deviceID) == [first])
    }

    /// A3 (attack review s6): attribution is checked once the signature verifies, so a record
    /// whose signature does not (anyone could write it, naming any device) is refused as
    /// `badSignature`, never recorded as that device claiming to be this one.
    @Test func aForgedRecordNamingThisDeviceIsABadSignatureNotTheSignersClaim() throws {
        var (document, replica) = try start()
        let own = try store { try $0.auditDeviceID() }
        var forged = try replica.commit([try event(by: own, in: document)]).encoded
        forged[forged.count - 1] ^= 0x01
        let receipt = try sync { try $0.receive([forged], for: project.id) }
        #expect(receipt.stored == 0)
        #expect(receipt.refused.map(\.error.code) == [.badSignature], "\(receipt)")
        #expect(refusals().map { $0["reason"] } == ["badSignature"])
        #expect(try events().isEmpty)
    }
}
