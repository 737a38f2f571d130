// How a hand and a match ended: every hand left revealed, each seat's score for the hand and
// its running total; then the match's winners and final totals. Figures are also in `data-*`
// attributes for the tests to compare with the API's.

import { cardImage } from "./cards.js";
import { h } from "./dom.js";

/** @typedef {import("./types.js").HandResult} HandResult */
/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./words.js").Names} Names */

/**
 * The last hand's result.
 * @param {HandResult} result
 * @param {Names} names
 */
export function handResult(result, names) {
  const outcome = result.outcome.kind === "went_out"
    ? `${names.of(result.outcome.seat)} went out.`
    : "The hand was blocked: the stock is empty and nobody could play.";
  const winners = result.winners.length ? `Won by ${names.list(result.winners, { capital: false })}.` : "Nobody won it.";
  return h("section", { class: "panel hand-result", "aria-labelledby": "hand-result-title", "data-hand": result.hand },
    h("h2", { id: "hand-result-title", text: `Hand ${result.hand}` }),
    h("p", { text: `${outcome} ${winners}` }),
    h("div", { class: "table-scroll" }, h("table", {},
      h("thead", {}, h("tr", {},
        h("th", { scope: "col", text: "Player" }), h("th", { scope: "col", text: "Cards left" }),
        h("th", { scope: "col", text: "This hand" }), h("th", { scope: "col", text: "Total" }))),
      h("tbody", {}, result.totals.map((total, seat) => h("tr", { "data-result-seat": seat, "data-total": total },
        h("th", { scope: "row", text: names.player(seat) }),
        h("td", {}, (result.hands[seat] ?? []).length === 0 ? "none"
          : h("span", { class: "mini-hand" }, (result.hands[seat] ?? []).map((card) => cardImage(card)))),
        h("td", { text: String(result.hand_scores[seat] ?? 0) }),
        h("td", { text: String(total) })))))));
}

/**
 * The match's end: who won, how it ended, the final totals.
 * @param {MatchSummary} summary
 * @param {Names} names
 * @param {HTMLElement[]} actions Buttons for what comes next (rematch, replay, export).
 */
export function matchResult(summary, names, actions) {
  const result = summary.result;
  if (!result) return null;
  const how = {
    finished: "The match is over.",
    resigned: "The match is over: the others resigned.",
    timeout: "The match is over: the others ran out of time.",
    aborted: "The match was called off before anybody played.",
  }[result.ended_by];
  const winners = result.winners.map((winner) => winner.seat);
  return h("section", { class: "panel match-result", "aria-labelledby": "match-result-title", "data-ended-by": result.ended_by },
    h("h2", { id: "match-result-title", text: winners.length ? `${names.win(winners)}!` : "No winner" }),
    h("p", { text: how }),
    result.totals.length ? h("ol", { class: "final-totals" }, result.totals.map((total, seat) =>
      h("li", { "data-final-seat": seat, "data-total": total, class: winners.includes(seat) ? "winner" : "" },
        `${names.player(seat)}: ${total} points`))) : null,
    h("div", { class: "button-row" }, actions));
}
