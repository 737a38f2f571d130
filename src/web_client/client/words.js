// The table in words: who sits where, the piles' names, every kind of event and action as a
// sentence ("Leo played 7♥ on N."). The lists of event and notification kinds are records of
// the description's unions, so a kind added to the API fails the type check until it is
// named here.

import { cardShort } from "./cards.js";
import { duration, plural, when } from "./dom.js";

/** @typedef {import("./types.js").Event} Event */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").PileId} PileId */
/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./types.js").Notification} Notification */

/** @type {Record<PileId, string>} */
export const PILE_NAMES = {
  N: "north side pile", E: "east side pile", S: "south side pile", W: "west side pile",
  NE: "north-east corner", SE: "south-east corner", SW: "south-west corner", NW: "north-west corner",
  FC: "clubs foundation", FD: "diamonds foundation", FH: "hearts foundation", FS: "spades foundation",
};

/** @type {PileId[]} */
export const SIDES = ["N", "E", "S", "W"];
/** @type {PileId[]} */
export const CORNERS = ["NE", "SE", "SW", "NW"];
/** @type {PileId[]} */
export const FOUNDATIONS = ["FC", "FD", "FH", "FS"];

/** Every kind of a match's log entry (the feed's and the stream's event names). */
/** @type {Record<Event["type"], true>} */
const EVENT_KINDS = {
  hand_dealt: true, turn_started: true, side_refilled: true, cards_drawn: true, card_played: true,
  pile_moved: true, corner_claimed: true, king_hold_penalized: true, chips_to_pot: true,
  turn_ended: true, hand_ended: true, seat_out: true, match_aborted: true, game_ended: true,
  deadline_near: true, bot_stood_in: true, table_talk: true, nudged: true, time_given: true,
  vacation_started: true, vacation_ended: true,
};
export const EVENT_TYPES = Object.keys(EVENT_KINDS);

/** Entries the server writes beside the game: they change nothing at the table. */
export const NOTE_TYPES = new Set([
  "deadline_near", "bot_stood_in", "table_talk", "nudged", "time_given", "vacation_started", "vacation_ended",
]);

/** Every kind of notification (the account stream's event names). */
/** @type {Record<Notification["type"], true>} */
const NOTIFICATION_KINDS = {
  your_turn: true, match_started: true, match_finished: true, seat_joined: true, seat_left: true,
  invited: true, deadline_near: true, seat_out: true, rematch_offered: true, nudged: true,
  vacation_started: true, vacation_ended: true,
};
export const NOTIFICATION_TYPES = Object.keys(NOTIFICATION_KINDS);

/**
 * Who sits at each seat, as the page names them.
 */
export class Names {
  /**
   * @param {MatchSummary | null} summary
   * @param {number | null} yourSeat
   */
  constructor(summary, yourSeat) {
    this.summary = summary;
    this.yourSeat = yourSeat;
  }

  /**
   * "Leo", "You", "the expert bot", "seat 3".
   * @param {number} seat
   * @param {{capital?: boolean}} [options]
   */
  of(seat, options = {}) {
    if (seat === this.yourSeat) return options.capital === false ? "you" : "You";
    const taken = this.summary?.seats.find((info) => info.seat === seat);
    if (!taken) return `Seat ${seat + 1}`;
    if (taken.bot) return `${options.capital === false ? "the" : "The"} ${this.player(seat)}`;
    return taken.username;
  }

  /**
   * The player's name without "You".
   * @param {number} seat
   */
  player(seat) {
    const taken = this.summary?.seats.find((info) => info.seat === seat);
    if (!taken) return `Seat ${seat + 1}`;
    if (!taken.bot) return taken.username;
    // Two bots of one level are told apart by their seats.
    const twin = this.summary?.seats.some((info) => info.seat !== seat && info.bot === taken.bot);
    return twin ? `${taken.bot} bot of seat ${seat + 1}` : `${taken.bot} bot`;
  }

  /**
   * A list of seats in words: "Maya and Leo", "Leo and you".
   * @param {number[]} seats
   * @param {{capital?: boolean}} [options] Whether the list starts a sentence.
   */
  list(seats, options = {}) {
    const names = seats.map((seat, index) => this.of(seat, { capital: index === 0 && options.capital !== false }));
    if (names.length <= 1) return names[0] ?? (options.capital === false ? "nobody" : "Nobody");
    return `${names.slice(0, -1).join(", ")} and ${names[names.length - 1]}`;
  }

  /**
   * "Maya wins", "you win", "Maya and Leo win".
   * @param {number[]} seats
   * @param {{capital?: boolean}} [options]
   */
  win(seats, options = {}) {
    const one = seats.length === 1 && seats[0] !== this.yourSeat;
    return `${this.list(seats, options)} ${one ? "wins" : "win"}`;
  }

  /**
   * "Maya has", "You have".
   * @param {number} seat
   * @param {string} verb "has" or "is".
   */
  verb(seat, verb) {
    if (seat !== this.yourSeat) return `${this.of(seat)} ${verb}`;
    return `You ${verb === "has" ? "have" : verb === "is" ? "are" : verb}`;
  }
}

