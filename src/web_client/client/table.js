// A table (`#/match/<id>`, `?watch=<code>` to watch a private one, `?code=<invite>` to join
// one): the waiting room until every seat is taken, then the layout, the player's hand, every
// seat and clock, the log and the talk, followed live over the match's stream.
//
// This module holds the page's state and keeps it current: the summary, the view (read again,
// with its ETag, whenever the log moves past the version shown), the log followed over the
// stream, the clocks ticking. Drawing it is table_drawing.js's; the player's choices and moves
// (from the view's `legal_actions` only, moves.js) are table_input.js's.

import { ApiError, explain } from "./api.js";
import { announce, fill, h } from "./dom.js";
import { Follower } from "./live.js";
import { tableRules } from "./lobby.js";
import { seatList, tickClocks } from "./seats.js";
import {
  drawActions, drawBanner, drawBoard, drawCommunity, drawHand, drawHint, drawLinks, drawLog, drawResults, drawTalk,
  drawTalkForm, focusHand, tableParts,
} from "./table_drawing.js";
import { invitation, waitingRoom } from "./waiting.js";
import { EVENT_TYPES, NOTE_TYPES, Names, eventText } from "./words.js";

/** @typedef {import("./types.js").MatchView} MatchView */
/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./types.js").LoggedEvent} LoggedEvent */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").PileId} PileId */
/** @typedef {import("./types.js").Hint} Hint */
/** @typedef {import("./types.js").Notification} Notification */
/** @typedef {import("./moves.js").Choice} Choice */

/** Notes that change the view's clock (its deadline, who is away): the view is read again. */
const CLOCK_NOTES = new Set(["vacation_started", "vacation_ended"]);

/** Events after which the summary (seats, status, result) is read again. */
const SUMMARY_EVENTS = new Set(["hand_dealt", "hand_ended", "game_ended", "match_aborted", "seat_out"]);

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 * @param {import("./app.js").Route} route
 */
export function mountTable(root, context, route) {
  const id = route.parts[0] ?? "";
  const page = new TablePage(root, context, id, route.query);
  void page.start();
  return () => page.stop();
}

export class TablePage {
  /**
   * @param {HTMLElement} root
   * @param {import("./app.js").Context} context
   * @param {string} id
   * @param {URLSearchParams} query
   */
  constructor(root, context, id, query) {
    this.context = context;
    this.api = context.api;
    this.id = id;
    this.watch = query.get("watch");
    this.code = query.get("code");
    /** @type {MatchSummary | null} */
    this.summary = null;
    /** @type {MatchView | null} */
    this.view = null;
    /** @type {string | null} */
    this.etag = null;
    /** @type {Map<number, LoggedEvent>} */
    this.events = new Map();
    /** @type {Choice | null} */
    this.choice = null;
    /** @type {Hint | null} */
    this.hint = null;
    this.busy = false;
    this.live = true;
    /** @type {Follower<LoggedEvent> | null} */
    this.follower = null;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.ticker = undefined;
    /** @type {ReturnType<typeof setInterval> | undefined} */
    this.poller = undefined;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.refreshTimer = undefined;
    /** The deadline already read again for once it passed. */
    this.lateDeadline = /** @type {string | null} */ (null);
    /** @type {() => void} */
    this.unsubscribe = () => {};

    /** The page's parts, drawn by table_drawing.js. */
    this.parts = tableParts(id);
    this.element = this.parts.element;
    fill(root, this.element);
    this.keys = (/** @type {KeyboardEvent} */ event) => {
      if (event.key === "Escape" && this.choice) {
        this.choice = null;
        this.render();
      }
    };
    document.addEventListener("keydown", this.keys);
  }

