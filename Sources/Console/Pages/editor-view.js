// The block editor: each block a kind and its text; autosave a second after the last keystroke,
// with a visible state (unsaved, saving, sealed); undo and redo over the saved states; a word count
// against the session's target; snippets from the register's library inserted after the block last
// edited.
import * as api from "./api.js";
import { el, replace, errorText, words } from "./dom.js";
import * as live from "./live.js";
import { textView } from "./text-view.js";
import { fitsOneText } from "./text-format.js";
import { readOnlyView } from "./read-only-view.js";
import { becameViewOnly, isViewOnlyRefusal } from "./became-view-only.js";

const kinds = ["paragraph", "heading-1", "heading-2", "heading-3", "list-item", "quote"];
const pause = 500;
// Documents the writer switched to blocks (or back to one text) in this page's life; never stored.
const shownAsBlocks = new Set();

// A long-form project's documents open as one text (text-view.js) when they are made of paragraphs,
// headings, quotes and list items; everything else, and any document on request, in blocks.
export async function editorView(area, project, documentID) {
  const documentPath = `/api/projects/${project.id}/documents/${api.segment(documentID)}`;
  if (project.view_only) {
    // Shared to view only: no editor, no hold, no autosave (each save would be refused and recorded).
    readOnlyView(area, documentPath, await api.get(documentPath));
    return;
  }
  const [loaded, registers] = await Promise.all([api.get(documentPath), api.get("/api/registers")]);
  const snippets = registers.find((r) => r.id === project.register)?.snippets ?? [];
  const release = await holdSyncChanges(documentPath);
  let stopUpdates = () => {};
  const reopen = (asBlocks) => {
    stopUpdates();
    release();
    if (asBlocks) shownAsBlocks.add(documentID); else shownAsBlocks.delete(documentID);
    return editorView(area, project, documentID);
  };
  // A save refused because the project became view-only meanwhile: the editor and its hold end, the
  // document shows read-only, and the page says where the unsaved words were kept (became-view-only.js).
  const viewOnly = async (error, unsaved) => {
    stopUpdates();
    release();
    stopUpdates = await becameViewOnly(area, documentPath, error, unsaved, loaded.title);
  };
  if (project.kind === "long-form" && fitsOneText(loaded.blocks) && !shownAsBlocks.has(documentID)) {
    stopUpdates = textView(area, project, documentPath, loaded, snippets, () => reopen(true), viewOnly);
    return;
  }
  stopUpdates = blockEditor(area, project, documentPath, loaded, snippets, project.kind === "long-form" ? () => reopen(false) : null, viewOnly);
}

// Tells the daemon this editor shows the document, so sync's changes to it are held (not pushed to
// the page) until it leaves: when the view changes, the page closes, or, if the page vanishes
// without a word, when its lease runs out (renewed here at a third of it). Returns the release.
async function holdSyncChanges(documentPath) {
  let hold = await api.post(`${documentPath}/editor`, {}).catch(() => null);
  if (!hold) return () => {};
  const renew = setInterval(async () => {
    const answer = await api.post(`/api/editors/${hold.hold}`, {}).catch(() => null);
    if (answer && !answer.held) hold = await api.post(`${documentPath}/editor`, {}).catch(() => hold);
  }, hold.lease_seconds * 1000 / 3);
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    clearInterval(renew);
    api.removeAsPageCloses(`/api/editors/${hold.hold}`).catch(() => {});
  };
  live.onLeave(release);
  return release;
}