/**
 * One log entry as a sentence.
 * @param {Event} event
 * @param {Names} names
 */
export function eventText(event, names) {
  switch (event.type) {
    case "hand_dealt":
      return `Hand ${event.hand} is dealt (${names.of(event.dealer, { capital: false })} ${event.dealer === names.yourSeat ? "deal" : "deals"}); ` +
        `${event.layout.map(cardShort).join(" ")} turned up on N E S W; ${plural(event.stock_count, "card")} in the stock.`;
    case "turn_started":
      return `${names.of(event.seat)}${event.seat === names.yourSeat ? "r" : "'s"} turn.`;
    case "side_refilled":
      return `${cardShort(event.card)} turned up from the stock onto ${event.pile}.`;
    case "cards_drawn": {
      const what = event.cards ? event.cards.map(cardShort).join(" ") : plural(event.count, "card");
      const why = event.reason === "turn_start" ? " as the turn began" : event.reason === "turn_end" ? " to end the turn" : "";
      return event.count === 0 ? `${names.of(event.seat)} drew nothing: the stock is empty.`
        : `${names.of(event.seat)} drew ${what}${why}.`;
    }
    case "card_played":
      return `${names.of(event.seat)} played ${cardShort(event.card)} on ${event.to}.`;
    case "pile_moved":
      return `${names.of(event.seat)} moved ${event.count === 1 ? "the card" : `${event.count} cards`} from ${event.from} onto ${event.to}.`;
    case "corner_claimed":
      return `${names.of(event.seat)} claimed the ${PILE_NAMES[event.pile]} (${event.cards.map(cardShort).join(" ")}).`;
    case "king_hold_penalized":
      return `${names.of(event.seat)} held a king with a corner empty: ${plural(event.points, "point")}.`;
    case "chips_to_pot":
      return `${names.of(event.seat)} paid ${plural(event.chips, "chip")} into the pot.`;
    case "turn_ended":
      return event.passed ? `${names.of(event.seat)} passed.` : `${names.of(event.seat)} ended the turn.`;
    case "hand_ended": {
      const outcome = event.outcome.kind === "went_out"
        ? `${names.of(event.outcome.seat, { capital: false })} went out`
        : "the hand is blocked";
      const winners = event.winners.length ? `; ${names.win(event.winners, { capital: false })} it` : "";
      return `Hand ${event.hand} is over: ${outcome}${winners}.`;
    }
    case "seat_out":
      return event.reason === "resign" ? `${names.of(event.seat)} resigned.`
        : `${names.of(event.seat)} ran out of time and ${event.seat === names.yourSeat ? "are" : "is"} out.`;
    case "match_aborted":
      return `${names.of(event.seat)} called the match off.`;
    case "game_ended":
      return event.winners.length ? `The match is over: ${names.win(event.winners, { capital: false })}.` : "The match is over.";
    case "deadline_near":
      return `${names.of(event.seat)} ${event.seat === names.yourSeat ? "have" : "has"} a tenth of the turn's time left.`;
    case "bot_stood_in":
      return `${names.of(event.seat)} ran out of time: the basic bot plays this turn.`;
    case "table_talk":
      return `${names.of(event.seat)}: ${event.text}`;
    case "nudged":
      return `${names.of(event.by)} nudged ${names.of(event.seat, { capital: false })}.`;
    case "time_given":
      return `${names.of(event.by)} gave ${names.of(event.seat, { capital: false })} more time: ${duration(event.seconds)}.`;
    case "vacation_started":
      return `${names.of(event.seat)} ${event.seat === names.yourSeat ? "are" : "is"} on vacation until ${when(event.until)}: the clock waits.`;
    case "vacation_ended":
      return `${names.of(event.seat)} ${event.seat === names.yourSeat ? "are" : "is"} back from vacation.`;
  }
}

/**
 * An action as a button's words: "Play 7♥ on N", "Move S onto N".
 * @param {Action} action
 */
export function actionText(action) {
  switch (action.type) {
    case "play":
      return `Play ${cardShort(action.card)}${action.as ? ` as ${cardShort(action.as)}` : ""} on ${action.to}`;
    case "move":
      return `Move ${action.count ? `the top ${plural(action.count, "card")} of ` : ""}${action.from} onto ${action.to}`;
    case "draw":
      return "Draw";
    case "end_turn":
      return "End the turn";
    case "resign":
      return "Resign";
    case "abort":
      return "Call the match off";
  }
}

/**
 * A table's rules in a few words: "standard, 4 seats, to 50".
 * @param {import("./types.js").Rules} rules
 * @param {string} preset
 */
export function rulesText(rules, preset) {
  const end = rules.game_end;
  const goal = !end ? "" : "target" in end ? `to ${end.target}`
    : "single_hand" in end ? "one hand"
      : "out_at_target" in end ? `out at ${end.out_at_target}`
        : "hands_won" in end ? `first to win ${end.hands_won}`
          : `${end.hands} hands`;
  return [preset, plural(rules.players ?? 0, "seat"), goal].filter(Boolean).join(", ");
}
