// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// libFuzzer target: the search query parser and the tokenizer under it (SECURITY.md §15.4). A query
// comes from whoever runs `vaultctl search`: it must be refused or parsed without trapping; a parsed
// one is within its bounds, its words are non-empty and already folded, and written back in its
// canonical form it parses to the same terms. The same bytes as a block's text index and search
// without trapping, every word the tokenizer finds lies in order inside the text, and a query of a
// word of the text finds the block.
private let documentID = try! NodeID(bytes: [UInt8](repeating: 9, count: 16))
private let blockID = try! BlockID(bytes: [UInt8](repeating: 7, count: 16))

/// The query's canonical text: words as they are, a prefix with its *, a phrase in quotes.
private func canonical(_ query: SearchQuery) -> String {
    query.terms.map { term in
        switch term {
        case .word(let word): word
        case .prefix(let prefix): prefix + "*"
        case .phrase(let words): "\"" + words.joined(separator: " ") + "\""
        }
    }.joined(separator: " ")
}

@_cdecl("LLVMFuzzerTestOneInput")
public func searchQueryFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: count), as: UTF8.self)
    // Indexing at most 4 KiB (the fuzzer's -max_len) cannot run past a bound: a throw here is a bug.
    let index = try! SearchIndex([(documentID, DocumentContent(blocks: [Block(id: blockID, kind: .paragraph, text: text)]))])
    if let query = try? SearchQuery(parsing: text) {
        guard !query.terms.isEmpty, query.terms.count <= SearchQuery.maximumTerms else { fatalError("a query past its bounds parsed") }
        for term in query.terms {
            let words: [String]
            switch term {
            case .word(let word), .prefix(let word): words = [word]
            case .phrase(let phrase): words = phrase
            }
            guard !words.isEmpty, words.count <= SearchQuery.maximumPhraseWords,
                  words.allSatisfy({ !$0.isEmpty && SearchTokenizer.fold(Substring($0)) == $0 }) else {
                fatalError("a parsed term is empty, too long or not folded")
            }
        }
        guard (try? SearchQuery(parsing: canonical(query)))?.terms == query.terms else {
            fatalError("a query written back in its canonical form parsed differently")
        }
        _ = index.search(query)
    }
    let words = SearchTokenizer.words(in: text)
    for (word, next) in zip(words, words.dropFirst()) where word.range.upperBound > next.range.lowerBound {
        fatalError("the tokenizer's words overlap or are out of order")
    }
    if let word = words.first, word.folded.utf8.count <= 64, word.folded.allSatisfy({ !$0.isWhitespace }),
       let query = try? SearchQuery(parsing: "\"" + word.folded + "\""), index.search(query).total != 1 {
        fatalError("a word of the text did not find its block")
    }
    return 0
}
