// The lobby (`#/`): the public tables waiting for players (filtered here: the listing itself
// takes no filter) and those being played, to watch; quick pairing (pairing.js); a table of
// one's own to create, from any preset with any option, with a clock, bots, hints and privacy;
// and joining a private table by its invite link or code.

import { explain } from "./api.js";
import { duration, fill, h, plural } from "./dom.js";
import { quickPairing } from "./pairing.js";
import { RulesForm } from "./ruleform.js";
import { botOptions, clockOptions, onTimeoutOptions } from "./vocabulary.js";
import { rulesText } from "./words.js";

/** @typedef {import("./types.js").MatchSummary} MatchSummary */
/** @typedef {import("./types.js").RulesCatalog} RulesCatalog */
/** @typedef {import("./types.js").ClockPreset} ClockPreset */
/** @typedef {import("./types.js").OnTimeout} OnTimeout */
/** @typedef {import("./types.js").Level} Level */
/** @typedef {import("./types.js").CreateMatch} CreateMatch */

/**
 * @param {HTMLElement} root
 * @param {import("./app.js").Context} context
 */
export function mountLobby(root, context) {
  context.title("Lobby");
  const loggedIn = context.session.username !== null;
  const tables = h("div", { class: "tables", "aria-live": "polite" }, h("p", { class: "muted", text: "Looking for tables…" }));
  const playing = h("div", { class: "playing" });
  const followed = h("div", { class: "followed" });
  const createArea = h("div", {}, loggedIn ? h("p", { class: "muted", text: "Loading the rules…" }) : null);
  const pairingArea = h("div", {});
  fill(root,
    h("h1", { text: "Lobby" }),
    loggedIn ? null : h("p", { class: "panel intro" }, h("a", { href: "#/login", text: "Log in or register" }),
      " to create a table or join one. Anyone may watch a public table."),
    h("div", { class: "lobby" },
      h("div", { class: "lobby-column" },
        h("section", { class: "panel", "aria-labelledby": "open-tables" },
          h("h2", { id: "open-tables", text: "Open tables" }), tables),
        h("section", { class: "panel", "aria-labelledby": "being-played" },
          h("h2", { id: "being-played", text: "Being played: watch" }), playing),
        loggedIn ? h("section", { class: "panel", "aria-labelledby": "followed-tables" },
          h("h2", { id: "followed-tables", text: "Players you follow" }), followed) : null),
      loggedIn ? h("div", { class: "lobby-column" },
        pairingArea,
        h("section", { class: "panel", "aria-labelledby": "create-table" },
          h("h2", { id: "create-table", text: "Create a table" }), createArea),
        joinByCode(context)) : null));

  let live = true;
  /** @type {(() => void) | null} */
  let stopPairing = null;
  /** @type {MatchSummary[]} */
  let listed = [];
  /** @type {string | null} */
  let cursor = null;
  /** @type {RulesCatalog | null} */
  let catalog = null;
  const filters = { preset: "", seats: "", clock: "" };

  const list = h("div", { class: "table-list" });
  const renderTables = () => {
    if (!catalog) return;
    const known = catalog;
    const shown = listed.filter((summary) => {
      if (filters.preset && presetOf(summary, known) !== filters.preset) return false;
      if (filters.seats && summary.seat_count !== Number(filters.seats)) return false;
      if (filters.clock === "none" && summary.clock) return false;
      if (filters.clock === "clock" && !summary.clock) return false;
      return true;
    });
    // The filters stay as they are (and keep the focus); only the list is drawn again.
    if (!tables.contains(list)) fill(tables, filterBar(known, filters, renderTables, () => { void load(true); }), list);
    fill(list,
      shown.length === 0
        ? h("p", { class: "muted", text: listed.length ? "No open table fits these filters." : "No table is waiting for players. Create one!" })
        : h("ul", { class: "match-list" }, shown.map((summary) => tableRow(summary, known, context))),
      cursor ? h("button", { type: "button", class: "quiet", text: "More tables", onclick: () => { void load(false); } }) : null);
  };

  const load = async (/** @type {boolean} */ fromStart) => {
    try {
      const [page, watched, theirs] = await Promise.all([
        context.api.get("/v1/matches", { query: { limit: 50, cursor: fromStart ? undefined : cursor ?? undefined } }),
        context.api.get("/v1/matches", { query: { status: "playing", limit: 20 } }),
        loggedIn ? context.api.get("/v1/matches", { query: { followed: true, limit: 20 } }) : null,
      ]);
      if (!live) return;
      listed = fromStart ? page.matches : [...listed, ...page.matches];
      cursor = page.next_cursor ?? null;
      renderTables();
      fill(playing, watched.matches.length
        ? h("ul", { class: "match-list" }, watched.matches.map((summary) => watchRow(summary, /** @type {RulesCatalog} */ (catalog), context)))
        : h("p", { class: "muted", text: "No public table is being played now." }));
      if (theirs) {
        fill(followed, theirs.matches.length
          ? h("ul", { class: "match-list" }, theirs.matches.map((summary) => watchRow(summary, /** @type {RulesCatalog} */ (catalog), context)))
          : h("p", { class: "muted", text: "None of the players you follow sits at a public table now. Follow a player from their page." }));
      }
    } catch (error) {
      if (live) fill(tables, h("p", { class: "error", role: "alert", text: explain(error) }));
    }
  };

  context.catalog().then((loaded) => {
    if (!live) return;
    catalog = loaded;
    if (loggedIn) {
      fill(createArea, createForm(loaded, context));
      const pairing = quickPairing(loaded, context);
      stopPairing = pairing.stop;
      fill(pairingArea, pairing.panel);
    }
    void load(true);
  }, (error) => {
    if (live) fill(tables, h("p", { class: "error", role: "alert" }, explain(error), " ",
      h("a", { href: "#/settings", text: "Check the server in the settings." })));
  });
  const refresh = setInterval(() => { if (document.visibilityState === "visible") void load(true); }, 15_000);
  return () => {
    live = false;
    clearInterval(refresh);
    stopPairing?.();
  };
}

