// Live updates: one EventSource on /api/events for the page's life. Each "change" event names the
// ids of what changed (in this console, the CLI or another device); the current view's handlers
// decide what to fetch again. Handlers are dropped when the view changes; a view's leave handlers
// (an editor releasing its hold) run then, and when the page itself goes away.
let handlers = [];
let leaving = [];
let source = null;

export function start() {
  if (source) return;
  source = new EventSource("/api/events");
  source.addEventListener("change", (event) => {
    const change = JSON.parse(event.data);
    for (const handler of handlers) handler(change);
  });
  window.addEventListener("pagehide", leave);
}

// Returns the function that drops this handler again (a view replaced within the same page).
export function subscribe(handler) {
  handlers.push(handler);
  return () => { handlers = handlers.filter((h) => h !== handler); };
}

// Runs `handler` once, when the view is replaced or the page goes away.
export function onLeave(handler) {
  leaving.push(handler);
}

function leave() {
  const running = leaving;
  leaving = [];
  for (const handler of running) handler();
}

export function reset() {
  handlers = [];
  leave();
}
