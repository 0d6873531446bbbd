// The single text view of a long-form project: the whole document in one text area (blank lines
// between paragraphs, see text-format.js), autosaved half a second after the writer pauses, with the
// same visible state as the block editor (unsaved, saving, sealed), the browser's own undo and redo,
// a word count against the session's target and the register's snippets inserted at the cursor.
import * as api from "./api.js";
import { el, replace, errorText, words } from "./dom.js";
import * as live from "./live.js";
import { toText, fromText } from "./text-format.js";
import { isViewOnlyRefusal } from "./became-view-only.js";

const pause = 500;

export function textView(area, project, documentPath, loaded, snippets, switchToBlocks, viewOnly) {
  let blocks = loaded.blocks.map((b) => ({ ...b }));
  // The document as the server last had it for this page, sent with each save (see editor-view.js).
  let base = api.wire(blocks);
  let timer = null, countTimer = null;
  const state = el("p", { class: "save-state", role: "status", "aria-live": "polite", text: "Sealed" });
  const count = el("p", { class: "tag" });
  const target = el("input", { id: "word-target", type: "number", min: 0, value: 1000, size: 6 });
  const errors = el("div", { "aria-live": "assertive" });
  const text = el("textarea", { id: "manuscript", class: "manuscript", "aria-label": `Text of ${loaded.title}`, spellcheck: "true" });
  text.value = toText(blocks);

  const counted = () => { count.textContent = `${words(text.value)} words of a ${target.value}-word target`; };
  // Saves run one after another (a later one never overtaken by an earlier), each sending the text
  // as it is when it starts; `edits` counts keystrokes, so a save only marks the text sealed when
  // nothing was typed while it ran.
  let chain = Promise.resolve(), queued = 0, edits = 0;
  // Set once a save is refused as view-only: nothing more is sent (each would be refused too).
  let refused = false;
  const send = async () => {
    if (refused) return;
    const typed = edits;
    const sent = fromText(text.value, blocks);
    state.textContent = "Saving…";
    try {
      const payload = api.wire(sent);
      const result = await api.put(documentPath, { blocks: payload, base });
      result.blocks.forEach((id, index) => { sent[index].id = id; payload[index].id = id; });
      blocks = sent;
      base = payload;
      if (edits === typed) state.textContent = `Sealed (${result.sealed} paragraph${result.sealed === 1 ? "" : "s"} resealed)`;
      replace(errors);
    } catch (error) {
      if (error.status === 409 && error.code === "conflict") {
        // The document changed elsewhere: the server kept these words as a branch; show the document as it is.
        const fresh = await api.get(documentPath);
        blocks = fresh.blocks.map((b) => ({ ...b }));
        base = api.wire(blocks);
        text.value = toText(blocks);
        counted();
        state.textContent = "Changed elsewhere while you typed: your words are kept as a branch (see History)";
        replace(errors, el("p", { role: "alert", class: "field-error", text: error.message }));
        return;
      }
      if (isViewOnlyRefusal(error)) {
        // The project became view-only while the writer typed: the editor ends (editor-view.js).
        refused = true;
        clearTimeout(timer);
        await viewOnly(error, fromText(text.value, blocks));
        return;
      }
      state.textContent = "Not saved";
      replace(errors, errorText(error));
    }
  };
  const save = () => {
    clearTimeout(timer);
    queued++;
    chain = chain.then(send).finally(() => { if (--queued === 0 && pending) reloadIfIdle(); });
    return chain;
  };
  text.addEventListener("input", () => {
    edits++;
    state.textContent = "Unsaved changes";
    clearTimeout(timer);
    timer = setTimeout(save, pause);
    // Counting a long manuscript's words on every keystroke would cost the keystroke; once typing pauses is enough.
    clearTimeout(countTimer);
    countTimer = setTimeout(counted, 200);
  });
  target.addEventListener("input", counted);

  const snippetChoice = el("select", { id: "snippet-choice" }, snippets.map((s) => el("option", { value: s.id, text: s.name })));
  const insert = el("button", { class: "secondary", text: "Insert snippet" });
  insert.addEventListener("click", () => {
    const snippet = snippets.find((s) => s.id === snippetChoice.value);
    if (!snippet) return;
    // At the end of the paragraph the cursor is in, as paragraphs of their own.
    const end = text.value.indexOf("\n\n", text.selectionEnd);
    const at = end < 0 ? text.value.length : end;
    const inserted = "\n\n" + toText(snippet.blocks);
    text.focus();
    text.setSelectionRange(at, at);
    // execCommand keeps the insertion in the text area's own undo history; setRangeText is the fallback.
    if (!document.execCommand("insertText", false, inserted)) text.setRangeText(inserted, at, at, "end");
    text.dispatchEvent(new Event("input"));
  });

  // A change from elsewhere waits while the writer is in the text, has unsaved words or a save is on
  // its way; it is fetched once they are done, and dropped if the writer typed while it was fetched.
  let pending = false;
  const unsaved = () => !state.textContent.startsWith("Sealed");
  const busy = () => document.activeElement === text || unsaved() || queued > 0;
  const reloadIfIdle = async () => {
    if (busy()) { pending = true; return; }
    pending = false;
    const typed = edits;
    const fresh = await api.get(documentPath).catch(() => null);
    if (!fresh || edits !== typed || busy()) { pending = true; return; }
    if (toText(fresh.blocks) === text.value) return;
    blocks = fresh.blocks.map((b) => ({ ...b }));
    base = api.wire(blocks);
    text.value = toText(blocks);
    counted();
    state.textContent = "Sealed (updated from elsewhere)";
  };
  const stopUpdates = live.subscribe((change) => {
    if (change.subjects.includes(loaded.id)) reloadIfIdle();
  });
  text.addEventListener("blur", () => { if (pending) reloadIfIdle(); });

  const toBlocks = el("button", { class: "secondary", text: "Show as blocks" });
  toBlocks.addEventListener("click", async () => { await save(); switchToBlocks(); });
  replace(area, el("h2", { text: loaded.title }), state, errors, text,
    el("p", {}, toBlocks),
    snippets.length === 0 ? null : el("p", {}, el("label", { for: "snippet-choice", text: "Snippet from the library" }), snippetChoice, " ", insert),
    el("label", { for: "word-target", text: "Session target (words)" }), target, count);
  counted();
  return stopUpdates;
}
