// fuzz-sources: Sources/AuditChain
// fuzz-sources: Sources/PrivilegedSession
// fuzz-sources: Sources/Registers
// fuzz-sources: Sources/Writing
// libFuzzer target: the Markdown and plain text import (SECURITY.md §14.7; libcmark behind CCmark).
// An imported file is anyone's file, so each import must refuse it or succeed without trapping. What
// imports is a document the store takes and that has no empty block (nothing a writer could see or
// an export could write back). A Markdown import, exported as Markdown and imported again, gives the
// same blocks (MarkdownImport's promise: the export escapes all the writer's markup).
private let labels = FieldEditor(.fiction)

@_cdecl("LLVMFuzzerTestOneInput")
public func markdownImportFuzz(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    guard let text = try? SecureBytes(copying: Array(UnsafeBufferPointer(start: data, count: count))) else { return 0 }
    if let content = try? MarkdownImport.parse(text) {
        check(content, "Markdown")
        let exported = MarkdownExport.render(ExportedProject(title: "P", items: [.init(kind: .scene, title: "D", depth: 1, content: content)],
                                                             labels: labels))
        guard let again = try? MarkdownImport.parse(SecureBytes(copying: Array(exported.utf8))) else {
            fatalError("an imported document's Markdown export was refused")
        }
        // The export heads the blocks with the project's and the document's titles.
        guard shape(again) == [["heading-1", "P"], ["heading-2", "D"]] + shape(content) else {
            fatalError("an imported document's Markdown export imported as other blocks")
        }
    }
    if let content = try? PlainTextImport.parse(text) { check(content, "plain text") }
    return 0
}

private func check(_ content: DocumentContent, _ form: String) {
    do { try WritingStore.check(content) } catch { fatalError("a \(form) import the store refuses: \(error)") }
    guard !content.blocks.contains(where: { $0.text.isEmpty }) else { fatalError("a \(form) import made an empty block") }
}

private func shape(_ content: DocumentContent) -> [[String]] {
    content.blocks.map { [BlockEncoding.name(of: $0.kind), $0.text] }
}
