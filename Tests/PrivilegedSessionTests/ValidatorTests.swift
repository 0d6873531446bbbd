import PrivilegedSession
import Testing

/// The identifier checks of the leak guard, on published examples and their near misses. Every
/// rejection names its reason, so a pass for the wrong reason cannot hide.
struct ValidatorTests {
    private func reason(_ check: () throws(PrivilegedSessionError) -> Void) -> PrivilegedSessionErrorCode? {
        do {
            try check()
            return nil
        } catch {
            return error.code
        }
    }

    // MARK: Luhn

    /// Published test card numbers (Visa, Amex, Mastercard, Discover, as listed by card processors
    /// for testing) and the Luhn example of ISO/IEC 7812 as given on Wikipedia.
    @Test(arguments: ["4111111111111111", "4111 1111 1111 1111", "4111-1111-1111-1111", "378282246310005",
                      "3782 822463 10005", "5555555555554444", "6011111111111117", "79927398713"])
    func publishedLuhnNumbersPass(number: String) {
        #expect(Luhn.isValid(number))
        #expect(reason { () throws(PrivilegedSessionError) in try Luhn.validate(number) } == nil)
    }

    @Test(arguments: [
        ("4111111111111112", PrivilegedSessionErrorCode.checksumMismatch),  // last digit changed
        ("4111111111111121", .checksumMismatch),                              // adjacent digits transposed
        ("378282246310006", .checksumMismatch),
        ("79927398710", .checksumMismatch),
        ("4111 1111 1111 111O", .invalidCharacter),                           // letter O for zero
        ("4111.1111.1111.1111", .invalidCharacter),
        ("4111_1111_1111_1111", .invalidCharacter),
        ("٤١١١١١١١١١١١١١١١", .invalidCharacter),                              // Arabic-Indic digits
        ("", .wrongLength),
        ("0", .wrongLength),
        (" - ", .wrongLength),
    ])
    func luhnNearMissesFailForTheirReason(number: String, expected: PrivilegedSessionErrorCode) {
        #expect(!Luhn.isValid(number))
        #expect(reason { () throws(PrivilegedSessionError) in try Luhn.validate(number) } == expected)
    }

    @Test func everySingleDigitChangeOfACardIsCaught() {
        let card = Array("4111111111111111")
        for position in card.indices {
            for digit in "0123456789" where digit != card[position] {
                var changed = card
                changed[position] = digit
                #expect(!Luhn.isValid(String(changed)), "\(String(changed))")
            }
        }
    }

    @Test func twoDigitsAreEnough() {
        #expect(Luhn.isValid("18"))
        #expect(Luhn.isValid("00"))
        #expect(!Luhn.isValid("19"))
    }

    // MARK: IBAN

    /// The examples of the SWIFT IBAN registry (ISO 13616), in electronic and paper form.
    @Test(arguments: ["GB82WEST12345698765432", "GB82 WEST 1234 5698 7654 32", "GB29NWBK60161331926819",
                      "DE89370400440532013000", "DE89 3704 0044 0532 0130 00", "FR1420041010050500013M02606",
                      "NL91ABNA0417164300", "BE68539007547034", "CH9300762011623852957", "NO9386011117947",
                      "AT611904300234573201", "ES9121000418450200051332", "IT60X0542811101000000123456",
                      "MT84MALT011000012345MTLCAST001S", "MT84 MALT 0110 0001 2345 MTLC AST0 01S",
                      "PL61109010140000071219812874", "SE4550000000058398257466", "GR1601101250000000012300695",
                      "FI2112345600000785", "DK5000400440116243", "IE29AIBK93115212345678", "PT50000201231234567890154",
                      "LU280019400644750000", "HU42117730161111101800000000", "SI56263300012039086",
                      "SK3112000000198742637541", "HR1210010051863000160", "CY17002001280000001200527600",
                      "EE382200221020145685", "LT121000011101001000", "LV80BANK0000435195001",
                      "IS140159260076545510730339", "LI21088100002324013AA", "BG80BNBG96611020345678",
                      "RO49AAAA1B31007593840000", "CZ6508000000192000145399", "MC5811222000010123456789030",
                      "SM86U0322509800000000270100", "AD1200012030200359100100", "GI75NWBK000000007099453",
                      "FO6264600001631634", "GL8964710001000206", "AL47212110090000000235698741",
                      "BA391290079401028494", "ME25505000012345678951", "MK07250120000058984",
                      "RS35260005601001611379", "XK051212012345678906", "MD24AG000225100013104168",
                      // Outside the length table: the general 15...34 bound applies.
                      "SA0380000000608010167519", "UA213223130000026007233566001", "VA59001123000012345678"])
    func registryExampleIBANsPass(iban: String) {
        #expect(IBAN.isValid(iban))
        #expect(reason { () throws(PrivilegedSessionError) in try IBAN.validate(iban) } == nil)
    }

