// The rule book (`GET /v1/rules/book`, the server's docs/rules.md) as a page. The Markdown is
// read by a small reader of its own that knows the book's few forms (headings, paragraphs,
// lists, tables, code, emphasis, links) and builds elements from text: nothing in the book is
// ever taken as HTML.

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
  context.api.get("/v1/rules/book").then((markdown) => {
    if (live) fill(article, ...render(String(markdown)));
  }, (error) => {
    if (live) fill(article, h("p", { class: "error", role: "alert", text: explain(error) }));
  });
  return () => { live = false; };
}

/**
 * @param {string} markdown
 * @returns {HTMLElement[]}
 */
export function render(markdown) {
  const lines = markdown.replace(/\r\n/g, "\n").split("\n");
  /** @type {HTMLElement[]} */
  const out = [];
  let index = 0;
  while (index < lines.length) {
    const line = lines[index];
    if (!line.trim()) { index += 1; continue; }
    const heading = /^(#{1,4})\s+(.*)$/.exec(line);
    if (heading) {
      const level = Math.min(heading[1].length + 1, 5);
      const tag = /** @type {"h2" | "h3" | "h4" | "h5"} */ (`h${level}`);
      out.push(h(tag, { id: slug(heading[2]) }, inline(heading[2])));
      index += 1;
      continue;
    }
    if (line.startsWith("```")) {
      const code = [];
      index += 1;
      while (index < lines.length && !lines[index].startsWith("```")) code.push(lines[index++]);
      index += 1;
      out.push(h("pre", {}, h("code", { text: code.join("\n") })));
      continue;
    }
    if (line.startsWith("|")) {
      const rows = [];
      while (index < lines.length && lines[index].startsWith("|")) rows.push(lines[index++]);
      out.push(table(rows));
      continue;
    }
    if (/^\s*([-*]|\d+\.)\s/.test(line)) {
      const ordered = /^\s*\d+\./.test(line);
      const items = [];
      while (index < lines.length && lines[index].trim() && !/^(#|```|\|)/.test(lines[index])) {
        const item = /^\s*(?:[-*]|\d+\.)\s+(.*)$/.exec(lines[index]);
        if (item) items.push(item[1]);
        else items[items.length - 1] += ` ${lines[index].trim()}`;
        index += 1;
      }
      out.push(h(ordered ? "ol" : "ul", {}, items.map((item) => h("li", {}, inline(item)))));
      continue;
    }
    const paragraph = [];
    while (index < lines.length && lines[index].trim() && !/^(#|```|\||\s*([-*]|\d+\.)\s)/.test(lines[index])) {
      paragraph.push(lines[index++].trim());
    }
    out.push(h("p", {}, inline(paragraph.join(" "))));
  }
  return out;
}

/** @param {string[]} rows */
function table(rows) {
  const cells = (/** @type {string} */ row) => row.replace(/^\||\|$/g, "").split("|").map((cell) => cell.trim());
  const [head, , ...body] = rows;
  return h("div", { class: "table-scroll" }, h("table", {},
    h("thead", {}, h("tr", {}, cells(head).map((cell) => h("th", { scope: "col" }, inline(cell))))),
    h("tbody", {}, body.map((row) => h("tr", {}, cells(row).map((cell) => h("td", {}, inline(cell))))))));
}

/**
 * `code`, **strong**, *emphasis* and [links](…) within a line, as nodes.
 * @param {string} text
 * @returns {(Node | string)[]}
 */
function inline(text) {
  /** @type {(Node | string)[]} */
  const out = [];
  const pattern = /`([^`]+)`|\*\*([^*]+)\*\*|\*([^*]+)\*|\[([^\]]+)\]\(([^)]+)\)/g;
  let last = 0;
  for (const found of text.matchAll(pattern)) {
    const at = found.index ?? 0;
    if (at > last) out.push(text.slice(last, at));
    if (found[1] !== undefined) out.push(h("code", { text: found[1] }));
    else if (found[2] !== undefined) out.push(h("strong", {}, inline(found[2])));
    else if (found[3] !== undefined) out.push(h("em", {}, inline(found[3])));
    else out.push(link(found[4], found[5]));
    last = at + found[0].length;
  }
  if (last < text.length) out.push(text.slice(last));
  return out;
}

/**
 * A link of the book: to one of its sections (scrolled to, since the page's own address is the
 * client's), or out (opened as it is, only http and https).
 * @param {string} text
 * @param {string} target
 */
function link(text, target) {
  if (target.startsWith("#")) {
    return h("a", {
      href: `#/rules`, text,
      onclick: (/** @type {MouseEvent} */ event) => {
        event.preventDefault();
        document.getElementById(target.slice(1))?.scrollIntoView({ behavior: "smooth" });
      },
    });
  }
  if (/^https?:\/\//.test(target)) return h("a", { href: target, text, rel: "noopener noreferrer" });
  return h("span", { text });
}

/**
 * The id GitHub gives a heading: "## 7. Leaving a game: …" → "7-leaving-a-game-…".
 * @param {string} heading
 */
function slug(heading) {
  return heading.toLowerCase().replace(/[^\p{L}\p{N}\s-]/gu, "").trim().replace(/\s/g, "-");
}
