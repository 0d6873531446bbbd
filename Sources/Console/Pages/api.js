// The appliance API, as the page calls it. The CSRF token is kept in this module's memory only
// (never in the browser's storage); the session cookie is HttpOnly and the page never sees it.
let csrf = null;

export class ApiError extends Error {
  // `payload`: the whole answer, for an error that says more than its message (a save refused as
  // view-only names where the words were kept).
  constructor(status, code, message, payload = {}) {
    super(message);
    this.status = status;
    this.code = code;
    this.payload = payload;
  }
}

export async function start() {
  const session = await call("GET", "/api/session");
  csrf = session.csrf;
}

// `keepalive`: the request outlives the page (a hold released as the page closes).
export async function call(method, path, body, keepalive = false) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf || "";
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin", cache: "no-store", keepalive,
  });
  const payload = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, payload.error || "failed", payload.message || `HTTP ${response.status}`, payload);
  return payload;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body);
export const put = (path, body) => call("PUT", path, body);
export const remove = (path) => call("DELETE", path);
export const removeAsPageCloses = (path) => call("DELETE", path, undefined, true);
export const segment = (text) => encodeURIComponent(text);
// A document's blocks as the API takes them.
export const wire = (blocks) => blocks.map(({ id, kind, text, rows }) => ({ id, kind, text, rows }));

// A POST whose answer streams JSON lines (an assistant run): each line is handed to `onLine` as it
// arrives. An error before the stream starts is thrown as `call` throws it.
export async function postLines(path, body, onLine) {
  const response = await fetch(path, {
    method: "POST", credentials: "same-origin", cache: "no-store",
    headers: { Accept: "application/x-ndjson", "Content-Type": "application/json", "X-CSRF-Token": csrf || "" },
    body: JSON.stringify(body),
  });
  if (!response.ok) {
    const payload = await response.json().catch(() => ({}));
    throw new ApiError(response.status, payload.error || "failed", payload.message || `HTTP ${response.status}`);
  }
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let buffered = "";
  for (;;) {
    const { value, done } = await reader.read();
    buffered += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    let newline;
    while ((newline = buffered.indexOf("\n")) >= 0) {
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + 1);
      if (line.trim()) onLine(JSON.parse(line));
    }
    if (done) return;
  }
}
