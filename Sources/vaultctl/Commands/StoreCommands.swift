import Appliance
import CryptoVault
import Foundation
import PrivilegedSession

/// put, get, ls, rm: bundles kept in the vault's assets/ folder.
enum StoreCommands {
    static let put = Command("put", synopsis: "seal a file into the vault", usage: "--compartment NAME FILE|-", about: """
        Seals FILE (or standard input, as -) into the vault's assets/ and prints its bundle id. The
        bundle and its record appear together, only once complete.
        """, options: [
            Option("--compartment", value: "NAME", "the compartment whose key seals it"), BundleCommands.nameOption,
            BundleCommands.chunkSizeOption, BundleCommands.threadsOption,
        ] + Credentials.options, positionals: 1...1, json: true, examples: [
            "vaultctl put --compartment \"Session notes\" intake.pdf",
            "pg_dump clinic | vaultctl put --compartment Memos --name clinic.sql -",
        ]) { arguments in
            let input = try InputFile(arguments.positionals[0])
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try unlocked.compartment(named: try arguments.required("--compartment"))
            _ = try unlocked.sweepAssets()
            let progress = ProgressBar("sealing", total: input.size)
            // A privileged document's fingerprints are stored in the bundle's own transaction.
            let stored = try PrivilegedFingerprints.put(from: input.descriptor, compartment: compartment,
                                                        metadata: input.metadata(name: arguments.value("--name")),
                                                        options: try BundleCommands.bundleOptions(arguments), progress: progress.update, in: unlocked)
            progress.finish()
            if arguments.has("--json") { Output.json(["bundle_id": stored.idString, "bytes": stored.plaintextLength]); return }
            Output.line(stored.idString)
        }

    static let get = Command("get", synopsis: "open a bundle kept in the vault", usage: "ID", about: """
        Opens the stored bundle ID (or a unique prefix of at least 6 hex digits of it), like
        'vaultctl open' does for a bundle file.

        \(BundleReading.daemonNote)
        """, options: BundleReading.plaintextOptions, positionals: 1...1, noJSON: "it writes the file's bytes, not a report", examples: [
            "vaultctl get 3f2a09 -o intake.pdf",
            "vaultctl get 3f2a09 --purpose \"treatment review\" -o notes.txt",
        ]) { arguments in
            try PlaintextRequest.refuseTerminal(arguments)
            if try BundleReading.readThroughDaemon(.stored(arguments.positionals[0]), arguments: arguments) { return }
            let unlocked = try VaultLocation.unlock(arguments)
            try BundleReading.read(.stored(try resolve(arguments.positionals[0], in: unlocked)), arguments: arguments, vault: unlocked)
        }

    static let list = Command("ls", synopsis: "list the bundles kept in the vault", about: """
        Lists stored bundles: id, compartment, key version, size, when stored, and the sealed file name.
        A privileged bundle's name is privileged too: it shows as (privileged) unless the running daemon
        holds a session of its compartment ('vaultctl session start'), or --purpose opens a one-command
        session on each privileged compartment listed; each name read is recorded.
        """, options: [Option("--compartment", value: "NAME", "only this compartment's bundles"), BundleReading.purposeOption, DaemonSocket.option]
            + Credentials.options,
        json: true, examples: [
            "vaultctl ls",
            "vaultctl ls --compartment Memos --json",
            "vaultctl ls --compartment \"Session notes\" --purpose \"find the referral letter\"",
        ]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try arguments.value("--compartment").map { try unlocked.compartment(named: $0) }
            let bundles = try unlocked.storedBundles(in: compartment)
            let names = try SessionNames(purpose: arguments.value("--purpose"), vault: unlocked, arguments: arguments)
            defer { names.end() }
            let rows = try bundles.map { bundle -> [String: Any] in
                let name = bundle.compartment.isPrivileged ? try names.name(of: bundle)
                    : (try? unlocked.openStored(bundle.bundleID).metadata.name) ?? "(unreadable)"
                return ["id": bundle.idString, "compartment": bundle.compartment.name, "key_version": Int(bundle.keyVersion),
                        "bytes": bundle.plaintextLength, "stored_at": Output.timestamp(bundle.createdAt), "name": name]
            }
            if arguments.has("--json") { Output.json(rows); return }
            for row in rows {
                Output.line("\(row["id"]!)  \(row["compartment"]!)  v\(row["key_version"]!)  \(row["bytes"]!) bytes  \(row["stored_at"]!)  \(row["name"]!)")
            }
        }

    static let remove = Command("rm", synopsis: "remove a bundle from the vault", usage: "ID --yes", about: """
        Removes the stored bundle ID (or a unique prefix of it) and records the removal. The bundle
        cannot be brought back (except from a backup): --yes confirms; on a terminal without --yes
        you are asked to type YES.
        """, options: [Option("--yes", "confirm the removal")] + Credentials.options, positionals: 1...1, json: true,
        examples: ["vaultctl rm 3f2a09 --yes"]) { arguments in
            try Confirmation.require(arguments.has("--yes"), flag: "--yes",
                                     consequence: "removing bundle \(arguments.positionals[0]) deletes it from the vault for good")
            let unlocked = try VaultLocation.unlock(arguments)
            let bundleID = try resolve(arguments.positionals[0], in: unlocked)
            try unlocked.removeStored(bundleID)
            _ = try unlocked.sweepAssets()
            if arguments.has("--json") { Output.json(["removed": bundleID.hex]); return }
            Output.line("Removed \(bundleID).")
        }

    static let rewrap = Command("compartment rewrap", synopsis: "move a compartment's bundles to its current key version", usage: "NAME",
                                about: """
        Rewrites the header of every stored bundle of NAME that was sealed under an older key version,
        so it opens under the current one. Payloads are not touched. Run after 'compartment rotate'
        and before 'compartment retire'. A bundle that cannot be opened is named on stderr and
        skipped; the others are still rewrapped, and the exit status is then 65.
        """, options: Credentials.options, positionals: 1...1, json: true, examples: [
            "vaultctl compartment rewrap \"Session notes\"",
        ]) { arguments in
            let unlocked = try VaultLocation.unlock(arguments)
            let compartment = try unlocked.compartment(named: arguments.positionals[0])
            let outcome = try unlocked.rewrapStored(in: compartment)
            if arguments.has("--json") {
                Output.json(["name": compartment.name, "rewrapped": outcome.changed,
                             "skipped": outcome.skipped.map { ["id": $0.bundleID.hex, "error": $0.error.message] }])
            } else {
                for skipped in outcome.skipped {
                    Output.note("vaultctl: bundle \(skipped.bundleID.hex) was not rewrapped: \(skipped.error.message)")
                }
                Output.line("Rewrapped \(outcome.changed) bundle(s) of '\(compartment.name)' to key version \(compartment.currentVersion ?? 0).")
            }
            guard outcome.skipped.isEmpty else {
                throw CommandError(message: "\(outcome.skipped.count) bundle(s) could not be rewrapped (named above); the other \(outcome.changed) were",
                                   exitCode: .dataError)
            }
        }

    /// A full id or a unique prefix of at least 6 hex digits.
    static func resolve(_ text: String, in vault: UnlockedVault) throws -> BundleID { try BundleReads.resolve(text, in: vault) }
}
