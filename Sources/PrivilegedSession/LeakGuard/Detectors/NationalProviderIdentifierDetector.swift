/// US National Provider Identifiers: ten digits in one group, checked with `NPI` (Luhn over the
/// 80840 prefix).
///
/// Unlabelled ten-digit numbers are common (orders, accounts, unformatted phones), and one in ten
/// passes any single check digit, so the detector also requires the leading 1 or 2 that every NPI
/// issued so far carries (the validator itself stays open to later first digits).
enum NationalProviderIdentifierDetector {
    static func match(_ run: NumberRun, from first: Int, in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        let group = run.groups[first]
        guard group.count == 10, !run.hasPlus, run.mayStart(at: first), run.mayEnd(at: first) else { return nil }
        let leading = bytes[group.range.lowerBound]
        guard leading == UInt8(ascii: "1") || leading == UInt8(ascii: "2") else { return nil }
        return NPI.isValid(String(decoding: bytes[group.range], as: UTF8.self)) ? first : nil
    }
}
