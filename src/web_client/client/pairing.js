// Quick pairing in the lobby (README "Quick pairing"): ask for a kind of table instead of
// waiting for one, and the server seats you with others who asked for the same (`POST
// /v1/seeks`); your seeks waiting, each to withdraw, and the tables they were seated at. The
// list is read again when the account stream says a match started.

import { explain } from "./api.js";
import { fill, h, plural, timeElement } from "./dom.js";
import { clockOptions } from "./vocabulary.js";

/** @typedef {import("./types.js").RulesCatalog} RulesCatalog */
/** @typedef {import("./types.js").ClockPreset} ClockPreset */
/** @typedef {import("./types.js").SeekPreset} SeekPreset */
/** @typedef {import("./types.js").SeekView} SeekView */

/** How long an unrated seek may wait before bots take the empty seats, as offered. */
const BOTS_AFTER = [["", "never: people only"], ["60", "after a minute"], ["600", "after ten minutes"]];

/**
 * @param {RulesCatalog} catalog
 * @param {import("./app.js").Context} context
 * @returns {{ panel: HTMLElement, stop: () => void }}
 */
export function quickPairing(catalog, context) {
  const preset = h("select", { id: "seek-preset" },
    catalog.presets.map((known) => h("option", { value: known.name, text: known.name })));
  const seats = h("input", { id: "seek-seats", type: "number", min: 2, max: 8, step: 1, required: true, value: "2" });
  const clock = h("select", { id: "seek-clock" },
    h("option", { value: "", text: "no clock" }),
    clockOptions(catalog));
  const rated = h("input", { type: "checkbox", id: "seek-rated", disabled: true });
  const botsAfter = h("select", { id: "seek-bots-after" },
    BOTS_AFTER.map(([value, text]) => h("option", { value, text })));
  const mine = h("div", { class: "seek-list", "aria-live": "polite" });
  const submit = h("button", { type: "submit", text: "Find me a table" });
  const error = h("p", { class: "error", role: "alert", hidden: true });

  // A rated table needs a clock and seats people only.
  const fit = () => {
    rated.disabled = clock.value === "";
    if (rated.disabled) rated.checked = false;
    botsAfter.disabled = rated.checked;
    if (rated.checked) botsAfter.value = "";
  };
  clock.addEventListener("change", fit);
  rated.addEventListener("change", fit);
  preset.addEventListener("change", () => {
    const chosen = catalog.presets.find((known) => known.name === preset.value);
    seats.value = String(chosen?.rules.players ?? 2);
  });

  let live = true;
  const load = async () => {
    try {
      const { seeks } = await context.api.get("/v1/me/seeks");
      if (live) show(seeks);
    } catch (failure) {
      if (live) fill(mine, h("p", { class: "error", role: "alert", text: explain(failure) }));
    }
  };

  /** @param {SeekView[]} seeks */
  const show = (seeks) => {
    const waiting = seeks.filter((seek) => seek.status === "open");
    const seated = seeks.filter((seek) => seek.status === "matched").slice(0, 3);
    fill(mine,
      waiting.length || seated.length ? null : h("p", { class: "muted", text: "You are not looking for a table." }),
      waiting.length ? h("ul", { class: "match-list" }, waiting.map((seek) => h("li", { class: "seek", "data-seek": seek.id, "data-status": seek.status },
        h("span", { text: `${seek.preset}, ${plural(seek.seats, "seat")}${seek.clock ? ", with a clock" : ""}${seek.rated ? ", rated" : ""}: looking…` }),
        h("span", { class: "muted" }, " · waits until ", timeElement(seek.expires_at), " "),
        h("button", {
          type: "button", class: "quiet", "data-action": "withdraw", text: "Withdraw",
          onclick: async () => {
            try {
              await context.api.delete("/v1/seeks/{id}", { path: { id: seek.id } });
            } catch (failure) {
              context.toast(explain(failure), "error");
            }
            void load();
          },
        })))) : null,
      seated.length ? h("ul", { class: "match-list" }, seated.map((seek) => h("li", { class: "seek", "data-seek": seek.id, "data-status": seek.status },
        h("span", { text: `${seek.preset}, ${plural(seek.seats, "seat")}: seated` }),
        seek.match_id ? h("a", { href: `#/match/${seek.match_id}`, class: "button", text: "Go to the table" }) : null))) : null);
  };

  const form = h("form", {
    class: "stack", "data-form": "seek",
    onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      error.hidden = true;
      submit.disabled = true;
      try {
        const seek = await context.api.post("/v1/seeks", {
          body: {
            // The form offers only the presets the server lists.
            preset: /** @type {SeekPreset} */ (preset.value),
            seats: Number(seats.value),
            clock: clock.value ? /** @type {ClockPreset} */ (clock.value) : undefined,
            rated: rated.checked,
            bots_after_seconds: botsAfter.value ? Number(botsAfter.value) : undefined,
          },
        });
        if (seek.status === "matched" && seek.match_id) {
          context.navigate(`#/match/${seek.match_id}`);
          return;
        }
        void load();
      } catch (failure) {
        error.textContent = explain(failure);
        error.hidden = false;
      } finally {
        submit.disabled = false;
      }
    },
  },
  h("p", { class: "muted", text: "The server seats you with others who ask for the same table; the match starts at once." }),
  h("span", { class: "field" }, h("label", { for: "seek-preset", text: "Rules" }), preset),
  h("span", { class: "field" }, h("label", { for: "seek-seats", text: "Seats" }), seats),
  h("span", { class: "field" }, h("label", { for: "seek-clock", text: "Clock" }), clock),
  h("span", { class: "field" }, rated, h("label", { for: "seek-rated", text: "Rated (needs a clock; people only)" })),
  h("span", { class: "field" }, h("label", { for: "seek-bots-after", text: "Bots in the empty seats" }), botsAfter),
  error, submit);

  const panel = h("section", { class: "panel", "aria-labelledby": "quick-pairing" },
    h("h2", { id: "quick-pairing", text: "Quick pairing" }), form,
    h("h3", { text: "Your seeks" }), mine);
  const unsubscribe = context.inbox.onNotification((notification) => {
    if (notification.type === "match_started") void load();
  });
  const again = setInterval(() => { if (document.visibilityState === "visible") void load(); }, 10_000);
  void load();
  return {
    panel,
    stop: () => {
      live = false;
      unsubscribe();
      clearInterval(again);
    },
  };
}
