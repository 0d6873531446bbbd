import PrivilegedSession
import Testing

/// Each identifier detector on the forms it must find (with the exact text it reports) and the
/// near misses it must leave alone.
struct LeakDetectorTests {
    private let guardian = LeakGuard()

    /// Every hit as its kind and the exact text it covers.
    private func found(_ text: String) -> [Found] {
        let bytes = Array(text.utf8)
        return guardian.scan(text).map { Found($0.kind, String(decoding: bytes[$0.range], as: UTF8.self)) }
    }

    struct Found: Equatable, CustomStringConvertible {
        let kind: LeakKind
        let text: String
        init(_ kind: LeakKind, _ text: String) {
            self.kind = kind
            self.text = text
        }
        var description: String { "\(kind)(\(text))" }
    }

    @Test(arguments: [
        // SSN: dashed anywhere, other forms after a label.
        ("Patient SSN is 123-45-6789 per intake.", LeakKind.socialSecurityNumber, "123-45-6789"),
        ("ssn: 123456789.", .socialSecurityNumber, "123456789"),
        ("Social Security No. 078 05 1121", .socialSecurityNumber, "078 05 1121"),
        ("(899-99-9999)", .socialSecurityNumber, "899-99-9999"),
        // NPI: ten digits, leading 1 or 2, Luhn over 80840.
        ("Referring provider NPI 1234567893.", .nationalProviderIdentifier, "1234567893"),
        // MRN after its label, value only.
        ("MRN: 123456", .medicalRecordNumber, "123456"),
        ("Medical record no. A0048213 on file", .medicalRecordNumber, "A0048213"),
        ("med rec # 77-10432", .medicalRecordNumber, "77-10432"),
        ("Patient ID: HX-2291-0043.", .medicalRecordNumber, "HX-2291-0043"),
        // Phones.
        ("Call (555) 234-5678 today", .phone, "(555) 234-5678"),
        ("cell 555-234-5678", .phone, "555-234-5678"),
        ("cell 555.234.5678", .phone, "555.234.5678"),
        ("tel 1-800-555-0199", .phone, "1-800-555-0199"),
        ("tel +1 (415) 555-0132.", .phone, "+1 (415) 555-0132"),
        ("+15552345678", .phone, "+15552345678"),
        ("London office 020 7946 0958.", .phone, "020 7946 0958"),
        ("Manchester 0161 496 0123", .phone, "0161 496 0123"),
        ("mobile 07700 900123", .phone, "07700 900123"),
        ("ring (020) 7946 0958", .phone, "(020) 7946 0958"),
        ("+44 20 7946 0958", .phone, "+44 20 7946 0958"),
        ("+49 30 901820", .phone, "+49 30 901820"),
        // Email.
        ("write to jane.doe+intake@clinic.example.org.", .email, "jane.doe+intake@clinic.example.org"),
        ("<j_smith42@mail.co.uk>", .email, "j_smith42@mail.co.uk"),
        // Dates of birth, each with its label.
        ("DOB: 03/14/1962", .dateOfBirth, "03/14/1962"),
        ("D.O.B. 14.03.1962", .dateOfBirth, "14.03.1962"),
        ("date of birth 1962-03-14", .dateOfBirth, "1962-03-14"),
        ("Date of\nBirth: March 14, 1962", .dateOfBirth, "March 14, 1962"),
        ("born on 14 March 1962 in Leeds", .dateOfBirth, "14 March 1962"),
        ("Birthdate: 14th Mar. 1962", .dateOfBirth, "14th Mar. 1962"),
        ("DOB 14-Mar-1962", .dateOfBirth, "14-Mar-1962"),
        ("dob 3/14/62", .dateOfBirth, "3/14/62"),
        ("DOB: 29/02/2000", .dateOfBirth, "29/02/2000"),
        ("birth date is Sept 9 1999", .dateOfBirth, "Sept 9 1999"),
        // Payment cards.
        ("card 4111 1111 1111 1111 exp 12/29", .paymentCard, "4111 1111 1111 1111"),
        ("4111-1111-1111-1111", .paymentCard, "4111-1111-1111-1111"),
        ("amex 378282246310005", .paymentCard, "378282246310005"),
        ("amex 3782 822463 10005", .paymentCard, "3782 822463 10005"),
        ("mc 5555 5555 5555 4444", .paymentCard, "5555 5555 5555 4444"),
        ("mc 2221 0000 0000 0009", .paymentCard, "2221 0000 0000 0009"),
        ("discover 6011111111111117", .paymentCard, "6011111111111117"),
        ("diners 3056 930902 5904", .paymentCard, "3056 930902 5904"),
        ("jcb 3530111333300000", .paymentCard, "3530111333300000"),
        // IBAN.
        ("IBAN GB82 WEST 1234 5698 7654 32 please", .iban, "GB82 WEST 1234 5698 7654 32"),
        ("to DE89370400440532013000.", .iban, "DE89370400440532013000"),
        ("iban: gb82west12345698765432", .iban, "gb82west12345698765432"),
        ("SA0380000000608010167519", .iban, "SA0380000000608010167519"),
    ])
    func findsTheIdentifier(text: String, kind: LeakKind, expected: String) {
        #expect(found(text) == [Found(kind, expected)])
    }

