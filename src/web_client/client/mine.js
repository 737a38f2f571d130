// My matches (`#/mine`): first the ones waiting for my move, soonest deadline first (the
// server's inbox, `?turn=mine`), then all of mine, newest first, by status; both read again
// whenever the account stream says something changed. Below them, the vacation panel
// (vacation.js).

import { explain } from "./api.js";
import { duration, fill, h, timeElement } from "./dom.js";
import { tableRules } from "./lobby.js";
import { vacationPanel } from "./vacation.js";

/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./types.js").RulesCatalog} RulesCatalog */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mountMine(root, context) {
  context.title("My matches");
  if (!context.session.username) {
    fill(root, h("h1", { text: "My matches" }),
      h("p", {}, h("a", { href: "#/login?then=%23%2Fmine", text: "Log in" }), " to see your matches."));
    return () => {};
  }
  const me = context.session.username;
  const waiting = h("div", { class: "waiting-list" }, h("p", { class: "muted", text: "Loading…" }));
  const all = h("div", { class: "all-list" });
  const status = h("select", { id: "mine-status" },
    [["", "all"], ["open", "waiting for players"], ["playing", "being played"], ["finished", "finished"], ["aborted", "called off"]]
      .map(([value, text]) => h("option", { value, text })));
  const notify = h("p", { class: "muted notify-offer" });
  const vacation = vacationPanel(context);
  fill(root,
    h("h1", { text: "My matches" }),
    notify,
    h("section", { class: "panel", "aria-labelledby": "your-move" }, h("h2", { id: "your-move", text: "Your move" }), waiting),
    h("section", { class: "panel", "aria-labelledby": "all-mine" },
      h("h2", { id: "all-mine", text: "All my matches" }),
      h("p", { class: "field" }, h("label", { for: "mine-status", text: "Show" }), status),
      all),
    vacation.panel);

  let live = true;
  /** @type {RulesCatalog | null} */
  let catalog = null;
  /** @type {MatchSummary[]} */
  let mine = [];
  /** @type {string | null} */
  let cursor = null;

  const offerNotifications = () => {
    if (!("Notification" in window) || context.preferences.notify) {
      fill(notify);
      return;
    }
    fill(notify, "Want to know when it is your turn while this page is in the background? ",
      h("button", {
        type: "button", class: "quiet", "data-action": "notify", text: "Notify me",
        onclick: async () => {
          await context.preferences.setNotify(true);
          offerNotifications();
        },
      }));
  };

  const load = async () => {
    try {
      catalog ??= await context.catalog();
      const [inbox, page] = await Promise.all([
        context.api.get("/v1/matches", { query: { turn: "mine", limit: 100 } }),
        context.api.get("/v1/matches", { query: { mine: true, limit: 50, status: status.value ? /** @type {any} */ (status.value) : undefined } }),
      ]);
      if (!live) return;
      mine = page.matches;
      cursor = page.next_cursor ?? null;
      context.inbox.setWaiting(inbox.matches.length);
      fill(waiting, inbox.matches.length
        ? h("ul", { class: "match-list" }, inbox.matches.map((summary) => row(summary, /** @type {RulesCatalog} */ (catalog), me)))
        : h("p", { class: "muted", text: "Nothing waits for you. " }, h("a", { href: "#/", text: "Find a table in the lobby." })));
      drawAll();
    } catch (error) {
      if (live) fill(waiting, h("p", { class: "error", role: "alert", text: explain(error) }));
    }
  };
  const drawAll = () => {
    fill(all, mine.length
      ? h("ul", { class: "match-list" }, mine.map((summary) => row(summary, /** @type {RulesCatalog} */ (catalog), me)))
      : h("p", { class: "muted", text: "No matches." }),
    cursor ? h("button", {
      type: "button", class: "quiet", text: "Older matches",
      onclick: async () => {
        try {
          const page = await context.api.get("/v1/matches", { query: { mine: true, limit: 50, cursor: cursor ?? undefined, status: status.value ? /** @type {any} */ (status.value) : undefined } });
          mine = [...mine, ...page.matches];
          cursor = page.next_cursor ?? null;
          drawAll();
        } catch (error) {
          context.toast(explain(error), "error");
        }
      },
    }) : null);
  };
  status.addEventListener("change", () => { void load(); });
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let soon;
  const unsubscribe = context.inbox.onNotification(() => {
    clearTimeout(soon);
    soon = setTimeout(() => { void load(); }, 250);
  });
  const ticker = setInterval(() => {
    for (const element of root.querySelectorAll("[data-deadline]")) {
      const left = (Date.parse(element.getAttribute("data-deadline") ?? "") - Date.now()) / 1000;
      element.textContent = left > 0 ? `${duration(left)} left` : "time is up";
    }
  }, 1000);
  offerNotifications();
  void load();
  void vacation.load();
  return () => {
    live = false;
    unsubscribe();
    clearTimeout(soon);
    clearInterval(ticker);
  };
}

/**
 * One match of mine.
 * @param {MatchSummary} summary
 * @param {RulesCatalog} catalog
 * @param {string} me
 */
function row(summary, catalog, me) {
  const others = summary.seats.filter((seat) => seat.username !== me || seat.bot)
    .map((seat) => (seat.bot ? `${seat.bot} bot` : seat.username));
  const mySeat = summary.seats.find((seat) => seat.username === me && !seat.bot)?.seat;
  const state = {
    open: `waiting for players (${summary.seats.length} of ${summary.seat_count})`,
    playing: summary.turn === mySeat ? "your move" : "being played",
    finished: summary.result ? (summary.result.winners.some((winner) => winner.seat === mySeat) ? "you won" : `won by ${summary.result.winners.map((winner) => winner.bot ? `${winner.bot} bot` : winner.username).join(", ") || "nobody"}`) : "finished",
    aborted: "called off",
  }[summary.status];
  const deadline = summary.status === "playing" && summary.clock?.deadline ? summary.clock.deadline : null;
  return h("li", { class: `match-row ${summary.status}`, "data-match": summary.id, "data-status": summary.status },
    h("a", { href: `#/match/${summary.id}`, class: "match-link" },
      h("strong", { text: others.length ? `with ${others.join(", ")}` : "alone so far" }),
      h("span", { text: ` · ${tableRules(summary, catalog)}` })),
    h("span", { class: `state ${summary.status}`, text: state }),
    deadline ? h("span", { class: "deadline", "data-deadline": deadline }) : null,
    h("span", { class: "muted" }, "updated ", timeElement(summary.updated_at)));
}
