// What happened at the table, in words, and what the players said: the log of events (newest
// last) and the table talk, which is shown as text only (docs/rules.md §10), isolated so its
// direction cannot reorder what follows it; and the form that says something.

import { explain } from "./api.js";
import { foreign, h } from "./dom.js";
import { eventText } from "./words.js";

/** @typedef {import("./types.js").LoggedEvent} LoggedEvent */
/** @typedef {import("./words.js").Names} Names */

/** Lines of the log kept on the page (the replay has the rest). */
const SHOWN = 400;

/**
 * The log's lines.
 * @param {LoggedEvent[]} events
 * @param {Names} names
 */
export function logLines(events, names) {
  return events.slice(-SHOWN).map((logged) => h("li", { "data-seq": logged.seq, class: `event ${logged.event.type}` },
    logged.event.type === "table_talk"
      ? [h("span", { class: "speaker", text: `${names.of(logged.event.seat)}: ` }), foreign(logged.event.text)]
      : eventText(logged.event, names)));
}

/**
 * The talk's lines; `reportable` gives a line of another seat its "Report" button.
 * @param {LoggedEvent[]} events
 * @param {Names} names
 * @param {((logged: LoggedEvent) => HTMLElement) | null} [reportable]
 */
export function talkLines(events, names, reportable = null) {
  return events.flatMap((logged) => logged.event.type === "table_talk"
    ? [h("li", { "data-seq": logged.seq, class: "talk-line" },
      h("span", { class: "speaker", text: `${names.of(logged.event.seat)}: ` }), foreign(logged.event.text, "said"),
      reportable && logged.event.seat !== names.yourSeat ? reportable(logged) : null)]
    : []);
}

/**
 * The form of a seated player's talk.
 * @param {import("./app.js").Context} context
 * @param {string} matchId
 * @param {(said: LoggedEvent) => void} said Called with what the server logged.
 */
export function talkForm(context, matchId, said) {
  const text = h("input", { id: "talk-text", maxLength: 500, required: true, autocomplete: "off", placeholder: "Say something to the table" });
  const send = h("button", { type: "submit", text: "Send" });
  return h("form", {
    class: "talk-form", "data-form": "talk",
    onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      send.disabled = true;
      try {
        said(await context.api.post("/v1/matches/{id}/messages", { path: { id: matchId }, body: { text: text.value } }));
        text.value = "";
      } catch (error) {
        context.toast(explain(error), "error");
      } finally {
        send.disabled = false;
      }
    },
  }, h("label", { for: "talk-text", class: "visually-hidden", text: "Message" }), text, send);
}

/**
 * Scrolls a list to its end if the reader was at the end already.
 * @param {HTMLElement} list
 * @param {() => void} change
 */
export function keepAtEnd(list, change) {
  const atEnd = list.scrollHeight - list.scrollTop - list.clientHeight < 40;
  change();
  if (atEnd) list.scrollTop = list.scrollHeight;
}
