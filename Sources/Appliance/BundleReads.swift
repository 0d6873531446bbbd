import CryptoVault
import PrivilegedSession

/// How the appliance reads a bundle for whoever asks (the daemon for a local client, `open` and
/// `get` in their own process): an ordinary compartment's directly, a privileged one's only inside a
/// privileged processing session (which the caller holds; the library refuses anything else).
public enum BundleReads {
    /// A stored bundle's full id from a full id or a unique prefix of at least 6 hex digits.
    public static func resolve(_ text: String, in vault: UnlockedVault) throws -> BundleID {
        let prefix = text.lowercased()
        guard prefix.count >= 6, prefix.count <= 32, prefix.allSatisfy(\.isHexDigit) else {
            throw ApplianceError(.invalidRequest, "'\(text)' is not a bundle id (6 to 32 hex digits)")
        }
        let matches = try vault.storedBundles().filter { $0.idString.hasPrefix(prefix) }
        guard matches.count == 1 else {
            if matches.isEmpty { throw CryptoVaultError(.bundleNotFound, "no bundle \(text) in this vault") }
            throw ApplianceError(.invalidRequest, "'\(text)' matches \(matches.count) bundles; give more digits")
        }
        return matches[0].bundleID
    }

    /// START:END in bytes, START <= END.
    public static func parseRange(_ text: String) throws(ApplianceError) -> Range<UInt64> {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard parts.count == 2, let start = UInt64(parts[0]), let end = UInt64(parts[1]), start <= end else {
            throw ApplianceError(.invalidRequest, "--range must be START:END with START <= END, in bytes")
        }
        return start..<end
    }

    /// Opens a bundle of an ordinary compartment (a privileged one is refused by the library).
    public static func openOrdinary(_ source: BundleSource, vault: UnlockedVault) throws -> OpenedBundle {
        switch source {
        case .stored(let bundleID): return try vault.openStored(bundleID)
        case .file(let descriptor): return try EncryptedBundle.open(descriptor, vault: vault)
        }
    }

    /// Releases an ordinary bundle's plaintext (all of it or `range`) to `sink`: the one path for a
    /// local read and the daemon's. The library records the read (`bundle.open` for a file,
    /// `bundle.get` for a stored bundle, before the first byte is released), so nothing is recorded here.
    public static func release(_ opened: OpenedBundle, range: Range<UInt64>?, threads: Int,
                               sink: (UnsafeRawBufferPointer) throws -> Void) throws {
        if let range { try opened.read(range, threads: threads, sink: sink) } else { try opened.decrypt(threads: threads, sink: sink) }
    }

    /// The bundle's compartment if it is a privileged one of this vault. Anything else (an ordinary
    /// compartment, a foreign or damaged bundle) takes the ordinary path, which says what is wrong.
    public static func privilegedCompartment(of source: BundleSource, vault: UnlockedVault) -> VaultCompartment? {
        let compartment: VaultCompartment?
        switch source {
        case .stored(let bundleID): compartment = try? vault.storedBundle(bundleID).compartment
        case .file(let descriptor):
            compartment = (try? EncryptedBundle.readHeader(descriptor)).flatMap { header in
                header.vaultID == vault.vault.vaultID ? try? vault.compartment(withID: header.compartmentID) : nil
            }
        }
        return compartment?.isPrivileged == true ? compartment : nil
    }
}
