// What a letter's link opens: `#verify-email=<token>` verifies the address it was sent to;
// `#reset-password=<token>` asks for a new password. The token rides in the fragment, which a
// browser never sends to a server; this page posts it to the API.

import { explain } from "./api.js";
import { fill, h } from "./dom.js";

/**
 * The link's page, if the address is one; `null` otherwise.
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 * @returns {(() => void) | null}
 */
export function mountLetterLink(root, context) {
  const [kind, token] = location.hash.replace(/^#/, "").split("=", 2);
  if (!token || !/^[A-Za-z0-9_-]+$/.test(token)) return null;
  if (kind === "verify-email") {
    context.title("Verify your address");
    const status = h("p", { role: "status", text: "Verifying…" });
    fill(root, h("h1", { text: "Your address" }), status);
    context.api.post("/v1/auth/email-verification", { body: { token }, anonymous: true })
      .then(() => fill(status, "Your address is verified. ", h("a", { href: "#/settings", text: "Choose what to be told" }), "."))
      .catch((error) => { status.textContent = explain(error); status.className = "error"; });
    return () => {};
  }
  if (kind === "reset-password") {
    context.title("A new password");
    const password = h("input", { id: "new-password", type: "password", required: true, minLength: 8, maxLength: 256, autocomplete: "new-password" });
    const error = h("p", { class: "error", role: "alert", hidden: true });
    const form = h("form", {
      class: "panel stack", "data-form": "reset",
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        error.hidden = true;
        try {
          await context.api.post("/v1/auth/password-reset/confirm", { body: { token, password: password.value }, anonymous: true });
          fill(root, h("h1", { text: "A new password" }),
            h("p", {}, "Your password is set and every session was signed out. ", h("a", { href: "#/login", text: "Log in" }), " with it."));
        } catch (failure) {
          error.textContent = explain(failure);
          error.hidden = false;
        }
      },
    },
    h("label", { for: "new-password", text: "New password (at least 8 characters)" }), password, error,
    h("button", { type: "submit", text: "Set the password" }));
    fill(root, h("h1", { text: "A new password" }), form);
    return () => {};
  }
  return null;
}

/**
 * The "forgot my password" form of the login page.
 * @param {import("./app.js").Context} context
 */
export function forgotten(context) {
  const who = h("input", { id: "forgot-who", required: true, maxLength: 254, autocomplete: "email", placeholder: "address or username" });
  const said = h("p", { role: "status", class: "muted" });
  return h("details", { class: "panel" },
    h("summary", { text: "Forgot your password?" }),
    h("form", {
      class: "stack", "data-form": "forgot",
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const value = who.value.trim();
        try {
          const answer = await context.api.post("/v1/auth/password-reset", {
            body: value.includes("@") ? { email: value } : { username: value }, anonymous: true,
          });
          said.textContent = answer?.detail ?? "";
        } catch (failure) {
          said.textContent = explain(failure);
        }
      },
    },
    h("label", { for: "forgot-who", text: "Your verified address, or your username" }), who,
    h("button", { type: "submit", text: "Mail me a link" }), said));
}