/**
 * The preset nearest a table's rules (the seat count aside) and how many options differ from it.
 * @param {MatchSummary} summary
 * @param {RulesCatalog} catalog
 */
function nearestPreset(summary, catalog) {
  const ours = /** @type {Record<string, unknown>} */ (summary.rules);
  let best = { name: "custom", changed: Infinity };
  for (const preset of catalog.presets) {
    const theirs = /** @type {Record<string, unknown>} */ (preset.rules);
    const changed = Object.keys(ours).filter((key) => key !== "players" && JSON.stringify(ours[key]) !== JSON.stringify(theirs[key])).length;
    if (changed < best.changed) best = { name: preset.name, changed };
  }
  return best;
}

/**
 * The preset a table's rules are (`custom` when no preset, the seat count aside, is them).
 * @param {MatchSummary} summary
 * @param {RulesCatalog} catalog
 */
export function presetOf(summary, catalog) {
  const nearest = nearestPreset(summary, catalog);
  return nearest.changed === 0 ? nearest.name : "custom";
}

/**
 * A table's rules in a few words: the nearest preset and how many options differ from it
 * ("standard with 1 house rule, 2 seats, one hand").
 * @param {MatchSummary} summary
 * @param {RulesCatalog} catalog
 */
export function tableRules(summary, catalog) {
  const nearest = nearestPreset(summary, catalog);
  const name = nearest.changed === 0 ? nearest.name : `${nearest.name} with ${plural(nearest.changed, "house rule")}`;
  return rulesText(summary.rules, name);
}

/**
 * @param {RulesCatalog} catalog
 * @param {{preset: string, seats: string, clock: string}} filters
 * @param {() => void} changed
 * @param {() => void} refresh
 */
function filterBar(catalog, filters, changed, refresh) {
  const select = (/** @type {"preset" | "seats" | "clock"} */ key, /** @type {string} */ label, /** @type {[string, string][]} */ choices) => {
    const id = `filter-${key}`;
    const element = h("select", { id, onchange: () => { filters[key] = element.value; changed(); } },
      choices.map(([value, text]) => h("option", { value, text, selected: filters[key] === value })));
    return h("span", { class: "field" }, h("label", { for: id, text: label }), element);
  };
  return h("div", { class: "filters", role: "group", "aria-label": "Filters" },
    select("preset", "Preset", [["", "any"], ...catalog.presets.map((preset) => /** @type {[string, string]} */ ([preset.name, preset.name])), ["custom", "custom"]]),
    select("seats", "Seats", [["", "any"], ...[2, 3, 4, 5, 6, 7, 8].map((n) => /** @type {[string, string]} */ ([String(n), String(n)]))]),
    select("clock", "Clock", [["", "any"], ["none", "no clock"], ["clock", "with a clock"]]),
    h("button", { type: "button", class: "quiet", text: "Refresh", onclick: refresh }));
}

/**
 * @param {MatchSummary} summary
 * @param {RulesCatalog} catalog
 * @param {import("./app.js").Context} context
 */
