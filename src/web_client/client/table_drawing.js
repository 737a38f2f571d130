// Drawing a table (table.js): the banner, the layout, the hand, the actions, a hint, the
// results, the links, the log and the talk, each from the page's state. What a click, a tap, a
// drag or a key does is table_input.js's; nothing here sends a request but the talk form's.

import { board } from "./board.js";
import { cardImage, cardName } from "./cards.js";
import { keepAtEnd, logLines, talkForm, talkLines } from "./chatter.js";
import { muteSwitch, notesBox, report } from "./community.js";
import { fill, h } from "./dom.js";
import { LegalMoves } from "./moves.js";
import { endActions, handResult, matchResult } from "./results.js";
import { askHint, claim, confirmThen, giveTime, letDrag, nudge, pickCard, pickPile, submit } from "./table_input.js";
import { actionText } from "./words.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./types.js").MatchView} MatchView */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").PileId} PileId */
/** @typedef {import("./types.js").LoggedEvent} LoggedEvent */

/**
 * The parts of a table's page, empty: the header, the waiting room, and the table with its
 * banner, seats, layout, hand, actions, hint, results, log and talk.
 * @param {string} id
 */
export function tableParts(id) {
  const title = h("h1", { text: "Table" });
  const linkState = h("span", { class: "link-state", role: "status" });
  const links = h("nav", { class: "table-links", "aria-label": "This match" });
  const waitingArea = h("div", { class: "waiting-area" });
  const banner = h("p", { class: "banner", "aria-live": "polite" });
  const seats = h("section", { class: "seats", "aria-label": "Players" });
  const felt = h("section", { class: "felt", "aria-label": "The layout" });
  const hand = h("div", { class: "hand-cards" });
  const handArea = h("section", { class: "hand-area", "aria-labelledby": "hand-title" },
    h("h2", { id: "hand-title", class: "small-title", text: "Your hand" }), hand);
  const actions = h("div", { class: "actions", role: "group", "aria-label": "Your actions" });
  const hintBox = h("div", { class: "hint-box", "aria-live": "polite" });
  const results = h("div", { class: "results" });
  const log = h("ol", { class: "log", tabindex: 0, "aria-label": "What happened, newest last" });
  const talk = h("ol", { class: "talk", "aria-label": "Table talk" });
  const talkForm = h("div", { class: "talk-form-area" });
  const talkTools = h("div", { class: "talk-tools" });
  const notes = h("div", { class: "notes-area" });
  const tableArea = h("div", { class: "table-area", hidden: true },
    banner, seats, felt, handArea, actions, hintBox, results,
    h("section", { class: "chatter", "aria-label": "Log and talk" },
      h("details", { class: "log-box", open: true }, h("summary", { text: "Log" }), log),
      h("details", { class: "talk-box", open: true }, h("summary", { text: "Table talk" }), talk, talkForm, talkTools),
      notes));
  const element = h("div", { class: "table-page", "data-match": id },
    h("header", { class: "table-head" }, title, linkState, links),
    waitingArea, tableArea);
  return { title, linkState, links, waitingArea, banner, seats, felt, hand, handArea, actions, hintBox, results, log, talk, talkForm, talkTools, notes, tableArea, element };
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawBanner(page, view) {
  const names = page.names();
  let text;
  if (view.status === "finished") text = "The match is over.";
  else if (view.status === "aborted") text = "The match was called off.";
  else if (view.turn === null || view.turn === undefined) text = "Between hands.";
  else if (page.myTurn()) text = page.busy ? "Sending your move…" : "Your turn: pick a card or a pile, then where it goes.";
  else {
    const bot = page.summary?.seats.find((seat) => seat.seat === view.turn)?.bot;
    text = bot ? `${names.of(view.turn)} is playing…` : `Waiting for ${names.of(view.turn, { capital: false })} to move.`;
  }
  const watching = view.your_seat === null || view.your_seat === undefined;
  page.parts.banner.textContent = watching ? `Watching. ${text}` : text;
  page.parts.banner.classList.toggle("mine", page.myTurn());
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawBoard(page, view) {
  const mine = page.myTurn() && !page.busy;
  const legal = new LegalMoves(mine ? view.legal_actions : []);
  const targets = new Set(legal.targets(page.choice).keys());
  const movable = new Set(/** @type {PileId[]} */ ([...legal.moves.keys()]));
  const hinted = new Set(/** @type {PileId[]} */ (page.hint ? hintPiles(page.hint.action) : []));
  fill(page.parts.felt, board({
    view,
    onPile: mine ? (pile, event) => pickPile(page, pile, event, legal) : null,
    targets,
    movable,
    chosen: page.choice?.kind === "pile" ? page.choice.pile : null,
    hinted,
  }));
  if (mine) {
    for (const pile of movable) {
      const element = page.parts.felt.querySelector(`[data-pile="${pile}"]`);
      if (element instanceof HTMLElement) letDrag(page, element, { kind: "pile", pile }, legal);
    }
  }
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawHand(page, view) {
  const seat = view.your_seat;
  const cards = view.hand ?? [];
  page.parts.handArea.hidden = seat === null || seat === undefined || (cards.length === 0 && view.status !== "playing");
  if (page.parts.handArea.hidden) return;
  const mine = page.myTurn() && !page.busy && view.status === "playing";
  const legal = new LegalMoves(mine ? view.legal_actions : []);
  const hinted = page.hint?.action.type === "play" ? page.hint.action.card : null;
  if (cards.length === 0) {
    fill(page.parts.hand, h("p", { class: "muted", text: view.status === "playing" ? "No cards in hand." : "" }));
    return;
  }
  fill(page.parts.hand, h("ul", { class: "hand", "aria-label": `Your hand: ${cards.length} cards` }, cards.map((card, index) => {
    if (!mine) return h("li", { class: "in-hand" }, cardImage(card));
    const playable = legal.playable(card);
    const chosen = page.choice?.kind === "card" && page.choice.card === card;
    const button = h("button", {
      type: "button",
      class: `card-button${playable ? " playable" : " unplayable"}${chosen ? " chosen" : ""}${hinted === card ? " hinted" : ""}`,
      "data-card": card,
      "data-focus": `card-${card}-${cards.indexOf(card) === index ? 0 : index}`,
      "aria-pressed": chosen ? "true" : "false",
      "aria-label": `${cardName(card)}${playable ? "" : ", cannot be played now"}`,
      onclick: (/** @type {MouseEvent} */ event) => pickCard(page, card, event, legal),
    }, cardImage(card, { label: false }));
    if (playable) letDrag(page, button, { kind: "card", card }, legal);
    return h("li", { class: "in-hand" }, button);
  })));
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawActions(page, view) {
  const seat = view.your_seat;
  if (seat === null || seat === undefined || view.status !== "playing") {
    fill(page.parts.actions);
    page.parts.actions.hidden = true;
    return;
  }
  page.parts.actions.hidden = false;
  const mine = page.myTurn();
  const legal = new LegalMoves(mine && !page.busy ? view.legal_actions : []);
  const inGame = view.seats[seat]?.in_game ?? false;
  const button = (/** @type {string} */ key, /** @type {string} */ text, /** @type {() => void} */ run, /** @type {string} */ kind = "") =>
    h("button", { type: "button", class: kind, "data-action": key, "data-focus": `action-${key}`, text, disabled: page.busy, onclick: run });
  fill(page.parts.actions,
    legal.draw ? button("draw", "Draw", () => { void submit(page, /** @type {Action} */ (legal.draw)); }, "primary") : null,
    legal.endTurn ? button("end_turn", "End the turn", () => { void submit(page, /** @type {Action} */ (legal.endTurn)); }, "primary") : null,
    page.choice ? button("cancel", "Put it back", () => { page.choice = null; page.render(); }, "quiet") : null,
    mine && view.hints ? button("hint", "Hint", () => { void askHint(page); }) : null,
    !mine && inGame && view.turn !== null && view.turn !== undefined ? button("nudge", "Nudge", () => { void nudge(page); }, "quiet") : null,
    !mine && inGame && view.clock?.deadline && !view.clock.claimable && !page.summary?.seats.find((one) => one.seat === view.turn)?.bot
      ? button("give-time", "Give more time", () => { void giveTime(page); }, "quiet") : null,
    inGame && view.clock?.claimable && view.turn !== seat ? button("claim", "Claim the late seat", () => { void claim(page); }, "warn") : null,
    inGame && view.can_abort ? button("abort", "Call the match off", () => { void confirmThen(page, "Call the match off? Nobody wins and nothing is scored.", { type: "abort" }); }, "quiet") : null,
    inGame ? button("resign", "Resign", () => { void confirmThen(page, "Resign? You are out of this match for good.", { type: "resign" }); }, "quiet danger") : null);
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawHint(page, view) {
  const hint = page.hint;
  if (!hint || !page.myTurn()) {
    fill(page.parts.hintBox);
    return;
  }
  const current = hint.version === view.version;
  fill(page.parts.hintBox, h("p", { class: "hint" },
    h("strong", { text: `Hint: ${actionText(hint.action)}. ` }), hint.reason,
    current ? h("button", { type: "button", class: "quiet", "data-action": "take-hint", text: "Do it", onclick: () => { void submit(page, hint.action); } }) : null));
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawResults(page, view) {
  const names = page.names();
  const parts = [];
  if (view.last_hand) parts.push(handResult(view.last_hand, names));
  if (page.summary && (page.summary.status === "finished" || page.summary.status === "aborted")) {
    const seated = names.yourSeat !== null;
    parts.unshift(matchResult(page.summary, names, endActions(page.summary, page.context, { seated, watch: page.watch })));
  }
  fill(page.parts.results, ...parts.filter((part) => part !== null));
}

/** @param {TablePage} page */
export function drawLinks(page) {
  const summary = page.summary;
  if (!summary) return;
  const watch = page.watch ? `?watch=${encodeURIComponent(page.watch)}` : "";
  fill(page.parts.links,
    summary.status !== "open" ? h("a", { href: `#/replay/${summary.id}${watch}`, text: "Replay" }) : null,
    summary.spectator_code && summary.status !== "open" ? h("a", {
      href: `#/match/${summary.id}?watch=${encodeURIComponent(summary.spectator_code)}`, text: "Spectator link",
      title: "Share it: whoever opens it watches this private match (never a hand)",
    }) : null);
}

/** @param {TablePage} page */
export function drawLog(page) {
  keepAtEnd(page.parts.log, () => fill(page.parts.log, ...logLines([...page.events.values()].sort((a, b) => a.seq - b.seq), page.names())));
}

/** @param {TablePage} page */
export function drawTalk(page) {
  const reportable = page.context.session.username ? (/** @type {LoggedEvent} */ logged) => h("button", {
    type: "button", class: "quiet report-line", text: "Report", title: "Report this message to the operators",
    onclick: () => void report(page.context, { about: "message", match_id: page.id, seq: logged.seq }, "Report this message"),
  }) : null;
  keepAtEnd(page.parts.talk, () => fill(page.parts.talk,
    ...talkLines([...page.events.values()].sort((a, b) => a.seq - b.seq), page.names(), reportable)));
}

/**
 * The talk's mute switch and, for a seated player, their private notes: drawn once, for a
 * reader who is logged in.
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawCommunity(page, view) {
  if (!page.context.session.username || page.parts.talkTools.childElementCount) return;
  fill(page.parts.talkTools, muteSwitch(page.context, page.id, (muted) => void page.talkMuted(muted)));
  const seated = view.your_seat !== null && view.your_seat !== undefined;
  fill(page.parts.notes, seated ? notesBox(page.context, page.id) : null);
}

/**
 * @param {TablePage} page
 * @param {MatchView} view
 */
export function drawTalkForm(page, view) {
  const seated = view.your_seat !== null && view.your_seat !== undefined;
  if (!seated || view.status !== "playing") {
    fill(page.parts.talkForm, seated ? h("p", { class: "muted", text: "Talk is open while the match is played." }) : null);
    return;
  }
  if (page.parts.talkForm.querySelector("form")) return; // keep what the player is typing
  fill(page.parts.talkForm, talkForm(page.context, page.id, (said) => {
    page.events.set(said.seq, said);
    drawTalk(page);
    drawLog(page);
  }));
}

/** @param {TablePage} page */
export function focusHand(page) {
  const first = page.parts.hand.querySelector(".card-button.playable") ?? page.parts.hand.querySelector(".card-button") ??
    page.parts.actions.querySelector("button");
  if (first instanceof HTMLElement) first.focus({ preventScroll: true });
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
