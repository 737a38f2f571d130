// The player's preferences for this browser (the four-colour deck, turn notifications) and
// the server the client talks to. None is a secret, so they live in `localStorage`; tokens never
// do (session.js).
//
// The server: `?api=https://kc.example.com` in the page's address (kept for the next visit),
// else the one chosen here before, else the page's `<meta name="kc-api-base">`, else the origin
// the page came from (the server's own `/play`).

import { fill, h } from "./dom.js";
import { blockedList } from "./community.js";
import { mountReach } from "./reach.js";

const KEYS = { api: "kc.api", fourColour: "kc.four-colour", notify: "kc.notify" };

export class Preferences {
  constructor() {
    const asked = new URLSearchParams(location.search).get("api");
    if (asked) remember(KEYS.api, asked);
    /** The API's address, without a trailing `/`. */
    this.apiBase = (asked || recall(KEYS.api) || metaBase() || location.origin).replace(/\/+$/, "");
    /** @type {Set<() => void>} */
    this.listeners = new Set();
    this.apply();
  }

  /** Whether cards are drawn in four colours (clubs green, diamonds blue). */
  get fourColour() {
    return recall(KEYS.fourColour) === "true";
  }

  set fourColour(on) {
    remember(KEYS.fourColour, String(on));
    this.apply();
  }

  /** Whether the player asked to be told by the browser when it becomes their turn. */
  get notify() {
    return recall(KEYS.notify) === "true" && "Notification" in window && Notification.permission === "granted";
  }

  /** @param {boolean} on */
  async setNotify(on) {
    if (on && "Notification" in window && Notification.permission !== "granted") {
      await Notification.requestPermission();
    }
    remember(KEYS.notify, String(on));
    this.changed();
  }

  /** @param {string} base */
  setApiBase(base) {
    remember(KEYS.api, base);
    location.reload();
  }

  apply() {
    document.documentElement.classList.toggle("four-colour", this.fourColour);
    this.changed();
  }

  changed() {
    for (const listener of this.listeners) listener();
  }
}

/** @param {string} key */
function recall(key) {
  try {
    return localStorage.getItem(key);
  } catch {
    return null;
  }
}

/**
 * @param {string} key
 * @param {string} value
 */
function remember(key, value) {
  try {
    localStorage.setItem(key, value);
  } catch {
    // Storage refused (a private window): the choice lasts this page only.
  }
}

function metaBase() {
  const meta = document.querySelector('meta[name="kc-api-base"]');
  return meta?.getAttribute("content") || null;
}

/**
 * The settings page.
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mountSettings(root, context) {
  const { preferences } = context;
  const fourColour = h("input", {
    type: "checkbox", id: "four-colour", checked: preferences.fourColour,
    onchange: () => { preferences.fourColour = fourColour.checked; },
  });
  const supported = "Notification" in window;
  const notify = h("input", {
    type: "checkbox", id: "notify", checked: preferences.notify, disabled: !supported,
    onchange: async () => {
      await preferences.setNotify(notify.checked);
      notify.checked = preferences.notify;
      if (!preferences.notify && notify.checked === false && supported && Notification.permission === "denied") {
        context.toast("The browser blocks notifications for this page: allow them in its site settings.", "error");
      }
    },
  });
  const base = h("input", { type: "url", id: "api-base", value: preferences.apiBase, required: true, autocomplete: "url" });
  const reach = h("section", { class: "panel", id: "reach" });
  mountReach(reach, context);
  fill(root,
    h("h1", { text: "Settings" }),
    h("section", { class: "panel" },
      h("h2", { text: "Cards" }),
      h("p", { class: "check" }, fourColour, h("label", { for: "four-colour", text: "Four-colour deck: clubs green, diamonds blue, hearts red, spades black" })),
      h("p", { class: "preview", "aria-hidden": "true" }, "♣ ♦ ♥ ♠")),
    h("section", { class: "panel" },
      h("h2", { text: "Notifications" }),
      h("p", { class: "check" }, notify, h("label", { for: "notify", text: "Tell me when it becomes my turn while this page is open, also in the background" })),
      supported ? null : h("p", { class: "muted", text: "This browser cannot show notifications." })),
    reach,
    blockedList(context),
    h("section", { class: "panel" },
      h("h2", { text: "Server" }),
      h("form", {
        class: "stack",
        onsubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          preferences.setApiBase(base.value.trim());
        },
      },
      h("label", { for: "api-base", text: "The kings-corner server this page plays on" }),
      base,
      h("p", { class: "muted", text: "A server on another address must list this page's origin in its CORS_ALLOWED_ORIGINS." }),
      h("button", { type: "submit", text: "Use this server" }))));
  return () => {};
}
