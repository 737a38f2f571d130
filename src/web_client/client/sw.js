// The client's service worker (registered by app.js): it keeps the client's own files so that
// the page opens without a network (it then says it is reconnecting), shows the notifications
// pushed to this device, and opens the table a notification names when it is clicked.
//
// The files are fetched from the network first, so a new server's client is used as soon as it
// is reachable; the kept copy answers only when the network does not. Nothing of the API is
// ever kept: its requests (to this origin's /v1/ or to another server) pass untouched.

/** The kept files' cache: a new name when the list's shape changes. */
const CACHE = "kc-client-4";

/** Every file of the client (a test keeps this list equal to what the server serves). */
const FILES = [
  "./", "index.html", "style.css", "favicon.svg", "manifest.webmanifest", "icon-192.png", "icon-512.png",
  "account.js", "api.js", "app.js", "board.js", "book.js", "cards.js", "chatter.js", "community.js", "dialog.js",
  "dom.js", "drag.js", "inbox.js", "letters.js", "live.js", "lobby.js", "mine.js", "moves.js", "pairing.js", "player.js",
  "reach.js", "replay.js", "results.js", "ruleform.js", "seats.js", "session.js", "settings.js", "table.js",
  "table_drawing.js", "table_input.js", "types.js", "vacation.js", "vocabulary.js", "waiting.js", "words.js",
];

const worker = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

worker.addEventListener("install", (event) => {
  event.waitUntil(caches.open(CACHE).then((cache) => cache.addAll(FILES)).then(() => worker.skipWaiting()));
});

worker.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    for (const name of await caches.keys()) {
      if (name !== CACHE) await caches.delete(name);
    }
    await worker.clients.claim();
  })());
});

worker.addEventListener("fetch", (event) => {
  const url = new URL(event.request.url);
  const scope = new URL(worker.registration.scope);
  if (event.request.method !== "GET" || url.origin !== scope.origin || !url.pathname.startsWith(scope.pathname)) {
    return;
  }
  event.respondWith((async () => {
    const cache = await caches.open(CACHE);
    try {
      const answer = await fetch(event.request);
      if (answer.ok) await cache.put(event.request, answer.clone());
      return answer;
    } catch (offline) {
      const kept = await cache.match(event.request, { ignoreSearch: true })
        ?? (event.request.mode === "navigate" ? await cache.match("./") : undefined);
      if (kept) return kept;
      throw offline;
    }
  })());
});

/**
 * A pushed message: `{"title": …, "body": …, "url": "#/match/…", "tag": …}` (any field may be
 * missing).
 */
worker.addEventListener("push", (event) => {
  /** @type {{title?: string, body?: string, url?: string, tag?: string}} */
  let message = {};
  try {
    message = event.data ? event.data.json() : {};
  } catch {
    message = { body: event.data ? event.data.text() : "" };
  }
  event.waitUntil(worker.registration.showNotification(message.title || "Kings Corner", {
    body: message.body || "",
    tag: message.tag,
    icon: "icon-192.png",
    data: { url: message.url || "#/mine" },
  }));
});

worker.addEventListener("notificationclick", (event) => {
  event.notification.close();
  const target = new URL(String(event.notification.data?.url ?? "#/mine"), worker.registration.scope).href;
  event.waitUntil((async () => {
    const open = await worker.clients.matchAll({ type: "window", includeUncontrolled: true });
    const here = open.find((client) => new URL(client.url).pathname === new URL(target).pathname);
    if (here) {
      await here.navigate(target);
      await here.focus();
    } else {
      await worker.clients.openWindow(target);
    }
  })());
});
