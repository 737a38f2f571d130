// Following a numbered log live: a match's events or the account's notifications, over
// Server-Sent Events. A browser's `EventSource` cannot send a token, so a logged-in reader opens
// each connection with a fresh single-use stream ticket; when a connection drops (the network,
// a server restart, the server's cap on how long a stream is held) it reconnects from the last
// number it saw, with a new ticket, waiting longer after each failure. Items arrive in order and
// once: a gap in the numbers (an item of a kind this client does not know) is filled from the
// log's paged form.

import { explain } from "./api.js";

/**
 * @typedef {"connecting" | "live" | "reconnecting"} LinkState
 */

/**
 * @template {{seq: number}} T
 * @typedef {object} FollowOptions
 * @property {import("./api.js").Api} api
 * @property {() => boolean} loggedIn Whether to ask for a stream ticket.
 * @property {"/v1/matches/{id}/stream" | "/v1/me/stream"} stream
 * @property {{id: string}} [path]
 * @property {string | null} [watch] A private match's spectator code.
 * @property {string[]} types The event names to listen for.
 * @property {number | null} after Start after this number (`null`: only what comes next).
 * @property {(after: number) => Promise<T[]>} missed The items after a number, from the paged log.
 * @property {(items: T[]) => void} deliver
 * @property {(state: LinkState, detail?: string) => void} [status]
 */

/** @template {{seq: number}} T */
export class Follower {
  /** @param {FollowOptions<T>} options */
  constructor(options) {
    this.options = options;
    this.after = options.after;
    this.failures = 0;
    this.stopped = true;
    /** @type {EventSource | null} */
    this.source = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    this.retry = undefined;
    /** Items are handled one after the other, also when a gap must be filled first. */
    this.queue = Promise.resolve();
    this.online = () => { if (!this.source) this.reconnectSoon(0); };
  }

  start() {
    if (!this.stopped) return;
    this.stopped = false;
    window.addEventListener("online", this.online);
    void this.open();
  }

  stop() {
    this.stopped = true;
    window.removeEventListener("online", this.online);
    clearTimeout(this.retry);
    this.source?.close();
    this.source = null;
  }

  async open() {
    const { api, stream, path, watch, types } = this.options;
    this.options.status?.(this.failures === 0 ? "connecting" : "reconnecting");
    /** @type {string | undefined} */
    let ticket;
    try {
      if (this.options.loggedIn()) ticket = (await api.post("/v1/me/stream-tickets")).ticket;
    } catch (error) {
      this.reconnectSoon(undefined, explain(error));
      return;
    }
    if (this.stopped) return;
    const url = api.url(stream, path, { after: this.after ?? undefined, ticket, watch: watch ?? undefined });
    const source = new EventSource(url);
    this.source = source;
    source.addEventListener("open", () => {
      this.failures = 0;
      this.options.status?.("live");
    });
    source.addEventListener("error", () => {
      // A ticket works once: never let EventSource retry with it; open anew.
      source.close();
      if (this.source === source) this.source = null;
      if (!this.stopped) this.reconnectSoon();
    });
    for (const type of types) {
      source.addEventListener(type, (message) => {
        const item = /** @type {T} */ (JSON.parse(/** @type {MessageEvent} */ (message).data));
        this.queue = this.queue.then(() => this.receive(item)).catch(() => this.reconnectSoon());
      });
    }
  }

  /**
   * @param {number} [delay] Milliseconds; by default longer after each failure (0.5 s to 15 s).
   * @param {string} [detail]
   */
  reconnectSoon(delay, detail) {
    if (this.stopped) return;
    clearTimeout(this.retry);
    this.source?.close();
    this.source = null;
    this.failures += 1;
    this.options.status?.("reconnecting", detail);
    const wait = delay ?? Math.min(15_000, 500 * 2 ** Math.min(this.failures - 1, 5)) * (0.75 + Math.random() / 2);
    this.retry = setTimeout(() => { void this.open(); }, wait);
  }

  /** @param {T} item */
  async receive(item) {
    if (this.after !== null && item.seq <= this.after) return;
    const after = this.after;
    if (after !== null && item.seq > after + 1) {
      const between = (await this.options.missed(after))
        .filter((missed) => missed.seq > after && missed.seq < item.seq);
      if (between.length) this.options.deliver(between);
    }
    this.after = item.seq;
    this.options.deliver([item]);
  }
}
