import CryptoVault
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The whole-vault copies this vault keeps for paired devices (SECURITY.md §13.6), as files under
/// `VAULT/vaultcopies/<source device id>/`, outside assets/ as replicas are:
///
/// - `<entries, 20 decimal digits>-<last leaf hash, hex>.vaultbackup`: a copy that checked, named by
///   how far its audit log goes, so the name alone says which of two copies is newer;
/// - `.incoming` and `.incoming-offer`: the copy being received and the offer it answers.
///
/// A copy takes its name by a rename after its bytes were fsynced; older copies are removed only
/// after that rename is durable, so a crash leaves the old copy, the new one, or both (the newest
/// counts, and the next copy received removes the rest).
struct VaultCopyStore {
    static let folderName = "vaultcopies"
    static let suffix = ".vaultbackup"

    /// A copy kept for one device.
    struct Held: Equatable {
        let path: String
        let entries: UInt64
        let lastLeafHash: [UInt8]
    }

    let directory: String

    init(vaultDirectory: String) { directory = vaultDirectory }

    var folder: String { (directory as NSString).appendingPathComponent(Self.folderName) }
    func sourceFolder(_ source: DeviceID) -> String { "\(folder)/\(source.hex)" }
    func incomingPath(_ source: DeviceID) -> String { "\(sourceFolder(source))/.incoming" }
    func offerPath(_ source: DeviceID) -> String { "\(sourceFolder(source))/.incoming-offer" }

    /// The newest copy kept for `source`, if any.
    func held(for source: DeviceID) -> Held? {
        allHeld(for: source).max { $0.entries < $1.entries }
    }

    private func allHeld(for source: DeviceID) -> [Held] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: sourceFolder(source))) ?? []
        return names.compactMap { name in
            guard name.hasSuffix(Self.suffix) else { return nil }
            let parts = name.dropLast(Self.suffix.count).split(separator: "-")
            guard parts.count == 2, parts[0].count == 20, let entries = UInt64(parts[0]),
                  let leaf = ByteEncoding.bytes(fromHex: parts[1]), leaf.count == ReplicationWire.digestSize else { return nil }
            return Held(path: "\(sourceFolder(source))/\(name)", entries: entries, lastLeafHash: leaf)
        }
    }

    /// The vault id in the header of a kept copy (bytes 20 to 36, §13.2).
    func vaultID(of held: Held) throws -> VaultID {
        var header = [UInt8](repeating: 0, count: BackupFormat.headerSize)
        let read = try header.withUnsafeMutableBytes { try FileDescriptor.openForReading(held.path).read(into: $0, at: 0) }
        guard read == header.count else { throw PeerChannelError(.vaultCopyNotFound, "the copy kept at \(held.path) is shorter than a header") }
        return try VaultID(bytes: Array(header[20..<36]))
    }

    // MARK: Receiving

    /// Starts receiving `offer` afresh: its offer is noted and the incoming file is empty.
    func start(_ offer: VaultCopyOffer, source: DeviceID) throws {
        try makeFolders(for: source)
        unlink(offerPath(source))
        try FileDescriptor.openForWriting(incomingPath(source), creating: true).truncate(to: 0)
        let bytes = offer.serialized()
        try bytes.withUnsafeBytes { try FileDescriptor.createExclusive(offerPath(source)).write($0) }
    }

    /// The offer being received from `source`, if a transfer is under way.
    func pendingOffer(from source: DeviceID) throws -> VaultCopyOffer? {
        guard let data = FileManager.default.contents(atPath: offerPath(source)) else { return nil }
        return try VaultCopyOffer(parsing: [UInt8](data))
    }

    /// The bytes of the incoming file so far.
    func incomingLength(from source: DeviceID) -> UInt64 {
        (try? FileDescriptor.openForReading(incomingPath(source)).regularFileSize()) ?? 0
    }

    func write(_ data: ArraySlice<UInt8>, at offset: UInt64, from source: DeviceID) throws {
        try data.withUnsafeBytes { try FileDescriptor.openForWriting(incomingPath(source)).write($0, at: offset) }
    }

    func syncIncoming(from source: DeviceID) throws {
        try FileDescriptor.openForWriting(incomingPath(source)).sync()
    }

    /// Gives the fsynced incoming file its name as the copy `offer` describes, inside `transaction`
    /// (which records its entry), then removes every older copy.
    func keep(_ offer: VaultCopyOffer, from source: DeviceID, inside transaction: (() throws -> Void) throws -> Void) throws {
        let name = String(format: "%020llu", offer.entries) + "-" + ByteEncoding.hex(offer.lastLeafHash) + Self.suffix
        let path = "\(sourceFolder(source))/\(name)"
        try transaction { try DurableFile.renameReplacing(incomingPath(source), to: path) }
        unlink(offerPath(source))
        for older in allHeld(for: source) where older.path != path { unlink(older.path) }
        try DurableFile.syncDirectory(sourceFolder(source))
    }

    /// Drops a transfer that failed: its offer and its bytes.
    func discardIncoming(from source: DeviceID) {
        unlink(offerPath(source))
        unlink(incomingPath(source))
    }

    private func makeFolders(for source: DeviceID) throws {
        for path in [folder, sourceFolder(source)] {
            do {
                try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw CryptoVaultError(.io, "cannot create \(path): \(error.localizedDescription)")
            }
        }
    }
}
