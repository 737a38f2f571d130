// How a hand and a match ended: every hand left revealed, each seat's score for the hand and
// its running total; then the match's winners and final totals. Figures are also in `data-*`
// attributes for the tests to compare with the API's.

import { explain } from "./api.js";
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

/**
 * What comes after a match's end: a rematch (offered, or gone to), its replay, its export.
 * @param {MatchSummary} summary
 * @param {import("./app.js").Context} context
 * @param {{seated: boolean, watch: string | null}} options
 * @returns {HTMLElement[]}
 */
export function endActions(summary, context, options) {
  const watch = options.watch ? `?watch=${encodeURIComponent(options.watch)}` : "";
  /** @type {HTMLElement[]} */
  const actions = [h("a", { class: "button", href: `#/replay/${summary.id}${watch}`, text: "Replay it" })];
  if (options.seated && summary.next_match_id) {
    actions.unshift(h("a", { class: "button primary", href: `#/match/${summary.next_match_id}`, "data-action": "go-rematch", text: "Go to the rematch" }));
  } else if (options.seated && summary.status === "finished") {
    actions.unshift(h("button", {
      type: "button", class: "primary", "data-action": "rematch", text: "Offer a rematch",
      onclick: async () => {
        try {
          const rematch = await context.api.post("/v1/matches/{id}/rematch", { path: { id: summary.id } });
          context.navigate(`#/match/${rematch.id}`);
        } catch (error) {
          context.toast(explain(error), "error");
        }
      },
    }));
  }
  if (context.session.username) {
    actions.push(h("button", { type: "button", class: "quiet", "data-action": "export", text: "Download the export", onclick: () => { void downloadExport(context, summary.id); } }));
  }
  return actions;
}

/**
 * Saves a finished match's export: the server's bytes, as `kings-corner verify` reads them.
 * @param {import("./app.js").Context} context
 * @param {string} id
 */
export async function downloadExport(context, id) {
  try {
    const text = await context.api.text("/v1/matches/{id}/export", { path: { id } });
    const url = URL.createObjectURL(new Blob([text], { type: "application/json" }));
    const link = h("a", { href: url, download: `kings-corner-${id}.json`, hidden: true });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10_000);
  } catch (failure) {
    context.toast(explain(failure), "error");
  }
}
