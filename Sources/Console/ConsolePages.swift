/// The page's files, embedded in the binary at build time (Package.swift: `.embedInCode("Pages")`),
/// so the console loads nothing from anywhere but this server and nothing from the disk at run time.
enum ConsolePages {
    struct Page {
        let bytes: [UInt8]
        let type: String
    }

    /// Path → file. Every file in Pages/ is here (ConsolePagesTests checks it).
    static let all: [String: Page] = [
        "/": Page(bytes: PackageResources.index_html, type: "text/html; charset=utf-8"),
        "/console.css": Page(bytes: PackageResources.console_css, type: "text/css; charset=utf-8"),
        "/app.js": Page(bytes: PackageResources.app_js, type: "text/javascript; charset=utf-8"),
        "/api.js": Page(bytes: PackageResources.api_js, type: "text/javascript; charset=utf-8"),
        "/dom.js": Page(bytes: PackageResources.dom_js, type: "text/javascript; charset=utf-8"),
        "/projects-view.js": Page(bytes: PackageResources.projects_view_js, type: "text/javascript; charset=utf-8"),
        "/binder-view.js": Page(bytes: PackageResources.binder_view_js, type: "text/javascript; charset=utf-8"),
        "/editor-view.js": Page(bytes: PackageResources.editor_view_js, type: "text/javascript; charset=utf-8"),
        "/session-view.js": Page(bytes: PackageResources.session_view_js, type: "text/javascript; charset=utf-8"),
        "/live.js": Page(bytes: PackageResources.live_js, type: "text/javascript; charset=utf-8"),
        "/history-view.js": Page(bytes: PackageResources.history_view_js, type: "text/javascript; charset=utf-8"),
        "/audit-view.js": Page(bytes: PackageResources.audit_view_js, type: "text/javascript; charset=utf-8"),
        "/merkle.js": Page(bytes: PackageResources.merkle_js, type: "text/javascript; charset=utf-8"),
        "/countdown.js": Page(bytes: PackageResources.countdown_js, type: "text/javascript; charset=utf-8"),
        "/text-view.js": Page(bytes: PackageResources.text_view_js, type: "text/javascript; charset=utf-8"),
        "/read-only-view.js": Page(bytes: PackageResources.read_only_view_js, type: "text/javascript; charset=utf-8"),
        "/became-view-only.js": Page(bytes: PackageResources.became_view_only_js, type: "text/javascript; charset=utf-8"),
        "/text-format.js": Page(bytes: PackageResources.text_format_js, type: "text/javascript; charset=utf-8"),
        "/reorder.js": Page(bytes: PackageResources.reorder_js, type: "text/javascript; charset=utf-8"),
        "/outline-view.js": Page(bytes: PackageResources.outline_view_js, type: "text/javascript; charset=utf-8"),
        "/project-title.js": Page(bytes: PackageResources.project_title_js, type: "text/javascript; charset=utf-8"),
        "/devices-view.js": Page(bytes: PackageResources.devices_view_js, type: "text/javascript; charset=utf-8"),
        "/assistant-view.js": Page(bytes: PackageResources.assistant_view_js, type: "text/javascript; charset=utf-8"),
    ]

    /// The file names `all` serves, for the test that no file of Pages/ is left out.
    static var fileNames: [String] { all.keys.map { $0 == "/" ? "index.html" : String($0.dropFirst()) } }
}
