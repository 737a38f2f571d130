// The players around the table: each seat's name (a bot's level, the rating at a rated
// table), cards left, score, chips,
// hands won, corners claimed, whether it is out or on vacation, and its clock: the seat to
// move counts down to its deadline (or waits for its return from vacation), the others show
// their bank. `data-*` attributes carry the figures the
// tests compare with the API's.

import { duration, h, plural, when } from "./dom.js";

/** @typedef {import("./types.js").MatchView} MatchView */
/** @typedef {import("./types.js").MatchSummary} MatchSummary */

/**
 * @param {MatchView} view
 * @param {MatchSummary | null} summary
 */
export function seatList(view, summary) {
  const rules = view.rules;
  const playing = view.status === "playing";
  return h("ol", { class: "seat-list" }, view.seats.map((seat) => {
    const info = summary?.seats.find((taken) => taken.seat === seat.seat);
    const toMove = playing && view.turn === seat.seat;
    const classes = ["seat"];
    if (toMove) classes.push("to-move");
    if (!seat.in_game) classes.push("out");
    if (seat.seat === view.your_seat) classes.push("me");
    const name = info && !info.bot
      ? h("a", { href: `#/players/${encodeURIComponent(info.username)}`, text: info.username })
      : h("span", { text: info?.bot ? `${info.bot} bot` : `Seat ${seat.seat + 1}` });
    const facts = [
      h("span", { class: "seat-cards", text: plural(seat.hand_count, "card") }),
      h("span", { class: "seat-total", text: `${seat.total} points` }),
    ];
    if ((rules.game_end && "hands_won" in rules.game_end) || seat.hands_won > 0) facts.push(h("span", { text: `${plural(seat.hands_won, "hand")} won` }));
    if (rules.chips && seat.chips !== null && seat.chips !== undefined) facts.push(h("span", { text: plural(seat.chips, "chip") }));
    if (rules.collect_corners) facts.push(h("span", { text: `${plural(seat.claimed_corners, "corner")} claimed` }));
    if (seat.hand_penalties > 0) facts.push(h("span", { text: `${seat.hand_penalties} penalty points this hand` }));
    return h("li", {
      class: classes.join(" "),
      "data-seat": seat.seat, "data-total": seat.total, "data-hand-count": seat.hand_count,
      "aria-current": toMove ? "true" : undefined,
    },
    h("span", { class: "seat-name" }, name,
      info?.rating ? h("span", {
        class: "tag rating", "data-rating": info.rating.rating,
        title: info.rating.provisional ? "rating in this pool (provisional: few rated matches yet)" : "rating in this pool",
        text: `${info.rating.rating}${info.rating.provisional ? "?" : ""}`,
      }) : null,
      seat.seat === view.your_seat ? h("span", { class: "tag", text: "you" }) : null,
      info?.bot ? h("span", { class: "tag bot", text: "bot" }) : null,
      view.dealer === seat.seat ? h("span", { class: "tag", title: "the dealer", text: "dealer" }) : null,
      toMove ? h("span", { class: "tag turn", text: "to move" }) : null,
      awayUntil(view, seat.seat) ? h("span", { class: "tag away", "data-away": seat.seat, text: `on vacation until ${when(/** @type {string} */ (awayUntil(view, seat.seat)))}` }) : null),
    h("span", { class: "seat-facts" }, facts),
    seat.left ? h("span", { class: "seat-left", text: seat.left === "resign" ? "resigned" : "out of time" }) : null,
    view.clock ? h("span", { class: "clock", "data-clock-seat": seat.seat }) : null);
  }));
}

/**
 * When the player at `seat` is back from vacation, if they are away.
 * @param {MatchView} view
 * @param {number} seat
 * @returns {string | undefined}
 */
function awayUntil(view, seat) {
  return view.clock?.away?.find((away) => away.seat === seat)?.until;
}

/**
 * Brings every clock of the page to now: the seat to move counts down to its deadline (its
 * turn's time, then its bank); the others show what is left of their bank.
 * @param {ParentNode} root
 * @param {MatchView} view
 * @returns {boolean} Whether the deadline has passed (the view should be read again).
 */
export function tickClocks(root, view) {
  const clock = view.clock;
  if (!clock) return false;
  let passed = false;
  const now = Date.now();
  for (const element of root.querySelectorAll("[data-clock-seat]")) {
    const seat = Number(element.getAttribute("data-clock-seat"));
    const running = view.status === "playing" && view.turn === seat && clock.deadline;
    const away = awayUntil(view, seat);
    if (running && away && Date.parse(away) > now) {
      // The clock waits for the player's return: their deadline counts the vacation in.
      element.textContent = `waits until ${when(away)}`;
      element.classList.remove("low");
      element.setAttribute("aria-label", `the clock waits until ${when(away)}`);
    } else if (running && clock.deadline) {
      const left = (Date.parse(clock.deadline) - now) / 1000;
      passed ||= left <= 0;
      element.textContent = left > 0 ? `${duration(left)} left` : "time is up";
      element.classList.toggle("low", left < Math.max(10, clock.turn_seconds / 10));
      element.setAttribute("aria-label", left > 0 ? `${duration(left)} left for this turn` : "time is up");
    } else {
      const bank = clock.banks?.[seat];
      element.textContent = bank === undefined ? "" : `bank ${duration(bank)}`;
      element.classList.remove("low");
      element.removeAttribute("aria-label");
    }
  }
  return passed;
}
