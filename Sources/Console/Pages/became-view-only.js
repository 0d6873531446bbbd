// A save refused because the project became view-only while the writer typed (SECURITY.md §16.5;
// attack review s6, A6): its owner made this device a viewer. Every further save would be refused
// too, so the editor stops, and the page shows the document read-only as it is now, saying where
// the unsaved words went: the daemon kept them in a new project of the owner's own, linked here.
// Should it have kept none (the words were what the document holds), they are shown too, to copy.
import * as api from "./api.js";
import { el } from "./dom.js";
import { readOnlyView } from "./read-only-view.js";

export const isViewOnlyRefusal = (error) => error.status === 403 && error.code === "viewOnly";

// Shows the read-only document with the notice; returns what stops its live updates.
export async function becameViewOnly(area, documentPath, error, unsaved, title) {
  const fresh = await api.get(documentPath).catch(() => ({ id: null, title, blocks: [] }));
  const stop = readOnlyView(area, documentPath, fresh);
  const kept = error.payload?.kept;
  const notice = kept
    ? el("p", { role: "alert", class: "field-error" }, `${error.message}. `,
      el("a", { href: `#/projects/${api.segment(kept.project)}/${api.segment(kept.document)}`, text: `Open “${kept.name}”` }))
    : el("div", { role: "alert" },
      el("p", { class: "field-error", text: "This project became view-only while you were typing, so nothing was saved in it. Your words are below: copy them before you leave this page." }),
      el("textarea", { class: "kept-words", readonly: true, rows: 8, "aria-label": "Your unsaved words" }, unsaved.map((b) => b.text).join("\n\n")));
  area.insertBefore(notice, area.children[1] ?? null);
  return stop;
}
