/// Writes a `JSONValue` compactly: no whitespace, members in their order, every control character
/// escaped. The output never contains a newline byte, which the MCP stdio transport depends on: a
/// message is one line, so a value that carried a raw newline would split into two messages.
public enum JSONWriter {
    public static func bytes(_ value: JSONValue) -> [UInt8] {
        var output: [UInt8] = []
        write(value, into: &output)
        return output
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: bytes(value), as: UTF8.self)
    }

    static func write(_ value: JSONValue, into output: inout [UInt8]) {
        switch value {
        case .null: output += Array("null".utf8)
        case .bool(let flag): output += Array((flag ? "true" : "false").utf8)
        case .number(let number): output += Array(numberText(number).utf8)
        case .string(let text): writeString(text, into: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                write(item, into: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                writeString(member.key, into: &output)
                output.append(UInt8(ascii: ":"))
                write(member.value, into: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    /// Integers without a fraction (ids, counts); other numbers in Swift's shortest round-trip form,
    /// which is valid JSON. JSON has no infinity or NaN: those are written as null.
    static func numberText(_ number: Double) -> String {
        guard number.isFinite else { return "null" }
        if number.rounded() == number, abs(number) <= 9_007_199_254_740_992 { return String(Int64(number)) }
        return "\(number)"
    }

    static func writeString(_ text: String, into output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): output += [0x5C, 0x22]
            case UInt8(ascii: "\\"): output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                output += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
