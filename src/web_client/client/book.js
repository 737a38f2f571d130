// The rule book as a page: the server renders docs/rules.md to HTML (`GET /v1/rules/book` with
// `Accept: text/html`; src/http/book_html.rs says what it lets through). The page copies only
// the elements and attributes a book has, so even a changed answer could never bring a script,
// a style or an event handler in: the CSP stays strict and the copy is the second lock.

import { explain } from "./api.js";
import { fill, h } from "./dom.js";

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mountBook(root, context) {
  context.title("Rules");
  const article = h("article", { class: "book" }, h("p", { class: "muted", text: "Loading the rule book…" }));
  fill(root, article);
  let live = true;
  context.api.get("/v1/rules/book", { headers: { accept: "text/html" } }).then((html) => {
    if (live) fill(article, ...render(String(html)));
  }, (error) => {
    if (live) fill(article, h("p", { class: "error", role: "alert", text: explain(error) }));
  });
  return () => { live = false; };
}

/** The elements a book has, and what each becomes on the page (headings one level down: the page has its own h1). */
/** @type {Map<string, keyof HTMLElementTagNameMap>} */
const KEPT = new Map([
  ["H1", "h2"], ["H2", "h3"], ["H3", "h4"], ["H4", "h5"], ["H5", "h6"], ["H6", "h6"],
  ["P", "p"], ["UL", "ul"], ["OL", "ol"], ["LI", "li"], ["BLOCKQUOTE", "blockquote"], ["HR", "hr"], ["BR", "br"],
  ["PRE", "pre"], ["CODE", "code"], ["STRONG", "strong"], ["EM", "em"], ["DEL", "del"], ["A", "a"],
  ["TABLE", "table"], ["THEAD", "thead"], ["TBODY", "tbody"], ["TR", "tr"], ["TH", "th"], ["TD", "td"],
]);

/**
 * The book's HTML as the page's own nodes: parsed inert (DOMParser runs nothing), then copied
 * element by element through `KEPT`, text as text; anything else is left out with its content
 * kept as text.
 * @param {string} html
 * @returns {Node[]}
 */
export function render(html) {
  const parsed = new DOMParser().parseFromString(html, "text/html");
  return [...parsed.body.childNodes].flatMap(copy);
}

/**
 * @param {Node} node
 * @returns {Node[]}
 */
function copy(node) {
  if (node.nodeType === Node.TEXT_NODE) return [document.createTextNode(node.textContent ?? "")];
  if (!(node instanceof Element)) return [];
  const children = [...node.childNodes].flatMap(copy);
  const tag = KEPT.get(node.tagName);
  if (!tag) return children;
  if (tag === "a") return [link(node.getAttribute("href") ?? "", children)];
  const attributes = /^H\d$/.test(node.tagName) && node.id ? { id: node.id } : {};
  if (tag === "th") Object.assign(attributes, { scope: "col" });
  // What may scroll sideways on a phone (a wide table, a long line of code) takes the focus,
  // so that a keyboard can scroll it too.
  if (tag === "pre") Object.assign(attributes, { tabindex: 0 });
  const element = h(tag, attributes, children);
  return [tag === "table" ? h("div", { class: "table-scroll", tabindex: 0 }, element) : element];
}

/**
 * A link of the book: to one of its sections (scrolled to, since the page's own address is the
 * client's), or out (opened as it is, only http and https); anything else is its words.
 * @param {string} target
 * @param {Node[]} children
 * @returns {Node}
 */
function link(target, children) {
  if (target.startsWith("#")) {
    return h("a", {
      href: "#/rules",
      onclick: (/** @type {MouseEvent} */ event) => {
        event.preventDefault();
        document.getElementById(target.slice(1))?.scrollIntoView({ behavior: "smooth" });
      },
    }, children);
  }
  if (/^https?:\/\//.test(target)) return h("a", { href: target, rel: "noopener noreferrer" }, children);
  return h("span", {}, children);
}
