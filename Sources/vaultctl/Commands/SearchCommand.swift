import CryptoVault
import Foundation
import Registers
import Writing

/// search: full-text search over a project's documents, through an index in memory only (SECURITY.md
/// §15.4): while `vaultctl serve` runs, the daemon's, kept between searches; else built for the one command.
enum SearchCommand {
    static let command = Command("search", synopsis: "find the documents of a project that hold words or phrases", usage: "PROJECT QUERY",
                                 about: """
        Searches the documents of PROJECT (its name or id) for QUERY, says how many documents hold
        every term of it, and lists the first of them in reading order (\(SearchResults.defaultLimit) unless
        --limit says otherwise), each with its first \(SearchHit.maximumSnippets) matching blocks and a few
        words around the first match in each (and how many more blocks matched). A term is a word
        (case and accents do not matter: 'eclair' finds 'Éclair'), a prefix ending in * ('harb*', at
        least 2 letters), or a "quoted phrase" whose words must stand next to each other. A query
        holds at most \(SearchQuery.maximumTerms) terms in \(SearchQuery.maximumBytes) bytes; one that does not parse exits 64 with the reason.

        The index lives only in memory: nothing of it is written to disk. While 'vaultctl serve'
        runs, the search runs in the daemon, which keeps the project's index between searches
        (dropped when the project changes, or, for a privileged project, when the session that
        read it ends); otherwise it is built for this one search and dropped with it. The audit
        log records the read and the number of documents found, never the query.

        \(WritingContext.sessionNote)
        """, options: [limitOption] + DocCommands.readOptions, positionals: 2...2, json: true, examples: [
            "vaultctl search \"The harbour\" 'harb* \"grey boat\"'",
            "vaultctl search \"Intake notes\" insomnia --purpose \"prepare the review\" --json",
            "vaultctl search \"The harbour\" 'harb*' --limit 200",
        ]) { arguments in
            let limit = try arguments.integer("--limit", in: 1...SearchResults.maximumLimit) ?? SearchResults.defaultLimit
            let query = try SearchQuery(parsing: arguments.positionals[1])
            let context = try WritingContext(arguments)
            defer { context.end() }
            let project = try context.project(arguments.positionals[0])
            let (results, nodes) = try context.store(for: project) {
                (try $0.search(query, in: project.id, limit: limit), try $0.nodes(in: project.id))
            }
            let titles = Dictionary(uniqueKeysWithValues: nodes.map { ($0.id, $0.title) })
            if arguments.has("--json") {
                Output.json(["found": results.total,
                             "documents": results.hits.map { json($0, title: titles[$0.document] ?? "", project.register) }] as [String: Any])
                return
            }
            Output.line("\(results.total) \(WritingContext.term(.scene, project.register, plural: results.total != 1)) found"
                        + (results.hits.count < results.total ? ", the first \(results.hits.count) shown (--limit N shows more)" : ""))
            for hit in results.hits { print(hit, title: titles[hit.document] ?? "") }
        }

    static let limitOption = Option("--limit", value: "N",
                                    "documents to list, 1 to \(SearchResults.maximumLimit) (default \(SearchResults.defaultLimit)); the count found is of all")

    /// A document, then its first matching blocks and how many more matched.
    static func print(_ hit: SearchHit, title: String) {
        Output.line("\(hit.document)  \(title)  (\(hit.matches) match\(hit.matches == 1 ? "" : "es"))")
        for block in hit.blocks { Output.line("    \(BlockEncoding.name(of: block.kind).padding(toLength: 10, withPad: " ", startingAt: 0)) \(block.snippet)") }
        let more = hit.matchedBlocks - hit.blocks.count
        if more > 0 { Output.line("    … and \(more) more block\(more == 1 ? "" : "s")") }
    }

    static func json(_ hit: SearchHit, title: String, _ register: Register) -> [String: Any] {
        ["id": hit.document.hex, "title": title, "label": WritingContext.term(.scene, register), "matches": hit.matches,
         "matched_blocks": hit.matchedBlocks, "blocks": hit.blocks.map { ["id": $0.block.hex, "kind": BlockEncoding.name(of: $0.kind), "snippet": $0.snippet, "matches": $0.matches] }]
    }
}
