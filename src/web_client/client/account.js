// Logging in and registering (`#/login`, `?then=<page>` to go back where the player was).

import { explain } from "./api.js";
import { fill, h } from "./dom.js";
import { forgotten } from "./letters.js";

/**
 * Where `?then=` may send the player: a page of this client (`#/…`), never another origin or a
 * `javascript:` URL. The page may be served from any host, without `/play`'s CSP to stop it.
 * @param {string | null} then
 */
export function pageOfThisClient(then) {
  return then && then.startsWith("#/") ? then : "#/";
}

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 * @param {import("./app.js").Route} route
 */
export function mountAccount(root, context, route) {
  context.title("Log in");
  const then = pageOfThisClient(route.query.get("then"));
  if (context.session.username) {
    fill(root, h("h1", { text: "Logged in" }),
      h("p", {}, `You are logged in as ${context.session.username}. `, h("a", { href: then, text: "Go on" })));
    return () => {};
  }
  const form = (/** @type {"login" | "register"} */ kind) => {
    const id = (/** @type {string} */ name) => `${kind}-${name}`;
    const username = h("input", {
      id: id("username"), name: "username", required: true, autocomplete: "username",
      minLength: 3, maxLength: 32, pattern: "[A-Za-z0-9_\\-]{3,32}", spellcheck: false,
    });
    const password = h("input", {
      id: id("password"), name: "password", type: "password", required: true, minLength: 8, maxLength: 256,
      autocomplete: kind === "login" ? "current-password" : "new-password",
    });
    const error = h("p", { class: "error", role: "alert", hidden: true });
    const submit = h("button", { type: "submit", text: kind === "login" ? "Log in" : "Register and log in" });
    return h("form", {
      class: "panel stack", "data-form": kind,
      onsubmit: async (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        submit.disabled = true;
        error.hidden = true;
        try {
          if (kind === "login") await context.session.login(username.value, password.value);
          else await context.session.register(username.value, password.value);
          context.navigate(then);
        } catch (failure) {
          error.textContent = explain(failure);
          error.hidden = false;
        } finally {
          submit.disabled = false;
        }
      },
    },
    h("h2", { text: kind === "login" ? "Log in" : "New here? Register" }),
    h("label", { for: id("username"), text: "Username" }), username,
    kind === "register" ? h("p", { class: "muted", text: "3 to 32 letters, digits, - or _." }) : null,
    h("label", { for: id("password"), text: "Password" }), password,
    kind === "register" ? h("p", { class: "muted", text: "At least 8 characters." }) : null,
    error, submit);
  };
  fill(root, h("h1", { text: "Play Kings Corner" }),
    h("div", { class: "two-up" }, form("login"), form("register")),
    forgotten(context),
    h("p", { class: "muted" }, "You can also ", h("a", { href: "#/", text: "watch public tables" }), " without an account."));
  return () => {};
}
