/// The starter templates of the registers that report and explain: Journalism (a news story in the
/// inverted pyramid, interview notes), Academic (a research paper in IMRaD order, a literature
/// review) and Technical (a design document, a reference page).
enum ResearchTemplates {
    static let journalism: [Template] = [
        Template(id: "news-story", name: "News story", blocks: [
            .title("Headline"),
            .paragraph("Dek: one sentence that says why this matters."),
            .field(.documentAuthor), .field(.documentDate), .field(.documentReference),
            .section("Lede"),
            .paragraph("Who, what, when, where, why: the news in one or two sentences."),
            .section("Nut graf"),
            .paragraph("Why the reader should care now; the context in a paragraph."),
            .section("Body"),
            .paragraph("Supporting facts in descending order of importance, each attributed."),
            .quote("A quote that moves the story forward, attributed to a named source."),
            .section("Background"),
            .paragraph("What came before, for the reader who is new to this."),
            .section("Kicker"),
            .paragraph("A closing line that stays with the reader."),
        ]),
        Template(id: "interview-notes", name: "Interview notes", blocks: [
            .title("Interview"),
            .field(.documentDate),
            .table([["Source", "Attribution agreed", "Contact"], ["", "on the record / on background / off the record", ""]]),
            .section("Questions"),
            .item("Question"),
            .section("Notes"),
            .paragraph("What was said, quotes marked verbatim."),
            .section("To verify"),
            .item("Claim, and how it will be checked"),
        ]),
    ]

    static let academic: [Template] = [
        Template(id: "research-paper", name: "Research paper (IMRaD)", blocks: [
            .title("Title"),
            .field(.documentAuthor), .field(.documentReference),
            .section("Abstract"),
            .paragraph("Background, aim, method, main results and conclusion, in about 250 words."),
            .section("Introduction"),
            .paragraph("The problem, what is known, the gap, and the research question or hypothesis."),
            .section("Methods"),
            .paragraph("Design, participants, materials, procedure and analysis, in enough detail to replicate."),
            .section("Results"),
            .paragraph("The findings, with statistics, tables and figures, without interpretation."),
            .section("Discussion"),
            .paragraph("What the results mean, how they compare with earlier work, limitations and future research."),
            .section("References"),
            .paragraph("In APA style, alphabetical by first author."),
        ]),
        Template(id: "literature-review", name: "Literature review", blocks: [
            .title("Literature review"),
            .section("Scope"),
            .paragraph("The question, the databases searched, the search terms and the inclusion criteria."),
            .section("Themes"),
            .subsection("Theme"),
            .paragraph("What the studies find, where they agree and where they conflict."),
            .section("Gaps"),
            .paragraph("What is not yet known and why it matters."),
        ]),
    ]

    static let technical: [Template] = [
        Template(id: "design-document", name: "Design document", blocks: [
            .title("Design: title"),
            .field(.documentAuthor), .field(.documentDate), .field(.documentReference),
            .section("Overview"),
            .paragraph("What this design does, for whom, in one paragraph."),
            .section("Goals and non-goals"),
            .item("Goal"),
            .item("Non-goal"),
            .section("Requirements"),
            .table([["ID", "Requirement", "Priority"], ["R1", "", "must"]]),
            .section("Design"),
            .paragraph("The proposed solution: components, interfaces, data and the reasons for each choice."),
            .section("Alternatives considered"),
            .paragraph("Other designs and why they were not chosen."),
            .section("Testing"),
            .paragraph("How the requirements will be verified."),
            .section("References"),
            .paragraph("In IEEE style, numbered in order of first citation."),
        ]),
        Template(id: "reference-page", name: "Reference page", blocks: [
            .title("Name"),
            .paragraph("One sentence that says what it is."),
            .section("Synopsis"),
            .paragraph("The usage, in a code block."),
            .section("Parameters"),
            .table([["Name", "Type", "Description"], ["", "", ""]]),
            .section("Errors"),
            .table([["Code", "Meaning"], ["", ""]]),
            .section("Examples"),
            .paragraph("A short example that works as written."),
        ]),
    ]

    static let journalismSnippets: [Snippet] = [
        Snippet(id: "did-not-respond", name: "Did not respond", blocks: [
            .paragraph("[Name] did not respond to requests for comment by the time of publication."),
        ]),
        Snippet(id: "correction", name: "Correction", blocks: [
            .paragraph("Correction: An earlier version of this story misstated [fact]. It is [correct fact]."),
        ]),
    ]

    static let academicSnippets: [Snippet] = [
        Snippet(id: "ethics-approval", name: "Ethics approval", blocks: [
            .paragraph("The study was approved by the [institution] research ethics board (protocol [number]); all participants gave informed consent."),
        ]),
        Snippet(id: "limitations", name: "Limitations", blocks: [
            .paragraph("These findings should be read in light of several limitations."),
        ]),
    ]

    static let technicalSnippets: [Snippet] = [
        Snippet(id: "note", name: "Note", blocks: [.quote("Note: ")]),
        Snippet(id: "warning", name: "Warning", blocks: [.quote("Warning: this operation cannot be undone.")]),
        Snippet(id: "requirement-row", name: "Requirement", blocks: [.table([["ID", "Requirement", "Priority"], ["", "", ""]])]),
    ]
}
