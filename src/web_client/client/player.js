// A player's page (`#/players/<username>`): their public record, overall and by preset
// (private matches too when it is the reader's own page), and their rating in each pool; on
// another player's page, "Block" and "Report" (community.js).

import { explain } from "./api.js";
import { playerControls } from "./community.js";
import { fill, h, timeElement } from "./dom.js";

/** @typedef {import("./types.js").Tally} Tally */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 * @param {import("./app.js").Route} route
 */
export function mountPlayer(root, context, route) {
  const username = route.parts[0] ?? "";
  context.title(username);
  const body = h("div", {}, h("p", { class: "muted", text: "Loading…" }));
  const yours = context.session.username?.toLowerCase() === username.toLowerCase();
  fill(root, h("h1", { text: username }),
    context.session.username && !yours ? playerControls(context, username) : null, body);
  let live = true;
  context.api.get("/v1/players/{username}", { path: { username } }).then((player) => {
    if (!live) return;
    const columns = /** @type {[keyof Tally, string][]} */ ([
      ["played", "Played"], ["won", "Won"], ["playing", "Playing"], ["resigned", "Resigned"],
      ["timed_out", "Timed out"], ["aborted", "Called off"],
    ]);
    const rowOf = (/** @type {string} */ name, /** @type {Tally} */ tally) => h("tr", { "data-preset": name },
      h("th", { scope: "row", text: name }), columns.map(([key]) => h("td", { text: String(tally[key]) })));
    fill(body,
      h("p", {}, "A player since ", timeElement(player.member_since), ".",
        player.private_included ? " Your private matches are counted here too; others see your public ones only." : ""),
      h("div", { class: "table-scroll" }, h("table", { class: "tally" },
        h("caption", { text: "Matches" }),
        h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "Preset" }), columns.map(([, text]) => h("th", { scope: "col", text })))),
        h("tbody", {}, rowOf("all", player.matches), player.by_preset.map((tally) => rowOf(tally.preset, tally))))),
      player.ratings.length ? h("div", { class: "table-scroll" }, h("table", { class: "ratings" },
        h("caption", { text: "Ratings (rated tables, by pool)" }),
        h("thead", {}, h("tr", {}, ["Pool", "Rating", "Rated matches", "Last change"].map((text) => h("th", { scope: "col", text })))),
        h("tbody", {}, player.ratings.map((pool) => h("tr", { "data-pool": pool.pool, "data-rating": pool.rating },
          h("th", { scope: "row", text: pool.pool }),
          h("td", { text: `${pool.rating}${pool.provisional ? " (provisional)" : ""}` }),
          h("td", { text: String(pool.matches) }),
          h("td", { text: pool.history[0] ? `${pool.history[0].change >= 0 ? "+" : ""}${pool.history[0].change} (place ${pool.history[0].place})` : "" })))))) : null,
      player.private_included ? h("p", {}, h("a", { href: "#/mine", text: "Your matches" })) : null);
  }, (error) => {
    if (live) fill(body, h("p", { class: "error", role: "alert", text: explain(error) }));
  });
  return () => { live = false; };
}
