import AuditChain
import CryptoVault
import Foundation

/// RFC 9162 proofs: made from the vault's log, and checked from anywhere.
enum ProofCommands {
    static let prove = Command("audit prove", synopsis: "an inclusion proof for one entry", usage: "--entry N", about: """
        Prints entry N's leaf hash, the tree size M (default: the whole log), the root at M and the
        inclusion proof, ready for 'vaultctl audit check-inclusion'. Base64 is standard, padded.
        """, options: [Option("--entry", value: "N", "the entry's number (from 0)"), Option("--size", value: "M", "the tree size to prove against (default: the whole log)")], json: true, examples: ["vaultctl audit prove --entry 41 --json"]) { arguments in
            guard let entry = try arguments.integer("--entry", in: 0...Int.max) else { throw UsageError(message: "missing --entry", usage: arguments.usage) }
            let proof = try AuditLogReader(vault: try VaultLocation.open(arguments))
                .inclusionProof(entry: entry, size: try arguments.integer("--size", in: 0...Int.max))
            let fields: [(String, Any)] = [("index", entry), ("size", proof.size), ("leaf_hash", b64(proof.leafHash)),
                                           ("root", b64(proof.root)), ("proof", proof.proof.map(b64))]
            if arguments.has("--json") { Output.json(Dictionary(uniqueKeysWithValues: fields)); return }
            Output.line("vaultctl audit check-inclusion --leaf-hash \(b64(proof.leafHash)) --index \(entry) --size \(proof.size) "
                        + "--root \(b64(proof.root)) --proof '\(proof.proof.map(b64).joined(separator: ","))'")
        }

    static let consistency = Command("audit consistency", synopsis: "prove an old checkpoint is a prefix of today's log", usage: "--from FILE", about: """
        Reads a signed checkpoint saved earlier, checks its signature against the log's key chain and
        its root against the log, and prints a consistency proof from it to the latest checkpoint.
        """, options: [Option("--from", value: "FILE", "a signed checkpoint saved earlier ('vaultctl audit checkpoint')")], json: true, examples: ["vaultctl audit consistency --from checkpoint-2026-11-01.txt"]) { arguments in
            let reader = AuditLogReader(vault: try VaultLocation.open(arguments))
            let old = try signedCheckpoint(try readText(try arguments.required("--from")), keys: try reader.chainKeys(), origin: reader.origin)
            guard let latestText = try reader.latestCheckpoint() else { throw CommandError(message: "the log has no checkpoint", exitCode: .noInput) }
            let latest = try signedCheckpoint(latestText, keys: try reader.chainKeys(), origin: reader.origin)
            let proof = try reader.consistencyProof(from: Int(old.treeSize), to: Int(latest.treeSize))
            guard proof.root1 == old.rootHash else {
                throw CommandError(message: "the old checkpoint's root does not match this log at size \(old.treeSize): the log forked or was rewritten", exitCode: .failure)
            }
            let fields: [(String, Any)] = [("size1", old.treeSize), ("size2", latest.treeSize), ("root1", b64(old.rootHash)),
                                           ("root2", b64(latest.rootHash)), ("proof", proof.proof.map(b64))]
            if arguments.has("--json") { Output.json(Dictionary(uniqueKeysWithValues: fields)); return }
            Output.line("vaultctl audit check-consistency --size1 \(old.treeSize) --size2 \(latest.treeSize) --root1 \(b64(old.rootHash)) "
                        + "--root2 \(b64(latest.rootHash)) --proof '\(proof.proof.map(b64).joined(separator: ","))'")
        }

    static let checkInclusion = Command("audit check-inclusion", synopsis: "check an RFC 9162 inclusion proof", usage: "--leaf-hash B64 --index N --size N --root B64 --proof B64[,B64...]", about: """
        Checks that the leaf is entry INDEX of the tree of SIZE leaves whose root is ROOT (RFC 9162
        §2.1.3.2). Needs no vault. An empty proof is an empty --proof value. Exit 0 valid, 1 invalid,
        64 bad usage.
        """, options: [
            Option("--leaf-hash", value: "B64", "the entry's leaf hash (RFC 9162), in standard padded base64"),
            Option("--index", value: "N", "the entry's index in the tree (from 0)"),
            Option("--size", value: "N", "the tree's size in leaves"),
            Option("--root", value: "B64", "the tree's root hash, in standard padded base64"),
            Option("--proof", value: "B64[,B64...]", "the proof's hashes, comma-separated (empty for a one-leaf tree)"),
        ], json: true, examples: ["vaultctl audit check-inclusion --leaf-hash L= --index 41 --size 120 --root R= --proof 'H1=,H2='"]) { arguments in
            let leaf = try hash(arguments, "--leaf-hash")
            guard let index = try arguments.integer("--index", in: 0...Int.max), let size = try arguments.integer("--size", in: 0...Int.max) else {
                throw UsageError(message: "--index and --size are required", usage: arguments.usage)
            }
            // Read every option first: a malformed one is a usage error (64), not an invalid proof (1).
            let proof = try proofList(arguments), root = try hash(arguments, "--root")
            try report(Result { try MerkleVerification.verifyInclusion(leafHash: leaf, index: index, treeSize: size, proof: proof, rootHash: root) },
                       json: arguments.has("--json"))
        }

