/// Healthcare's starter templates: the three progress-note formats clinicians are trained in
/// (SOAP, DAP, BIRP), an intake assessment and a referral letter. Prompts are guidance, not clinical
/// advice; the words follow the register (notes and people, never "scenes" or "characters").
enum HealthcareTemplates {
    static let all: [Template] = [soap, dap, birp, intake, referralLetter]

    static let soap = Template(id: "soap-note", name: "SOAP progress note", blocks: [
        .title("Progress note (SOAP)"),
        .field(.documentDate), .field(.documentReference), .field(.documentAuthor),
        .section("Subjective"),
        .paragraph("What the client reports, in their own words where it matters: concerns, symptoms, changes since the last session."),
        .section("Objective"),
        .paragraph("What you observed and measured: appearance, affect, behaviour, test scores, vital signs."),
        .section("Assessment"),
        .paragraph("Your clinical reading of the subjective and objective findings: progress towards treatment goals, risk, working diagnosis."),
        .section("Plan"),
        .paragraph("Next steps: interventions, homework, referrals, and the date of the next session."),
    ])

    static let dap = Template(id: "dap-note", name: "DAP progress note", blocks: [
        .title("Progress note (DAP)"),
        .field(.documentDate), .field(.documentReference), .field(.documentAuthor),
        .section("Data"),
        .paragraph("What the client said and what you observed during the session."),
        .section("Assessment"),
        .paragraph("Your interpretation of the data: progress, risk, response to treatment."),
        .section("Plan"),
        .paragraph("What happens next: interventions, tasks between sessions, next appointment."),
    ])

    static let birp = Template(id: "birp-note", name: "BIRP progress note", blocks: [
        .title("Progress note (BIRP)"),
        .field(.documentDate), .field(.documentReference), .field(.documentAuthor),
        .section("Behavior"),
        .paragraph("The client's presentation and reported behaviour, with observable detail."),
        .section("Intervention"),
        .paragraph("What you did in the session and the techniques you used."),
        .section("Response"),
        .paragraph("How the client responded to each intervention."),
        .section("Plan"),
        .paragraph("Follow-up, tasks between sessions and the next appointment."),
    ])

    static let intake = Template(id: "intake-assessment", name: "Intake assessment", blocks: [
        .title("Intake assessment"),
        .field(.documentDate), .field(.documentReference), .field(.documentAuthor),
        .section("Reason for referral"),
        .paragraph("Who referred the client and why; the client's own account of what brings them."),
        .section("Presenting concerns"),
        .paragraph("Current symptoms, their onset, duration and effect on daily life."),
        .section("History"),
        .item("Psychiatric and treatment history"),
        .item("Medical history"),
        .item("Family and social history"),
        .item("Substance use"),
        .section("Current medication"),
        .table([["Medication", "Dose", "Frequency", "Prescriber"], ["", "", "", ""]]),
        .section("Mental status examination"),
        .paragraph("Appearance, behaviour, speech, mood and affect, thought process and content, cognition, insight and judgement."),
        .section("Risk assessment"),
        .paragraph("Risk to self and others, protective factors, and the safety plan agreed."),
        .section("Treatment goals"),
        .item("Goal, in the client's words, with how progress will be measured"),
        .section("Plan"),
        .paragraph("Recommended treatment, frequency of sessions, and any referrals."),
    ])

    static let referralLetter = Template(id: "referral-letter", name: "Referral letter", blocks: [
        .title("Referral letter"),
        .field(.documentDate), .field(.documentReference),
        .paragraph("Dear colleague,"),
        .paragraph("I am writing to refer the person named below, who has consented to this referral and to my sharing the information in this letter."),
        .section("Reason for referral"),
        .paragraph("The question you would like answered or the service you are asking for."),
        .section("Relevant history"),
        .paragraph("A summary of the history and findings the receiving clinician needs."),
        .section("Current medication"),
        .table([["Medication", "Dose", "Frequency"], ["", "", ""]]),
        .section("Risk"),
        .paragraph("Any current risk and the safety plan in force."),
        .paragraph("Thank you for seeing them. Please contact me if you need anything further."),
        .paragraph("Yours sincerely,"),
        .field(.documentAuthor),
    ])

    static let snippets: [Snippet] = [
        Snippet(id: "risk-screen-negative", name: "Risk screen: none reported", blocks: [
            .paragraph("The client denied current suicidal or homicidal ideation, intent or plan. No acute risk was identified; the safety plan was reviewed."),
        ]),
        Snippet(id: "informed-consent", name: "Informed consent discussed", blocks: [
            .paragraph("Limits of confidentiality, the nature of treatment and the client's right to withdraw were discussed; the client consented."),
        ]),
        Snippet(id: "next-appointment", name: "Next appointment", blocks: [
            .paragraph("Next appointment scheduled for [date] at [time]."),
        ]),
        Snippet(id: "telehealth", name: "Telehealth session", blocks: [
            .paragraph("Session held by secure video. The client confirmed their identity and that they were in a private location."),
        ]),
    ]
}