  async start() {
    this.context.title("Table");
    try {
      await this.loadSummary();
      if (this.summary?.status !== "open") await this.refreshView();
    } catch (error) {
      if (!this.live) return;
      if (error instanceof ApiError && error.status === 404 && this.code) {
        fill(this.element, invitation(this.context, this.id, this.code, () => this.stop()));
        return;
      }
      fill(this.element, h("h1", { text: "Table" }), h("p", { class: "error", role: "alert", text: explain(error) }),
        this.context.session.username ? null : h("p", {}, h("a", { href: `#/login?then=${encodeURIComponent(location.hash)}`, text: "Log in" }), " if it is a table of yours."));
      return;
    }
    if (!this.live) return;
    this.follow();
    this.render();
    this.ticker = setInterval(() => this.tick(), 1000);
    this.unsubscribe = this.context.inbox.onNotification((notification) => this.notice(notification));
    // A table waiting for players changes with joins, which its log does not hold: look again
    // every few seconds until the deal (a seated player is also told on their account stream).
    this.poller = setInterval(() => {
      if (this.summary?.status === "open" && document.visibilityState === "visible") void this.reloadSummary();
    }, 4000);
  }

  stop() {
    this.live = false;
    this.follower?.stop();
    clearInterval(this.ticker);
    clearInterval(this.poller);
    clearTimeout(this.refreshTimer);
    this.unsubscribe();
    document.removeEventListener("keydown", this.keys);
  }

  /** The query every read of this match carries: a spectator code, when watching by one. */
  get watching() {
    return this.watch ? { watch: this.watch } : undefined;
  }

  async loadSummary() {
    this.summary = await this.api.get("/v1/matches/{id}", { path: { id: this.id }, query: this.watching });
  }

  async reloadSummary() {
    const before = this.summary?.status;
    try {
      await this.loadSummary();
    } catch {
      return;
    }
    if (!this.live) return;
    if (before === "open" && this.summary?.status !== "open") await this.refreshView();
    this.render();
  }

  /** Reads the view again (a `304` when it has not changed). */
  async refreshView() {
    const answer = await this.api.call("GET", "/v1/matches/{id}/view", {
      path: { id: this.id }, query: this.watching, headers: this.etag ? { "if-none-match": this.etag } : {},
    });
    if (answer.status === 304 || !answer.body) return;
    this.etag = answer.headers.get("etag");
    this.setView(answer.body);
  }

  refreshSoon() {
    clearTimeout(this.refreshTimer);
    this.refreshTimer = setTimeout(async () => {
      try {
        await this.refreshView();
        if (this.live) this.render();
      } catch (error) {
        if (this.live) this.context.toast(explain(error), "error");
      }
    }, 60);
  }

  /** @param {MatchView} view */
  setView(view) {
    const before = this.view;
    if (before && view.version < before.version) return;
    this.view = view;
    if (!before || before.turn_number !== view.turn_number || before.turn !== view.turn) {
      this.choice = null;
      this.hint = null;
      if (view.status === "playing" && view.turn === view.your_seat && view.your_seat !== null) {
        announce("Your turn.");
      }
    }
    if (this.summary && view.status !== this.summary.status) void this.reloadSummary();
  }

  follow() {
    this.follower = new Follower({
      api: this.api,
      loggedIn: () => this.context.session.username !== null,
      stream: "/v1/matches/{id}/stream",
      path: { id: this.id },
      watch: this.watch,
      types: EVENT_TYPES,
      after: 0,
      missed: async (after) => (await this.api.get("/v1/matches/{id}/events", {
        path: { id: this.id }, query: { after, ...this.watching },
      })).events,
      deliver: (events) => this.receive(events),
      status: (state, detail) => {
        this.parts.linkState.textContent = state === "live" ? "live" : state === "connecting" ? "connecting…" : "reconnecting…";
        this.parts.linkState.className = `link-state ${state}`;
        this.parts.linkState.title = detail ?? "";
        // Back after a drop: whatever happened meanwhile is in the view.
        if (state === "live" && this.view) this.refreshSoon();
      },
    });
    this.follower.start();
  }

  /** @param {LoggedEvent[]} events */
  receive(events) {
    if (!this.live) return;
    let newest = 0;
    let summaryChanged = false;
    for (const logged of events) {
      this.events.set(logged.seq, logged);
      if (!NOTE_TYPES.has(logged.event.type) || CLOCK_NOTES.has(logged.event.type)) newest = Math.max(newest, logged.seq);
      if (SUMMARY_EVENTS.has(logged.event.type)) summaryChanged = true;
    }
    drawLog(this);
    drawTalk(this);
    const names = this.names();
    const lasting = events.filter((logged) => ["hand_ended", "game_ended", "seat_out", "match_aborted"].includes(logged.event.type));
    if (lasting.length) announce(lasting.map((logged) => eventText(logged.event, names)).join(" "));
    if (summaryChanged || this.summary?.status === "open") void this.reloadSummary();
    if (newest && (!this.view || newest > this.view.version)) this.refreshSoon();
  }

