// The rules of a new table as a form built from the catalog (`GET /v1/rules`): a preset, then
// every option from its JSON Schema (a checkbox for a boolean, a number within its bounds, a
// list for an enum, a choice among a union's forms), starting at the preset's values. An
// option added to the server appears here with no change to the client. The form's value is
// what `POST /v1/matches` takes as `rules`: the preset and the options that differ from it.

import { fill, h } from "./dom.js";

/** @typedef {import("./types.js").RulesCatalog} RulesCatalog */
/** @typedef {import("./types.js").CatalogOption} CatalogOption */

/**
 * The part of JSON Schema the catalog's option schemas use.
 * @typedef {object} Schema
 * @property {string | string[]} [type]
 * @property {unknown[]} [enum]
 * @property {Schema[]} [oneOf]
 * @property {Record<string, Schema>} [properties]
 * @property {string[]} [required]
 * @property {number} [minimum]
 * @property {number} [maximum]
 * @property {string} [description]
 */

/**
 * An input for one value.
 * @typedef {object} Editor
 * @property {HTMLElement} element
 * @property {() => unknown} get The value (`undefined`: leave it out).
 * @property {(value: unknown) => void} set
 */

/** Options the form leaves to other fields (`players` is the table's seat count). */
const ELSEWHERE = new Set(["players"]);

export class RulesForm {
  /**
   * @param {RulesCatalog} catalog
   * @param {string} idPrefix Prefixes the inputs' ids.
   */
  constructor(catalog, idPrefix) {
    this.catalog = catalog;
    this.preset = h("select", { id: `${idPrefix}-preset`, name: "preset" },
      catalog.presets.map((preset) => h("option", { value: preset.name, text: preset.name })));
    this.presetText = h("p", { class: "muted", id: `${idPrefix}-preset-text` });
    this.preset.setAttribute("aria-describedby", this.presetText.id);
    /** @type {{option: CatalogOption, editor: Editor}[]} */
    this.editors = catalog.options
      .filter((option) => !ELSEWHERE.has(option.name))
      .map((option) => ({ option, editor: editor(/** @type {Schema} */ (option.schema), `${idPrefix}-${option.name}`) }));
    this.changed = h("span", { class: "muted" });
    const rows = this.editors.map(({ option, editor }) => {
      const id = `${idPrefix}-${option.name}`;
      const help = h("p", { class: "muted help", id: `${id}-help`, text: option.description });
      const control = editor.element.querySelector("input, select") ?? editor.element;
      control.setAttribute("aria-describedby", help.id);
      return h("div", { class: "option", "data-option": option.name },
        h("label", { for: id, text: words(option.name) }), editor.element, help);
    });
    this.element = h("fieldset", { class: "rules-form" },
      h("legend", { text: "Rules" }),
      h("label", { for: this.preset.id, text: "Preset" }), this.preset, this.presetText,
      h("details", {},
        h("summary", {}, "House rules ", this.changed),
        h("div", { class: "options" }, rows)));
    this.preset.addEventListener("change", () => this.reset());
    this.element.addEventListener("change", () => this.count());
    this.element.addEventListener("input", () => this.count());
    this.reset();
  }

  /** The chosen preset's full option set. */
  presetRules() {
    const preset = this.catalog.presets.find((candidate) => candidate.name === this.preset.value) ?? this.catalog.presets[0];
    return preset;
  }

  /** Every option back to the chosen preset's value. */
  reset() {
    const preset = this.presetRules();
    this.presetText.textContent = preset.description;
    const rules = /** @type {Record<string, unknown>} */ (preset.rules);
    for (const { option, editor } of this.editors) editor.set(rules[option.name]);
    this.count();
  }

  /** The options that differ from the preset. */
  overrides() {
    const rules = /** @type {Record<string, unknown>} */ (this.presetRules().rules);
    /** @type {Record<string, unknown>} */
    const changed = {};
    for (const { option, editor } of this.editors) {
      const value = editor.get();
      if (value !== undefined && canonical(value) !== canonical(rules[option.name])) changed[option.name] = value;
    }
    return changed;
  }

  count() {
    const changed = Object.keys(this.overrides()).length;
    this.changed.textContent = changed ? `(${changed} changed from the preset)` : "(as the preset)";
  }

  /**
   * The `rules` of a new match.
   * @returns {import("./types.js").Schemas["RulesRequest"]}
   */
  value() {
    return /** @type {import("./types.js").Schemas["RulesRequest"]} */ (
      { preset: /** @type {any} */ (this.preset.value), ...this.overrides() });
  }
}

/**
 * An editor for a value of `schema`.
 * @param {Schema} schema
 * @param {string} id The input's id (the label's `for`).
 * @returns {Editor}
 */
function editor(schema, id) {
  if (schema.oneOf) return union(schema.oneOf, id);
  if (schema.enum) return choice(schema.enum, id);
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  if (types.includes("boolean")) return checkbox(id);
  if (types.includes("integer")) return number(schema, id, types.includes("null"));
  if (types.includes("object") && schema.properties) return object(schema, id);
  return json(id);
}

/**
 * @param {string} id
 * @returns {Editor}
 */
function checkbox(id) {
  const input = h("input", { type: "checkbox", id });
  return {
    element: input,
    get: () => input.checked,
    set: (value) => { input.checked = value === true; },
  };
}

