import Testing
@testable import Agents

/// The code an expression failed with, or nil when it did not throw an AgentsError.
func agentsErrorCode<T>(_ body: () throws -> T) -> AgentsErrorCode? {
    agentsError(body)?.code
}

/// The AgentsError an expression failed with, or nil when it did not throw one.
func agentsError<T>(_ body: () throws -> T) -> AgentsError? {
    switch Result(catching: body) {
    case .success: nil
    case .failure(let error): error as? AgentsError
    }
}

@Suite struct StrictJSONParserTests {
    let parser = StrictJSONParser()

    @Test func readsEveryKindOfValueAndWritesItBackTheSame() throws {
        let text = #"{"a":[1,-2.5,1e3,true,false,null],"b":{"c":"x\ny\u00e9\ud83d\ude00"},"d":""}"#
        let value = try parser.parse(text)
        #expect(value["a"] == .array([.number(1), .number(-2.5), .number(1000), .bool(true), .bool(false), .null]))
        #expect(value["b"]?["c"] == .string("x\nyé😀"))
        let written = JSONWriter.bytes(value)
        #expect(!written.contains(0x0A), "a written value is one line")
        #expect(try parser.parse(written) == value)
    }

    @Test(arguments: [
        ("", "missing"), ("{", "not closed"), ("[1,]", "unexpected"), ("{\"a\":1,}", "key must be a string"),
        ("01", "after the value"), ("1.", "fraction"), ("1e", "exponent"), ("+1", "unexpected"), ("NaN", "unexpected"),
        ("\"a\u{01}\"", "control character"), ("\"\\x\"", "unknown escape"), ("\"\\ud800\"", "low half"),
        ("\"\\udc00\"", "lone low"), ("tru", "literal"), ("{\"a\":1,\"a\":2}", "repeated"), ("[1] [2]", "after the value"),
        ("1e999", "out of range"),
    ])
    func refusesWhatTheGrammarDoesNot(input: String, reason: String) {
        let error = agentsError { try parser.parse(input) }
        #expect(error?.code == .invalidJSON, "\(input)")
        #expect(error?.message.contains(reason) == true, "\(input): \(error?.message ?? "passed")")
    }

    @Test func refusesInvalidUTF8AndOverlongForms() {
        for bytes: [UInt8] in [[0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22]] {
            #expect(agentsErrorCode { try parser.parse(bytes) } == .invalidJSON)
        }
    }

    @Test func checksEveryBoundBeforeTheWorkItLimits() {
        let small = StrictJSONParser(limits: .init(maximumBytes: 100, maximumDepth: 3, maximumMembers: 4, maximumStringBytes: 8))
        #expect(agentsErrorCode { try small.parse(String(repeating: " ", count: 101)) } == .jsonTooLarge)
        #expect(agentsErrorCode { try small.parse("[[[[1]]]]") } == .jsonTooLarge)
        #expect(agentsErrorCode { try small.parse("[[[1]]]") } == nil)
        #expect(agentsErrorCode { try small.parse("[1,2,3,4,5]") } == .jsonTooLarge)
        #expect(agentsErrorCode { try small.parse("\"123456789\"") } == .jsonTooLarge)
        // Deep nesting far past the bound is refused at the bound, not by exhausting the stack.
        #expect(agentsErrorCode { try StrictJSONParser().parse(String(repeating: "[", count: 100_000)) } == .jsonTooLarge)
    }
}

@Suite struct ToolSchemaTests {
    func schema(_ text: String) throws -> ToolSchema { try ToolSchema(StrictJSONParser().parse(text)) }

    @Test func checksTheArgumentsAModelSends() throws {
        let tool = try schema(#"""
            {"type":"object","properties":{"query":{"type":"string","minLength":1,"maxLength":10},
             "count":{"type":"integer","minimum":1,"maximum":5},"mode":{"enum":["a","b"]},
             "tags":{"type":"array","items":{"type":"string"},"maxItems":2},
             "note":{"anyOf":[{"type":"string"},{"type":"null"}],"default":null,"title":"Note"}},
             "required":["query"],"additionalProperties":false}
            """#)
        let good = try StrictJSONParser().parse(#"{"query":"x","count":2,"mode":"a","tags":["t"],"note":null}"#)
        try tool.check(good)
        let bad: [(String, String)] = [
            (#"{}"#, "$.query (required)"), (#"{"query":""}"#, "$.query (length"), (#"{"query":"x","count":2.5}"#, "$.count (expected integer)"),
            (#"{"query":"x","count":9}"#, "above the maximum"), (#"{"query":"x","mode":"c"}"#, "not one of the allowed"),
            (#"{"query":"x","tags":["a","b","c"]}"#, "item count"), (#"{"query":"x","tags":[1]}"#, "$.tags[0]"),
            (#"{"query":"x","secret-name":1}"#, "not a property"), (#"{"query":"x","note":3}"#, "none of anyOf"),
        ]
        for (text, reason) in bad {
            let error = agentsError { try tool.check(try StrictJSONParser().parse(text)) }
            #expect(error?.code == .invalidArguments, "\(text)")
            #expect(error?.message.contains(reason) == true, "\(text): \(error?.message ?? "passed")")
            #expect(error?.message.contains("secret-name") == false, "a name the caller chose is not quoted")
        }
    }

    @Test func refusesASchemaItCannotCheck() {
        for text in [##"{"type":"object","properties":{"a":{"$ref":"#/x"}}}"##, #"{"type":"string","pattern":"(a+)+$"}"#,
                     #"{"type":"fancy"}"#, #"{"minLength":5,"maxLength":2}"#] {
            #expect(agentsErrorCode { try schema(text) } == .unsupportedSchema, "\(text)")
        }
    }
}
