// The reference web client of kings-corner: a page per address (`#/match/<id>`), each mounted
// into <main> and unmounted when the address changes. Everything it knows comes from the
// server's public API (api.js); nothing is kept but the login in this tab (session.js) and
// the preferences (settings.js).
//
// Pages: the lobby (lobby.js), logging in (account.js), my matches (mine.js), a table
// (table.js), a replay (replay.js), a player (player.js), the rule book (book.js), settings
// (settings.js, with reach.js: email, alerts, devices), and a letter's link (letters.js).

import { mountAccount } from "./account.js";
import { Api, explain } from "./api.js";
import { mountBook } from "./book.js";
import { fill, find, h } from "./dom.js";
import { Inbox } from "./inbox.js";
import { mountLetterLink } from "./letters.js";
import { mountLobby } from "./lobby.js";
import { mountMine } from "./mine.js";
import { mountPlayer } from "./player.js";
import { mountReplay } from "./replay.js";
import { Session } from "./session.js";
import { Preferences, mountSettings } from "./settings.js";
import { mountTable } from "./table.js";

/** @typedef {import("./types.js").RulesCatalog} RulesCatalog */

/**
 * What every page is given.
 * @typedef {object} Context
 * @property {Api} api
 * @property {Session} session
 * @property {Inbox} inbox
 * @property {Preferences} preferences
 * @property {(hash: string) => void} navigate Go to another page (`#/mine`).
 * @property {(text: string, kind?: "error" | "info") => void} toast Tell the player something.
 * @property {(title: string) => void} title Name the page (the waiting count is added).
 * @property {() => Promise<RulesCatalog>} catalog The rule catalog (fetched once).
 */

/**
 * Where the page is: `#/match/<id>?watch=<code>` is `{name: "match", parts: [id], query}`.
 * @typedef {{name: string, parts: string[], query: URLSearchParams}} Route
 */

/**
 * A page: mounted into <main>, it answers how to unmount it.
 * @typedef {(root: HTMLElement, context: Context, route: Route) => (() => void)} Page
 */

/** @type {Record<string, Page>} */
const PAGES = {
  "": mountLobby,
  login: mountAccount,
  mine: mountMine,
  match: mountTable,
  replay: mountReplay,
  players: mountPlayer,
  rules: mountBook,
  settings: mountSettings,
};

