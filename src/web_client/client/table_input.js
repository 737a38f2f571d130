// The player's choices at a table (table.js): a card or a pile picked up by a click, a tap, a
// drag or the keyboard, the piles it may go to, and the move sent with the view's version and
// an `Idempotency-Key` (sent again with the same key when its outcome is unknown, so it is made
// once); hints, claims, nudges, gifts of time, and what asks for a confirmation first.

import { ApiError, explain } from "./api.js";
import { cardShort } from "./cards.js";
import { ask, confirmed } from "./dialog.js";
import { announce } from "./dom.js";
import { draggable } from "./drag.js";
import { LegalMoves } from "./moves.js";
import { PILE_NAMES, actionText } from "./words.js";

/** @typedef {import("./table.js").TablePage} TablePage */
/** @typedef {import("./types.js").Action} Action */
/** @typedef {import("./types.js").PileId} PileId */
/** @typedef {import("./moves.js").Choice} Choice */

/**
 * @param {TablePage} page
 * A card of the hand was clicked (or chosen with the keyboard).
 * @param {string} card
 * @param {MouseEvent} event
 * @param {LegalMoves} legal
 */
export function pickCard(page, card, event, legal) {
  if (page.busy) return;
  if (!legal.playable(card)) {
    page.context.toast(`${cardShort(card)} cannot be played now.`);
    return;
  }
  const again = page.choice?.kind === "card" && page.choice.card === card;
  page.choice = again ? null : { kind: "card", card };
  page.render();
  if (!again) pointToTargets(page, event, legal);
}

/**
 * @param {TablePage} page
 * A pile was clicked: the chosen card or pile goes there, or it is picked up to move.
 * @param {PileId} pile
 * @param {MouseEvent} event
 * @param {LegalMoves} legal
 */
export function pickPile(page, pile, event, legal) {
  if (page.busy) return;
  const actions = legal.targets(page.choice).get(pile);
  if (actions) {
    void act(page, actions);
    return;
  }
  if (page.choice?.kind === "pile" && page.choice.pile === pile) {
    page.choice = null;
    page.render();
    return;
  }
  if (legal.movable(pile)) {
    page.choice = { kind: "pile", pile };
    page.render();
    pointToTargets(page, event, legal);
    return;
  }
  if (page.choice) {
    const what = page.choice.kind === "card" ? cardShort(page.choice.card) : `the ${PILE_NAMES[page.choice.pile]}`;
    page.context.toast(`${what} cannot go on the ${PILE_NAMES[pile]}.`);
  } else {
    page.context.toast(`The ${PILE_NAMES[pile]} cannot move now. Pick a card of your hand first.`);
  }
}

/**
 * @param {TablePage} page
 * After a choice made with the keyboard, focus moves to the first pile it may go to.
 * @param {MouseEvent} event
 * @param {LegalMoves} legal
 */
export function pointToTargets(page, event, legal) {
  const targets = [...legal.targets(page.choice).keys()];
  announce(`Goes on ${targets.map((pile) => pile).join(", ")}.`);
  if (event.detail !== 0 || targets.length === 0) return;
  const first = page.parts.felt.querySelector(`[data-pile="${targets[0]}"]`);
  if (first instanceof HTMLElement) first.focus();
}

/**
 * @param {TablePage} page
 * Lets a card or a pile be dragged onto the piles it may go to.
 * @param {HTMLElement} element
 * @param {Choice} choice
 * @param {LegalMoves} legal
 */
export function letDrag(page, element, choice, legal) {
  draggable(element, choice.kind === "card" ? { card: choice.card } : { label: choice.pile }, {
    allowed: () => !page.busy,
    start: () => {
      page.choice = choice;
      page.render();
    },
    drop: (pile) => {
      const actions = pile ? legal.targets(choice).get(pile) : undefined;
      if (actions) void act(page, actions);
      else page.render();
    },
  });
}

/**
 * @param {TablePage} page
 * Sends one of the actions that put the choice on a pile (asking which, when a joker may
 * stand for several cards or a run may move more or fewer cards).
 * @param {Action[]} actions
 */
export async function act(page, actions) {
  const action = actions.length === 1 ? actions[0]
    : await ask("Which one?", actions.map((choice) => ({ text: actionText(choice), value: choice })));
  if (action) await submit(page, action);
  else page.render();
}

/**
 * @param {TablePage} page
 * Makes a move. A `409 version_conflict` means the table changed first: the view is read
 * again. When the outcome is unknown (no answer, or a `503` that could not say), the same
 * move is sent again with the same key: the server answers its first answer, or makes it.
 * @param {Action} action
 */
export async function submit(page, action) {
  const view = page.view;
  if (!view || page.busy) return;
  page.busy = true;
  page.render();
  const key = crypto.randomUUID();
  try {
    for (let attempt = 1; ; attempt += 1) {
      try {
        const next = await page.api.post("/v1/matches/{id}/moves", {
          path: { id: page.id },
          body: { expected_version: view.version, action },
          headers: { "idempotency-key": key },
        });
        page.choice = null;
        page.hint = null;
        page.etag = null;
        page.setView(next);
        announce(`${actionText(action)}: done.`);
        page.context.inbox.countSoon(300);
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
      page.context.toast("The table changed before your move arrived: here it is now.");
      page.choice = null;
      await page.refreshView().catch(() => {});
    } else {
      page.context.toast(explain(error), "error");
    }
  } finally {
    page.busy = false;
    page.render();
  }
}

/**
 * @param {TablePage} page
 * Resigning and calling off, after the player confirms.
 * @param {string} question
 * @param {Action} action
 */
export async function confirmThen(page, question, action) {
  if (await confirmed(question, actionText(action))) await submit(page, action);
}

/** @param {TablePage} page */
export async function askHint(page) {
  try {
    page.hint = await page.api.get("/v1/matches/{id}/hint", { path: { id: page.id } });
    page.render();
  } catch (error) {
    page.context.toast(explain(error), "error");
  }
}

/** @param {TablePage} page */
export async function claim(page) {
  try {
    page.setView(await page.api.post("/v1/matches/{id}/claim", { path: { id: page.id } }));
    page.render();
  } catch (error) {
    page.context.toast(explain(error), "error");
  }
}

/** @param {TablePage} page */
export async function giveTime(page) {
  try {
    const given = await page.api.post("/v1/matches/{id}/give-time", { path: { id: page.id } });
    page.receive([given]);
    page.context.toast("Given: their deadline moved by a turn's time.");
  } catch (error) {
    page.context.toast(explain(error), "error");
  }
}

/** @param {TablePage} page */
export async function nudge(page) {
  try {
    const nudged = await page.api.post("/v1/matches/{id}/nudge", { path: { id: page.id } });
    page.receive([nudged]);
    page.context.toast("Nudged: they are told the table waits for them.");
  } catch (error) {
    page.context.toast(explain(error), "error");
  }
}
