/// The starter templates of the two storytelling registers: Fiction (the seed's own vocabulary)
/// and Screenwriting (a Fountain screenplay: plain text that screenwriting tools read).
enum WritingTemplates {
    static let fiction: [Template] = [
        Template(id: "scene-card", name: "Scene card", blocks: [
            .title("Scene"),
            .field(.documentAuthor),
            .section("Goal"),
            .paragraph("What the point-of-view character wants in this scene."),
            .section("Conflict"),
            .paragraph("What stands in the way."),
            .section("Outcome"),
            .paragraph("How the scene ends, and what it changes for the next one."),
        ]),
        Template(id: "chapter-outline", name: "Chapter outline", blocks: [
            .title("Chapter"),
            .item("Opening image"),
            .item("Scenes, in order"),
            .item("Plot beats this chapter carries"),
            .item("Closing hook"),
        ]),
    ]

    /// Fountain (fountain.io): a title page of "Key: value" lines, then the screenplay. A scene
    /// heading starts with INT. or EXT., a line in capitals before dialogue is the speaker's cue,
    /// and a transition in capitals ends in "TO:".
    static let screenwriting: [Template] = [
        Template(id: "fountain-screenplay", name: "Screenplay (Fountain)", blocks: [
            .paragraph("Title: Untitled"),
            .paragraph("Credit: Written by"),
            .paragraph("Author: "),
            .paragraph("Draft date: "),
            .paragraph("FADE IN:"),
            .section("INT. LOCATION - DAY"),
            .paragraph("Action: what we see, in the present tense."),
            .paragraph("CHARACTER NAME"),
            .paragraph("(beat)"),
            .paragraph("Dialogue."),
            .paragraph("CUT TO:"),
            .section("EXT. LOCATION - NIGHT"),
            .paragraph("> FADE OUT."),
        ]),
        Template(id: "beat-sheet", name: "Beat sheet", blocks: [
            .title("Beat sheet"),
            .section("Act One"),
            .item("Opening image"),
            .item("Inciting incident"),
            .item("Break into act two"),
            .section("Act Two"),
            .item("Midpoint"),
            .item("All is lost"),
            .section("Act Three"),
            .item("Climax"),
            .item("Final image"),
        ]),
    ]

    static let fictionSnippets: [Snippet] = [
        Snippet(id: "scene-break", name: "Scene break", blocks: [.paragraph("* * *")]),
        Snippet(id: "chapter-epigraph", name: "Chapter epigraph", blocks: [.quote("Epigraph text."), .paragraph("— Source")]),
    ]

    static let screenwritingSnippets: [Snippet] = [
        Snippet(id: "intercut", name: "Intercut", blocks: [.paragraph("INTERCUT - PHONE CONVERSATION")]),
        Snippet(id: "montage", name: "Montage", blocks: [.section("MONTAGE"), .item("Shot"), .item("Shot"), .paragraph("END MONTAGE.")]),
        Snippet(id: "smash-cut", name: "Smash cut", blocks: [.paragraph("SMASH CUT TO:")]),
    ]
}
