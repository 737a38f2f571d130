// Dragging a card or a pile onto a pile, with a mouse, a pen or a finger (pointer events, so
// touch screens drag too). A press that does not move is left to be a click.

import { cardImage } from "./cards.js";
import { h } from "./dom.js";

/** @typedef {import("./types.js").PileId} PileId */

/** How far (px) the pointer moves before a press becomes a drag. */
const THRESHOLD = 8;
/** Near the window's top or bottom edge (px), a drag scrolls the page (a tall layout). */
const EDGE = 48;

/**
 * @typedef {object} DragHandlers
 * @property {() => void} start The drag began: pick the thing up (light its piles).
 * @property {(pile: PileId | null) => void} drop It was let go over `pile` (or over none).
 * @property {() => boolean} [allowed] Whether a drag may begin now.
 */

/**
 * Makes `element` (showing `card`, or the pile `label`) draggable onto `[data-pile]` elements.
 * @param {HTMLElement} element
 * @param {{card?: string, label?: string}} shown What the ghost under the pointer shows.
 * @param {DragHandlers} handlers
 */
export function draggable(element, shown, handlers) {
  element.classList.add("draggable");
  element.addEventListener("pointerdown", (down) => {
    if (down.button !== 0 || (handlers.allowed && !handlers.allowed())) return;
    /** @type {HTMLElement | null} */
    let ghost = null;
    const move = (/** @type {PointerEvent} */ event) => {
      if (!ghost) {
        if (Math.hypot(event.clientX - down.clientX, event.clientY - down.clientY) < THRESHOLD) return;
        handlers.start();
        ghost = h("div", { class: "drag-ghost", "aria-hidden": "true" },
          shown.card ? cardImage(shown.card, { label: false }) : h("span", { text: shown.label ?? "" }));
        document.body.append(ghost);
      }
      ghost.style.left = `${event.clientX}px`;
      ghost.style.top = `${event.clientY}px`;
      if (event.clientY < EDGE) window.scrollBy(0, -16);
      else if (event.clientY > window.innerHeight - EDGE) window.scrollBy(0, 16);
      for (const over of document.querySelectorAll(".drop-over")) over.classList.remove("drop-over");
      const under = pileAt(event, ghost);
      if (under?.classList.contains("target")) under.classList.add("drop-over");
    };
    const up = (/** @type {PointerEvent} */ event) => {
      window.removeEventListener("pointermove", move);
      window.removeEventListener("pointerup", up);
      window.removeEventListener("pointercancel", up);
      if (!ghost) return;
      const under = event.type === "pointerup" ? pileAt(event, ghost) : null;
      ghost.remove();
      // The click that ends a drag is not a choice of its own.
      window.addEventListener("click", swallow, { capture: true, once: true });
      setTimeout(() => window.removeEventListener("click", swallow, { capture: true }), 0);
      handlers.drop(/** @type {PileId | null} */ (under?.getAttribute("data-pile") ?? null));
    };
    window.addEventListener("pointermove", move);
    window.addEventListener("pointerup", up);
    window.addEventListener("pointercancel", up);
  });
}

/**
 * The pile under the pointer (looking past the ghost).
 * @param {PointerEvent} event
 * @param {HTMLElement} ghost
 */
function pileAt(event, ghost) {
  ghost.hidden = true;
  const under = document.elementFromPoint(event.clientX, event.clientY)?.closest("[data-pile]") ?? null;
  ghost.hidden = false;
  return under;
}

/** @param {Event} event */
function swallow(event) {
  event.stopPropagation();
  event.preventDefault();
}
