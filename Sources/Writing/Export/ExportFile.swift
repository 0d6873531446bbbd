import CryptoVault
import Foundation

/// Where an export lands (SECURITY.md §6.6): a regular file, new or replaced only when the caller
/// allows it, which appears only complete (written to a temporary file beside it, fsynced, renamed
/// into place, the folder fsynced: `AtomicOutputFile`), or a character device or FIFO, written into
/// and never replaced. Made before the export is decided, so a path that cannot be written is
/// refused before anything is recorded; `abandon` removes the temporary file, so a refused or
/// failed export leaves nothing, and no partial plaintext, behind.
final class ExportFile {
    /// The path the file lands at, links followed (the egress record names it, from the root).
    let path: String
    private let atomic: AtomicOutputFile?
    private let descriptor: FileDescriptor

    init(_ path: String, replacing: Bool) throws {
        switch try OutputPath.classify(path) {
        case .stream(let device):
            descriptor = try OutputPath.openStream(device)
            atomic = nil
            self.path = Self.absolute(device)
        case .absent(let target), .regularFile(let target):
            let file = try AtomicOutputFile(path: target, replacing: replacing)
            atomic = file
            descriptor = file.descriptor
            self.path = Self.absolute(target)
        }
    }

    func write(_ bytes: [UInt8]) throws {
        try bytes.withUnsafeBytes { try descriptor.write($0) }
    }

    /// Puts the file in place (a stream has nothing to commit).
    func commit() throws {
        try atomic?.commit()
    }

    func abandon() {
        atomic?.abandon()
    }

    /// `path` from the root: a relative one is taken in the working directory (a forwarded command's
    /// is its client's, entered for its thread).
    static func absolute(_ path: String) -> String {
        path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
    }
}