  /** @param {Notification} notification */
  notice(notification) {
    // Joins and rematch offers are not in the match's log: the account stream says so.
    const about = notification.type === "rematch_offered" ? notification.data.previous_match_id : notification.data.match_id;
    if (about === this.id && ["seat_joined", "seat_left", "match_started", "rematch_offered"].includes(notification.type)) {
      void this.reloadSummary();
    }
  }

  tick() {
    if (!this.view?.clock) return;
    const passed = tickClocks(this.parts.seats, this.view);
    const deadline = this.view.clock.deadline ?? null;
    if (passed && deadline && this.lateDeadline !== deadline) {
      // Claimable once the deadline passes, with no new event: read the view again.
      this.lateDeadline = deadline;
      setTimeout(() => this.refreshSoon(), 1500);
    }
  }

  /**
   * The reader muted or unmuted the talk: muted, the others' talk leaves the page at once (the
   * feed leaves it out from now on); unmuted, the whole feed is read again to bring it back.
   * @param {boolean} muted
   */
  async talkMuted(muted) {
    const yours = this.names().yourSeat;
    if (muted) {
      for (const [seq, logged] of this.events) {
        if (logged.event.type === "table_talk" && logged.event.seat !== yours) this.events.delete(seq);
      }
    } else {
      let after = 0;
      for (;;) {
        const page = await this.api.get("/v1/matches/{id}/events", { path: { id: this.id }, query: { after, ...this.watching } });
        for (const logged of page.events) this.events.set(logged.seq, logged);
        const last = page.events.at(-1);
        if (!last || last.seq >= page.version) break;
        after = last.seq;
      }
    }
    drawTalk(this);
    drawLog(this);
  }

  names() {
    return new Names(this.summary, this.view?.your_seat ?? this.summary?.seats.find((seat) => seat.username === this.context.session.username && !seat.bot)?.seat ?? null);
  }

  // ---- drawing the page ----

  render() {
    if (!this.live || !this.summary) return;
    const focused = document.activeElement?.closest?.("[data-focus]")?.getAttribute("data-focus") ?? null;
    const summary = this.summary;
    this.context.catalog().then((catalog) => {
      this.parts.title.textContent = `${summary.seats[0]?.username ?? "A"}'s table · ${tableRules(summary, catalog)}`;
    }, () => {});
    this.context.title(this.view?.status === "playing" && this.myTurn() ? "Your turn" : "Table");
    drawLinks(this);
    const open = summary.status === "open" || !this.view;
    this.parts.waitingArea.hidden = !open;
    this.parts.tableArea.hidden = open;
    this.element.dataset.status = summary.status;
    this.element.dataset.busy = String(this.busy);
    if (open) {
      fill(this.parts.waitingArea, waitingRoom(summary, this.context, {
        code: this.code,
        changed: (changed) => {
          if (changed) this.summary = changed;
          void this.reloadSummary();
        },
      }));
      return;
    }
    const view = /** @type {MatchView} */ (this.view);
    this.element.dataset.version = String(view.version);
    this.element.dataset.turn = view.turn === null || view.turn === undefined ? "" : String(view.turn);
    drawBanner(this, view);
    fill(this.parts.seats, seatList(view, summary));
    tickClocks(this.parts.seats, view);
    drawBoard(this, view);
    drawHand(this, view);
    drawActions(this, view);
    drawHint(this, view);
    drawResults(this, view);
    drawTalkForm(this, view);
    drawCommunity(this, view);
    if (focused) {
      const again = this.element.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
      if (again instanceof HTMLElement) again.focus({ preventScroll: true });
      else if (focused.startsWith("card-") || focused.startsWith("pile-")) focusHand(this);
    }
  }

  myTurn() {
    const view = this.view;
    return !!view && view.status === "playing" && view.your_seat !== null && view.your_seat !== undefined &&
      view.turn === view.your_seat;
  }
}
