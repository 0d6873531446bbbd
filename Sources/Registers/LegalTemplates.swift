/// Legal's starter templates: an office memorandum in the classic order (question presented, brief
/// answer, facts, discussion, conclusion), an appellant's brief in the order of FRAP 28(a), and a
/// client letter. The words follow the register (documents, sections, parties and issues).
enum LegalTemplates {
    static let all: [Template] = [memorandum, appellateBrief, clientLetter]

    static let memorandum = Template(id: "legal-memorandum", name: "Legal memorandum", blocks: [
        .title("Memorandum"),
        .paragraph("PRIVILEGED AND CONFIDENTIAL: ATTORNEY WORK PRODUCT"),
        .table([["To", ""], ["From", ""], ["Date", ""], ["Re", ""]]),
        .field(.documentReference),
        .section("Question Presented"),
        .paragraph("The legal question, framed with the controlling law and the key facts, answerable yes or no."),
        .section("Brief Answer"),
        .paragraph("The short answer, with the reason in one or two sentences."),
        .section("Facts"),
        .paragraph("The facts that bear on the question, stated neutrally, with their sources."),
        .section("Discussion"),
        .paragraph("The analysis, issue by issue: the rule, its explanation in the authorities, its application to these facts, and the counter-arguments."),
        .section("Conclusion"),
        .paragraph("The answer and its consequences for the client, with the recommended next steps."),
    ])

    /// FRAP 28(a)(1)-(10), in the rule's order. The statement of the case includes the facts
    /// (the 2013 amendment merged the separate statement of facts into it).
    static let appellateBrief = Template(id: "appellate-brief", name: "Appellate brief (FRAP 28(a))", blocks: [
        .title("Brief for the Appellant"),
        .field(.documentReference),
        .section("Corporate Disclosure Statement"),
        .paragraph("Required by Rule 26.1 for a nongovernmental corporate party: parent corporations and any publicly held corporation owning 10% or more of its stock."),
        .section("Table of Contents"),
        .paragraph("Headings with page references."),
        .section("Table of Authorities"),
        .paragraph("Cases (alphabetically arranged), statutes and other authorities, with the pages of the brief where they are cited."),
        .section("Jurisdictional Statement"),
        .paragraph("The basis for the district court's or agency's jurisdiction, the basis for this court's jurisdiction, the filing dates that establish timeliness, and that the appeal is from a final order or judgment or otherwise within this court's jurisdiction."),
        .section("Statement of the Issues"),
        .item("Each issue presented for review"),
        .section("Statement of the Case"),
        .paragraph("The facts relevant to the issues submitted for review, the relevant procedural history, and the rulings presented for review, with references to the record."),
        .section("Summary of the Argument"),
        .paragraph("A succinct, clear and accurate statement of the arguments made in the body of the brief."),
        .section("Argument"),
        .subsection("Standard of Review"),
        .paragraph("For each issue, a concise statement of the applicable standard of review."),
        .paragraph("The appellant's contentions and the reasons for them, with citations to the authorities and the parts of the record on which the appellant relies."),
        .section("Conclusion"),
        .paragraph("The precise relief sought."),
        .section("Certificate of Compliance"),
        .paragraph("Required by Rule 32(g)(1): the brief complies with the type-volume limitation; the word count and the typeface used."),
    ])

    static let clientLetter = Template(id: "client-letter", name: "Client letter", blocks: [
        .title("Letter to client"),
        .paragraph("PRIVILEGED AND CONFIDENTIAL: ATTORNEY-CLIENT COMMUNICATION"),
        .field(.documentDate), .field(.documentReference),
        .paragraph("Dear [client],"),
        .section("Summary"),
        .paragraph("What you asked us and our advice in brief."),
        .section("Background"),
        .paragraph("The facts as we understand them; please tell us if anything here is wrong or incomplete."),
        .section("Our advice"),
        .paragraph("The options open to you, the risks and likely costs of each, and what we recommend."),
        .section("Next steps"),
        .item("What we will do, and by when"),
        .item("What we need from you, and by when"),
        .paragraph("Please call me with any questions."),
        .paragraph("Yours sincerely,"),
        .field(.documentAuthor),
    ])

    static let snippets: [Snippet] = [
        Snippet(id: "privilege-header", name: "Privilege header", blocks: [
            .paragraph("PRIVILEGED AND CONFIDENTIAL: ATTORNEY-CLIENT COMMUNICATION AND ATTORNEY WORK PRODUCT. Do not forward."),
        ]),
        Snippet(id: "reservation-of-rights", name: "Reservation of rights", blocks: [
            .paragraph("Nothing in this letter waives any of our client's rights or remedies, all of which are expressly reserved."),
        ]),
        Snippet(id: "de-novo-review", name: "Standard of review: de novo", blocks: [
            .paragraph("This Court reviews questions of law de novo."),
        ]),
        Snippet(id: "without-prejudice", name: "Without prejudice", blocks: [
            .paragraph("WITHOUT PREJUDICE SAVE AS TO COSTS"),
        ]),
    ]
}
