// What the player may do now, read from the view's `legal_actions` only (the server's rules,
// never the client's guess): which cards of the hand can go where, which piles can move where,
// and whether drawing or ending the turn is open. A choice is a card or a pile; its targets are
// the piles it may go to, each with the actions that put it there (a joker names the card it
// stands for, a partial run how many cards move).

/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").PlayAction} PlayAction */
/** @typedef {import("./types.js").MoveAction} MoveAction */
/** @typedef {import("./types.js").PileId} PileId */

/**
 * What the player has picked up: a card of the hand, or a pile of the layout.
 * @typedef {{kind: "card", card: string} | {kind: "pile", pile: PileId}} Choice
 */

export class LegalMoves {
  /** @param {Action[]} actions */
  constructor(actions) {
    /** @type {Map<string, Map<PileId, PlayAction[]>>} */
    this.plays = new Map();
    /** @type {Map<PileId, Map<PileId, MoveAction[]>>} */
    this.moves = new Map();
    /** @type {Action | null} */
    this.draw = null;
    /** @type {Action | null} */
    this.endTurn = null;
    for (const action of actions) {
      if (action.type === "play") {
        push(this.plays, action.card, action.to, action);
      } else if (action.type === "move") {
        push(this.moves, action.from, action.to, action);
      } else if (action.type === "draw") {
        this.draw = action;
      } else if (action.type === "end_turn") {
        this.endTurn = action;
      }
    }
  }

  /** Whether anything at all may be done. */
  get any() {
    return this.plays.size > 0 || this.moves.size > 0 || this.draw !== null || this.endTurn !== null;
  }

  /**
   * Whether a card of the hand can be played somewhere.
   * @param {string} card
   */
  playable(card) {
    return this.plays.has(card);
  }

  /**
   * Whether a pile can move somewhere.
   * @param {PileId} pile
   */
  movable(pile) {
    return this.moves.has(pile);
  }

  /**
   * Where a choice may go, with the actions that take it there.
   * @param {Choice | null} choice
   * @returns {Map<PileId, Action[]>}
   */
  targets(choice) {
    if (!choice) return new Map();
    const found = choice.kind === "card" ? this.plays.get(choice.card) : this.moves.get(choice.pile);
    return /** @type {Map<PileId, Action[]>} */ (found ?? new Map());
  }
}

/**
 * @template K, A
 * @param {Map<K, Map<PileId, A[]>>} index
 * @param {K} key
 * @param {PileId} to
 * @param {A} action
 */
function push(index, key, to, action) {
  let targets = index.get(key);
  if (!targets) index.set(key, (targets = new Map()));
  const list = targets.get(to);
  if (list) list.push(action);
  else targets.set(to, [action]);
}
