// A table waiting for players: who sits where, joining (with the invite code of a private
// table, or a rematch's kept seat), leaving, filling a free seat with a bot, inviting someone
// by name, and the links to share.

import { explain } from "./api.js";
import { fill, h, plural } from "./dom.js";
import { botOptions } from "./vocabulary.js";

/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./types.js").Level} Level */

/**
 * @param {MatchSummary} summary
 * @param {import("./app.js").Context} context
 * @param {{code: string | null, changed: (summary?: MatchSummary) => void}} options
 */
export function waitingRoom(summary, context, options) {
  const me = context.session.username;
  const mine = summary.seats.find((seat) => seat.username === me && !seat.bot);
  const error = h("p", { class: "error", role: "alert", hidden: true });
  /** @param {() => Promise<unknown>} work */
  const attempt = async (work) => {
    error.hidden = true;
    try {
      await work();
    } catch (failure) {
      error.textContent = explain(failure);
      error.hidden = false;
    }
  };
  const seats = [];
  for (let seat = 0; seat < summary.seat_count; seat += 1) {
    const taken = summary.seats.find((info) => info.seat === seat);
    if (taken) {
      seats.push(h("li", { class: "seat", "data-seat": seat },
        h("span", { class: "seat-name", text: taken.bot ? `the ${taken.bot} bot` : taken.username }),
        taken.username === me ? h("span", { class: "tag", text: "you" }) : null));
      continue;
    }
    const level = h("select", { id: `bot-level-${seat}`, "aria-label": `Bot for seat ${seat + 1}` });
    void context.catalog().then((catalog) => fill(level, ...botOptions(catalog)), () => {});
    seats.push(h("li", { class: "seat free", "data-seat": seat },
      h("span", { class: "seat-name", text: summary.rematch_of ? "kept for a player of the last match" : "free" }),
      mine && !summary.rematch_of ? h("span", { class: "field" }, level, h("button", {
        type: "button", text: "Seat a bot", "data-action": "add-bot",
        onclick: () => attempt(async () => {
          options.changed(await context.api.post("/v1/matches/{id}/bots", {
            path: { id: summary.id }, body: { level: /** @type {Level} */ (level.value) },
          }));
        }),
      })) : null));
  }
  const invite = h("input", { id: "invite-username", required: true, spellcheck: false, autocomplete: "off" });
  const share = [];
  const here = `${location.origin}${location.pathname}${location.search}`;
  if (summary.invite_code) {
    share.push(copyable("Invite link", `${here}#/match/${summary.id}?code=${encodeURIComponent(summary.invite_code)}`));
  } else {
    share.push(copyable("Link to this table", `${here}#/match/${summary.id}`));
  }
  if (summary.spectator_code) {
    share.push(copyable("Spectator link", `${here}#/match/${summary.id}?watch=${encodeURIComponent(summary.spectator_code)}`));
  }
  return h("section", { class: "panel waiting", "aria-labelledby": "waiting-title" },
    h("h2", { id: "waiting-title", text: `Waiting for players: ${summary.seats.length} of ${plural(summary.seat_count, "seat")} taken` }),
    h("p", { class: "muted", text: "The first hand is dealt as soon as every seat is taken." }),
    h("ol", { class: "seat-list" }, seats),
    error,
    !me ? h("p", {}, h("a", { href: `#/login?then=${encodeURIComponent(location.hash)}`, text: "Log in" }), " to take a seat.") : null,
    me && !mine ? h("button", {
      type: "button", text: "Take a seat", "data-action": "join",
      onclick: () => attempt(async () => {
        options.changed(await context.api.post("/v1/matches/{id}/join", {
          path: { id: summary.id }, body: options.code ? { invite_code: options.code } : {},
        }));
      }),
    }) : null,
    mine ? h("div", { class: "button-row" },
      h("button", {
        type: "button", class: "quiet", text: "Leave the table", "data-action": "leave",
        onclick: () => attempt(async () => {
          await context.api.post("/v1/matches/{id}/leave", { path: { id: summary.id } });
          context.navigate("#/");
        }),
      })) : null,
    mine && summary.visibility === "private" && mine.seat === 0 ? h("form", {
      class: "stack", "data-form": "invite",
      onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        void attempt(async () => {
          const sent = await context.api.post("/v1/matches/{id}/invitations", { path: { id: summary.id }, body: { username: invite.value.trim() } });
          context.toast(`${sent.username} is invited: they are told with the code to join.`);
          invite.value = "";
        });
      },
    }, h("label", { for: "invite-username", text: "Invite a player by username" }), invite,
    h("button", { type: "submit", text: "Invite" })) : null,
    mine ? h("div", { class: "share" }, share) : null);
}

/**
 * A link to share, with a button that copies it.
 * @param {string} label
 * @param {string} url
 */
function copyable(label, url) {
  const id = `share-${label.toLowerCase().replace(/\W+/g, "-")}`;
  const field = h("input", { id, readOnly: true, value: url, class: "share-link" });
  return h("p", { class: "field" }, h("label", { for: id, text: label }), field,
    h("button", {
      type: "button", class: "quiet", text: "Copy",
      onclick: async () => {
        field.select();
        try {
          await navigator.clipboard.writeText(url);
        } catch {
          // Without clipboard access the link stays selected for the player to copy.
        }
      },
    }));
}

/**
 * A private table shows itself to its players only: with its invite code (an invite link), the
 * page offers the seat before anything of the table can be seen.
 * @param {import("./app.js").Context} context
 * @param {string} id
 * @param {string | null} code
 * @param {() => void} leave stops the page before it goes to the table
 */
export function invitation(context, id, code, leave) {
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const loggedIn = context.session.username !== null;
  return [h("h1", { text: "An invitation" }),
    h("section", { class: "panel waiting" },
      h("p", { text: "You have the invite code of a private table: only its players see it." }),
      loggedIn ? h("button", {
        type: "button", class: "primary", "data-action": "join", text: "Take a seat",
        onclick: async () => {
          try {
            await context.api.post("/v1/matches/{id}/join", { path: { id }, body: { invite_code: code } });
            leave();
            context.navigate(`#/match/${id}`);
          } catch (failure) {
            error.textContent = explain(failure);
            error.hidden = false;
          }
        },
      }) : h("p", {}, h("a", { href: `#/login?then=${encodeURIComponent(location.hash)}`, text: "Log in or register" }), " to take it."),
      error)];
}
