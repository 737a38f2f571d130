// Away from the table (a part of the settings page): the account's email address, which
// notifications come by email and by push to this device, how often and when not; the devices
// registered for push. Everything goes through the API: `/v1/me/email`, `/v1/me/alerts`,
// `/v1/push/key`, `/v1/me/push-subscriptions`.

import { explain } from "./api.js";
import { fill, h } from "./dom.js";

/** @typedef {import("./types.js").AlertSettings} AlertSettings */
/** @typedef {import("./types.js").EmailView} EmailView */

/** The kinds a player may ask for, in words, in the order the form lists them. */
const KINDS = /** @type {const} */ ([
  ["your_turn", "It is my turn"],
  ["deadline_near", "My time is nearly out"],
  ["invited", "I am invited to a table"],
  ["match_started", "A match of mine starts"],
  ["match_finished", "A match of mine ends"],
  ["rematch_offered", "A rematch is offered"],
  ["nudged", "Someone nudges me"],
  ["seat_out", "A player leaves a match of mine"],
  ["vacation_started", "A player of my match goes on vacation"],
]);

/**
 * Fills `root` with the account's reach settings (when logged in).
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mountReach(root, context) {
  if (!context.session.username) {
    fill(root, h("h2", { text: "Away from the table" }),
      h("p", {}, h("a", { href: "#/login?then=%23%2Fsettings", text: "Log in" }), " to be told by email or on this device when it is your turn."));
    return;
  }
  const status = h("p", { class: "muted", role: "status" });
  fill(root, h("h2", { text: "Away from the table" }), status);
  void load(root, context, status);
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 * @param {HTMLElement} status
 */
async function load(root, context, status) {
  const { api } = context;
  let me, alerts;
  try {
    [me, alerts] = await Promise.all([api.get("/v1/me"), api.get("/v1/me/alerts")]);
  } catch (error) {
    status.textContent = explain(error);
    return;
  }
  fill(root, h("h2", { text: "Away from the table" }),
    emailForm(context, me.email ?? null, () => void load(root, context, status)),
    alertsForm(context, alerts, me.email?.verified === true),
    devices(context));
}

/**
 * The address: set, verified or not, a new link, removed.
 * @param {import("./app.js").Context} context
 * @param {EmailView | null} email
 * @param {() => void} reload
 */
function emailForm(context, email, reload) {
  const address = h("input", { id: "email", type: "email", required: true, maxLength: 254, autocomplete: "email", value: email?.address ?? "" });
  const password = h("input", { id: "email-password", type: "password", required: true, autocomplete: "current-password" });
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const state = email
    ? email.stopped
      ? h("p", { class: "error", text: `Mail to ${email.address} stopped: ${email.stopped}. Send a new link to start it again.` })
      : email.verified
        ? h("p", { class: "ok", text: `${email.address} is verified.` })
        : h("p", { class: "muted", text: `${email.address} is not verified yet: open the link we mailed to it.` })
    : h("p", { class: "muted", text: "No address yet. With one, you can reset a forgotten password and be told by email when it is your turn." });
  const resend = email && (!email.verified || email.stopped)
    ? h("button", {
      type: "button", class: "quiet", text: "Send a new link",
      onclick: async () => {
        try {
          await context.api.post("/v1/me/email/verification");
          context.toast(`A new link is on its way to ${email.address}.`);
        } catch (failure) {
          context.toast(explain(failure), "error");
        }
      },
    })
    : null;
  return h("form", {
    class: "stack", "data-form": "email",
    onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      error.hidden = true;
      try {
        await context.api.put("/v1/me/email", { body: { email: address.value.trim(), password: password.value } });
        context.toast(`A link to verify ${address.value.trim()} is on its way.`);
        reload();
      } catch (failure) {
        error.textContent = explain(failure);
        error.hidden = false;
      }
    },
  },
  h("h3", { text: "Email address" }), state,
  h("label", { for: "email", text: "Address" }), address,
  h("label", { for: "email-password", text: "Your password, to confirm" }), password,
  error,
  h("p", { class: "actions" }, h("button", { type: "submit", text: email ? "Change the address" : "Set the address" }), resend));
}

