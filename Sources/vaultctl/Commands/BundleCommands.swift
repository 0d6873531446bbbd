import Appliance
import CryptoVault
import Foundation
import PrivilegedSession
#if canImport(Glibc)
import Glibc
#endif

/// seal, open and inspect: bundles as files anywhere.
enum BundleCommands {
    static let threadsOption = Option("--threads", value: "N", "cores to use, 1 to 256 (default: all)")
    static let chunkSizeOption = Option("--chunk-size", value: "BYTES", "payload chunk size, a power of two from 1024 to 16777216 (default 65536)")
    static let nameOption = Option("--name", value: "NAME", "the file name to record (default: FILE's name)")

    static let seal = Command("seal", synopsis: "seal a file into a bundle", usage: "--compartment NAME [FILE|-]", about: """
        Seals FILE (or standard input, also as -) into an encrypted bundle under the compartment's
        current key. The bundle is written to OUT, which appears only when complete, or to standard
        output (never to a terminal). The original file name, type and time are sealed inside the bundle.
        """, options: [
            Option("--compartment", value: "NAME",
                   "the compartment whose key seals it (one of this vault's, or one shared with this device as editor)"),
            Option.output("where to write the bundle (- for standard output)"), nameOption, chunkSizeOption, threadsOption, Option.force,
        ] + Credentials.options, positionals: 0...1, json: true, examples: [
            "vaultctl seal --compartment \"Session notes\" chart.pdf -o chart.vbundle",
            "tar c notes/ | vaultctl seal --compartment Memos - > notes.vbundle",
        ]) { arguments in
            let input = try InputFile(arguments.positionals.first ?? "-")
            let outputOption = arguments.value("-o")
            // With --json, standard output carries the report, so the bundle needs a file of its own.
            if arguments.has("--json") && (outputOption ?? "-") == "-" {
                throw UsageError(message: "seal --json prints a report on standard output: write the bundle with -o FILE", usage: arguments.usage)
            }
            if outputOption == nil && StandardStreams.current.isTerminal(StandardStreams.current.output) {
                throw CommandError(message: "refusing to write a bundle to a terminal", exitCode: .usage, hint: "add -o FILE")
            }
            let unlocked = try VaultLocation.unlock(arguments)
            // A compartment shared with this device seals too (as editor; the library refuses a viewer).
            let compartment = try unlocked.compartmentOrShared(named: try arguments.required("--compartment"))
            let fingerprints = try PrivilegedFingerprints.collector(for: compartment)
            var options = try bundleOptions(arguments)
            options.plaintextObserver = fingerprints?.observe
            let output = try OutputTarget(outputOption, force: arguments.has("--force"))
            let progress = ProgressBar("sealing", total: input.size)
            var header: BundleHeader?
            try output.produce { output in
                header = try EncryptedBundle.seal(from: input.descriptor, to: output.descriptor, compartment: compartment, vault: unlocked,
                                                  metadata: input.metadata(name: arguments.value("--name")), options: options,
                                                  progress: progress.update)
                progress.finish()
                // The seal's entry and a privileged document's fingerprints commit together.
                try unlocked.transaction { tx in
                    try tx.record(.bundleSeal, bundle: header!, bytes: header!.hasKnownLength ? header!.plaintextLength : nil,
                                  details: [.init("file", input.metadata(name: arguments.value("--name")).name)])
                    if let fingerprints { try PrivilegedFingerprints.remember(fingerprints, in: tx) }
                }
            }
            guard let header else { return }
            if arguments.has("--json") {
                Output.json(["bundle_id": header.bundleID.hex, "compartment": compartment.name, "key_version": Int(header.keyVersion),
                             "file": output.name, "bytes": header.hasKnownLength ? NSNumber(value: header.plaintextLength) : NSNull()])
            } else if !output.isStandardOutput {
                Output.note("Sealed \(input.name) into \(output.name) (bundle \(header.bundleID.hex)).")
            }
        }

    static let open = Command("open", synopsis: "open a bundle (all of it or a byte range)", usage: "BUNDLE|-", about: """
        Verifies the header and every chunk of BUNDLE (- for standard input), writing the plaintext to
        OUT or standard output (never to a terminal).
        Nothing is written to OUT unless the whole bundle verifies: OUT appears only when complete.
        To standard output the plaintext streams as it is verified: if a later chunk fails, vaultctl
        exits non-zero and says how many bytes it had already released (they cannot be taken back).

        \(BundleReading.daemonNote)
        """, options: BundleReading.plaintextOptions, positionals: 1...1, noJSON: "it writes the file's bytes, not a report", examples: [
            "vaultctl open chart.vbundle -o chart.pdf",
            "vaultctl open notes.vbundle --range 0:4096 | less",
        ]) { arguments in
            let path = arguments.positionals[0]
            try PlaintextRequest.refuseTerminal(arguments)
            // The daemon reads a bundle by its path; standard input is read here.
            if path != "-", try BundleReading.readThroughDaemon(.file(path), arguments: arguments) { return }
            let unlocked = try VaultLocation.unlock(arguments)
            try BundleReading.read(.file(try BundleInput.open(path)), arguments: arguments, vault: unlocked)
        }

