// Who is logged in: the token pair, kept in memory and in this tab's `sessionStorage` (never in
// a cookie or `localStorage`, so it leaves with the tab), and refreshed before the access token
// expires (a minute before, or halfway through its life when it lives under two minutes). Refresh tokens rotate: each is spent when used, and presenting a spent
// one signs out every session of the login. A tab opened from this one starts with a copy of
// its `sessionStorage`, so tabs sharing a login take turns to refresh (a Web Lock) and hand
// each other the new pair (a BroadcastChannel) instead of spending the same token twice.

import { ApiError } from "./api.js";

/** @typedef {import("./types.js").TokenPair} TokenPair */

/**
 * @typedef {object} Stored
 * @property {string} id This login's id among tabs (random, not a secret).
 * @property {string} username
 * @property {string} accessToken
 * @property {number} accessExpiresAt Milliseconds since the epoch.
 * @property {number} accessLifetime Milliseconds the access token was given.
 * @property {string} refreshToken
 * @property {number} refreshExpiresAt
 */

const STORAGE_KEY = "kc.session";

/**
 * How long before its access token expires a login is refreshed.
 * @param {Stored} stored
 */
function early(stored) {
  return Math.min(60_000, (stored.accessLifetime || 60_000) / 2);
}

export class Session {
  /** @param {import("./api.js").Api} api */
  constructor(api) {
    this.api = api;
    /** @type {Stored | null} */
    this.stored = read();
    /** @type {Promise<boolean> | null} */
    this.refreshing = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.timer = undefined;
    /** @type {Set<(why: string | null) => void>} */
    this.listeners = new Set();
    this.channel = "BroadcastChannel" in window ? new BroadcastChannel("kc-session") : null;
    this.channel?.addEventListener("message", (message) => this.adopt(message.data));
    api.credentials = {
      accessToken: () => this.accessToken(),
      renew: () => this.refresh(this.stored?.refreshToken ?? ""),
    };
    this.schedule();
  }

  /** The logged-in username, or `null`. */
  get username() {
    return this.stored?.username ?? null;
  }

  /**
   * Called with `null` on log in and with a reason on log out (or `"ended"` when the server
   * ended the session).
   * @param {(why: string | null) => void} listener
   */
  onChange(listener) {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * @param {string} username
   * @param {string} password
   */
  async register(username, password) {
    await this.api.post("/v1/accounts", { body: { username, password }, anonymous: true });
    await this.login(username, password);
  }

  /**
   * @param {string} username
   * @param {string} password
   */
  async login(username, password) {
    const pair = await this.api.post("/v1/auth/login", { body: { username, password }, anonymous: true });
    const account = await this.api.get("/v1/me", { headers: { authorization: `Bearer ${pair.access_token}` }, anonymous: true });
    this.keep(pair, account.username, crypto.randomUUID());
    this.tell(null);
  }

  /** Ends this login on the server too (its refresh token stops working). */
  async logout() {
    const stored = this.stored;
    this.forget();
    this.tell("logged out");
    if (stored) {
      try {
        await this.api.post("/v1/auth/logout", { body: { refresh_token: stored.refreshToken }, anonymous: true });
      } catch {
        // Gone already, or the server is unreachable: the tokens are forgotten here either way.
      }
    }
  }

  /** A valid access token (refreshed first when it is about to expire), or `null`. */
  async accessToken() {
    const stored = this.stored;
    if (!stored) return null;
    if (stored.accessExpiresAt - Date.now() < early(stored) / 2) {
      await this.refresh(stored.refreshToken);
    }
    return this.stored?.accessToken ?? null;
  }

  /**
   * Trades `spent` for a new pair, once however many callers ask; whether it worked.
   * @param {string} spent The refresh token the caller saw.
   */
  refresh(spent) {
    if (!this.stored) return Promise.resolve(false);
    if (this.stored.refreshToken !== spent) return Promise.resolve(true);
    this.refreshing ??= this.refreshUnderLock(spent).finally(() => { this.refreshing = null; });
    return this.refreshing;
  }

  /**
   * The refresh itself, one tab of the login at a time.
   * @param {string} spent
   */
  async refreshUnderLock(spent) {
    const id = this.stored?.id;
    if (!id) return false;
    const work = async () => {
      const stored = this.stored;
      if (!stored || stored.id !== id) return false;
      // Another tab refreshed while this one waited for the lock: its pair is adopted already.
      if (stored.refreshToken !== spent) return true;
      try {
        const pair = await this.api.post("/v1/auth/refresh", { body: { refresh_token: stored.refreshToken }, anonymous: true });
        this.keep(pair, stored.username, id);
        this.channel?.postMessage(this.stored);
        // Let the message reach the other tabs before they take the lock.
        await new Promise((resolve) => setTimeout(resolve, 250));
        return true;
      } catch (error) {
        if (error instanceof ApiError && (error.status === 401 || error.status === 422)) {
          this.forget();
          this.tell("Your session has ended: log in again.");
        }
        return false;
      }
    };
    if (navigator.locks) return navigator.locks.request(`kc-refresh-${id}`, work);
    return work();
  }

  /**
   * A pair another tab of the same login refreshed.
   * @param {unknown} message
   */
  adopt(message) {
    const theirs = /** @type {Stored} */ (message);
    if (this.stored && theirs && theirs.id === this.stored.id &&
        theirs.accessExpiresAt > this.stored.accessExpiresAt) {
      this.stored = theirs;
      write(theirs);
      this.schedule();
    }
  }

  /**
   * @param {TokenPair} pair
   * @param {string} username
   * @param {string} id
   */
  keep(pair, username, id) {
    const now = Date.now();
    this.stored = {
      id,
      username,
      accessToken: pair.access_token,
      accessExpiresAt: now + pair.expires_in * 1000,
      accessLifetime: pair.expires_in * 1000,
      refreshToken: pair.refresh_token,
      refreshExpiresAt: now + pair.refresh_expires_in * 1000,
    };
    write(this.stored);
    this.schedule();
  }

  forget() {
    this.stored = null;
    clearTimeout(this.timer);
    sessionStorage.removeItem(STORAGE_KEY);
  }

  /** The next refresh, shortly before the access token expires. */
  schedule() {
    clearTimeout(this.timer);
    const stored = this.stored;
    if (!stored) return;
    if (stored.refreshExpiresAt <= Date.now()) {
      this.forget();
      return;
    }
    const wait = Math.max(1000, stored.accessExpiresAt - Date.now() - early(stored));
    this.timer = setTimeout(() => { void this.refresh(stored.refreshToken); }, wait);
  }

  /** @param {string | null} why */
  tell(why) {
    for (const listener of this.listeners) listener(why);
  }
}

/** @returns {Stored | null} */
function read() {
  try {
    const stored = JSON.parse(sessionStorage.getItem(STORAGE_KEY) ?? "null");
    return stored && typeof stored.refreshToken === "string" ? stored : null;
  } catch {
    return null;
  }
}

/** @param {Stored} stored */
function write(stored) {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(stored));
}
