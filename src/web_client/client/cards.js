// Cards in the rule book's notation (docs/rules.md §1): `"10H"` is the ten of hearts, `"JK"` a
// joker in hand, `"JK7H"` a joker on the table standing for the seven of hearts. Each is drawn
// as an SVG image with its name for screen readers ("seven of hearts"); the suits are shapes
// (a sprite in index.html) so no font is needed, and the four-colour deck only changes the
// colours the style sheet gives each suit.

import { s } from "./dom.js";

/** @typedef {"C" | "D" | "H" | "S"} Suit */

/** @type {Record<Suit, {name: string, symbol: string}>} */
export const SUITS = {
  C: { name: "clubs", symbol: "♣" },
  D: { name: "diamonds", symbol: "♦" },
  H: { name: "hearts", symbol: "♥" },
  S: { name: "spades", symbol: "♠" },
};

/** @type {Record<string, string>} */
const RANK_NAMES = {
  A: "ace", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight",
  9: "nine", 10: "ten", J: "jack", Q: "queen", K: "king",
};

/**
 * A card read from its notation.
 * @typedef {object} Parsed
 * @property {string} code As written.
 * @property {string | null} rank `A`, `2` … `10`, `J`, `Q`, `K`; `null` for a joker in hand.
 * @property {Suit | null} suit
 * @property {boolean} joker Whether it is a joker (in hand, or standing for `rank` `suit`).
 */

/**
 * @param {string} code
 * @returns {Parsed}
 */
export function parse(code) {
  const joker = code.startsWith("JK");
  const face = joker ? code.slice(2) : code;
  if (!face) return { code, rank: null, suit: null, joker };
  const suit = /** @type {Suit} */ (face.slice(-1));
  return { code, rank: face.slice(0, -1), suit, joker };
}

/**
 * The card's name in words: "seven of hearts", "joker", "joker as the seven of hearts".
 * @param {string} code
 */
export function cardName(code) {
  const card = parse(code);
  if (!card.rank || !card.suit) return "joker";
  const face = `${RANK_NAMES[card.rank]} of ${SUITS[card.suit].name}`;
  return card.joker ? `joker as the ${face}` : face;
}

/**
 * The card in a few characters: "7♥", "10♠", "JK", "JK 7♥".
 * @param {string} code
 */
export function cardShort(code) {
  const card = parse(code);
  if (!card.rank || !card.suit) return "JK";
  const face = `${card.rank}${SUITS[card.suit].symbol}`;
  return card.joker ? `JK ${face}` : face;
}

/**
 * Whether a card is red (hearts, diamonds).
 * @param {string} code
 */
export function isRed(code) {
  const { suit } = parse(code);
  return suit === "H" || suit === "D";
}

const WIDTH = 100;
const HEIGHT = 140;

/**
 * The picture of a card, named for screen readers.
 * @param {string} code
 * @param {{label?: boolean}} [options] `label: false` leaves the naming to an enclosing
 *   element (the picture is then hidden from screen readers).
 */
export function cardImage(code, options = {}) {
  const card = parse(code);
  const suitClass = card.suit ? `suit-${card.suit}` : "suit-joker";
  const named = options.label !== false;
  const picture = s("svg", {
    class: `card-image ${suitClass}${card.joker ? " joker" : ""}`,
    viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
    ...(named ? { role: "img", "aria-label": cardName(code) } : { "aria-hidden": "true", focusable: "false" }),
    "data-card": code,
  });
  picture.appendChild(s("rect", { class: "card-face", x: 1, y: 1, width: WIDTH - 2, height: HEIGHT - 2, rx: 9 }));
  if (!card.rank || !card.suit) {
    picture.appendChild(jokerFace());
    return picture;
  }
  const corner = (/** @type {string} */ transform) => s("g", { class: "ink", transform },
    s("text", { class: "rank", x: 12, y: 27, "text-anchor": "middle" }, card.rank === "10" ? "10" : card.rank ?? ""),
    suitShape(card.suit ?? "S", 4, 33, 16));
  picture.appendChild(corner(""));
  picture.appendChild(corner(`rotate(180 ${WIDTH / 2} ${HEIGHT / 2})`));
  if (["J", "Q", "K"].includes(card.rank)) {
    picture.appendChild(s("rect", { class: "court", x: 24, y: 30, width: 52, height: 80, rx: 5 }));
    picture.appendChild(s("text", { class: "ink court-rank", x: 50, y: 70, "text-anchor": "middle" }, card.rank));
    picture.appendChild(suitShape(card.suit, 39, 80, 22));
  } else {
    const size = card.rank === "A" ? 48 : 36;
    picture.appendChild(suitShape(card.suit, 50 - size / 2, 70 - size / 2, size));
  }
  if (card.joker) {
    picture.appendChild(s("text", { class: "joker-badge", x: 88, y: 22, "text-anchor": "middle" }, "JK"));
  }
  return picture;
}

/** The joker's face: a star and its name. */
function jokerFace() {
  return s("g", { class: "ink joker-face" },
    s("path", { d: "M50 38 L57 60 L80 60 L61 73 L68 95 L50 82 L32 95 L39 73 L20 60 L43 60 Z" }),
    s("text", { class: "rank", x: 50, y: 124, "text-anchor": "middle" }, "JOKER"),
    s("text", { class: "rank", x: 16, y: 27, "text-anchor": "middle" }, "JK"));
}

/**
 * A suit's shape (from the sprite) at `x`, `y`, `size` wide.
 * @param {Suit} suit
 * @param {number} x
 * @param {number} y
 * @param {number} size
 */
function suitShape(suit, x, y, size) {
  return s("use", { class: "ink", href: `#suit-${suit}`, x, y, width: size, height: size });
}

/** The back of a card (the stock). */
export function cardBack() {
  return s("svg", { class: "card-image card-back", viewBox: `0 0 ${WIDTH} ${HEIGHT}`, "aria-hidden": "true", focusable: "false" },
    s("rect", { class: "back-face", x: 1, y: 1, width: WIDTH - 2, height: HEIGHT - 2, rx: 9 }),
    s("rect", { class: "back-pattern", x: 10, y: 10, width: WIDTH - 20, height: HEIGHT - 20, rx: 5 }));
}
