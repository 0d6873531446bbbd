// A document as one text, for the single text view of a long-form project, and back: a block per
// paragraph, blank lines between them; "# " to "###### " mark headings, "> " a quote, "- " a list
// item, and a backslash before a paragraph that would otherwise read as one of those (or that
// begins with a backslash), so "- not a list" stays a paragraph through any number of round trips.
// Reading the text back keeps the ids of blocks whose place in the document it can tell, so an edit
// reseals only what changed and a block keeps its identity (for history, branches and sync).

const prefixes = [["heading-", /^(#{1,6}) /], ["quote", /^> /], ["list-item", /^- /]];

// Only documents made of these can be shown as one text; fields and tables need the block editor.
export const textKinds = new Set(["paragraph", "quote", "list-item", "heading-1", "heading-2", "heading-3", "heading-4", "heading-5", "heading-6"]);

// Texts that one text cannot carry unchanged: a blank line inside (it would split the paragraph), or
// a line break at either end (it would be trimmed). Empty blocks carry no words and are dropped.
const unsafe = /\n[ \t]*\n|^\n|\n$/;

export const fitsOneText = (blocks) => blocks.every((b) => textKinds.has(b.kind) && !unsafe.test(b.text));

const looksMarked = (text) => text.startsWith("\\") || prefixes.some(([, pattern]) => pattern.test(text));

export function toText(blocks) {
  return blocks.map((b) => {
    if (b.kind.startsWith("heading-")) return "#".repeat(Number(b.kind.slice(8))) + " " + b.text;
    if (b.kind === "quote") return "> " + b.text;
    if (b.kind === "list-item") return "- " + b.text;
    return looksMarked(b.text) ? "\\" + b.text : b.text;
  }).join("\n\n");
}

function parseParagraph(chunk) {
  if (chunk.startsWith("\\")) return { kind: "paragraph", text: chunk.slice(1) };
  for (const [kind, pattern] of prefixes) {
    const match = chunk.match(pattern);
    if (match) return { kind: kind === "heading-" ? kind + match[1].length : kind, text: chunk.slice(match[0].length) };
  }
  return { kind: "paragraph", text: chunk };
}

// The text's paragraphs as blocks. The old blocks the text begins and ends with unchanged keep their
// ids; in between, blocks are paired by position (an edited paragraph keeps its id), and what is
// left over is new (id null) or removed.
export function fromText(text, old) {
  const blocks = text.split(/\n[ \t]*\n/).map((c) => c.replace(/^\n+|\n+$/g, "")).filter((c) => c.trim() !== "").map(parseParagraph);
  const same = (a, b) => a.kind === b.kind && a.text === b.text;
  let head = 0;
  while (head < blocks.length && head < old.length && same(blocks[head], old[head])) head++;
  let tail = 0;
  while (tail < blocks.length - head && tail < old.length - head && same(blocks[blocks.length - 1 - tail], old[old.length - 1 - tail])) tail++;
  return blocks.map((block, index) => {
    let from = null;
    if (index < head) from = old[index];
    else if (index >= blocks.length - tail) from = old[old.length - (blocks.length - index)];
    else if (index - head < old.length - head - tail) from = old[index];
    return { id: from ? from.id : null, kind: block.kind, text: block.text, rows: [] };
  });
}