/**
 * @param {Schema} schema
 * @param {string} id
 * @param {boolean} nullable An empty field leaves the value out.
 * @returns {Editor}
 */
function number(schema, id, nullable) {
  const input = h("input", { type: "number", id, step: 1, inputMode: "numeric", min: schema.minimum, max: schema.maximum, required: !nullable });
  return {
    element: input,
    get: () => (input.value === "" ? undefined : Number(input.value)),
    set: (value) => { input.value = typeof value === "number" ? String(value) : ""; },
  };
}

/**
 * @param {unknown[]} values
 * @param {string} id
 * @returns {Editor}
 */
function choice(values, id) {
  const select = h("select", { id }, values.map((value) => h("option", { value: String(value), text: words(String(value)) })));
  return {
    element: select,
    get: () => values.find((value) => String(value) === select.value),
    set: (value) => { select.value = String(value); },
  };
}

/**
 * An object with named fields, each its own editor.
 * @param {Schema} schema
 * @param {string} id
 * @returns {Editor}
 */
function object(schema, id) {
  const fields = Object.entries(schema.properties ?? {}).map(([name, field]) => {
    const fieldId = `${id}-${name}`;
    return { name, edit: editor(field, fieldId), fieldId };
  });
  const element = h("div", { class: "object", id, role: "group" },
    fields.map(({ name, edit, fieldId }) => h("span", { class: "field" }, h("label", { for: fieldId, text: words(name) }), edit.element)));
  return {
    element,
    get: () => {
      /** @type {Record<string, unknown>} */
      const value = {};
      for (const { name, edit } of fields) {
        const field = edit.get();
        if (field !== undefined) value[name] = field;
      }
      return value;
    },
    set: (value) => {
      const given = /** @type {Record<string, unknown>} */ (value && typeof value === "object" ? value : {});
      for (const { name, edit } of fields) edit.set(given[name]);
    },
  };
}

/**
 * One of several forms: `null` ("none"), the values of an enum, or an object — chosen from a
 * list, with the chosen form's own fields beside it. An object of one field whose only value is
 * fixed (`{"single_hand": true}`) needs no field.
 * @param {Schema[]} branches
 * @param {string} id
 * @returns {Editor}
 */
function union(branches, id) {
  /** @type {{label: string, value?: unknown, build?: Editor, key?: string, fits: (value: unknown) => boolean}[]} */
  const forms = [];
  branches.forEach((branch, index) => {
    if (branch.type === "null") {
      forms.push({ label: "none", value: null, fits: (value) => value === null || value === undefined });
    } else if (branch.enum) {
      for (const value of branch.enum) forms.push({ label: words(String(value)), value, fits: (given) => given === value });
    } else if (branch.type === "object" && branch.properties) {
      const names = Object.keys(branch.properties);
      const only = names.length === 1 ? branch.properties[names[0]] : null;
      if (only?.enum?.length === 1) {
        const value = { [names[0]]: only.enum[0] };
        forms.push({ label: branch.description ?? words(names[0]), value, fits: (given) => canonical(given) === canonical(value) });
      } else if (names.length === 1 && only) {
        const key = names[0];
        const build = editor(only, `${id}-${index}`);
        forms.push({ label: branch.description ?? words(key), key, build,
          fits: (given) => !!given && typeof given === "object" && key in given });
      } else {
        const build = object(branch, `${id}-${index}`);
        forms.push({ label: branch.description ?? "a table", build,
          fits: (given) => !!given && typeof given === "object" && names.every((name) => !(branch.required ?? []).includes(name) || name in given) });
      }
    }
  });
  const select = h("select", { id }, forms.map((form, index) => h("option", { value: String(index), text: form.label })));
  const detail = h("span", { class: "union-detail" });
  const show = () => {
    const form = forms[Number(select.value)];
    fill(detail, ...(form?.build ? [form.build.element] : []));
  };
  select.addEventListener("change", show);
  return {
    element: h("span", { class: "union" }, select, detail),
    get: () => {
      const form = forms[Number(select.value)];
      if (!form) return undefined;
      if (!form.build) return form.value;
      const inner = form.build.get();
      if (inner === undefined) return undefined;
      return form.key ? { [form.key]: inner } : inner;
    },
    set: (value) => {
      const index = forms.findIndex((form) => form.fits(value));
      select.value = String(Math.max(0, index));
      const form = forms[Math.max(0, index)];
      if (form?.build) form.build.set(form.key && value && typeof value === "object" ? /** @type {any} */ (value)[form.key] : value);
      show();
    },
  };
}

/**
 * A value the schema does not describe in a form this client knows: written as JSON.
 * @param {string} id
 * @returns {Editor}
 */
function json(id) {
  const input = h("input", { id, spellcheck: false, class: "json" });
  return {
    element: input,
    get: () => {
      try {
        return JSON.parse(input.value);
      } catch {
        return undefined;
      }
    },
    set: (value) => { input.value = JSON.stringify(value ?? null); },
  };
}

/**
 * `hand_size_5_plus` → "Hand size 5 plus", `down_alternating` → "down alternating".
 * @param {string} name
 */
function words(name) {
  const spaced = name.replace(/_/g, " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/**
 * JSON with sorted keys, to compare values.
 * @param {unknown} value
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") {
    return `{${Object.keys(value).sort().map((key) => `${JSON.stringify(key)}:${canonical(/** @type {any} */ (value)[key])}`).join(",")}}`;
  }
  return JSON.stringify(value ?? null);
}
