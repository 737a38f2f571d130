// A table (`#/match/<id>`, `?watch=<code>` to watch a private one, `?code=<invite>` to join
// one): the waiting room until every seat is taken, then the layout, the player's hand, every
// seat and clock, the log and the talk, followed live over the match's stream.
//
// What the player may do comes from the view's `legal_actions` only (moves.js): a card or pile
// is picked up by a click, a tap, a drag or the keyboard (Enter on a card, then on a pile), and
// the piles it may go to light up. Each move is sent with the view's `version` and an
// `Idempotency-Key`, and sent again with the same key when its outcome is unknown, so it is
// made once. The table is read again whenever the log moves past the version shown.

import { ApiError, explain } from "./api.js";
import { board } from "./board.js";
import { cardImage, cardName, cardShort } from "./cards.js";
import { keepAtEnd, logLines, talkForm, talkLines } from "./chatter.js";
import { ask, confirmed } from "./dialog.js";
import { announce, fill, h } from "./dom.js";
import { draggable } from "./drag.js";
import { Follower } from "./live.js";
import { tableRules } from "./lobby.js";
import { LegalMoves } from "./moves.js";
import { endActions, handResult, matchResult } from "./results.js";
import { seatList, tickClocks } from "./seats.js";
import { waitingRoom } from "./waiting.js";
import { EVENT_TYPES, NOTE_TYPES, Names, PILE_NAMES, actionText, eventText } from "./words.js";

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

class TablePage {
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

    this.title = h("h1", { text: "Table" });
    this.linkState = h("span", { class: "link-state", role: "status" });
    this.links = h("nav", { class: "table-links", "aria-label": "This match" });
    this.waitingArea = h("div", { class: "waiting-area" });
    this.banner = h("p", { class: "banner", "aria-live": "polite" });
    this.seats = h("section", { class: "seats", "aria-label": "Players" });
    this.felt = h("section", { class: "felt", "aria-label": "The layout" });
    this.hand = h("div", { class: "hand-cards" });
    this.handArea = h("section", { class: "hand-area", "aria-labelledby": "hand-title" },
      h("h2", { id: "hand-title", class: "small-title", text: "Your hand" }), this.hand);
    this.actions = h("div", { class: "actions", role: "group", "aria-label": "Your actions" });
    this.hintBox = h("div", { class: "hint-box", "aria-live": "polite" });
    this.results = h("div", { class: "results" });
    this.log = h("ol", { class: "log", tabindex: 0, "aria-label": "What happened, newest last" });
    this.talk = h("ol", { class: "talk", "aria-label": "Table talk" });
    this.talkForm = h("div", { class: "talk-form-area" });
    this.tableArea = h("div", { class: "table-area", hidden: true },
      this.banner, this.seats, this.felt, this.handArea, this.actions, this.hintBox, this.results,
      h("section", { class: "chatter", "aria-label": "Log and talk" },
        h("details", { class: "log-box", open: true }, h("summary", { text: "Log" }), this.log),
        h("details", { class: "talk-box", open: true }, h("summary", { text: "Table talk" }), this.talk, this.talkForm)));
    this.element = h("div", { class: "table-page", "data-match": id },
      h("header", { class: "table-head" }, this.title, this.linkState, this.links),
      this.waitingArea, this.tableArea);
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
        this.invitation();
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

