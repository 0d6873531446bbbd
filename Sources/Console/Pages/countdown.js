// A privileged session's time left, ticking each second, re-read from the daemon every 20 seconds
// (each read or write through the session moves its idle end on); when it reaches zero the project
// is shown locked again, since the daemon has ended the session and drops its keys.
import * as api from "./api.js";
import { el } from "./dom.js";

const refresh = 20;

const clock = (seconds) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, "0")}`;

export function sessionCountdown(session, onEnded) {
  let endsAt = Date.now() + session.ends_in * 1000, hardEndsAt = Date.now() + session.hard_end_in * 1000, sinceRead = 0;
  const text = el("span", { class: "countdown" });
  const spoken = el("span", { class: "visually-hidden", role: "status", "aria-live": "polite" });
  const timer = setInterval(async () => {
    if (!text.isConnected) { clearInterval(timer); return; }
    const left = Math.max(0, Math.round((endsAt - Date.now()) / 1000));
    show(left);
    if (++sinceRead >= refresh || left === 0) {
      sinceRead = 0;
      const live = (await api.get("/api/sessions").catch(() => [])).find((s) => s.id === session.id);
      if (!live) { clearInterval(timer); onEnded(); return; }
      endsAt = Date.now() + live.ends_in * 1000;
      hardEndsAt = Date.now() + live.hard_end_in * 1000;
    }
  }, 1000);
  const show = (left) => {
    const hard = Math.max(0, Math.round((hardEndsAt - Date.now()) / 1000));
    text.textContent = `Session: ${clock(left)} left if idle (at most ${clock(hard)})`;
    // Announced once a minute, and in the last minute, not every second.
    if (left % 60 === 0 || left === 30 || left === 10) spoken.textContent = `Session ends in ${clock(left)} unless you keep working.`;
  };
  show(session.ends_in);
  return el("span", {}, text, spoken);
}
