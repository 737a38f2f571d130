// Building the page: elements from plain values, text that can never become markup, and the
// few words every page shares (times, durations, announcements).

/**
 * What may stand among an element's children: text, a node, nothing, or a list of these
 * (lists nest as deep as `flat` goes; two levels are typed).
 * @typedef {string | number | Node | null | undefined | false} Leaf
 * @typedef {Leaf | Leaf[] | Leaf[][]} Child
 * @typedef {{[name: string]: unknown}} Attributes
 */

/**
 * An element with attributes and children. `class`, `text`, `on<event>` handlers, `dataset`
 * entries (`data-*`), `aria-*`, and properties such as `disabled` or `value` are understood;
 * strings become text nodes, never HTML.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Attributes} [attributes]
 * @param {...Child} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  assign(element, attributes);
  append(element, children);
  return element;
}

const SVG = "http://www.w3.org/2000/svg";

/**
 * An SVG element (attributes are set as they are written).
 * @param {string} tag
 * @param {{[name: string]: string | number}} [attributes]
 * @param {...Child} children
 * @returns {SVGElement}
 */
export function s(tag, attributes = {}, ...children) {
  const element = /** @type {SVGElement} */ (document.createElementNS(SVG, tag));
  for (const [name, value] of Object.entries(attributes)) {
    element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

/**
 * @param {HTMLElement} element
 * @param {Attributes} attributes
 */
function assign(element, attributes) {
  for (const [name, value] of Object.entries(attributes)) {
    if (value === undefined || value === null || value === false) continue;
    if (name === "class") {
      element.className = String(value);
    } else if (name === "text") {
      element.textContent = String(value);
    } else if (name.startsWith("on") && typeof value === "function") {
      element.addEventListener(name.slice(2), /** @type {EventListener} */ (value));
    } else if (name.startsWith("data-") || name.startsWith("aria-") || name === "role" ||
               name === "for" || name === "tabindex" || name === "list" || name === "form") {
      element.setAttribute(name, value === true ? "true" : String(value));
    } else {
      /** @type {any} */ (element)[name] = value;
    }
  }
}

/**
 * @param {Node} parent
 * @param {Child[]} children
 */
function append(parent, children) {
  for (const child of children.flat(Infinity)) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

/**
 * Replaces an element's children.
 * @param {Element} element
 * @param {...Child} children
 */
export function fill(element, ...children) {
  element.replaceChildren();
  append(element, children);
}

// Bidirectional embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): the server
// refuses them in table talk; a client still never lets one reorder what follows it.
const BIDI_CONTROLS = /[\u202A-\u202E\u2066-\u2069]/g;

/**
 * Text someone else wrote, as an isolated span: never markup, no bidirectional control
 * characters, its direction its own (`<bdi>`), so it cannot reorder what follows it.
 * @param {string} text
 * @param {string} [className]
 */
export function foreign(text, className) {
  return h("bdi", { class: className, text: text.replace(BIDI_CONTROLS, "") });
}

/**
 * Says something to screen readers (the page's polite live region).
 * @param {string} text
 */
export function announce(text) {
  const region = document.getElementById("announcer");
  if (!region) return;
  region.textContent = "";
  // A new text node in a later task, so the same sentence twice is read twice.
  setTimeout(() => { region.textContent = text; }, 30);
}

/**
 * `1 d 4 h`, `3 h 05 min`, `4:07`, `0:09`.
 * @param {number} seconds
 */
export function duration(seconds) {
  const total = Math.max(0, Math.floor(seconds));
  const days = Math.floor(total / 86400);
  const hours = Math.floor((total % 86400) / 3600);
  const minutes = Math.floor((total % 3600) / 60);
  const rest = total % 60;
  if (days > 0) return `${days} d ${hours} h`;
  if (hours > 0) return `${hours} h ${String(minutes).padStart(2, "0")} min`;
  return `${minutes}:${String(rest).padStart(2, "0")}`;
}

/**
 * A date and time in the reader's own words.
 * @param {string} rfc3339
 */
export function when(rfc3339) {
  const date = new Date(rfc3339);
  return date.toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
}

/**
 * A `<time>` element.
 * @param {string} rfc3339
 */
export function timeElement(rfc3339) {
  return h("time", { dateTime: rfc3339, text: when(rfc3339) });
}

/**
 * "1 card", "3 cards".
 * @param {number} count
 * @param {string} one
 * @param {string} [many]
 */
export function plural(count, one, many = `${one}s`) {
  return `${count} ${count === 1 ? one : many}`;
}

/**
 * The element a `querySelector` must find (the page is ours: its absence is a bug).
 * @param {ParentNode} root
 * @param {string} selector
 * @returns {HTMLElement}
 */
export function find(root, selector) {
  const found = root.querySelector(selector);
  if (!(found instanceof HTMLElement)) throw new Error(`no ${selector} on the page`);
  return found;
}
