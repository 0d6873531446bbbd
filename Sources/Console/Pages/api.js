// The appliance API, as the page calls it. The CSRF token is kept in this module's memory only
// (never in the browser's storage); the session cookie is HttpOnly and the page never sees it.
let csrf = null;

export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

export async function start() {
  const session = await call("GET", "/api/session");
  csrf = session.csrf;
}

export async function call(method, path, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrf || "";
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin", cache: "no-store",
  });
  const payload = await response.json().catch(() => ({}));
  if (!response.ok) throw new ApiError(response.status, payload.error || "failed", payload.message || `HTTP ${response.status}`);
  return payload;
}

export const get = (path) => call("GET", path);
export const post = (path, body) => call("POST", path, body);
export const put = (path, body) => call("PUT", path, body);
export const remove = (path) => call("DELETE", path);
export const segment = (text) => encodeURIComponent(text);
