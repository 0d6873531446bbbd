// Reordering a project's binder, the same way from the binder tree and the outline: by keyboard on a
// focused item (Alt+Up / Alt+Down among its siblings, Alt+Right into the folder above it, Alt+Left
// out of its folder) and by dragging an item onto another (before it; onto a folder's name, into it).
import * as api from "./api.js";
import { status } from "./dom.js";

const siblingsOf = (nodes, node) => nodes.filter((n) => (n.parent ?? null) === (node.parent ?? null));

// Moves `node`; a refused move (a folder into itself) is said in the status line, and nothing moves.
async function move(project, node, parent, before) {
  try {
    await api.post(`/api/projects/${project.id}/nodes/${node.id}/move`, { parent, before });
    return true;
  } catch (error) {
    status(`Not moved: ${error.message}`);
    return false;
  }
}

// The move a key asks for, or null: {parent, before} for moveNode.
export function keyMove(nodes, node, key) {
  const siblings = siblingsOf(nodes, node);
  const index = siblings.findIndex((n) => n.id === node.id);
  const parent = node.parent ?? null;
  if (key === "ArrowUp" && index > 0) return { parent, before: siblings[index - 1].id };
  if (key === "ArrowDown" && index < siblings.length - 1) return { parent, before: siblings[index + 2]?.id ?? null };
  if (key === "ArrowRight" && index > 0 && siblings[index - 1].kind === "chapter") return { parent: siblings[index - 1].id, before: null };
  if (key === "ArrowLeft" && parent !== null) {
    const folder = nodes.find((n) => n.id === parent);
    const outer = siblingsOf(nodes, folder);
    return { parent: folder.parent ?? null, before: outer[outer.findIndex((n) => n.id === folder.id) + 1]?.id ?? null };
  }
  return null;
}

// Moves `node` as the arrow key `key` asks (the binder's buttons call it too) and redraws, keeping
// the focus on the moved item.
export async function moveByKey(project, node, key, refresh) {
  const wanted = keyMove(project.nodes, node, key);
  if (wanted && await move(project, node, wanted.parent, wanted.before)) await refresh(node.id);
}

// A keydown handler for an item: Alt and an arrow key move it.
export function onReorderKey(project, node, refresh) {
  return (event) => {
    if (!event.altKey || !keyMove(project.nodes, node, event.key)) return;
    event.preventDefault();
    moveByKey(project, node, event.key, refresh);
  };
}

// Attributes that make an element a drag source and a drop target for binder items.
export function dragAttributes(project, node, refresh) {
  return {
    draggable: "true",
    // Binder items nest (a folder's <li> holds its documents'), so each handler stops the event at the
    // innermost item: dragging a document never drags its folder, and a drop moves once.
    ondragstart: (event) => {
      event.stopPropagation();
      event.dataTransfer.setData("application/x-binder-node", node.id);
      event.dataTransfer.effectAllowed = "move";
    },
    ondragover: (event) => {
      if (!event.dataTransfer.types.includes("application/x-binder-node")) return;
      event.stopPropagation();
      event.preventDefault();
      event.dataTransfer.dropEffect = "move";
    },
    ondrop: async (event) => {
      event.stopPropagation();
      const dragged = project.nodes.find((n) => n.id === event.dataTransfer.getData("application/x-binder-node"));
      if (!dragged || dragged.id === node.id) return;
      event.preventDefault();
      // Onto a folder: into it, at the end. Onto a document: before it, in its folder.
      const moved = node.kind === "chapter" ? await move(project, dragged, node.id, null)
        : await move(project, dragged, node.parent ?? null, node.id);
      if (moved) await refresh(dragged.id);
    },
  };
}