    static let checkConsistency = Command("audit check-consistency", synopsis: "check an RFC 9162 consistency proof", usage: "--size1 N --size2 N --root1 B64 --root2 B64 --proof B64[,B64...]", about: """
        Checks that the tree of SIZE1 leaves with ROOT1 is a prefix of the tree of SIZE2 leaves with
        ROOT2 (RFC 9162 §2.1.4.2). Needs no vault. An empty proof is an empty --proof value.

        SIZE1 0 is the empty tree (root 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=, SHA-256 of
        nothing), a prefix of every tree: no proof can say anything about ROOT2. So SIZE1 0 is
        accepted only with SIZE2 0 (valid when both roots are the empty tree's and the proof is
        empty); with SIZE2 above 0 it is refused as bad usage, since "valid" would not have checked
        ROOT2. To trust a log without an earlier checkpoint, verify it whole (audit verify-export).

        Exit 0 valid, 1 invalid, 64 bad usage.
        """, options: [
            Option("--size1", value: "N", "the earlier tree's size"), Option("--size2", value: "N", "the later tree's size"),
            Option("--root1", value: "B64", "the earlier tree's root, in standard padded base64"),
            Option("--root2", value: "B64", "the later tree's root, in standard padded base64"),
            Option("--proof", value: "B64[,B64...]", "the proof's hashes, comma-separated (empty when SIZE1 is SIZE2)"),
        ], json: true, examples: ["vaultctl audit check-consistency --size1 100 --size2 120 --root1 A= --root2 B= --proof H1=,H2="]) { arguments in
            guard let size1 = try arguments.integer("--size1", in: 0...Int.max), let size2 = try arguments.integer("--size2", in: 0...Int.max) else {
                throw UsageError(message: "--size1 and --size2 are required", usage: arguments.usage)
            }
            let root1 = try hash(arguments, "--root1"), root2 = try hash(arguments, "--root2"), proof = try proofList(arguments)
            // Refused, not answered: consistency from the empty tree holds for every ROOT2.
            guard size1 > 0 || size2 == 0 else {
                throw UsageError(message: "--size1 0 proves nothing about --root2 (the empty tree is a prefix of every tree); "
                                 + "give the size and root of an earlier checkpoint, or verify the whole log", usage: arguments.usage)
            }
            try report(Result { try MerkleVerification.verifyConsistency(size1: size1, size2: size2, root1: root1, root2: root2, proof: proof) },
                       json: arguments.has("--json"))
        }

    // MARK: Helpers

    /// "valid" (exit 0), or "invalid" with the reason (exit 1); with --json, {"valid": …, "reason": …}
    /// on stdout either way, so a script reads one document whatever the answer.
    static func report(_ result: Result<Void, Error>, json: Bool) throws {
        switch result {
        case .success:
            if json { Output.json(["valid": true]) } else { Output.line("valid") }
        case .failure(let error):
            let reason = (error as? AuditChainError)?.message ?? "\(error)"
            if json { Output.json(["valid": false, "reason": reason]) }
            throw CommandError(message: "invalid: \(reason)", exitCode: .failure)
        }
    }

    static func hash(_ arguments: ParsedArguments, _ name: String) throws -> [UInt8] {
        let text = try arguments.required(name)
        guard let data = Data(base64Encoded: text), data.base64EncodedString() == text, data.count == 32 else {
            throw UsageError(message: "\(name) must be a 32-byte hash in standard padded base64", usage: arguments.usage)
        }
        return Array(data)
    }

    static func proofList(_ arguments: ParsedArguments) throws -> [[UInt8]] {
        let text = try arguments.required("--proof")
        guard !text.isEmpty else { return [] }
        return try text.split(separator: ",", omittingEmptySubsequences: false).map { part in
            guard let data = Data(base64Encoded: String(part)), data.base64EncodedString() == part, data.count == 32 else {
                throw UsageError(message: "--proof must be 32-byte hashes in standard padded base64, separated by commas", usage: arguments.usage)
            }
            return Array(data)
        }
    }

    static func signedCheckpoint(_ text: String, keys: [NoteVerifierKey], origin: String) throws -> Checkpoint {
        do {
            let note = try SignedNote(parsing: text)
            _ = try note.verify(using: keys)
            let checkpoint = try Checkpoint(parsing: note.body)
            guard checkpoint.origin == origin else { throw CommandError(message: "the checkpoint is for another log", exitCode: .failure) }
            return checkpoint
        } catch let error as AuditChainError {
            throw CommandError(message: "not a checkpoint of this log: \(error.message)", exitCode: .failure)
        }
    }

    static func readText(_ path: String) throws -> String {
        guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
            throw CommandError(message: "cannot read \(path)", exitCode: .noInput)
        }
        return text
    }

    static func b64(_ bytes: [UInt8]) -> String { Data(bytes).base64EncodedString() }
}

extension AuditCommands {
    static let hash = Command("audit hash", synopsis: "the keyed hash of a detail value, for an auditor to compare", usage: "--field NAME", about: """
        Prints HMAC-SHA-256 (hex) of the value under the vault's audit hashing key, as entries record
        it for detail NAME (name, register, file, ...). The value is read from the first line of
        --value-file (default: standard input), never from the command line.
        """, options: Credentials.options + [Option("--field", value: "NAME", "the detail's name (name, register, file, ...)"), Option("--value-file", value: "PATH", "read the value from the first line of PATH (default and -: standard input)")], json: true, examples: ["printf 'intake.pdf' | vaultctl audit hash --field file"]) { arguments in
            let field = try arguments.required("--field")
            let unlocked = try VaultLocation.unlock(arguments)
            let value = try SecretInput.firstLine(ofFile: arguments.value("--value-file") ?? "-", what: "value")
            let digest = AuditLog.detailHash(name: field, value: String(decoding: value.exposedCopy(), as: UTF8.self), key: try unlocked.auditKeys().hashingKey)
            if arguments.has("--json") { Output.json(["field": field, "hash": BundleCommands.hex(digest)]); return }
            Output.line(BundleCommands.hex(digest))
        }
}
