// Building the page safely: every text goes in through textContent or an attribute, never as HTML
// (the CSP forbids inline script anyway; this keeps a hostile title from becoming markup).
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === false || value === null || value === undefined) continue;
    if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
    else if (name === "text") node.textContent = value;
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

export function replace(container, ...children) {
  container.replaceChildren(...children.flat().filter((child) => child));
}

export function status(text) {
  document.getElementById("status").textContent = text;
}

// An error shown next to what caused it, and announced.
export function errorText(error) {
  return el("p", { class: "field-error", role: "alert", text: error.message || String(error) });
}

export function words(text) {
  const matches = text.match(/[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu);
  return matches ? matches.length : 0;
}