    @Test(arguments: [
        ("GB82WEST12345698765433", PrivilegedSessionErrorCode.checksumMismatch),  // last digit changed
        ("GB82WEST12345698765423", .checksumMismatch),                              // last two transposed
        ("GB28WEST12345698765432", .checksumMismatch),                              // check digits transposed
        ("GB82TEST12345698765432", .checksumMismatch),                              // bank code changed
        ("DE89370400440532031000", .checksumMismatch),
        ("GB82WEST1234569876543", .wrongLength),                                    // a digit short for GB
        ("GB82WEST123456987654321", .wrongLength),                                  // a digit long for GB
        ("DE8937040044053201300", .wrongLength),
        ("NO938601111794", .wrongLength),                                           // 14: under every IBAN
        ("SA03800000006080101675190000000000000", .wrongLength),                    // 37: over every IBAN
        ("gb82 west 1234 5698 7654 32", .invalidCharacter),                         // lowercase is refused
        ("GB82-WEST-1234-5698-7654-32", .invalidCharacter),
        ("GB82WEST1234569876543!", .invalidCharacter),
        ("GB82\u{00A0}WEST12345698765432", .invalidCharacter),                      // no-break space
        ("12GBWEST12345698765432", .invalidCharacter),                              // country code not letters
        ("GBX2WEST12345698765432", .invalidCharacter),                              // check digits not digits
        ("", .wrongLength),
        ("GB", .wrongLength),
    ])
    func ibanNearMissesFailForTheirReason(iban: String, expected: PrivilegedSessionErrorCode) {
        #expect(!IBAN.isValid(iban))
        #expect(reason { () throws(PrivilegedSessionError) in try IBAN.validate(iban) } == expected)
    }

    /// Self-made: GB IBANs whose proper check digits are 02, 98 and 97, respelled with 99, 01 and 00,
    /// which are the same modulo 97 and so pass the sum, but which MOD 97-10 never produces.
    @Test(arguments: [("GB02WEST12345698760082", "GB99WEST12345698760082"),
                      ("GB98WEST12345698760003", "GB01WEST12345698760003"),
                      ("GB97WEST12345698760021", "GB00WEST12345698760021")])
    func checkDigitsOutside02To98AreRefused(canonical: String, respelled: String) {
        #expect(IBAN.isValid(canonical))
        #expect(reason { () throws(PrivilegedSessionError) in try IBAN.validate(respelled) } == .invalidCheckDigits)
    }

    @Test func everySingleCharacterChangeOfAnIBANIsCaught() {
        let iban = Array("GB82WEST12345698765432")
        for position in iban.indices.dropFirst(2) {
            let alphabet = position < 4 || position >= 8 ? "0123456789" : "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
            for replacement in alphabet where replacement != iban[position] {
                var changed = iban
                changed[position] = replacement
                #expect(!IBAN.isValid(String(changed)), "\(String(changed))")
            }
        }
    }

    // MARK: NPI

    /// 1234567893 is the example in CMS's NPI check digit paper.
    @Test func theCMSExampleNPIPasses() {
        #expect(NPI.isValid("1234567893"))
        #expect(reason { () throws(PrivilegedSessionError) in try NPI.validate("1234567893") } == nil)
    }

    @Test(arguments: [
        ("1234567890", PrivilegedSessionErrorCode.checksumMismatch),  // check digit changed
        ("1234567839", .checksumMismatch),                              // last two transposed
        ("2134567893", .checksumMismatch),                              // first two transposed
        ("123456789", .wrongLength),
        ("12345678931", .wrongLength),
        ("", .wrongLength),
        ("123456789A", .invalidCharacter),
        ("12345 67893", .invalidCharacter),                              // NPIs carry no separators
        ("1234-567893", .invalidCharacter),
    ])
    func npiNearMissesFailForTheirReason(npi: String, expected: PrivilegedSessionErrorCode) {
        #expect(!NPI.isValid(npi))
        #expect(reason { () throws(PrivilegedSessionError) in try NPI.validate(npi) } == expected)
    }

    /// Without the 80840 prefix the plain Luhn check of these ten digits fails, so the NPI check is
    /// not a plain Luhn check.
    @Test func theNPICheckIsLuhnOverThe80840Prefix() {
        #expect(!Luhn.isValid("1234567893"))
        #expect(Luhn.isValid("808401234567893"))
    }
}
