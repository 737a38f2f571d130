// Finding people, keeping them away and telling the operators (docs/community.md): following
// and blocking a player from their page (their public tables then show in the lobby), the list
// of blocks in the settings, reporting an account, a match or a line of talk, muting a table's
// talk, and a player's private notes beside the table.

import { explain } from "./api.js";
import { fill, find, h } from "./dom.js";

/** @typedef {import("./app.js").Context} Context */
/** @typedef {import("./types.js").Schemas} Schemas */
/** @typedef {Schemas["NewReportRequest"]} NewReportRequest */

/** The reasons a report gives, in the words the form shows. */
const REASONS = /** @type {[NewReportRequest["reason"], string][]} */ ([
  ["harassment", "Harassment: insults, threats, unwanted attention"],
  ["hate_speech", "Hate speech"],
  ["cheating", "Cheating"],
  ["spam", "Spam"],
  ["offensive_username", "An offensive username"],
  ["other", "Something else (say what)"],
]);

/**
 * Follow, block and report buttons for another player's page, saying whether you follow or
 * block them.
 * @param {Context} context
 * @param {string} username
 */
export function playerControls(context, username) {
  const area = h("div", { class: "button-row player-controls" });
  const same = (/** @type {{username: string}} */ entry) => entry.username.toLowerCase() === username.toLowerCase();
  let following = false;
  const draw = (/** @type {boolean} */ blocked) => fill(area,
    blocked ? null : h("button", {
      type: "button", class: following ? "quiet" : "", "data-action": following ? "unfollow" : "follow",
      text: following ? "Unfollow" : "Follow",
      title: following ? "Stop listing their public tables in your lobby" : "List their public tables in your lobby",
      onclick: async () => {
        try {
          if (following) await context.api.delete("/v1/me/follows/{username}", { path: { username } });
          else await context.api.post("/v1/me/follows/{username}", { path: { username } });
          following = !following;
          draw(blocked);
        } catch (error) {
          context.toast(explain(error), "error");
        }
      },
    }),
    h("button", {
      type: "button", class: "quiet", "data-action": blocked ? "unblock" : "block",
      text: blocked ? "Unblock" : "Block",
      title: blocked ? "Let them invite you, sit with you and talk to you again"
        : "They cannot invite you, sit with you or reach you with talk; they are not told",
      onclick: async () => {
        try {
          if (blocked) await context.api.delete("/v1/me/blocks/{username}", { path: { username } });
          else await context.api.post("/v1/me/blocks/{username}", { path: { username } });
          context.toast(blocked ? `${username} is no longer blocked.` : `${username} is blocked.`, "info");
          draw(!blocked);
        } catch (error) {
          context.toast(explain(error), "error");
        }
      },
    }),
    h("button", {
      type: "button", class: "quiet", "data-action": "report", text: "Report",
      onclick: () => void report(context, { about: "account", username }, `Report ${username}`),
    }),
    blocked ? h("span", { class: "muted", text: "You block this player." }) : null);
  Promise.all([context.api.get("/v1/me/blocks"), context.api.get("/v1/me/follows")]).then(([blocks, follows]) => {
    following = follows.follows.some(same);
    draw(blocks.blocks.some(same));
  }, (error) => fill(area, h("p", { class: "error", role: "alert", text: explain(error) })));
  return area;
}

/**
 * The settings' list of the players you block, each with its "Unblock".
 * @param {Context} context
 */
export function blockedList(context) {
  const list = h("ul", { class: "blocked-list" });
  const section = h("section", { class: "panel", id: "blocks" },
    h("h2", { text: "Blocked players" }),
    h("p", { class: "muted", text: "They cannot invite you, join your waiting tables or be seated with you by quick pairing, and you do not see their talk or nudges. Block a player from their page." }),
    list);
  const draw = () => context.api.get("/v1/me/blocks").then((answer) => {
    fill(list, answer.blocks.length ? answer.blocks.map((block) => h("li", { "data-blocked": block.username },
      h("a", { href: `#/players/${encodeURIComponent(block.username)}`, text: block.username }), " ",
      h("button", {
        type: "button", class: "quiet", text: "Unblock",
        onclick: async () => {
          try {
            await context.api.delete("/v1/me/blocks/{username}", { path: { username: block.username } });
            void draw();
          } catch (error) {
            context.toast(explain(error), "error");
          }
        },
      }))) : h("li", { class: "muted", text: "Nobody." }));
  }, (error) => fill(list, h("li", { class: "error", role: "alert", text: explain(error) })));
  if (context.session.username) void draw();
  else fill(list, h("li", { class: "muted", text: "Log in to see whom you block." }));
  return section;
}

