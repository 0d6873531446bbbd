// A document of a project shared with this device to view only (SECURITY.md §19.9): its blocks as
// text under a notice, nothing to type into and no autosave, so the page never sends a change the
// vault would refuse. What the owner changes is shown as it arrives.
import * as api from "./api.js";
import { el, replace } from "./dom.js";
import * as live from "./live.js";

export function readOnlyView(area, documentPath, loaded) {
  const list = el("div", { class: "read-only" });
  const render = (blocks) => replace(list, blocks.map((block) => el("p", { class: block.kind.split("-")[0], text: block.text })));
  render(loaded.blocks);
  replace(area, el("h2", { text: loaded.title }),
    el("p", { class: "tag", role: "note", text: "Shared with you to view only: the owner's device takes no changes from this one, so this page saves nothing." }),
    list);
  return live.subscribe(async (change) => {
    if (!change.subjects.includes(loaded.id)) return;
    const fresh = await api.get(documentPath).catch(() => null);
    if (fresh) render(fresh.blocks);
  });
}
