import CryptoVault
import Synchronization

/// The fingerprints of every document sealed into a privileged compartment, kept in the vault
/// (SECURITY.md §11.7), so that the egress funnel catches a payload quoting one of them.
///
/// A `Collector` watches the plaintext while it is sealed (`EncryptedBundle.Options.plaintextObserver`)
/// and keeps its first `collectedBytes` in locked memory; `remember` adds that text's fingerprints
/// to the vault inside the transaction that stores the bundle (or records its seal), so the two
/// commit together: `put` does both. Text past the bound is not fingerprinted: privileged notes are
/// far smaller, and the bound keeps sealing within its memory budget.
public enum PrivilegedFingerprints {
    public static let collectedBytes = 16 << 20

    /// Gathers the start of one document's plaintext while it is sealed.
    public final class Collector: Sendable {
        private let state: Mutex<(buffer: SecureBytes, count: Int)>

        init() throws {
            state = Mutex((try SecureBytes(count: PrivilegedFingerprints.collectedBytes), 0))
        }

        /// For `EncryptedBundle.Options.plaintextObserver`.
        public func observe(_ bytes: UnsafeRawBufferPointer) {
            state.withLock { state in
                let room = min(bytes.count, PrivilegedFingerprints.collectedBytes - state.count)
                guard room > 0, let source = bytes.baseAddress else { return }
                state.buffer.withUnsafeMutableBytes { buffer in
                    (buffer.baseAddress! + state.count).copyMemory(from: source, byteCount: room)
                }
                state.count += room
            }
        }

        /// The fingerprints of the gathered text under `index`'s key.
        func fingerprints(under index: FingerprintIndex) -> [UInt64] {
            state.withLock { state in
                state.buffer.withUnsafeBytes { index.fingerprints(of: UnsafeRawBufferPointer(rebasing: $0[0..<state.count])) }
            }
        }
    }

    /// A collector for a document sealed into `compartment`, or nil when it is not privileged.
    public static func collector(for compartment: VaultCompartment) throws -> Collector? {
        compartment.isPrivileged ? try Collector() : nil
    }

    /// Adds the fingerprints of what `collector` gathered to the vault, in `transaction`: the one
    /// that stores the bundle they describe.
    public static func remember(_ collector: Collector, in transaction: VaultTransaction) throws {
        let index = try FingerprintIndex(key: try transaction.vault.leakFingerprintKey(), fingerprints: [])
        try transaction.storeLeakFingerprints(collector.fingerprints(under: index))
    }

    /// The keyed fingerprints of `texts`' shingles (each text shingled on its own), not stored: the
    /// writing app's projects are sealed record by record, not as one bundle, so their doors hand
    /// the words they seal here, and store a privileged project's with `remember`.
    public static func fingerprints(of texts: [String], in transaction: VaultTransaction) throws -> [UInt64] {
        let index = try FingerprintIndex(key: try transaction.vault.leakFingerprintKey(), fingerprints: [])
        var fingerprints: [UInt64] = []
        for text in texts {
            // Read in place (a native string's UTF-8), so no further copy of the words is made.
            var text = text
            fingerprints += text.withUTF8 { index.fingerprints(of: UnsafeRawBufferPointer($0)) }
        }
        return fingerprints
    }

    /// Adds `fingerprints` of privileged words to the vault, in `transaction`: the one that seals them.
    public static func remember(_ fingerprints: [UInt64], in transaction: VaultTransaction) throws {
        try transaction.storeLeakFingerprints(fingerprints)
    }

    /// `UnlockedVault.put`, with a privileged document's fingerprints stored in the bundle's own
    /// transaction: the bundle and its fingerprints commit together or not at all. `beforeCommit`
    /// runs in that transaction after both are written.
    public static func put(from input: FileDescriptor, compartment: VaultCompartment, metadata: BundleMetadata,
                           options: EncryptedBundle.Options = .init(), progress: (UInt64) -> Void = { _ in }, in vault: UnlockedVault,
                           beforeCommit: (VaultTransaction) throws -> Void = { _ in }) throws -> StoredBundle {
        let collector = try collector(for: compartment)
        var options = options
        if let collector {
            let observer = options.plaintextObserver
            options.plaintextObserver = { bytes in
                observer?(bytes)
                collector.observe(bytes)
            }
        }
        return try vault.put(from: input, compartment: compartment, metadata: metadata, options: options, progress: progress) { transaction in
            if let collector { try remember(collector, in: transaction) }
            try beforeCommit(transaction)
        }
    }

    /// The vault's fingerprints as an index for the leak guard.
    public static func index(of vault: UnlockedVault) throws -> FingerprintIndex {
        try FingerprintIndex(key: try vault.leakFingerprintKey(), fingerprints: try vault.leakFingerprints())
    }
}
