// The table's vocabulary in the client's own words, for the pages that offer a choice of it:
// a clock in words, and the choices of the catalog (`GET /v1/rules`: clocks, `on_timeout`, bot
// levels) as a select's options. The choices themselves are the server's; nothing here lists
// them again.

import { h } from "./dom.js";

/** @typedef {import("./types.js").RulesCatalog} RulesCatalog */

/** Seconds in a day, an hour and a minute, with their names. */
const UNITS = /** @type {const} */ ([[86400, "day"], [3600, "hour"], [60, "minute"], [1, "second"]]);

/**
 * A whole number of the largest unit that divides `seconds`: `[2, "day"]`.
 * @param {number} seconds
 * @returns {[number, string]}
 */
function inUnits(seconds) {
  for (const [size, name] of UNITS) {
    if (seconds >= size && seconds % size === 0) return [seconds / size, name];
  }
  return [seconds, "second"];
}

/**
 * A clock in words: "1 day a turn, a 2-day bank", "5 minutes a turn, no bank".
 * @param {{ turn_seconds: number, bank_seconds: number }} clock
 */
export function clockText(clock) {
  const [turn, turnUnit] = inUnits(clock.turn_seconds);
  const turnText = `${turn} ${turnUnit}${turn === 1 ? "" : "s"} a turn`;
  if (clock.bank_seconds === 0) return `${turnText}, no bank`;
  const [bank, bankUnit] = inUnits(clock.bank_seconds);
  return `${turnText}, a ${bank}-${bankUnit} bank`;
}

/**
 * The catalog's named clocks as options of a select, each in words.
 * @param {RulesCatalog} catalog
 */
export function clockOptions(catalog) {
  return catalog.clocks.map((clock) => h("option", { value: clock.name, text: clockText(clock) }));
}

/**
 * What a passed deadline may mean, as options of a select.
 * @param {RulesCatalog} catalog
 */
export function onTimeoutOptions(catalog) {
  return catalog.on_timeout.map((choice) => h("option", { value: choice.name, text: `${choice.name}: ${choice.description}` }));
}

/**
 * The bot levels as options of a select: "the expert bot".
 * @param {RulesCatalog} catalog
 */
export function botOptions(catalog) {
  return catalog.bot_levels.map((level) => h("option", { value: level.name, text: `the ${level.name} bot`, title: level.description }));
}
