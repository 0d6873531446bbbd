import CryptoVault
import Synchronization

/// The fingerprints of every document sealed into a privileged compartment, kept in the vault
/// (SECURITY.md §11.7), so that the egress funnel catches a payload quoting one of them.
///
/// A `Collector` watches the plaintext while it is sealed (`EncryptedBundle.Options.plaintextObserver`)
/// and keeps its first `collectedBytes` in locked memory; once the bundle is safely stored,
/// `remember` adds that text's fingerprints to the vault. Text past the bound is not fingerprinted:
/// privileged notes are far smaller, and the bound keeps sealing within its memory budget.
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

    /// Adds the fingerprints of what `collector` gathered to the vault.
    public static func remember(_ collector: Collector, in vault: UnlockedVault) throws {
        let index = try FingerprintIndex(key: try vault.leakFingerprintKey(), fingerprints: [])
        let fingerprints = collector.fingerprints(under: index)
        try vault.storeLeakFingerprints(fingerprints)
    }

    /// The vault's fingerprints as an index for the leak guard.
    public static func index(of vault: UnlockedVault) throws -> FingerprintIndex {
        try FingerprintIndex(key: try vault.leakFingerprintKey(), fingerprints: try vault.leakFingerprints())
    }
}