/**
 * Asks for a report's reason and note, and sends it; whether it was sent.
 * @param {Context} context
 * @param {Omit<NewReportRequest, "reason" | "note">} about
 * @param {string} title
 */
export function report(context, about, title) {
  return new Promise((resolve) => {
    const reason = h("select", { id: "report-reason", required: true },
      REASONS.map(([value, text]) => h("option", { value, text })));
    const note = h("textarea", { id: "report-note", maxLength: 2000, rows: 4, placeholder: "What should the operators know?" });
    const send = h("button", { type: "submit", text: "Send the report" });
    const box = h("dialog", { class: "chooser report-dialog", "aria-labelledby": "report-title" },
      h("form", {
        class: "stack", "data-form": "report",
        onsubmit: async (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          send.disabled = true;
          try {
            const chosen = /** @type {NewReportRequest["reason"]} */ (reason.value);
            await context.api.post("/v1/reports", { body: { ...about, reason: chosen, note: note.value } });
            context.toast("Reported: the operators will look at it. Nobody else learns you reported.", "info");
            done(true);
          } catch (error) {
            context.toast(explain(error), "error");
            send.disabled = false;
          }
        },
      },
      h("h2", { id: "report-title", text: title }),
      h("label", { for: "report-reason", text: "Why" }), reason,
      h("label", { for: "report-note", text: "Note (optional)" }), note,
      h("div", { class: "button-row" }, send,
        h("button", { type: "button", class: "quiet", text: "Cancel", onclick: () => done(false) }))));
    const done = (/** @type {boolean} */ sent) => {
      box.close();
      box.remove();
      resolve(sent);
    };
    box.addEventListener("cancel", (event) => { event.preventDefault(); done(false); });
    find(document, "body").append(box);
    box.showModal();
  });
}

/**
 * The "Mute talk" switch of a table: `changed` is told the new state once the server took it.
 * @param {Context} context
 * @param {string} matchId
 * @param {(muted: boolean) => void} changed
 */
export function muteSwitch(context, matchId, changed) {
  const box = h("input", {
    type: "checkbox", id: "mute-talk", disabled: true,
    onchange: async () => {
      box.disabled = true;
      try {
        const path = { id: matchId };
        const answer = box.checked
          ? await context.api.put("/v1/matches/{id}/mute", { path })
          : await context.api.delete("/v1/matches/{id}/mute", { path });
        box.checked = answer.muted;
        changed(answer.muted);
      } catch (error) {
        box.checked = !box.checked;
        context.toast(explain(error), "error");
      } finally {
        box.disabled = false;
      }
    },
  });
  context.api.get("/v1/matches/{id}/mute", { path: { id: matchId } }).then((answer) => {
    box.checked = answer.muted;
    box.disabled = false;
  }, () => {});
  return h("p", { class: "check mute" }, box,
    h("label", { for: "mute-talk", text: "Mute the others' talk (for you only)" }));
}

/**
 * A seated player's private notes on the match: read when opened, kept with "Save".
 * @param {Context} context
 * @param {string} matchId
 */
export function notesBox(context, matchId) {
  // Read-only and unsaveable until the notes kept are read: what they hold must not overwrite
  // what the player types, nor an empty box replace them.
  const text = h("textarea", {
    id: "match-notes", maxLength: 10_000, rows: 5, readOnly: true, placeholder: "Only you ever read these notes.",
  });
  const state = h("span", { class: "muted", role: "status" });
  const save = h("button", { type: "submit", text: "Save notes", disabled: true });
  let loading = false;
  const box = h("details", {
    class: "notes-box",
    ontoggle: () => {
      if (!box.open || loading || !text.readOnly) return;
      loading = true;
      state.textContent = "Reading…";
      context.api.get("/v1/matches/{id}/notes", { path: { id: matchId } }).then((notes) => {
        text.value = notes.text;
        text.readOnly = false;
        save.disabled = false;
        state.textContent = "";
      }, (error) => {
        state.textContent = explain(error);
      }).finally(() => { loading = false; });
    },
  },
  h("summary", { text: "My notes" }),
  h("form", {
    class: "stack", "data-form": "notes",
    onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      save.disabled = true;
      try {
        await context.api.put("/v1/matches/{id}/notes", { path: { id: matchId }, body: { text: text.value } });
        state.textContent = "Saved.";
      } catch (error) {
        state.textContent = "";
        context.toast(explain(error), "error");
      } finally {
        save.disabled = false;
      }
    },
  },
  h("label", { for: "match-notes", class: "visually-hidden", text: "My notes" }), text,
  h("div", { class: "button-row" }, save, state)));
  return box;
}
