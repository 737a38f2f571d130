// A replay (`#/replay/<id>?at=<n>`): the table after any event of the log, from
// `GET /v1/matches/{id}/replay?at=n` (every hand open once the match has ended; the player's
// own seat while it runs, so a player may look back over their own turns), with a scrubber,
// step buttons, playing on by itself, and the export to download.

import { explain } from "./api.js";
import { board } from "./board.js";
import { cardImage } from "./cards.js";
import { fill, h } from "./dom.js";
import { downloadExport, handResult } from "./results.js";
import { seatList } from "./seats.js";
import { Names, eventText } from "./words.js";

/** @typedef {import("./types.js").MatchView} MatchView */
/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./types.js").LoggedEvent} LoggedEvent */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 * @param {import("./app.js").Route} route
 */
export function mountReplay(root, context, route) {
  const id = route.parts[0] ?? "";
  const watch = route.query.get("watch");
  const query = watch ? { watch } : {};
  context.title("Replay");
  const scrubber = h("input", { type: "range", id: "replay-at", min: 0, max: 0, step: 1, value: "0" });
  const position = h("output", { for: "replay-at", class: "replay-position" });
  const said = h("p", { class: "replay-event", "aria-live": "polite" });
  const table = h("div", { class: "replay-table" });
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const playButton = h("button", { type: "button", "data-action": "play", text: "Play" });
  const step = (/** @type {number} */ by) => go(Number(scrubber.value) + by);
  const controls = h("div", { class: "replay-controls", role: "group", "aria-label": "Replay" },
    h("button", { type: "button", "data-action": "first", "aria-label": "To the start", text: "«", onclick: () => go(0) }),
    h("button", { type: "button", "data-action": "back", "aria-label": "One event back", text: "◀", onclick: () => step(-1) }),
    h("label", { for: "replay-at", text: "Event" }), scrubber, position,
    h("button", { type: "button", "data-action": "forward", "aria-label": "One event on", text: "▶", onclick: () => step(1) }),
    h("button", { type: "button", "data-action": "last", "aria-label": "To the end", text: "»", onclick: () => go(Number(scrubber.max)) }),
    playButton);
  const page = h("div", { class: "replay-page", "data-match": id },
    h("h1", { text: "Replay" }),
    h("nav", { class: "table-links" }, h("a", { href: `#/match/${id}${watch ? `?watch=${encodeURIComponent(watch)}` : ""}`, text: "Back to the table" })),
    controls, said, error, table);
  fill(root, page);

  let live = true;
  /** @type {MatchSummary | null} */
  let summary = null;
  /** @type {LoggedEvent[]} */
  let events = [];
  /** @type {Map<number, Promise<MatchView>>} */
  const views = new Map();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let pending;
  /** @type {ReturnType<typeof setInterval> | undefined} */
  let playing;

  const fetchAt = (/** @type {number} */ at) => {
    let view = views.get(at);
    if (!view) {
      view = context.api.get("/v1/matches/{id}/replay", { path: { id }, query: { at, ...query } });
      view.catch(() => views.delete(at));
      views.set(at, view);
    }
    return view;
  };

  const show = async (/** @type {number} */ at) => {
    try {
      const view = await fetchAt(at);
      if (!live || Number(scrubber.value) !== at) return;
      error.hidden = true;
      draw(view, at);
      // The next position is likely next: ask for it already.
      if (at < Number(scrubber.max)) void fetchAt(at + 1).catch(() => {});
    } catch (failure) {
      if (!live) return;
      error.textContent = explain(failure);
      error.hidden = false;
    }
  };

  const go = (/** @type {number} */ at) => {
    const clamped = Math.max(0, Math.min(Number(scrubber.max), at));
    scrubber.value = String(clamped);
    position.textContent = `${clamped} of ${scrubber.max}`;
    history.replaceState(null, "", `#/replay/${id}?at=${clamped}${watch ? `&watch=${encodeURIComponent(watch)}` : ""}`);
    clearTimeout(pending);
    pending = setTimeout(() => { void show(clamped); }, 80);
  };

  const draw = (/** @type {MatchView} */ view, /** @type {number} */ at) => {
    const names = new Names(summary, view.your_seat ?? null);
    const event = events.find((logged) => logged.seq === at);
    said.textContent = at === 0 ? "Before the first deal." : event ? `${at}: ${eventText(event.event, names)}` : `After event ${at}.`;
    const hands = view.all_hands
      ? h("section", { class: "panel all-hands", "aria-label": "Every hand" },
        h("h2", { class: "small-title", text: "Hands" }),
        h("ul", { class: "hands" }, view.all_hands.map((cards, seat) => h("li", { "data-hand-seat": seat, "data-cards": cards.join(" ") },
          h("span", { class: "seat-name", text: names.player(seat) }),
          h("span", { class: "mini-hand" }, cards.length ? cards.map((card) => cardImage(card)) : "no cards")))))
      : view.hand ? h("section", { class: "panel all-hands", "aria-label": "Your hand" },
        h("h2", { class: "small-title", text: "Your hand" }),
        h("span", { class: "mini-hand", "data-cards": view.hand.join(" ") }, view.hand.map((card) => cardImage(card)))) : null;
    fill(table,
      h("section", { class: "seats", "aria-label": "Players" }, seatList(view, summary)),
      h("section", { class: "felt", "aria-label": "The layout" }, board({ view, onPile: null })),
      hands,
      view.last_hand ? handResult(view.last_hand, names) : null);
    page.dataset.at = String(at);
    page.dataset.version = String(view.version);
  };

  scrubber.addEventListener("input", () => go(Number(scrubber.value)));
  playButton.addEventListener("click", () => {
    if (playing) {
      clearInterval(playing);
      playing = undefined;
      playButton.textContent = "Play";
      return;
    }
    playButton.textContent = "Pause";
    playing = setInterval(() => {
      if (Number(scrubber.value) >= Number(scrubber.max)) {
        clearInterval(playing);
        playing = undefined;
        playButton.textContent = "Play";
        return;
      }
      step(1);
    }, 700);
  });

  (async () => {
    try {
      summary = await context.api.get("/v1/matches/{id}", { path: { id }, query });
      let after = 0;
      for (;;) {
        const page = await context.api.get("/v1/matches/{id}/events", { path: { id }, query: { after, ...query } });
        events.push(...page.events);
        const last = page.events[page.events.length - 1];
        if (!last || last.seq >= page.version) break;
        after = last.seq;
      }
      if (!live) return;
      scrubber.max = String(summary.version);
      if (context.session.username && (summary.status === "finished" || summary.status === "aborted")) {
        controls.after(h("p", {}, h("button", {
          type: "button", class: "quiet", "data-action": "export", text: "Download the export",
          onclick: () => { void downloadExport(context, id); },
        })));
      }
      const asked = route.query.get("at");
      go(asked === null ? summary.version : Number(asked));
    } catch (failure) {
      if (!live) return;
      error.textContent = explain(failure);
      error.hidden = false;
    }
  })();

  return () => {
    live = false;
    clearTimeout(pending);
    clearInterval(playing);
  };
}