/**
 * Which notifications, by email and by push; how often; quiet hours; the zone.
 * @param {import("./app.js").Context} context
 * @param {AlertSettings} alerts
 * @param {boolean} verified
 */
function alertsForm(context, alerts, verified) {
  /** @type {Map<string, {email: HTMLInputElement, push: HTMLInputElement}>} */
  const boxes = new Map();
  const rows = KINDS.map(([kind, words]) => {
    const email = h("input", { type: "checkbox", id: `email-${kind}`, checked: alerts.email.includes(kind), disabled: !verified, "aria-label": `${words}: by email` });
    const push = h("input", { type: "checkbox", id: `push-${kind}`, checked: (alerts.push ?? []).includes(kind), "aria-label": `${words}: on my devices` });
    boxes.set(kind, { email, push });
    return h("tr", {}, h("th", { scope: "row", text: words }), h("td", {}, email), h("td", {}, push));
  });
  const digest = h("select", { id: "digest" },
    h("option", { value: "each", text: "as it happens", selected: alerts.digest === "each" }),
    h("option", { value: "hourly", text: "at most once an hour", selected: alerts.digest === "hourly" }),
    h("option", { value: "daily", text: "once a day", selected: alerts.digest === "daily" }));
  const hour = h("input", { id: "digest-hour", type: "number", min: 0, max: 23, value: String(alerts.digest_hour) });
  const quiet = h("input", { id: "quiet", type: "checkbox", checked: alerts.quiet_hours !== null });
  const from = h("input", { id: "quiet-from", type: "time", "aria-label": "Quiet from", value: alerts.quiet_hours?.from ?? "22:00" });
  const until = h("input", { id: "quiet-until", type: "time", "aria-label": "Quiet until", value: alerts.quiet_hours?.until ?? "07:30" });
  const zones = zoneNames(alerts.time_zone);
  const zone = h("select", { id: "time-zone" }, ...zones.map((name) => h("option", { value: name, text: name, selected: name === alerts.time_zone })));
  const error = h("p", { class: "error", role: "alert", hidden: true });
  return h("form", {
    class: "stack", "data-form": "alerts",
    onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      error.hidden = true;
      const chosen = (/** @type {"email" | "push"} */ channel) =>
        KINDS.map(([kind]) => kind).filter((kind) => boxes.get(kind)?.[channel].checked);
      try {
        await context.api.put("/v1/me/alerts", {
          body: {
            email: chosen("email"), push: chosen("push"),
            digest: /** @type {AlertSettings["digest"]} */ (digest.value),
            digest_hour: Number(hour.value),
            quiet_hours: quiet.checked ? { from: from.value, until: until.value } : null,
            time_zone: zone.value,
          },
        });
        context.toast("Saved.");
      } catch (failure) {
        error.textContent = explain(failure);
        error.hidden = false;
      }
    },
  },
  h("h3", { text: "Tell me" }),
  verified ? null : h("p", { class: "muted", text: "Email needs a verified address (above)." }),
  h("table", { class: "kinds" },
    h("thead", {}, h("tr", {}, h("th", { scope: "col", text: "When" }), h("th", { scope: "col", text: "Email" }), h("th", { scope: "col", text: "Devices" }))),
    h("tbody", {}, ...rows)),
  h("label", { for: "digest", text: "How often" }), digest,
  h("label", { for: "digest-hour", text: "Hour of the daily letter (0–23)" }), hour,
  h("p", { class: "check" }, quiet, h("label", { for: "quiet", text: "Quiet hours: nothing from" })),
  h("p", { class: "actions" }, from, h("span", { text: "until" }), until),
  h("label", { for: "time-zone", text: "My time zone" }), zone,
  error,
  h("p", { class: "actions" }, h("button", { type: "submit", text: "Save" })));
}

/**
 * The IANA zones this browser knows, the saved one and the browser's own first.
 * @param {string} saved
 */
