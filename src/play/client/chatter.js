// What happened at the table, in words, and what the players said: the log of events (newest
// last) and the table talk, which is shown as text only (docs/rules.md §10), isolated so its
// direction cannot reorder what follows it.

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
 * The talk's lines.
 * @param {LoggedEvent[]} events
 * @param {Names} names
 */
export function talkLines(events, names) {
  return events.flatMap((logged) => logged.event.type === "table_talk"
    ? [h("li", { "data-seq": logged.seq, class: "talk-line" },
      h("span", { class: "speaker", text: `${names.of(logged.event.seat)}: ` }), foreign(logged.event.text, "said"))]
    : []);
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