function tableRow(summary, catalog, context) {
  const host = summary.seats[0]?.username ?? "someone";
  const me = context.session.username;
  const seated = summary.seats.some((seat) => seat.username === me);
  const free = summary.seat_count - summary.seats.length;
  const error = h("span", { class: "error", role: "alert" });
  const join = h("button", {
    type: "button", text: "Join", "data-join": summary.id,
    onclick: async () => {
      join.disabled = true;
      try {
        await context.api.post("/v1/matches/{id}/join", { path: { id: summary.id }, body: {} });
        context.navigate(`#/match/${summary.id}`);
      } catch (failure) {
        error.textContent = explain(failure);
        join.disabled = false;
      }
    },
  });
  return h("li", { class: "match-row", "data-match": summary.id },
    h("a", { href: `#/match/${summary.id}`, class: "match-link" },
      h("strong", { text: `${host}'s table` }),
      h("span", { text: ` · ${tableRules(summary, catalog)}` })),
    h("span", { class: "muted", text: `${summary.seats.length} of ${summary.seat_count} seats taken, ${plural(free, "free seat")}` }),
    h("span", { class: "muted", text: summary.clock ? clockText(summary.clock.turn_seconds, summary.clock.bank_seconds) : "no clock" }),
    me && !seated ? join : null, error);
}

/**
 * A public table being played, to watch (or to go back to, for its players).
 * @param {MatchSummary} summary
 * @param {RulesCatalog} catalog
 * @param {import("./app.js").Context} context
 */
function watchRow(summary, catalog, context) {
  const names = summary.seats.map((seat) => (seat.bot ? `${seat.bot} bot` : seat.username));
  const seated = summary.seats.some((seat) => seat.username === context.session.username && !seat.bot);
  return h("li", { class: "match-row", "data-watch": summary.id },
    h("a", { href: `#/match/${summary.id}`, class: "match-link" },
      h("strong", { text: names.join(", ") }),
      h("span", { text: ` · ${tableRules(summary, catalog)}` })),
    h("a", { href: `#/match/${summary.id}`, class: "button quiet", text: seated ? "Back to my seat" : "Watch",
      "aria-label": `${seated ? "Back to my seat at" : "Watch"} ${names.join(", ")}` }));
}

/**
 * "1 d a turn, a bank of 2 d".
 * @param {number} turn
 * @param {number} bank
 */
export function clockText(turn, bank) {
  return `${duration(turn)} a turn${bank ? `, a bank of ${duration(bank)}` : ""}`;
}

/**
 * The form that creates a table.
 * @param {RulesCatalog} catalog
 * @param {import("./app.js").Context} context
 */
