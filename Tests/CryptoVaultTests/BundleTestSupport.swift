import TestSupport
@testable import CryptoVault
import Foundation

/// A test vault with one compartment, and helpers to seal and open bundles between temporary files.
final class BundleFixture {
    let vault: TestVault
    let compartment: VaultCompartment

    init(register: Register = .general) throws {
        vault = try TestVault()
        compartment = try vault.unlocked.createCompartment(named: "files", register: register)
    }

    var unlocked: UnlockedVault { vault.unlocked }

    func path(_ name: String) -> String { vault.root + "/" + name }

    static func pattern(_ count: Int, seed: UInt8 = 1) -> [UInt8] {
        (0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ Int(seed) &+ $0 >> 8) }
    }

    /// Seals `plaintext` into a new file and returns its path.
    @discardableResult
    func seal(_ plaintext: [UInt8], chunkSize: Int = 1024, threads: Int = 2, name: String = "bundle",
              compartment: VaultCompartment? = nil) throws -> String {
        let input = path(name + ".plain")
        try Data(plaintext).write(to: URL(fileURLWithPath: input))
        let output = path(name + ".vbundle")
        try? FileManager.default.removeItem(atPath: output)
        let destination = try FileDescriptor.createExclusive(output)
        try EncryptedBundle.seal(from: try FileDescriptor.openForReading(input), to: destination,
                                 compartment: try unlocked.compartment(named: (compartment ?? self.compartment).name), vault: unlocked,
                                 metadata: BundleMetadata(name: "\(name).txt", contentType: "text/plain", modificationTime: 1_700_000_000),
                                 options: .init(chunkSize: chunkSize, threads: threads))
        return output
    }

    /// The whole plaintext of the bundle at `path`.
    func open(_ path: String, threads: Int = 2) throws -> [UInt8] {
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: unlocked)
        var plaintext: [UInt8] = []
        try opened.decrypt(threads: threads) { plaintext += $0 }
        return plaintext
    }

    func read(_ path: String, _ range: Range<UInt64>) throws -> [UInt8] {
        let opened = try EncryptedBundle.open(try FileDescriptor.openForReading(path), vault: unlocked)
        var plaintext: [UInt8] = []
        try opened.read(range) { plaintext += $0 }
        return plaintext
    }

    func bytes(_ path: String) throws -> [UInt8] { [UInt8](try Data(contentsOf: URL(fileURLWithPath: path))) }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }
}
