import Foundation
import CryptoVault
import Testing
import TestSupport

/// `BundleID` in use (its parsing is in TypedIdentifierTests).
@Suite struct BundleIDTests {
    @Test("a stored bundle's id is the header's, typed, and finds the bundle")
    func storedBundlesCarryTheirID() throws {
        let fixture = try TestVault()
        let compartment = try fixture.unlocked.createCompartment(named: "memos", register: .general)
        let path = fixture.root + "/memo.txt"
        try Array("memo".utf8).withUnsafeBytes { try FileDescriptor.createExclusive(path).write($0) }
        let stored = try fixture.unlocked.put(from: try FileDescriptor.openForReading(path), compartment: compartment,
                                              metadata: BundleMetadata(name: "memo.txt", modificationTime: 0))
        #expect(try fixture.unlocked.openStored(stored.bundleID).header.bundleID == stored.bundleID)
        #expect(try fixture.unlocked.storedBundle(try BundleID(hex: stored.idString)).bundleID == stored.bundleID)
    }
}
