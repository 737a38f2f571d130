// The layout on the felt: the four side piles N E S W, the four corners NE SE SW NW, the stock
// in the middle and, with the `foundations` option, FC FD FH FS. Each pile shows every card,
// bottom to top, fanned so the top card is whole. At the table the piles are buttons (a pile
// is a target for a chosen card or pile, or a pile to move); in a replay they are pictures.
// Piles carry their cards in `data-cards` (the notation), which the tests read back.

import { cardBack, cardImage, cardName } from "./cards.js";
import { h, plural } from "./dom.js";
import { CORNERS, FOUNDATIONS, PILE_NAMES, SIDES } from "./words.js";

/** @typedef {import("./types.js").PileId} PileId */
/** @typedef {import("./types.js").View} View */

/**
 * What the board shows and how it answers.
 * @typedef {object} BoardOptions
 * @property {View} view
 * @property {((pile: PileId, event: MouseEvent) => void) | null} onPile `null`: a picture only.
 * @property {Set<PileId>} [targets] Where the chosen card or pile may go.
 * @property {Set<PileId>} [movable] Piles that may move somewhere.
 * @property {PileId | null} [chosen] The pile picked up.
 * @property {Set<PileId>} [hinted] The hint's piles.
 */

/** @param {BoardOptions} options */
export function board(options) {
  const { view } = options;
  const piles = /** @type {Record<string, string[]>} */ (view.piles);
  const places = [...SIDES, ...CORNERS].map((id) => pile(id, piles[id] ?? [], options));
  const stock = h("div", { class: "stock", "data-stock": view.stock_count },
    view.stock_count > 0 ? cardBack() : h("div", { class: "card-slot" }),
    h("span", { class: "stock-count", text: `${view.stock_count} in the stock` }));
  const layout = h("div", { class: "layout", role: "group", "aria-label": "The layout" }, places, stock);
  if (!view.foundations) return layout;
  const foundations = /** @type {Record<string, string[]>} */ (view.foundations);
  return h("div", { class: "board-with-foundations" }, layout,
    h("div", { class: "foundations", role: "group", "aria-label": "Foundations" },
      FOUNDATIONS.map((id) => pile(id, foundations[id] ?? [], options))));
}

/**
 * @param {PileId} id
 * @param {string[]} cards Bottom → top.
 * @param {BoardOptions} options
 */
function pile(id, cards, options) {
  const kind = SIDES.includes(id) ? "side" : CORNERS.includes(id) ? "corner" : "foundation";
  const classes = [`pile`, kind, `pile-${id}`];
  if (options.targets?.has(id)) classes.push("target");
  if (options.movable?.has(id)) classes.push("movable");
  if (options.chosen === id) classes.push("chosen");
  if (options.hinted?.has(id)) classes.push("hinted");
  const fan = h("div", { class: "fan" },
    cards.length === 0 ? h("div", { class: "card-slot" }) : cards.map((card, index) => {
      const placed = h("div", { class: "placed" }, cardImage(card, { label: false }));
      placed.style.setProperty("--i", String(index));
      return placed;
    }));
  fan.style.setProperty("--n", String(Math.max(1, cards.length)));
  const contents = [h("span", { class: "pile-id", "aria-hidden": "true", text: id }), fan];
  const attributes = {
    class: classes.join(" "),
    "data-pile": id,
    "data-cards": cards.join(" "),
    "aria-label": describe(id, cards, options),
  };
  if (!options.onPile) return h("div", { ...attributes, role: "img" }, contents);
  const onPile = options.onPile;
  return h("button", {
    ...attributes,
    type: "button",
    "data-focus": `pile-${id}`,
    "aria-pressed": options.chosen === id ? "true" : undefined,
    onclick: (/** @type {MouseEvent} */ event) => onPile(id, event),
  }, contents);
}

/**
 * "North side pile: king of hearts down to ten of spades, 4 cards. Target for the chosen card."
 * @param {PileId} id
 * @param {string[]} cards
 * @param {BoardOptions} options
 */
function describe(id, cards, options) {
  const name = PILE_NAMES[id];
  const what = cards.length === 0 ? "empty"
    : cards.length === 1 ? cardName(cards[0])
      : `${cardName(cards[0])} up to ${cardName(cards[cards.length - 1])} on top, ${plural(cards.length, "card")}`;
  const notes = [];
  if (options.targets?.has(id)) notes.push("you may put the chosen cards here");
  else if (options.chosen === id) notes.push("chosen to move");
  else if (options.movable?.has(id)) notes.push("can be moved");
  return `${name[0].toUpperCase()}${name.slice(1)}: ${what}${notes.length ? `. ${notes.join(", ")}` : ""}.`;
}
