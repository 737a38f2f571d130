// Names for the API's types, for JSDoc. They come from openapi/openapi.json through
// openapi-typescript ("kc-openapi" is the file it generates; tests/play/tsconfig.json maps the
// name), so `tsc --checkJs --strict` holds every module of the client to the description.
// Nothing here runs.

/** @typedef {import("kc-openapi").paths} Paths */
/** @typedef {import("kc-openapi").components["schemas"]} Schemas */

/** @typedef {Schemas["MatchView"]} MatchView */
/** @typedef {Schemas["View"]} View */
/** @typedef {Schemas["SeatView"]} SeatView */
/** @typedef {Schemas["MatchSummary"]} MatchSummary */
/** @typedef {Schemas["MatchPage"]} MatchPage */
/** @typedef {Schemas["SeatInfo"]} SeatInfo */
/** @typedef {Schemas["Action"]} Action */
/** @typedef {Schemas["PlayAction"]} PlayAction */
/** @typedef {Schemas["MoveAction"]} MoveAction */
/** @typedef {Schemas["PileId"]} PileId */
/** @typedef {Schemas["Card"]} Card */
/** @typedef {Schemas["PlacedCard"]} PlacedCard */
/** @typedef {Schemas["Event"]} Event */
/** @typedef {Schemas["LoggedEvent"]} LoggedEvent */
/** @typedef {Schemas["Notification"]} Notification */
/** @typedef {Schemas["HandResult"]} HandResult */
/** @typedef {Schemas["Rules"]} Rules */
/** @typedef {Schemas["RulesCatalog"]} RulesCatalog */
/** @typedef {Schemas["CatalogOption"]} CatalogOption */
/** @typedef {Schemas["CreateMatch"]} CreateMatch */
/** @typedef {Schemas["ClockPreset"]} ClockPreset */
/** @typedef {Schemas["NewSeek"]["preset"]} SeekPreset */
/** @typedef {Schemas["OnTimeout"]} OnTimeout */
/** @typedef {Schemas["Level"]} Level */
/** @typedef {Schemas["Status"]} Status */
/** @typedef {Schemas["TokenPair"]} TokenPair */
/** @typedef {Schemas["Problem"]} Problem */
/** @typedef {Schemas["Hint"]} Hint */
/** @typedef {Schemas["PlayerPage"]} PlayerPage */
/** @typedef {Schemas["Tally"]} Tally */
/** @typedef {Schemas["MatchExport"]} MatchExport */
/** @typedef {Schemas["VacationView"]} VacationView */
/** @typedef {Schemas["SeekView"]} SeekView */
/** @typedef {Schemas["AlertSettings"]} AlertSettings */
/** @typedef {Schemas["EmailView"]} EmailView */

export {};