function blockEditor(area, project, documentPath, loaded, snippets, switchToText, viewOnly) {
  const documentID = loaded.id;
  let lastEdited = -1;
  let blocks = loaded.blocks.map((b) => ({ ...b }));
  // The document as the server last had it for this page: sent with each save, so a change that
  // landed elsewhere meanwhile is never written over (the server keeps these words as a branch).
  let base = api.wire(blocks);
  const history = [structuredClone(blocks)];
  let position = 0, timer = null;
  const state = el("p", { class: "save-state", role: "status", "aria-live": "polite", text: "Sealed" });
  const count = el("p", { class: "tag" });
  const target = el("input", { id: "word-target", type: "number", min: 0, value: 500, size: 6 });
  const list = el("div", {});
  const errors = el("div", { "aria-live": "assertive" });

  const render = () => {
    replace(list, blocks.map((block, index) => blockRow(block, index)));
    const total = blocks.reduce((sum, b) => sum + words(b.text), 0);
    count.textContent = `${total} words of a ${target.value}-word target`;
  };
  let edits = 0, chain = Promise.resolve(), pending = false;
  const busy = () => area.contains(document.activeElement) || !state.textContent.startsWith("Sealed");
  const changed = () => {
    edits++;
    state.textContent = "Unsaved changes";
    clearTimeout(timer);
    timer = setTimeout(save, pause);
    const total = blocks.reduce((sum, b) => sum + words(b.text), 0);
    count.textContent = `${total} words of a ${target.value}-word target`;
  };
  // Saves run one after another, so an earlier one never lands after a later one; a save marks the
  // document sealed only if nothing was typed while it ran.
  // Set once a save is refused as view-only: nothing more is sent (each would be refused too).
  let refused = false;
  const save = () => { clearTimeout(timer); chain = chain.then(send); return chain; };
  const send = async () => {
    if (refused) return;
    const typed = edits;
    state.textContent = "Saving…";
    try {
      // What is sent is copied before the wait: words typed meanwhile are not in it, nor in the new base.
      const sent = blocks.slice(), payload = api.wire(sent);
      const result = await api.put(documentPath, { blocks: payload, base });
      result.blocks.forEach((id, index) => { sent[index].id = id; payload[index].id = id; });
      base = payload;
      history.splice(position + 1);
      history.push(structuredClone(blocks));
      position = history.length - 1;
      if (edits === typed) state.textContent = `Sealed (${result.sealed} block${result.sealed === 1 ? "" : "s"} resealed)`;
      replace(errors);
      if (pending && !busy()) reload();
    } catch (error) {
      if (await changedElsewhere(error)) return;
      if (isViewOnlyRefusal(error)) {
        refused = true;
        clearTimeout(timer);
        await viewOnly(error, blocks);
        return;
      }
      state.textContent = "Not saved";
      replace(errors, errorText(error));
    }
  };
  // The server kept the page's words as a branch because the document changed elsewhere: show the
  // document as it is now, and say where the words are.
  const changedElsewhere = async (error) => {
    if (error.status !== 409 || error.code !== "conflict") return false;
    const fresh = await api.get(documentPath);
    blocks = fresh.blocks.map((b) => ({ ...b }));
    base = api.wire(blocks);
    history.push(structuredClone(blocks));
    position = history.length - 1;
    render();
    state.textContent = "Changed elsewhere while you typed: your words are kept as a branch (see History)";
    replace(errors, el("p", { role: "alert", class: "field-error", text: error.message }));
    return true;
  };
  const restore = async (step) => {
    const next = position + step;
    if (next < 0 || next >= history.length) return;
    position = next;
    blocks = structuredClone(history[position]);
    render();
    state.textContent = "Saving…";
    try {
      const sent = blocks, payload = api.wire(sent);
      const result = await api.put(documentPath, { blocks: payload, base });
      result.blocks.forEach((id, index) => { sent[index].id = id; payload[index].id = id; });
      base = payload;
      state.textContent = "Sealed";
    } catch (error) { if (!(await changedElsewhere(error))) replace(errors, errorText(error)); }
  };

  function blockRow(block, index) {
    if (block.kind.startsWith("field-")) return fieldRow(block, index);
    const kind = el("select", { "aria-label": `Block ${index + 1} kind` },
      [...new Set([...kinds, block.kind])].map((k) => el("option", { value: k, selected: k === block.kind, text: k })));
    kind.addEventListener("change", () => { block.kind = kind.value; render(); changed(); });
    const text = el("textarea", { "aria-label": `Block ${index + 1} text`, class: block.kind.split("-")[0], rows: 2 });
    text.value = block.text;
    text.addEventListener("input", () => { block.text = text.value; changed(); });
    text.addEventListener("focus", () => { lastEdited = index; });
    const remove = el("button", { class: "secondary", "aria-label": `Remove block ${index + 1}`, text: "Remove" });
    remove.addEventListener("click", () => { blocks.splice(index, 1); render(); changed(); });
    return el("div", { class: "block" }, kind, text, remove);
  }

  // A register's field (a legal party's type, a clinical record's relationship): its label, its text.
  function fieldRow(block, index) {
    const id = `field-${index}`;
    const text = el("textarea", { id, rows: 1 });
    text.value = block.text;
    text.addEventListener("input", () => { block.text = text.value; changed(); });
    return el("div", { class: "block" }, el("label", { for: id, text: block.label || block.kind }), text);
  }

  const add = el("button", { class: "secondary", text: "Add a paragraph" });
  add.addEventListener("click", () => {
    blocks.push({ id: null, kind: "paragraph", text: "", rows: [] });
    render();
    list.lastElementChild.querySelector("textarea").focus();
  });
  const snippetChoice = el("select", { id: "snippet-choice" }, snippets.map((s) => el("option", { value: s.id, text: s.name })));
  const insert = el("button", { class: "secondary", text: "Insert snippet" });
  insert.addEventListener("click", () => {
    const snippet = snippets.find((s) => s.id === snippetChoice.value);
    if (!snippet) return;
    const at = lastEdited >= 0 && lastEdited < blocks.length ? lastEdited + 1 : blocks.length;
    blocks.splice(at, 0, ...snippet.blocks.map((b) => ({ id: null, kind: b.kind, text: b.text, rows: b.rows })));
    render();
    changed();
    list.children[at]?.querySelector("textarea")?.focus();
  });
  const snippetForm = snippets.length === 0 ? null : el("p", {},
    el("label", { for: "snippet-choice", text: "Snippet from the library" }), snippetChoice, " ", insert);
  const undo = el("button", { class: "secondary", text: "Undo" });
  undo.addEventListener("click", () => restore(-1));
  const redo = el("button", { class: "secondary", text: "Redo" });
  redo.addEventListener("click", () => restore(+1));
  area.addEventListener("keydown", (event) => {
    if (!(event.ctrlKey || event.metaKey) || event.key.toLowerCase() !== "z") return;
    event.preventDefault();
    restore(event.shiftKey ? +1 : -1);
  });
  target.addEventListener("input", render);

  // A change made elsewhere (the CLI, another device) is shown at once, unless the writer is in the
  // editor or has unsaved words: then it waits until the editor is left and everything is sealed, and
  // it is dropped (kept pending) if the writer typed while it was fetched, so nothing typed is lost.
  const same = (a, b) => JSON.stringify(a.map(({ id, kind, text }) => [id, kind, text])) === JSON.stringify(b.map(({ id, kind, text }) => [id, kind, text]));
  const reload = async () => {
    if (busy()) { pending = true; return; }
    pending = false;
    const typed = edits;
    const fresh = await api.get(documentPath).catch(() => null);
    if (!fresh || edits !== typed || busy()) { pending = true; return; }
    if (same(fresh.blocks, blocks)) return;
    blocks = fresh.blocks.map((b) => ({ ...b }));
    base = api.wire(blocks);
    history.push(structuredClone(blocks));
    position = history.length - 1;
    render();
    state.textContent = "Sealed (updated from elsewhere)";
  };
  const stopUpdates = live.subscribe((change) => { if (change.subjects.includes(documentID)) reload(); });
  area.addEventListener("focusout", (event) => {
    if (pending && !area.contains(event.relatedTarget)) reload();
  });
  const toText = switchToText && el("button", { class: "secondary", text: "Show as one text" });
  toText?.addEventListener("click", async () => {
    clearTimeout(timer);
    if (state.textContent !== "Sealed" && !state.textContent.startsWith("Sealed (")) await save();
    if (fitsOneText(blocks)) await switchToText();
    else replace(errors, el("p", { class: "field-error", role: "alert", text: "This document has fields or tables, which only the block view shows." }));
  });
  replace(area, el("h2", { text: loaded.title }), state, errors, list,
    el("p", {}, add, " ", undo, " ", redo, toText ? " " : null, toText), snippetForm,
    el("label", { for: "word-target", text: "Session target (words)" }), target, count);
  render();
  return stopUpdates;
}