function createForm(catalog, context) {
  const rules = new RulesForm(catalog, "create");
  const seats = h("input", { id: "create-seats", type: "number", min: 2, max: 8, step: 1, required: true, value: "2" });
  const seatChoices = h("div", { class: "seat-choices", role: "group", "aria-label": "Who sits at the other seats" });
  /** @type {HTMLSelectElement[]} */
  let others = [];
  const drawSeats = () => {
    const count = Math.max(2, Math.min(8, Number(seats.value) || 2));
    const kept = others.map((select) => select.value);
    others = [];
    /** @type {HTMLElement[]} */
    const rows = [h("p", { class: "muted", text: "Seat 1: you." })];
    for (let seat = 2; seat <= count; seat += 1) {
      const id = `create-seat-${seat}`;
      const select = h("select", { id, "data-seat-choice": seat },
        h("option", { value: "person", text: "a person who joins" }),
        botOptions(catalog));
      select.value = kept[seat - 2] ?? "person";
      others.push(select);
      rows.push(h("span", { class: "field" }, h("label", { for: id, text: `Seat ${seat}` }), select));
    }
    fill(seatChoices, ...rows, h("p", { class: "muted", text: "Bots take the seats right after yours; a table the bots fill starts at once." }));
  };
  seats.addEventListener("input", drawSeats);
  drawSeats();

  const clock = h("select", { id: "create-clock" },
    h("option", { value: "", text: "no clock: wait for ever" }),
    clockOptions(catalog),
    h("option", { value: "custom", text: "my own…" }));
  const turn = unitField("create-turn", "Each turn", 1, "days");
  const bank = unitField("create-bank", "Bank", 0, "days");
  const custom = h("div", { class: "custom-clock", hidden: true }, turn.element, bank.element);
  const onTimeout = h("select", { id: "create-on-timeout", disabled: true },
    onTimeoutOptions(catalog));
  clock.addEventListener("change", () => {
    custom.hidden = clock.value !== "custom";
    onTimeout.disabled = clock.value === "";
  });
  const visibility = h("select", { id: "create-visibility" },
    h("option", { value: "public", text: "public: listed in the lobby, anyone may watch" }),
    h("option", { value: "private", text: "private: by invitation; watched by its spectator link only" }));
  const hints = h("input", { type: "checkbox", id: "create-hints", checked: true });
  const autoEnd = h("input", { type: "checkbox", id: "create-auto-end", checked: true });
  const seed = h("input", { id: "create-seed", maxLength: 128, spellcheck: false, autocomplete: "off" });
  const error = h("p", { class: "error", role: "alert", hidden: true });
  const submit = h("button", { type: "submit", text: "Create the table" });

  rules.preset.addEventListener("change", () => {
    seats.value = String(rules.presetRules().rules.players);
    drawSeats();
  });

  const form = h("form", {
    class: "stack create-form", "data-form": "create",
    onsubmit: async (/** @type {SubmitEvent} */ event) => {
      event.preventDefault();
      error.hidden = true;
      submit.disabled = true;
      /** @type {Level[]} */
      const bots = others.map((select) => select.value).filter((value) => value !== "person").map((value) => /** @type {Level} */ (value));
      /** @type {CreateMatch} */
      const body = {
        seats: Number(seats.value),
        rules: rules.value(),
        visibility: visibility.value === "private" ? "private" : "public",
        hints: hints.checked,
        auto_end_turn: autoEnd.checked,
      };
      if (bots.length) body.bots = bots.map((level) => ({ level }));
      if (seed.value) body.client_seed = seed.value;
      if (clock.value === "custom") {
        body.clock = { turn_seconds: turn.seconds(), bank_seconds: bank.seconds() };
      } else if (clock.value) {
        body.clock = /** @type {ClockPreset} */ (clock.value);
      }
      if (clock.value) body.on_timeout = /** @type {OnTimeout} */ (onTimeout.value);
      try {
        const created = await context.api.post("/v1/matches", { body });
        context.navigate(`#/match/${created.id}`);
      } catch (failure) {
        error.textContent = explain(failure);
        error.hidden = false;
      } finally {
        submit.disabled = false;
      }
    },
  },
  h("label", { for: "create-seats", text: "Seats" }), seats,
  seatChoices,
  rules.element,
  h("fieldset", {},
    h("legend", { text: "Table" }),
    h("label", { for: "create-clock", text: "Clock" }), clock, custom,
    h("label", { for: "create-on-timeout", text: "When a turn's time runs out" }), onTimeout,
    h("label", { for: "create-visibility", text: "Who may see it" }), visibility,
    h("p", { class: "check" }, hints, h("label", { for: "create-hints", text: "Players may ask for a hint" })),
    h("p", { class: "check" }, autoEnd, h("label", { for: "create-auto-end", text: "End a turn by itself when ending it is all that is left" })),
    h("label", { for: "create-seed", text: "Your client seed (optional: mixed into every shuffle)" }), seed),
  error, submit);
  return form;
}

/**
 * A number of minutes, hours or days, in seconds.
 * @param {string} id
 * @param {string} label
 * @param {number} initial
 * @param {"minutes" | "hours" | "days"} unit
 */
function unitField(id, label, initial, unit) {
  const amount = h("input", { id, type: "number", min: 0, step: 1, value: String(initial), required: true });
  const units = h("select", { id: `${id}-unit`, "aria-label": `${label}: unit` },
    ["minutes", "hours", "days"].map((name) => h("option", { value: name, text: name, selected: name === unit })));
  const factor = { minutes: 60, hours: 3600, days: 86400 };
  return {
    element: h("span", { class: "field" }, h("label", { for: id, text: label }), amount, units),
    seconds: () => Number(amount.value) * factor[/** @type {"minutes" | "hours" | "days"} */ (units.value)],
  };
}

/**
 * Joining a private table by the link its creator shared (or its id and code).
 * @param {import("./app.js").Context} context
 */
function joinByCode(context) {
  const input = h("input", { id: "join-code", required: true, spellcheck: false, autocomplete: "off" });
  const error = h("p", { class: "error", role: "alert", hidden: true });
  return h("section", { class: "panel", "aria-labelledby": "join-title" },
    h("h2", { id: "join-title", text: "Join with a code" }),
    h("form", {
      class: "stack", "data-form": "join-code",
      onsubmit: (/** @type {SubmitEvent} */ event) => {
        event.preventDefault();
        const found = /([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\S*?(?:[?&]code=|\s+)([^\s&]+)/i.exec(input.value.trim());
        if (!found) {
          error.textContent = "Paste the invite link you were given (or the match's id, a space and the code).";
          error.hidden = false;
          return;
        }
        context.navigate(`#/match/${found[1]}?code=${encodeURIComponent(decodeURIComponent(found[2]))}`);
      },
    },
    h("label", { for: "join-code", text: "Invite link, or match id and code" }), input, error,
    h("button", { type: "submit", text: "Find the table" })));
}
