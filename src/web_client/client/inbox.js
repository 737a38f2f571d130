// The account's side of the page, on every page while someone is logged in: the account
// stream (`GET /v1/me/stream`, opened with a stream ticket), the number of matches waiting
// for the player's move (shown in the header and the page's title), and, if the player asked
// for them, a browser notification when it becomes their turn.

import { Follower } from "./live.js";
import { NOTIFICATION_TYPES } from "./words.js";

/** @typedef {import("./types.js").Notification} Notification */

/** Notifications after which the count of waiting matches may have changed. */
const RECOUNT = new Set(["your_turn", "match_started", "match_finished", "seat_out"]);

export class Inbox {
  /**
   * @param {import("./api.js").Api} api
   * @param {import("./session.js").Session} session
   * @param {import("./settings.js").Preferences} preferences
   */
  constructor(api, session, preferences) {
    this.api = api;
    this.session = session;
    this.preferences = preferences;
    /** Matches waiting for the player's move. */
    this.waiting = 0;
    /** @type {Follower<Notification> | null} */
    this.follower = null;
    /** @type {Set<() => void>} */
    this.changeListeners = new Set();
    /** @type {Set<(notification: Notification) => void>} */
    this.notificationListeners = new Set();
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.recount = undefined;
  }

  /** @param {() => void} listener Called when `waiting` changes. */
  onChange(listener) {
    this.changeListeners.add(listener);
    return () => { this.changeListeners.delete(listener); };
  }

  /** @param {(notification: Notification) => void} listener Called with each notification. */
  onNotification(listener) {
    this.notificationListeners.add(listener);
    return () => { this.notificationListeners.delete(listener); };
  }

  /** Follows the logged-in account (or stops, when nobody is). */
  restart() {
    this.follower?.stop();
    this.follower = null;
    this.setWaiting(0);
    if (!this.session.username) return;
    const follower = new Follower({
      api: this.api,
      loggedIn: () => this.session.username !== null,
      stream: "/v1/me/stream",
      types: NOTIFICATION_TYPES,
      after: null,
      missed: async (after) => (await this.api.get("/v1/me/events", { query: { after } })).notifications,
      deliver: (notifications) => notifications.forEach((notification) => this.receive(notification)),
      status: (state) => { if (state === "live") this.countSoon(0); },
    });
    this.follower = follower;
    follower.start();
  }

  /** @param {Notification} notification */
  receive(notification) {
    for (const listener of this.notificationListeners) listener(notification);
    if (RECOUNT.has(notification.type)) this.countSoon(200);
    if (notification.type === "your_turn" && this.preferences.notify) {
      this.tell(notification.data.match_id, "Your turn", "A table is waiting for your move.");
    } else if (notification.type === "invited" && this.preferences.notify) {
      this.tell(notification.data.match_id, "An invitation", `${notification.data.invited_by} invites you to a table.`);
    }
  }

  /**
   * A browser notification that opens the match when clicked.
   * @param {string} matchId
   * @param {string} title
   * @param {string} body
   */
  tell(matchId, title, body) {
    if (!("Notification" in window) || Notification.permission !== "granted") return;
    const shown = new Notification(title, { body, tag: `kc-${matchId}`, icon: "favicon.svg" });
    shown.addEventListener("click", () => {
      window.focus();
      location.hash = `#/match/${matchId}`;
      shown.close();
    });
  }

  /** @param {number} delay */
  countSoon(delay) {
    clearTimeout(this.recount);
    this.recount = setTimeout(() => { void this.count(); }, delay);
  }

  async count() {
    if (!this.session.username) return;
    try {
      const page = await this.api.get("/v1/matches", { query: { turn: "mine", limit: 100 } });
      this.setWaiting(page.matches.length);
    } catch {
      // The count stays as it was; the next notification or reconnect counts again.
    }
  }

  /** @param {number} waiting */
  setWaiting(waiting) {
    if (waiting === this.waiting) return;
    this.waiting = waiting;
    for (const listener of this.changeListeners) listener();
  }
}