  /**
   * A private table shows itself to its players only: with its invite code (an invite link),
   * the page offers the seat before anything of the table can be seen.
   */
  invitation() {
    const error = h("p", { class: "error", role: "alert", hidden: true });
    const loggedIn = this.context.session.username !== null;
    fill(this.element, h("h1", { text: "An invitation" }),
      h("section", { class: "panel waiting" },
        h("p", { text: "You have the invite code of a private table: only its players see it." }),
        loggedIn ? h("button", {
          type: "button", class: "primary", "data-action": "join", text: "Take a seat",
          onclick: async () => {
            try {
              await this.api.post("/v1/matches/{id}/join", { path: { id: this.id }, body: { invite_code: this.code } });
              this.stop();
              this.context.navigate(`#/match/${this.id}`);
            } catch (failure) {
              error.textContent = explain(failure);
              error.hidden = false;
            }
          },
        }) : h("p", {}, h("a", { href: `#/login?then=${encodeURIComponent(location.hash)}`, text: "Log in or register" }), " to take it."),
        error));
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
        this.linkState.textContent = state === "live" ? "live" : state === "connecting" ? "connecting…" : "reconnecting…";
        this.linkState.className = `link-state ${state}`;
        this.linkState.title = detail ?? "";
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
    this.renderLog();
    this.renderTalk();
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
    const passed = tickClocks(this.seats, this.view);
    const deadline = this.view.clock.deadline ?? null;
    if (passed && deadline && this.lateDeadline !== deadline) {
      // Claimable once the deadline passes, with no new event: read the view again.
      this.lateDeadline = deadline;
      setTimeout(() => this.refreshSoon(), 1500);
    }
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
      this.title.textContent = `${summary.seats[0]?.username ?? "A"}'s table · ${tableRules(summary, catalog)}`;
    }, () => {});
    this.context.title(this.view?.status === "playing" && this.myTurn() ? "Your turn" : "Table");
    this.renderLinks();
    const open = summary.status === "open" || !this.view;
    this.waitingArea.hidden = !open;
    this.tableArea.hidden = open;
    this.element.dataset.status = summary.status;
    this.element.dataset.busy = String(this.busy);
    if (open) {
      fill(this.waitingArea, waitingRoom(summary, this.context, {
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
    this.renderBanner(view);
    fill(this.seats, seatList(view, summary));
    tickClocks(this.seats, view);
    this.renderBoard(view);
    this.renderHand(view);
    this.renderActions(view);
    this.renderHint(view);
    this.renderResults(view);
    this.renderTalkForm(view);
    if (focused) {
      const again = this.element.querySelector(`[data-focus="${CSS.escape(focused)}"]`);
      if (again instanceof HTMLElement) again.focus({ preventScroll: true });
      else if (focused.startsWith("card-") || focused.startsWith("pile-")) this.focusHand();
    }
  }

  myTurn() {
    const view = this.view;
    return !!view && view.status === "playing" && view.your_seat !== null && view.your_seat !== undefined &&
      view.turn === view.your_seat;
  }

  /** @param {MatchView} view */
  renderBanner(view) {
    const names = this.names();
    let text;
    if (view.status === "finished") text = "The match is over.";
    else if (view.status === "aborted") text = "The match was called off.";
    else if (view.turn === null || view.turn === undefined) text = "Between hands.";
    else if (this.myTurn()) text = this.busy ? "Sending your move…" : "Your turn: pick a card or a pile, then where it goes.";
    else {
      const bot = this.summary?.seats.find((seat) => seat.seat === view.turn)?.bot;
      text = bot ? `${names.of(view.turn)} is playing…` : `Waiting for ${names.of(view.turn, { capital: false })} to move.`;
    }
    const watching = view.your_seat === null || view.your_seat === undefined;
    this.banner.textContent = watching ? `Watching. ${text}` : text;
    this.banner.classList.toggle("mine", this.myTurn());
  }

  /** @param {MatchView} view */
  renderBoard(view) {
    const mine = this.myTurn() && !this.busy;
    const legal = new LegalMoves(mine ? view.legal_actions : []);
    const targets = new Set(legal.targets(this.choice).keys());
    const movable = new Set(/** @type {PileId[]} */ ([...legal.moves.keys()]));
    const hinted = new Set(/** @type {PileId[]} */ (this.hint ? hintPiles(this.hint.action) : []));
    fill(this.felt, board({
      view,
      onPile: mine ? (pile, event) => this.pile(pile, event, legal) : null,
      targets,
      movable,
      chosen: this.choice?.kind === "pile" ? this.choice.pile : null,
      hinted,
    }));
    if (mine) {
      for (const pile of movable) {
        const element = this.felt.querySelector(`[data-pile="${pile}"]`);
        if (element instanceof HTMLElement) this.draggable(element, { kind: "pile", pile }, legal);
      }
    }
  }

  /** @param {MatchView} view */
  renderHand(view) {
    const seat = view.your_seat;
    const cards = view.hand ?? [];
    this.handArea.hidden = seat === null || seat === undefined || (cards.length === 0 && view.status !== "playing");
    if (this.handArea.hidden) return;
    const mine = this.myTurn() && !this.busy && view.status === "playing";
    const legal = new LegalMoves(mine ? view.legal_actions : []);
    const hinted = this.hint?.action.type === "play" ? this.hint.action.card : null;
    if (cards.length === 0) {
      fill(this.hand, h("p", { class: "muted", text: view.status === "playing" ? "No cards in hand." : "" }));
      return;
    }
    fill(this.hand, h("ul", { class: "hand", "aria-label": `Your hand: ${cards.length} cards` }, cards.map((card, index) => {
      if (!mine) return h("li", { class: "in-hand" }, cardImage(card));
      const playable = legal.playable(card);
      const chosen = this.choice?.kind === "card" && this.choice.card === card;
      const button = h("button", {
        type: "button",
        class: `card-button${playable ? " playable" : " unplayable"}${chosen ? " chosen" : ""}${hinted === card ? " hinted" : ""}`,
        "data-card": card,
        "data-focus": `card-${card}-${cards.indexOf(card) === index ? 0 : index}`,
        "aria-pressed": chosen ? "true" : "false",
        "aria-label": `${cardName(card)}${playable ? "" : ", cannot be played now"}`,
        onclick: (/** @type {MouseEvent} */ event) => this.card(card, event, legal),
      }, cardImage(card, { label: false }));
      if (playable) this.draggable(button, { kind: "card", card }, legal);
      return h("li", { class: "in-hand" }, button);
    })));
  }

  /** @param {MatchView} view */
  renderActions(view) {
    const seat = view.your_seat;
    if (seat === null || seat === undefined || view.status !== "playing") {
      fill(this.actions);
      this.actions.hidden = true;
      return;
    }
    this.actions.hidden = false;
    const mine = this.myTurn();
    const legal = new LegalMoves(mine && !this.busy ? view.legal_actions : []);
    const inGame = view.seats[seat]?.in_game ?? false;
    const button = (/** @type {string} */ key, /** @type {string} */ text, /** @type {() => void} */ run, /** @type {string} */ kind = "") =>
      h("button", { type: "button", class: kind, "data-action": key, "data-focus": `action-${key}`, text, disabled: this.busy, onclick: run });
    fill(this.actions,
      legal.draw ? button("draw", "Draw", () => { void this.submit(/** @type {Action} */ (legal.draw)); }, "primary") : null,
      legal.endTurn ? button("end_turn", "End the turn", () => { void this.submit(/** @type {Action} */ (legal.endTurn)); }, "primary") : null,
      this.choice ? button("cancel", "Put it back", () => { this.choice = null; this.render(); }, "quiet") : null,
      mine && view.hints ? button("hint", "Hint", () => { void this.askHint(); }) : null,
      !mine && inGame && view.turn !== null && view.turn !== undefined ? button("nudge", "Nudge", () => { void this.nudge(); }, "quiet") : null,
      inGame && view.clock?.claimable && view.turn !== seat ? button("claim", "Claim the late seat", () => { void this.claim(); }, "warn") : null,
      inGame && view.can_abort ? button("abort", "Call the match off", () => { void this.confirmThen("Call the match off? Nobody wins and nothing is scored.", { type: "abort" }); }, "quiet") : null,
      inGame ? button("resign", "Resign", () => { void this.confirmThen("Resign? You are out of this match for good.", { type: "resign" }); }, "quiet danger") : null);
  }

  /** @param {MatchView} view */
  renderHint(view) {
    const hint = this.hint;
    if (!hint || !this.myTurn()) {
      fill(this.hintBox);
      return;
    }
    const current = hint.version === view.version;
    fill(this.hintBox, h("p", { class: "hint" },
      h("strong", { text: `Hint: ${actionText(hint.action)}. ` }), hint.reason,
      current ? h("button", { type: "button", class: "quiet", "data-action": "take-hint", text: "Do it", onclick: () => { void this.submit(hint.action); } }) : null));
  }

  /** @param {MatchView} view */
  renderResults(view) {
    const names = this.names();
    const parts = [];
    if (view.last_hand) parts.push(handResult(view.last_hand, names));
    if (this.summary && (this.summary.status === "finished" || this.summary.status === "aborted")) {
      const seated = names.yourSeat !== null;
      parts.unshift(matchResult(this.summary, names, endActions(this.summary, this.context, { seated, watch: this.watch })));
    }
    fill(this.results, ...parts.filter((part) => part !== null));
  }

  renderLinks() {
    const summary = this.summary;
    if (!summary) return;
    const watch = this.watch ? `?watch=${encodeURIComponent(this.watch)}` : "";
    fill(this.links,
      summary.status !== "open" ? h("a", { href: `#/replay/${summary.id}${watch}`, text: "Replay" }) : null,
      summary.spectator_code && summary.status !== "open" ? h("a", {
        href: `#/match/${summary.id}?watch=${encodeURIComponent(summary.spectator_code)}`, text: "Spectator link",
        title: "Share it: whoever opens it watches this private match (never a hand)",
      }) : null);
  }

  renderLog() {
    keepAtEnd(this.log, () => fill(this.log, ...logLines([...this.events.values()].sort((a, b) => a.seq - b.seq), this.names())));
  }

  renderTalk() {
    keepAtEnd(this.talk, () => fill(this.talk, ...talkLines([...this.events.values()].sort((a, b) => a.seq - b.seq), this.names())));
  }

  /** @param {MatchView} view */
  renderTalkForm(view) {
    const seated = view.your_seat !== null && view.your_seat !== undefined;
    if (!seated || view.status !== "playing") {
      fill(this.talkForm, seated ? h("p", { class: "muted", text: "Talk is open while the match is played." }) : null);
      return;
    }
    if (this.talkForm.querySelector("form")) return; // keep what the player is typing
    fill(this.talkForm, talkForm(this.context, this.id, (said) => {
      this.events.set(said.seq, said);
      this.renderTalk();
      this.renderLog();
    }));
  }

  focusHand() {
    const first = this.hand.querySelector(".card-button.playable") ?? this.hand.querySelector(".card-button") ??
      this.actions.querySelector("button");
    if (first instanceof HTMLElement) first.focus({ preventScroll: true });
  }

  // ---- the player's choices ----

  /**
   * A card of the hand was clicked (or chosen with the keyboard).
   * @param {string} card
   * @param {MouseEvent} event
   * @param {LegalMoves} legal
   */
  card(card, event, legal) {
    if (this.busy) return;
    if (!legal.playable(card)) {
      this.context.toast(`${cardShort(card)} cannot be played now.`);
      return;
    }
    const again = this.choice?.kind === "card" && this.choice.card === card;
    this.choice = again ? null : { kind: "card", card };
    this.render();
    if (!again) this.pointToTargets(event, legal);
  }

  /**
   * A pile was clicked: the chosen card or pile goes there, or it is picked up to move.
   * @param {PileId} pile
   * @param {MouseEvent} event
   * @param {LegalMoves} legal
   */
  pile(pile, event, legal) {
    if (this.busy) return;
    const actions = legal.targets(this.choice).get(pile);
    if (actions) {
      void this.act(actions);
      return;
    }
    if (this.choice?.kind === "pile" && this.choice.pile === pile) {
      this.choice = null;
      this.render();
      return;
    }
    if (legal.movable(pile)) {
      this.choice = { kind: "pile", pile };
      this.render();
      this.pointToTargets(event, legal);
      return;
    }
    if (this.choice) {
      const what = this.choice.kind === "card" ? cardShort(this.choice.card) : `the ${PILE_NAMES[this.choice.pile]}`;
      this.context.toast(`${what} cannot go on the ${PILE_NAMES[pile]}.`);
    } else {
      this.context.toast(`The ${PILE_NAMES[pile]} cannot move now. Pick a card of your hand first.`);
    }
  }

  /**
   * After a choice made with the keyboard, focus moves to the first pile it may go to.
   * @param {MouseEvent} event
   * @param {LegalMoves} legal
   */
  pointToTargets(event, legal) {
    const targets = [...legal.targets(this.choice).keys()];
    announce(`Goes on ${targets.map((pile) => pile).join(", ")}.`);
    if (event.detail !== 0 || targets.length === 0) return;
    const first = this.felt.querySelector(`[data-pile="${targets[0]}"]`);
    if (first instanceof HTMLElement) first.focus();
  }

  /**
   * Lets a card or a pile be dragged onto the piles it may go to.
   * @param {HTMLElement} element
   * @param {Choice} choice
   * @param {LegalMoves} legal
   */
  draggable(element, choice, legal) {
    draggable(element, choice.kind === "card" ? { card: choice.card } : { label: choice.pile }, {
      allowed: () => !this.busy,
      start: () => {
        this.choice = choice;
        this.render();
      },
      drop: (pile) => {
        const actions = pile ? legal.targets(choice).get(pile) : undefined;
        if (actions) void this.act(actions);
        else this.render();
      },
    });
  }

  /**
   * Sends one of the actions that put the choice on a pile (asking which, when a joker may
   * stand for several cards or a run may move more or fewer cards).
   * @param {Action[]} actions
   */
  async act(actions) {
    const action = actions.length === 1 ? actions[0]
      : await ask("Which one?", actions.map((choice) => ({ text: actionText(choice), value: choice })));
    if (action) await this.submit(action);
    else this.render();
  }

  /**
   * Makes a move. A `409 version_conflict` means the table changed first: the view is read
   * again. When the outcome is unknown (no answer, or a `503` that could not say), the same
   * move is sent again with the same key: the server answers its first answer, or makes it.
   * @param {Action} action
   */
  async submit(action) {
    const view = this.view;
    if (!view || this.busy) return;
    this.busy = true;
    this.render();
    const key = crypto.randomUUID();
    try {
      for (let attempt = 1; ; attempt += 1) {
        try {
          const next = await this.api.post("/v1/matches/{id}/moves", {
            path: { id: this.id },
            body: { expected_version: view.version, action },
            headers: { "idempotency-key": key },
          });
          this.choice = null;
          this.hint = null;
          this.etag = null;
          this.setView(next);
          announce(`${actionText(action)}: done.`);
          this.context.inbox.countSoon(300);
          break;
        } catch (error) {
          const unknown = error instanceof ApiError && (error.status === 0 || error.status === 503);
          if (unknown && attempt < 4) {
            await new Promise((resolve) => setTimeout(resolve, 1000 * ((error instanceof ApiError && error.retryAfter) || attempt)));
            continue;
          }
          throw error;
        }
      }
    } catch (error) {
      if (error instanceof ApiError && error.code === "version_conflict") {
        this.context.toast("The table changed before your move arrived: here it is now.");
        this.choice = null;
        await this.refreshView().catch(() => {});
      } else {
        this.context.toast(explain(error), "error");
      }
    } finally {
      this.busy = false;
      this.render();
    }
  }

  /**
   * Resigning and calling off, after the player confirms.
   * @param {string} question
   * @param {Action} action
   */
  async confirmThen(question, action) {
    if (await confirmed(question, actionText(action))) await this.submit(action);
  }

  async askHint() {
    try {
      this.hint = await this.api.get("/v1/matches/{id}/hint", { path: { id: this.id } });
      this.render();
    } catch (error) {
      this.context.toast(explain(error), "error");
    }
  }

  async claim() {
    try {
      this.setView(await this.api.post("/v1/matches/{id}/claim", { path: { id: this.id } }));
      this.render();
    } catch (error) {
      this.context.toast(explain(error), "error");
    }
  }

  async nudge() {
    try {
      const nudged = await this.api.post("/v1/matches/{id}/nudge", { path: { id: this.id } });
      this.receive([nudged]);
      this.context.toast("Nudged: they are told the table waits for them.");
    } catch (error) {
      this.context.toast(explain(error), "error");
    }
  }
}

/**
 * The piles a hint's action names.
 * @param {Action} action
 * @returns {PileId[]}
 */
function hintPiles(action) {
  if (action.type === "play") return [action.to];
  if (action.type === "move") return [action.from, action.to];
  return [];
}
