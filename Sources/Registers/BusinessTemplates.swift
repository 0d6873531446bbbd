/// The starter templates of the registers that run things: Founder (an investor update, a decision
/// memo), General (meeting notes, a plain document) and Marketing (a campaign brief, a launch email).
enum BusinessTemplates {
    static let founder: [Template] = [
        Template(id: "investor-update", name: "Investor update", blocks: [
            .title("Investor update"),
            .field(.documentDate),
            .section("Highlights"),
            .item("The most important thing that happened"),
            .section("Metrics"),
            .table([["Metric", "This month", "Last month", "Change"], ["Revenue", "", "", ""], ["Cash runway (months)", "", "", ""]]),
            .section("Lowlights"),
            .item("What went wrong and what we are doing about it"),
            .section("Asks"),
            .item("Introductions or help we need"),
        ]),
        Template(id: "decision-memo", name: "Decision memo", blocks: [
            .title("Decision: title"),
            .field(.documentAuthor), .field(.documentDate),
            .section("Context"),
            .paragraph("What we have to decide and why now."),
            .section("Options"),
            .item("Option, with its cost and risk"),
            .section("Recommendation"),
            .paragraph("What we should do and why."),
            .section("Decision"),
            .paragraph("What was decided, by whom, and when it will be reviewed."),
        ]),
    ]

    static let general: [Template] = [
        Template(id: "meeting-notes", name: "Meeting notes", blocks: [
            .title("Meeting notes"),
            .field(.documentDate),
            .section("Attendees"),
            .item("Name"),
            .section("Agenda"),
            .item("Topic"),
            .section("Decisions"),
            .item("Decision"),
            .section("Action items"),
            .table([["Action", "Owner", "Due"], ["", "", ""]]),
        ]),
        Template(id: "blank-document", name: "Blank document", blocks: [.title("Title"), .paragraph("")]),
    ]

    static let marketing: [Template] = [
        Template(id: "campaign-brief", name: "Campaign brief", blocks: [
            .title("Campaign brief"),
            .field(.documentAuthor), .field(.documentDate), .field(.documentReference),
            .section("Objective"),
            .paragraph("The one measurable outcome this campaign exists for."),
            .section("Audience"),
            .paragraph("The personas this speaks to: their needs, objections and where they are reached."),
            .section("Key message"),
            .paragraph("The single thing the audience should remember, and the proof behind it."),
            .section("Channels"),
            .table([["Channel", "Asset", "Owner", "Date"], ["", "", "", ""]]),
            .section("Budget"),
            .paragraph("Total, and its split by channel."),
            .section("Measures of success"),
            .item("Metric, target and how it is measured"),
        ]),
        Template(id: "launch-email", name: "Launch email", blocks: [
            .paragraph("Subject line: "),
            .paragraph("Preview text: "),
            .title("Headline"),
            .paragraph("The benefit in one sentence."),
            .paragraph("Two or three sentences of proof."),
            .paragraph("Call to action: "),
        ]),
    ]

    static let founderSnippets: [Snippet] = [
        Snippet(id: "confidential-update", name: "Confidential", blocks: [
            .paragraph("Confidential: for investors of record only. Please do not forward."),
        ]),
        Snippet(id: "hiring-ask", name: "Hiring ask", blocks: [.item("We are hiring a [role]: introductions welcome.")]),
    ]

    static let generalSnippets: [Snippet] = [
        Snippet(id: "action-item", name: "Action item", blocks: [.item("[Action], owner [name], due [date]")]),
        Snippet(id: "summary", name: "Summary", blocks: [.section("Summary"), .paragraph("")]),
    ]

    static let marketingSnippets: [Snippet] = [
        Snippet(id: "call-to-action", name: "Call to action", blocks: [.paragraph("Start your free trial today.")]),
        Snippet(id: "unsubscribe-footer", name: "Unsubscribe footer", blocks: [
            .paragraph("You are receiving this because you signed up at [site]. Unsubscribe at any time."),
        ]),
    ]
}