function zoneNames(saved) {
  const here = Intl.DateTimeFormat().resolvedOptions().timeZone || "UTC";
  /** @type {string[]} */
  let all = ["UTC"];
  try {
    all = /** @type {any} */ (Intl).supportedValuesOf("timeZone");
  } catch {
    // An older browser: the saved zone, this browser's and UTC.
  }
  return [...new Set([saved === "UTC" ? here : saved, here, "UTC", ...all])];
}

/**
 * This device's push subscription, and the registered devices.
 * @param {import("./app.js").Context} context
 */
function devices(context) {
  const list = h("ul", { class: "devices" });
  const status = h("p", { class: "muted", role: "status" });
  const refresh = async () => {
    try {
      const { subscriptions } = await context.api.get("/v1/me/push-subscriptions");
      fill(list, ...subscriptions.map((device) => h("li", {},
        h("span", { text: device.name }),
        h("span", { class: "muted", text: device.last_used_at ? ` · last told ${new Date(device.last_used_at).toLocaleString()}` : " · not told yet" }),
        h("button", {
          type: "button", class: "quiet", text: "Remove",
          onclick: async () => {
            await context.api.delete("/v1/me/push-subscriptions/{id}", { path: { id: device.id } });
            void refresh();
          },
        }))));
      if (subscriptions.length === 0) fill(list, h("li", { class: "muted", text: "No device yet." }));
    } catch (error) {
      status.textContent = explain(error);
    }
  };
  const name = h("input", { id: "device-name", maxLength: 64, required: true, value: guessName() });
  const supported = "serviceWorker" in navigator && "PushManager" in window;
  const add = h("button", {
    type: "button", text: "Notify this device", disabled: !supported,
    onclick: async () => {
      try {
        await subscribe(context, name.value.trim());
        context.toast("This device will be told.");
        void refresh();
      } catch (error) {
        context.toast(error instanceof Error && !("problem" in error) ? error.message : explain(error), "error");
      }
    },
  });
  void refresh();
  return h("section", { class: "stack", "data-part": "devices" },
    h("h3", { text: "Devices" }),
    h("p", { class: "muted", text: "Notifications pushed to a device arrive with the page closed, when the kinds above say so." }),
    list, status,
    h("label", { for: "device-name", text: "This device's name" }), name,
    supported ? null : h("p", { class: "muted", text: "This browser cannot receive pushed notifications (on an iPhone: add this page to the home screen first)." }),
    h("p", { class: "actions" }, add));
}

/**
 * Subscribes this browser with the server's key and registers it.
 * @param {import("./app.js").Context} context
 * @param {string} name
 */
async function subscribe(context, name) {
  if ((await Notification.requestPermission()) !== "granted") {
    throw new Error("The browser blocks notifications for this page: allow them in its site settings.");
  }
  const { public_key: key } = await context.api.get("/v1/push/key", { anonymous: true });
  const registration = await navigator.serviceWorker.ready;
  const subscription = await registration.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: bytes(key) });
  const json = subscription.toJSON();
  await context.api.post("/v1/me/push-subscriptions", {
    body: {
      name: name || guessName(), endpoint: String(json.endpoint),
      expirationTime: json.expirationTime ?? null,
      keys: { p256dh: String(json.keys?.p256dh), auth: String(json.keys?.auth) },
    },
  });
}

/** A name for this device from its browser. */
function guessName() {
  const agent = navigator.userAgent;
  const system = /Android/.test(agent) ? "Android" : /iPhone|iPad/.test(agent) ? "iPhone" : /Mac/.test(agent) ? "Mac" : /Windows/.test(agent) ? "Windows" : /Linux/.test(agent) ? "Linux" : "This device";
  const browser = /Firefox\//.test(agent) ? "Firefox" : /Edg\//.test(agent) ? "Edge" : /Chrome\//.test(agent) ? "Chrome" : /Safari\//.test(agent) ? "Safari" : "a browser";
  return `${system}, ${browser}`;
}

/**
 * base64url to bytes.
 * @param {string} text
 */
function bytes(text) {
  const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (text.length % 4)) % 4));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
}