function route() {
  const [path, search = ""] = location.hash.replace(/^#\/?/, "").split("?");
  const [name = "", ...parts] = path.split("/").filter(Boolean).map(decodeURIComponent);
  return { name, parts, query: new URLSearchParams(search) };
}

function boot() {
  const preferences = new Preferences();
  const api = new Api(preferences.apiBase);
  const session = new Session(api);
  const main = find(document, "main");
  let pageTitle = "Kings Corner";
  /** @type {RulesCatalog | null} */
  let catalog = null;
  /** @type {Context} */
  const context = {
    api,
    session,
    preferences,
    inbox: new Inbox(api, session, preferences),
    navigate: (hash) => { location.hash = hash; },
    toast,
    title: (title) => {
      pageTitle = title ? `${title} · Kings Corner` : "Kings Corner";
      showTitle();
    },
    catalog: async () => (catalog ??= await api.get("/v1/rules")),
  };
  const showTitle = () => {
    const waiting = context.inbox.waiting;
    document.title = waiting > 0 ? `(${waiting}) ${pageTitle}` : pageTitle;
  };
  context.inbox.onChange(() => { showTitle(); header(context); });

  let unmount = () => {};
  const show = () => {
    unmount();
    fill(main);
    // A letter's link (`#verify-email=…`, `#reset-password=…`) is a page of its own.
    const letter = mountLetterLink(main, context);
    if (letter) {
      unmount = letter;
      header(context);
      return;
    }
    const where = route();
    const page = PAGES[where.name];
    if (!page) {
      main.append(h("h1", { text: "Not found" }), h("p", {}, "No such page. ", h("a", { href: "#/", text: "Go to the lobby" })));
      unmount = () => {};
      return;
    }
    try {
      unmount = page(main, context, where);
    } catch (error) {
      main.append(h("p", { class: "error", role: "alert", text: explain(error) }));
      unmount = () => {};
    }
    header(context);
    main.focus({ preventScroll: true });
  };
  window.addEventListener("hashchange", () => { foldMenu(false); show(); });
  // Back online, the page is read again (what it could not load offline, it loads now).
  window.addEventListener("online", show);
  find(document, ".menu-toggle").addEventListener("click", () => foldMenu(null));
  session.onChange((why) => {
    if (why && why !== "logged out") toast(why, "error");
    context.inbox.restart();
    header(context);
    show();
  });
  context.inbox.restart();
  show();
}

/**
 * The site header: where to go, and who is logged in.
 * @param {Context} context
 */
function header(context) {
  const nav = find(document, "#site-nav");
  const here = route().name;
  const link = (/** @type {string} */ hash, /** @type {string} */ text, /** @type {string} */ name) =>
    h("a", { href: hash, text, "aria-current": here === name ? "page" : undefined });
  const waiting = context.inbox.waiting;
  const username = context.session.username;
  fill(nav,
    link("#/", "Lobby", ""),
    username ? h("a", { href: "#/mine", "aria-current": here === "mine" ? "page" : undefined, "data-waiting": waiting },
      "My matches", waiting > 0 ? h("span", { class: "badge", "aria-label": `${waiting} waiting for you`, text: String(waiting) }) : null) : null,
    link("#/rules", "Rules", "rules"),
    link("#/settings", "Settings", "settings"));
  // Folded on a phone, the menu still says how many matches wait for a move.
  fill(find(document, ".menu-toggle"), "Menu",
    waiting > 0 ? h("span", { class: "badge", "aria-label": `${waiting} waiting for you`, text: String(waiting) }) : null);
  const account = find(document, "#site-account");
  if (username) {
    fill(account,
      h("a", { href: `#/players/${encodeURIComponent(username)}`, class: "me", text: username }),
      h("button", { type: "button", class: "quiet", text: "Log out", onclick: () => { void context.session.logout(); } }));
  } else {
    fill(account, h("a", { href: "#/login", class: "button", text: "Log in" }));
  }
}

/**
 * Opens or closes the header's menu (on a phone the pages and the account fold behind it);
 * `null` turns it over.
 * @param {boolean | null} open
 */
function foldMenu(open) {
  const button = find(document, ".menu-toggle");
  const opened = open ?? button.getAttribute("aria-expanded") !== "true";
  button.setAttribute("aria-expanded", String(opened));
  find(document, "header.site").classList.toggle("menu-open", opened);
}

/**
 * A message that stays a few seconds (errors until dismissed or replaced).
 * @param {string} text
 * @param {"error" | "info"} [kind]
 */
function toast(text, kind = "info") {
  const area = find(document, "#toasts");
  const message = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" },
    h("span", { text }),
    h("button", { type: "button", class: "quiet", "aria-label": "Dismiss", text: "×", onclick: () => message.remove() }));
  while (area.children.length >= 3) area.firstElementChild?.remove();
  area.append(message);
  setTimeout(() => message.remove(), kind === "error" ? 12_000 : 5_000);
}

/**
 * Says when the device is offline (the page itself may have come from the service worker's
 * copy), and registers that worker: it keeps the client's files, and shows pushed
 * notifications.
 */
function connectivity() {
  const line = find(document, "#connection");
  const show = () => { line.hidden = navigator.onLine; };
  window.addEventListener("online", show);
  window.addEventListener("offline", show);
  show();
  if ("serviceWorker" in navigator) {
    navigator.serviceWorker.register("sw.js").catch(() => {
      // Without a worker (a browser that refuses it, a plain-HTTP origin) the page works the
      // same, only not offline.
    });
  }
}

connectivity();
boot();
