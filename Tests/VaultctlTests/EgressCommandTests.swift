import Foundation
import Testing

/// `vaultctl egress check` exit codes and output, and `egress log`.
@Suite("vaultctl egress: check and log")
struct EgressCommandTests {
    static let leaky = "Reach Jane at jane.doe@example.com, SSN 123-45-6789, about the visit.\n"

    @Test("exit 0 allow, 3 redact (the redacted payload in -o), 4 refuse (nothing written); egress log lists each")
    func decisions() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "chart", "--register", "healthcare"]).status == 0)
        #expect(try vault.run(["compartment", "create", "blog", "--register", "general"]).status == 0)
        let payload = vault.root + "/note.txt"
        try vault.write(Self.leaky, to: payload)

        let redacted = try vault.run(["egress", "check", "--to", "model:summarizer", "--from", "blog", payload, "-o", vault.root + "/out.txt"])
        #expect(redacted.status == 3, "\(redacted.stderr)")
        #expect(redacted.stdout.contains("Decision: redact") && redacted.stdout.contains("Found: email at bytes 14..<34"), "\(redacted.stdout)")
        #expect(try String(contentsOfFile: vault.root + "/out.txt", encoding: .utf8) == "Reach Jane at [EMAIL], SSN [SSN], about the visit.\n")

        let refused = try vault.run(["egress", "check", "--to", "model:summarizer", "--from", "blog,chart", payload, "-o", vault.root + "/refused.txt"])
        #expect(refused.status == 4 && refused.stdout.contains("Decision: refuse"), "\(refused.stdout)\(refused.stderr)")
        #expect(!FileManager.default.fileExists(atPath: vault.root + "/refused.txt"))

        let allowed = try vault.run(["egress", "check", "--to", "vault:self", "--from", "chart", "-", "--json"], stdin: Self.leaky)
        #expect(allowed.status == 0, "\(allowed.stderr)")
        let report = try JSONSerialization.jsonObject(with: Data(allowed.stdout.utf8)) as? [String: Any]
        #expect(report?["decision"] as? String == "allow" && (report?["findings"] as? [Any])?.count == 2, "\(allowed.stdout)")

        let log = try vault.run(["egress", "log", "--json"])
        let rows = try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [[String: Any]] ?? []
        #expect(rows.compactMap { $0["decision"] as? String } == ["redact", "refuse", "allow"], "\(log.stdout)")
        #expect(rows.last?["compartments"] as? [String] == ["chart"])
        #expect(!log.stdout.contains("jane.doe"), "the log never holds the payload")
    }

    @Test("usage errors exit 64: unknown destination kind, empty compartment name, missing --to")
    func usage() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "blog", "--register", "general"]).status == 0)
        let cases: [[String]] = [["--to", "mars:x", "--from", "blog"], ["--to", "model:x", "--from", "blog,"], ["--from", "blog"]]
        for arguments in cases {
            let result = try vault.run(["egress", "check"] + arguments + ["-"], stdin: "text")
            #expect(result.status == 64, "\(arguments): \(result.stderr)")
        }
        let missing = try vault.run(["egress", "check", "--to", "model:x", "--from", "nope", "-"], stdin: "text")
        #expect(missing.status == 66, "\(missing.stderr)")
    }
}

/// Documents put or sealed into a privileged compartment are fingerprinted; egress check catches quotes.
@Suite("vaultctl egress: quotes of privileged documents")
struct EgressQuoteTests {
    @Test("after put and after seal into a privileged compartment, a quote from another compartment is redacted")
    func quotesCaught() throws {
        let vault = try CLIVault()
        #expect(try vault.run(["compartment", "create", "chart", "--register", "healthcare"]).status == 0)
        #expect(try vault.run(["compartment", "create", "blog", "--register", "general"]).status == 0)
        try vault.write("The patient described recurring nightmares about the flood that destroyed her childhood home.\n", to: vault.root + "/put.txt")
        try vault.write("Counsel advised the client to accept the settlement before the hearing on Thursday morning.\n", to: vault.root + "/seal.txt")
        #expect(try vault.run(["put", "--compartment", "chart", vault.root + "/put.txt"]).status == 0)
        #expect(try vault.run(["seal", "--compartment", "chart", vault.root + "/seal.txt", "-o", vault.root + "/seal.vbundle"]).status == 0)
        let post = "She had recurring nightmares about the flood that destroyed her childhood home. "
            + "Counsel advised the client to accept the settlement before the hearing. Nothing else.\n"
        let checked = try vault.run(["egress", "check", "--to", "model:summarizer", "--from", "blog", "-", "-o", vault.root + "/out.txt"], stdin: post)
        #expect(checked.status == 3, "\(checked.stdout)\(checked.stderr)")
        #expect(checked.stdout.components(separatedBy: "Found: privilegedQuote").count == 3, "\(checked.stdout)")
        #expect(try String(contentsOfFile: vault.root + "/out.txt", encoding: .utf8) == "She had [PRIVILEGED]. [PRIVILEGED]. Nothing else.\n")
    }
}