    @Test(arguments: [
        // SSN-like with numbers SSA never issues, or undashed without a label.
        "ref 000-12-3456", "ref 666-12-3456", "ref 900-12-3456", "ref 999-99-9999", "ref 123-00-4567", "ref 123-45-0000",
        "zip 123456789", "ssn: 666-12-3456", "part 123-45-6789-01", "code A123-45-6789",
        // Invalid cards: Luhn fails, unknown scheme, wrong length, mixed separators.
        "card 4111 1111 1111 1112", "9111111111111111", "4111 1111-1111 1111", "5555 5555 5555 444", "order 1234567812345670",
        // Order and account numbers.
        "Order #48392017 shipped", "order ORD-2024-118833", "PO 7731-2290-11", "invoice 2024-00017", "acct 1234567890",
        "ticket 1234567893x",
        // Dates without a birth label, impossible dates with one.
        "Seen on 03/14/2024.", "follow-up 2024-05-01", "filed March 3, 2024", "DOB: 02/30/1962", "DOB: 13/13/1962",
        "DOB 29/02/1999", "born 1962", "DOB: 03/14/1762", "dobson 03/14/1962",
        // Phone-like numbers that are not phones.
        "123-456-7890", "055-123-4567", "555-123-45678", "911-555-1234", "555-911-1234", "ISBN 978-0-306-40615-7",
        "version 10.2.3.4567", "ext 4567", "5552345678", "call 555-234 5678", "+0 20 7946 0958", "+49 30",
        "0020 7946 0958", "Case No. 2:23-cv-01234", "$1,234,567,890.00", "v2.555-234-5678",
        // Email-like text.
        "user@localhost", "@handle", "mail me at jo at clinic dot org", "jo@clinic", "jo@.org", "a..b@x.org", ".@x.org",
        // IBAN-like with a wrong check, short, or glued.
        "GB83WEST12345698765432", "GB82WEST1234569876543", "XGB82WEST12345698765432",
        // MRN labels without a value.
        "MRN: pending", "MRN requested", "medical record reviewed 12 times",
        // NPI-like: check fails, or a first digit no NPI carries yet.
        "NPI 1234567890", "id 3234567891",
    ])
    func leavesTheNearMissAlone(text: String) {
        #expect(found(text) == [])
    }

    @Test func findsSeveralIdentifiersInOneLineWithTheirOwnRanges() {
        let text = "Pt DOB 03/14/1962, SSN 123-45-6789, cell (555) 234-5678, mail jo@x.org, card 4111 1111 1111 1111."
        #expect(found(text) == [Found(.dateOfBirth, "03/14/1962"), Found(.socialSecurityNumber, "123-45-6789"),
                                Found(.phone, "(555) 234-5678"), Found(.email, "jo@x.org"),
                                Found(.paymentCard, "4111 1111 1111 1111")])
    }

    @Test func adjacentNumbersSeparatedBySpacesAreReadOneByOne() {
        #expect(found("123-45-6789 555-234-5678 4111111111111111 2024")
            == [Found(.socialSecurityNumber, "123-45-6789"), Found(.phone, "555-234-5678"), Found(.paymentCard, "4111111111111111")])
    }

    @Test func placeholdersAreTyped() {
        #expect(LeakKind.allCases.map(\.placeholder) == ["[PRIVILEGED]", "[SSN]", "[NPI]", "[MRN]", "[CARD]", "[IBAN]", "[DOB]", "[EMAIL]", "[PHONE]"])
    }

    @Test func redactionReplacesValuesAndKeepsLabels() {
        let text = "MRN: 123456, DOB 03/14/1962, call 555-234-5678 or mail jo@x.org."
        #expect(guardian.redact(text) == "MRN: [MRN], DOB [DOB], call [PHONE] or mail [EMAIL].")
    }

    @Test func redactionOfBytesKeepsInvalidUTF8AroundHits() {
        let payload: [UInt8] = [0xFF, 0x20] + Array("SSN 123-45-6789".utf8) + [0x20, 0xC3]
        #expect(guardian.redact(payload) == [0xFF, 0x20] + Array("SSN [SSN]".utf8) + [0x20, 0xC3])
    }
}

extension LeakDetectorTests {
    @Test func parenthesesAroundAnIdentifierEndAndStartIt() {
        #expect(found("(SSN 123-45-6789) 555-234-5678") == [Found(.socialSecurityNumber, "123-45-6789"), Found(.phone, "555-234-5678")])
        #expect(found("call +15552345678 206 mg") == [Found(.phone, "+15552345678")])
        #expect(found("4111111111111111. 2024-05-01") == [Found(.paymentCard, "4111111111111111")])
    }
}
