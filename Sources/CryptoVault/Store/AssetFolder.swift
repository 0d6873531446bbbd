import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The vault's assets/ folder: `<32 hex digits of the bundle id>.vbundle` for each stored bundle,
/// `.incoming-<pid>-<random>` while one is being written, and `<id>.rewrap` while a header is rewritten.
struct AssetFolder {
    let path: String

    struct Temporary {
        let path: String
        let descriptor: FileDescriptor
    }

    func path(of bundleID: [UInt8]) -> String { "\(path)/\(ByteEncoding.hex(bundleID)).vbundle" }
    func journalPath(of bundleID: [UInt8]) -> String { "\(path)/\(ByteEncoding.hex(bundleID)).rewrap" }

    func temporaryFile() throws -> Temporary {
        let name = "\(path)/.incoming-\(getpid())-\(ByteEncoding.hex(try SecureRandom.bytes(8)))"
        return Temporary(path: name, descriptor: try FileDescriptor.createExclusive(name))
    }

    /// Moves a finished, synced temporary file to its final name and makes the rename durable.
    func publish(_ temporary: Temporary, as destination: String) throws {
        _ = try DurableFile.retrying("rename \(temporary.path)") { rename(temporary.path, destination) }
        try DurableFile.syncDirectory(path)
    }

    func discard(_ temporary: Temporary) {
        unlink(temporary.path)
    }

    /// Rewrites a bundle's header in place, crash-safely: the new header is first written durably to a
    /// journal file, then over the old one; `commit` records the change; then the journal goes. If the
    /// process dies mid-write, `finishInterruptedRewrap` completes the job from the journal.
    func rewriteHeader(of bundleID: [UInt8], with header: BundleHeader, commit: () throws -> Void) throws {
        let bytes = header.serialized()
        try DurableFile.write(bytes, to: journalPath(of: bundleID))
        try overwriteHeader(of: bundleID, with: bytes)
        try commit()
        unlink(journalPath(of: bundleID))
    }

    /// Applies a rewrap journal left by a process that died; returns the header now in place, or nil
    /// when there was no journal. The journal is written atomically, so if present it is complete.
    func finishInterruptedRewrap(of bundleID: [UInt8], verify: (BundleHeader) throws -> Void,
                                 commit: (BundleHeader) throws -> Void) throws {
        guard let journal = FileManager.default.contents(atPath: journalPath(of: bundleID)) else { return }
        let bytes = [UInt8](journal)
        guard let header = try? BundleHeader(parsing: bytes), header.size == bytes.count, header.bundleID == bundleID else {
            throw CryptoVaultError(.corruptVault, "the rewrap journal of bundle \(ByteEncoding.hex(bundleID)) is damaged")
        }
        try verify(header)
        try overwriteHeader(of: bundleID, with: bytes)
        try commit(header)
        unlink(journalPath(of: bundleID))
    }

    private func overwriteHeader(of bundleID: [UInt8], with bytes: [UInt8]) throws {
        let descriptor = open(path(of: bundleID), O_WRONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw CryptoVaultError(.io, "cannot open \(path(of: bundleID)) to rewrap it") }
        let file = FileDescriptor(rawValue: descriptor, path: path(of: bundleID), ownsDescriptor: true)
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        try file.sync()
    }

    /// Removes leftovers; returns how many files went.
    func sweep(keeping known: Set<String>) throws -> Int {
        var removed = 0
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where isLeftover(name, known: known) {
            if unlink("\(path)/\(name)") == 0 { removed += 1 }
        }
        return removed
    }

    private func isLeftover(_ name: String, known: Set<String>) -> Bool {
        if name.hasPrefix(".incoming-") {
            return isGone(name.dropFirst(".incoming-".count))
        }
        // The temporary file of a rewrap journal being written (AtomicOutputFile names it
        // ".<id>.rewrap.vaultctl-<pid>-<random>.tmp"); a killed rewrap leaves it behind.
        if name.hasPrefix("."), name.hasSuffix(".tmp"), let marker = name.range(of: ".rewrap.vaultctl-") {
            return isGone(name[marker.upperBound...])
        }
        if name.hasSuffix(".vbundle") {
            return !known.contains(String(name.dropLast(".vbundle".count)))
        }
        return false
    }

    /// Whether the process whose id starts `pidAndRest` ("<pid>-...") no longer exists.
    private func isGone(_ pidAndRest: Substring) -> Bool {
        ProcessLiveness.isGone(pidAndRest.split(separator: "-").first.flatMap { Int32($0) } ?? 0)
    }
}