    static let inspect = Command("inspect", synopsis: "show a bundle's public header fields (no key needed)", usage: "BUNDLE|-", about: """
        Prints the header fields anyone can read of BUNDLE (- for standard input): format version, vault,
        compartment, key version, bundle id, chunk size and plaintext length. Nothing is verified
        (that needs the key) and nothing sealed (name, type, time) is shown. With --json, numbers
        are JSON numbers, and plaintext_length is null for a bundle sealed from a stream of unknown length.
        """, positionals: 1...1, json: true, examples: [
            "vaultctl inspect chart.vbundle",
            "vaultctl inspect chart.vbundle --json",
            "curl -s http://nas.local/chart.vbundle | vaultctl inspect -",
        ]) { arguments in
            let header = try EncryptedBundle.readHeader(try BundleInput.open(arguments.positionals[0]))
            let length: UInt64? = header.hasKnownLength ? header.plaintextLength : nil
            let fields: [(String, Any)] = [
                ("format_version", Int(BundleHeader.version)), ("vault_id", header.vaultID.hex),
                ("compartment_id", header.compartmentID.hex), ("key_version", Int(header.keyVersion)),
                ("bundle_id", header.bundleID.hex), ("chunk_size", header.chunkSize),
                // A number in JSON (null when sealed from a stream of unknown length), words for people.
                ("plaintext_length", arguments.has("--json") ? length.map { NSNumber(value: $0) } ?? NSNull()
                                                              : length.map(String.init) ?? "unknown (sealed from a stream)"),
                ("header_size", header.size),
            ]
            if arguments.has("--json") { Output.json(Dictionary(uniqueKeysWithValues: fields)); return }
            for (name, value) in fields { Output.line("\(name.padding(toLength: 17, withPad: " ", startingAt: 0)) \(value)") }
            Output.line("(unverified: the header's MAC needs the compartment key; 'vaultctl open' checks it)")
        }

    /// Writes an opened bundle's plaintext (or a range of it); the library records the read.
    static func writePlaintext(of opened: OpenedBundle, arguments: ParsedArguments) throws {
        let request = try PlaintextRequest(arguments)
        let (threads, range) = (request.threads, request.range)
        let progress = ProgressBar("opening", total: opened.plaintextLength)
        try request.output.produce { output in
            try BundleReads.release(opened, range: range, threads: threads) { bytes in
                try output.write(bytes)
                progress.update(output.bytesWritten)
            }
            progress.finish()
        }
    }

    static func bundleOptions(_ arguments: ParsedArguments) throws -> EncryptedBundle.Options {
        EncryptedBundle.Options(chunkSize: try arguments.integer("--chunk-size", in: 1024...(16 << 20)) ?? BundleHeader.defaultChunkSize,
                                threads: try arguments.integer("--threads", in: 1...256) ?? BundleThreads.available)
    }

    static func parseRange(_ text: String, usage: String) throws -> Range<UInt64> {
        do {
            return try BundleReads.parseRange(text)
        } catch {
            throw UsageError(message: error.message, usage: usage)
        }
    }

    static func hex(_ bytes: [UInt8]) -> String { bytes.map { String(format: "%02x", $0) }.joined() }
}

/// A file (or standard input) to seal, with what the bundle records about it.
struct InputFile {
    let descriptor: FileDescriptor
    let name: String
    let size: UInt64?
    let modificationTime: Int64

    init(_ path: String) throws {
        if path == "-" {
            descriptor = StandardStreams.current.input
            name = "stdin"
            size = descriptor.regularFileSize()
            modificationTime = VaultClock.system.now()
            return
        }
        descriptor = try FileDescriptor.openForReading(path)
        name = (path as NSString).lastPathComponent
        size = descriptor.regularFileSize()
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        modificationTime = Int64((attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0)
    }

    func metadata(name override: String?) -> BundleMetadata {
        BundleMetadata(name: override ?? name, contentType: "application/octet-stream", modificationTime: modificationTime)
    }
}
