import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The vault's assets/ folder: `<32 hex digits of the bundle id>.vbundle` for each stored bundle,
/// `.incoming-<pid>-<random>` while one is being written, and `<id>.rewrap` while a header is rewritten.
/// Sealed files the database does not know are moved to the vault's `quarantine/` folder, never deleted.
struct AssetFolder {
    let path: String

    struct Temporary {
        let path: String
        let descriptor: FileDescriptor
    }

    func path(of bundleID: BundleID) -> String { "\(path)/\(bundleID.hex).vbundle" }
    func journalPath(of bundleID: BundleID) -> String { "\(path)/\(bundleID.hex).rewrap" }

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
    /// The bundle is opened before the journal is written, so a file that cannot be written in place
    /// (a link: see `openForHeader`) leaves no journal behind.
    func rewriteHeader(of bundleID: BundleID, with header: BundleHeader, commit: () throws -> Void) throws {
        let bytes = header.serialized()
        let file = try openForHeader(of: bundleID)
        try DurableFile.write(bytes, to: journalPath(of: bundleID))
        try overwriteHeader(of: file, with: bytes)
        try commit()
        unlink(journalPath(of: bundleID))
    }

    /// Applies a rewrap journal left by a process that died; returns the header now in place, or nil
    /// when there was no journal. The journal is written atomically, so if present it is complete.
    func finishInterruptedRewrap(of bundleID: BundleID, verify: (BundleHeader) throws -> Void,
                                 commit: (BundleHeader) throws -> Void) throws {
        guard let journal = FileManager.default.contents(atPath: journalPath(of: bundleID)) else { return }
        let bytes = [UInt8](journal)
        guard let header = try? BundleHeader(parsing: bytes), header.size == bytes.count, header.bundleID == bundleID else {
            throw CryptoVaultError(.corruptVault, "the rewrap journal of bundle \(bundleID.hex) is damaged")
        }
        try verify(header)
        try overwriteHeader(of: try openForHeader(of: bundleID), with: bytes)
        try commit(header)
        unlink(journalPath(of: bundleID))
    }

    /// The bundle file opened to write its header in place: the one write vaultctl makes into an
    /// existing file of assets/. `O_NOFOLLOW`, so it is never a write through a symbolic link: the
    /// in-memory mode's copy links to the vault's own bundles (SECURITY.md §19.10), and a header
    /// rewritten through such a link would name a key version only the copy knows, making the
    /// vault's bundle unreadable once the copy is gone (review 17, F14). A vault makes no links.
    private func openForHeader(of bundleID: BundleID) throws -> FileDescriptor {
        let path = path(of: bundleID)
        let descriptor = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = errno == ELOOP ? "it is a symbolic link (the in-memory mode's copy links to the vault's bundles and never writes them)"
                                        : String(cString: strerror(errno))
            throw CryptoVaultError(.io, "cannot open \(path) to rewrap it: \(reason)")
        }
        return FileDescriptor(rawValue: descriptor, path: path, ownsDescriptor: true)
    }

    private func overwriteHeader(of file: FileDescriptor, with bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try file.write($0, at: 0) }
        try file.sync()
    }

    /// What a sweep did: temporary files removed, and the ids of the sealed files it moved aside.
    struct Swept {
        var removed = 0
        var quarantined: [BundleID] = []
    }

    /// Removes temporary leftovers of dead processes, and moves each `<32 lowercase hex>.vbundle`
    /// whose id is not in `known` into `quarantineFolder`: a sealed file the database does not know
    /// may still be readable (vault.db alone restored from an older copy), so it is never deleted.
    func sweep(keeping known: Set<String>, quarantineFolder: String) throws -> Swept {
        var swept = Swept()
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            if let bundleID = orphanBundleID(name, known: known) {
                try quarantine(name, into: quarantineFolder)
                swept.quarantined.append(bundleID)
            } else if isLeftover(name), unlink("\(path)/\(name)") == 0 {
                swept.removed += 1
            }
        }
        return swept
    }

    /// The bundle id of an orphan's name: exactly 32 lowercase hex digits and `.vbundle` (the form
    /// vaultctl writes) with no `bundles` row; other names are not bundles of this vault's making.
    private func orphanBundleID(_ name: String, known: Set<String>) -> BundleID? {
        guard name.hasSuffix(".vbundle") else { return nil }
        let hex = String(name.dropLast(".vbundle".count))
        guard hex.utf8.count == 32, !known.contains(hex), let bytes = ByteEncoding.bytes(fromHex: Substring(hex)), let id = try? BundleID(bytes: bytes) else { return nil }
        return id
    }

    /// Moves `name` into the quarantine folder (made 0700 if missing) under the same name, or the
    /// same name with `.1`, `.2`, ... if one is there already; both directories are synced.
    private func quarantine(_ name: String, into folder: String) throws {
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CryptoVaultError(.io, "cannot create \(folder): \(error.localizedDescription)")
        }
        var destination = "\(folder)/\(name)"
        var suffix = 0
        while FileManager.default.fileExists(atPath: destination), suffix < 1000 {
            suffix += 1
            destination = "\(folder)/\(name).\(suffix)"
        }
        try DurableFile.renameWithoutReplacing("\(path)/\(name)", to: destination)
        try DurableFile.syncDirectory(path)
    }

    private func isLeftover(_ name: String) -> Bool {
        if name.hasPrefix(".incoming-") {
            return isGone(name.dropFirst(".incoming-".count))
        }
        // The temporary file of a rewrap journal being written (AtomicOutputFile names it
        // ".<id>.rewrap.vaultctl-<pid>-<random>.tmp"); a killed rewrap leaves it behind.
        if name.hasPrefix("."), name.hasSuffix(".tmp"), let marker = name.range(of: ".rewrap.vaultctl-") {
            return isGone(name[marker.upperBound...])
        }
        return false
    }

    /// Whether the process whose id starts `pidAndRest` ("<pid>-...") no longer exists.
    private func isGone(_ pidAndRest: Substring) -> Bool {
        ProcessLiveness.isGone(pidAndRest.split(separator: "-").first.flatMap { Int32($0) } ?? 0)
    }
}
