/// Medical record numbers after their label ("MRN: 123456", "Medical record no. A0048213").
///
/// Each hospital numbers its own way, so there is no check digit to verify; the label is what makes
/// the value an MRN. The value is one token of letters, digits and inner hyphens, 4 to 20 letters and
/// digits long, at least four of them digits (so "MRN: pending" or "MRN requested" is no hit).
enum MedicalRecordNumberDetector {
    static let lengths = 4...20
    static let minimumDigits = 4

    static func match(_ bytes: UnsafeBufferPointer<UInt8>, valueAt start: Int) -> Range<Int>? {
        guard !NumberRun.isGlued(bytes, before: start) || bytes[start - 1] == UInt8(ascii: "-") || bytes[start - 1] == UInt8(ascii: ".") else {
            return nil
        }
        var position = start
        var characters = 0
        var digits = 0
        while position < bytes.count, characters <= lengths.upperBound {
            let byte = bytes[position]
            if ASCIIBytes.isAlphanumeric(byte) {
                characters += 1
                if ASCIIBytes.isDigit(byte) { digits += 1 }
                position += 1
            } else if byte == UInt8(ascii: "-"), position + 1 < bytes.count, ASCIIBytes.isAlphanumeric(bytes[position + 1]) {
                position += 1
            } else {
                break
            }
        }
        guard lengths.contains(characters), digits >= minimumDigits, !NumberRun.isGlued(bytes, after: position) else { return nil }
        return start..<position
    }
}
