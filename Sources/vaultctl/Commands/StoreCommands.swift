import CryptoVault
import Foundation
import PrivilegedSession

/// put, get, ls, rm: bundles kept in the vault's assets/ folder.
enum StoreCommands {
    static let put = Command("put", synopsis: "seal a file into the vault", usage: """
        Usage: vaultctl put --compartment NAME FILE|- [--name NAME] [options]

        Seals FILE into the vault's assets/ and prints its bundle id. The bundle and its record
        appear together, only once complete.

        Options:
          --compartment NAME   the compartment whose key seals it
          --name NAME          the file name to record (default: FILE's name)
          --threads N          cores to use (default: all)
        \(Credentials.help)
        """, options: Credentials.options + [
            OptionSpec(name: "--compartment", kind: .value), OptionSpec(name: "--name", kind: .value),
            OptionSpec(name: "--threads", kind: .value), OptionSpec(name: "--chunk-size", kind: .value),
        ], positionals: 1...1) { arguments in
            let input = try InputFile(arguments.positionals[0])
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try unlocked.compartment(named: try arguments.required("--compartment"))
            _ = try unlocked.sweepAssets()
            let progress = ProgressBar("sealing", total: input.size)
            let fingerprints = try PrivilegedFingerprints.collector(for: compartment)
            var options = try BundleCommands.bundleOptions(arguments)
            options.plaintextObserver = fingerprints?.observe
            let stored = try unlocked.put(from: input.descriptor, compartment: compartment, metadata: input.metadata(name: arguments.value("--name")),
                                          options: options, progress: progress.update)
            progress.finish()
            if let fingerprints { try PrivilegedFingerprints.remember(fingerprints, in: unlocked) }
            if arguments.has("--json") { Output.json(["bundle_id": stored.idString, "bytes": stored.plaintextLength]); return }
            Output.line(stored.idString)
        }

    static let get = Command("get", synopsis: "open a bundle kept in the vault", usage: """
        Usage: vaultctl get ID [-o OUT|-] [--range START:END] [options]

        Opens the stored bundle ID (or a unique prefix of at least 6 hex digits of it), like
        'vaultctl open' does for a bundle file.

        Options:
          -o, --output OUT      where to write the plaintext (- or nothing: standard output)
          --range START:END     only bytes START up to (not including) END
          --threads N           cores to use (default: all)
          --force               replace OUT if it exists
        \(BundleReading.purposeHelp)
        \(BundleReading.daemonHelp)
        \(Credentials.help)
        """, options: Credentials.options + BundleCommands.bundleOptions + [OptionSpec(name: "--range", kind: .value), BundleReading.purposeOption]
            + BundleReading.daemonOptions,
        positionals: 1...1) { arguments in
            if try BundleReading.readThroughDaemon(.stored(arguments.positionals[0]), arguments: arguments) { return }
            let unlocked = try VaultLocation.unlock(arguments)
            try BundleReading.read(.stored(try resolve(arguments.positionals[0], in: unlocked)), arguments: arguments, vault: unlocked, action: .get)
        }

    static let list = Command("ls", synopsis: "list the bundles kept in the vault", usage: """
        Usage: vaultctl ls [--compartment NAME] [--json] [credential options]

        Lists stored bundles: id, compartment, key version, size, when stored, and the sealed file name.

        Options:
          --compartment NAME   only this compartment's bundles
        \(Credentials.help)
        """, options: Credentials.options + [OptionSpec(name: "--compartment", kind: .value)]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try arguments.value("--compartment").map { try unlocked.compartment(named: $0) }
            let bundles = try unlocked.storedBundles(in: compartment)
            let rows = try bundles.map { bundle -> [String: Any] in
                // A privileged bundle's name is privileged too: it is read only in a session.
                let name = bundle.compartment.isPrivileged ? "(privileged)" : (try? unlocked.openStored(bundle.bundleID).metadata.name) ?? "(unreadable)"
                return ["id": bundle.idString, "compartment": bundle.compartment.name, "key_version": Int(bundle.keyVersion),
                        "bytes": bundle.plaintextLength, "stored_at": Output.timestamp(bundle.createdAt), "name": name]
            }
            if arguments.has("--json") { Output.json(rows); return }
            for row in rows {
                Output.line("\(row["id"]!)  \(row["compartment"]!)  v\(row["key_version"]!)  \(row["bytes"]!) bytes  \(row["stored_at"]!)  \(row["name"]!)")
            }
        }

    static let remove = Command("rm", synopsis: "remove a bundle from the vault", usage: """
        Usage: vaultctl rm ID --yes [credential options]

        Removes the stored bundle ID (or a unique prefix of it) and records the removal. The bundle
        cannot be brought back (except from a backup): --yes confirms; on a terminal without --yes
        you are asked to type YES.

        Options:
          --yes   confirm the removal
        \(Credentials.help)
        """, options: Credentials.options + [OptionSpec(name: "--yes", kind: .flag)], positionals: 1...1) { arguments in
            try Confirmation.require(arguments.has("--yes"), flag: "--yes",
                                     consequence: "removing bundle \(arguments.positionals[0]) deletes it from the vault for good")
            let unlocked = try VaultLocation.unlock(arguments)
            let bundleID = try resolve(arguments.positionals[0], in: unlocked)
            try unlocked.removeStored(bundleID)
            _ = try unlocked.sweepAssets()
            if arguments.has("--json") { Output.json(["removed": BundleCommands.hex(bundleID)]); return }
            Output.line("Removed \(BundleCommands.hex(bundleID)).")
        }

    static let rewrap = Command("compartment rewrap", synopsis: "move a compartment's bundles to its current key version", usage: """
        Usage: vaultctl compartment rewrap NAME [credential options]

        Rewrites the header of every stored bundle of NAME that was sealed under an older key version,
        so it opens under the current one. Payloads are not touched. Run after 'compartment rotate'
        and before 'compartment retire'.

        Options:
        \(Credentials.help)
        """, options: Credentials.options, positionals: 1...1) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try unlocked.compartment(named: arguments.positionals[0])
            let count = try unlocked.rewrapStored(in: compartment)
            if arguments.has("--json") { Output.json(["name": compartment.name, "rewrapped": count]); return }
            Output.line("Rewrapped \(count) bundle(s) of '\(compartment.name)' to key version \(compartment.currentVersion ?? 0).")
        }

    /// A full id or a unique prefix of at least 6 hex digits.
    static func resolve(_ text: String, in vault: UnlockedVault) throws -> [UInt8] {
        let prefix = text.lowercased()
        guard prefix.count >= 6, prefix.count <= 32, prefix.allSatisfy(\.isHexDigit) else {
            throw CommandError(message: "'\(text)' is not a bundle id (6 to 32 hex digits)", exitCode: .usage)
        }
        let matches = try vault.storedBundles().filter { $0.idString.hasPrefix(prefix) }
        guard matches.count == 1 else {
            throw CommandError(message: matches.isEmpty ? "no bundle \(text) in this vault" : "'\(text)' matches \(matches.count) bundles; give more digits",
                               exitCode: matches.isEmpty ? .noInput : .usage)
        }
        return matches[0].bundleID
    }
}
