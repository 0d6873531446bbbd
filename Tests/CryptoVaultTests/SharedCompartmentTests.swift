@testable import CryptoVault
import Foundation
import Testing
import TestSupport

/// A compartment shared with a paired device, in use: a viewer opens the owner's bundles, an editor
/// also seals bundles the owner opens, a viewer's seal is refused, and every step is recorded.
struct SharedCompartmentTests {
    @Test func aViewerOpensWhatTheOwnerSealed() throws {
        let devices = try PairedVaults()
        let shared = try devices.share(role: .viewer)
        #expect(shared.name == "Memos" && shared.id == devices.memos.id && shared.sharing?.role == .viewer)
        #expect(shared.sharing?.sourceVaultID == devices.owner.vault.vaultID)
        #expect(shared.sharing?.senderDeviceID == devices.ownerDevice.profile.deviceID)
        let bundle = try devices.seal("the owner's memo", into: devices.memos, by: devices.owner)
        #expect(try devices.open(bundle, by: devices.recipient) == "the owner's memo")
        #expect(try devices.recipient.compartmentOrShared(named: "Memos") == shared)
        #expect(try devices.recipient.sharedCompartments() == [shared])
    }

    @Test func anEditorSealsAndTheOwnerOpens() throws {
        let devices = try PairedVaults()
        let shared = try devices.share(role: .editor)
        let bundle = try devices.seal("the editor's memo", into: shared, by: devices.recipient)
        let header = try EncryptedBundle.readHeader(try FileDescriptor.openForReading(bundle))
        #expect(header.vaultID == devices.owner.vault.vaultID && header.compartmentID == devices.memos.id)
        #expect(try devices.open(bundle, by: devices.owner) == "the editor's memo")
        #expect(try devices.open(bundle, by: devices.recipient) == "the editor's memo")
    }

    @Test func aViewersSealIsRefusedWithItsReason() throws {
        let devices = try PairedVaults()
        let shared = try devices.share(role: .viewer)
        let error = try #require(throws: CryptoVaultError.self) { try devices.seal("not allowed", into: shared, by: devices.recipient) }
        #expect(error.code == .sharedCompartmentReadOnly && error.message.contains("viewer"))
    }

    @Test func aLaterGrantChangesTheRoleAndCarriesNewKeyVersions() throws {
        let devices = try PairedVaults()
        try devices.share(role: .viewer)
        let old = try devices.seal("before the rotation", into: devices.memos, by: devices.owner)
        try devices.owner.rotateCompartment(named: "Memos")
        let rotated = try devices.owner.compartment(named: "Memos")
        let new = try devices.seal("after the rotation", into: rotated, by: devices.owner)
        #expect(errorCode { try devices.open(new, by: devices.recipient) } == .foreignBundle)
        // A grant issued in the same second as the first is not older: it replaces it.
        let again = try devices.recipient.acceptShareGrant(try devices.owner.makeShareGrant(of: rotated, for: devices.recipientDevice.profile, role: .editor))
        #expect(again.sharing?.role == .editor && again.keyVersions.map(\.version) == [1, 2] && again.currentVersion == 2)
        #expect(try devices.open(old, by: devices.recipient) == "before the rotation")
        #expect(try devices.open(new, by: devices.recipient) == "after the rotation")
        let sealed = try devices.seal("sealed under version 2", into: again, by: devices.recipient)
        #expect(try EncryptedBundle.readHeader(try FileDescriptor.openForReading(sealed)).keyVersion == 2)
        #expect(try devices.recipient.sharedCompartments().count == 1)
    }

    @Test func sharedKeysAreStoredOnlySealedAndBoundToTheirRole() throws {
        let devices = try PairedVaults()
        try devices.share(role: .viewer)
        let key = try devices.owner.compartmentKey(for: devices.memos, version: 1).exposedCopy()
        #expect(!devices.recipientFixture.databaseFileBytes().contains(subsequence: key))
        try devices.recipientFixture.tamper("UPDATE shared_compartments SET role = 'editor'")
        let promoted = try #require(try devices.recipient.sharedCompartment(named: "Memos"))
        #expect(promoted.sharing?.role == .editor)
        #expect(errorCode { try devices.seal("promoted by editing the file", into: promoted, by: devices.recipient) } == .corruptVault)
        let bundle = try devices.seal("the owner's memo", into: devices.memos, by: devices.owner)
        #expect(errorCode { try devices.open(bundle, by: devices.recipient) } == .corruptVault)
    }

    @Test func aSharedCompartmentIsNotStoredInTheRecipientsAssets() throws {
        let devices = try PairedVaults()
        let shared = try devices.share(role: .editor)
        let input = devices.recipientFixture.root + "/plain"
        try Data("x".utf8).write(to: URL(fileURLWithPath: input))
        #expect(errorCode {
            try devices.recipient.put(from: try FileDescriptor.openForReading(input), compartment: shared,
                                      metadata: BundleMetadata(name: "x", contentType: "text/plain", modificationTime: 0))
        } == .sharedCompartmentReadOnly)
        #expect(errorCode { try devices.recipient.rewrapStored(in: shared) } == .sharedCompartmentReadOnly)
        #expect(try devices.recipient.storedBundles().isEmpty)
    }

    @Test func theGrantAndEveryUseAreRecordedOnTheRecipient() throws {
        let devices = try PairedVaults()
        let shared = try devices.share(role: .editor)
        let received = try #require(devices.recipientJournal.events.withLock { $0.last })
        #expect(received.action.name == "share.receive" && received.compartmentID == devices.memos.id)
        #expect(received.subjectID == devices.ownerDevice.profile.deviceID.bytes)
        #expect(received.details == [.init("name", "Memos"), .init("role", "editor"), .init("key-versions", "1")])
        let bundle = try devices.seal("memo", into: shared, by: devices.recipient)
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(bundle), vault: devices.recipient)
        try devices.recipient.record(.bundleSeal, bundle: opened.header, bytes: 4)
        try opened.decrypt { _ in }  // recorded by the library as bundle.open
        let uses = devices.recipientJournal.events.withLock { Array($0.suffix(2)) }
        #expect(uses.map(\.action.name) == ["bundle.seal", "bundle.open"])
        for use in uses {
            #expect(use.compartmentID == devices.memos.id)
            #expect(use.details.contains(.init("source-vault", ByteEncoding.hex(devices.owner.vault.vaultID.bytes))))
        }
        // The owner's own use of its compartment carries no such detail.
        try EncryptedBundle.open(try FileDescriptor.openForReading(bundle), vault: devices.owner).decrypt { _ in }
        #expect(devices.ownerJournal.events.withLock { $0.last?.details } == [.init("bytes", "4")])
    }
}
