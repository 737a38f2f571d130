// The vacation panel of `#/mine`: the days the account holds and, while it is away, until when
// and a way back; otherwise a date to go away until. Meanwhile the server stops the clock of
// each of the player's seats at a correspondence table (README "Vacations").

import { explain } from "./api.js";
import { fill, h, plural, timeElement } from "./dom.js";

/** @typedef {import("./types.js").VacationView} VacationView */

const DAY = 86_400_000;

/**
 * @param {import("./app.js").Context} context
 * @returns {{ panel: HTMLElement, load: () => Promise<void> }}
 */
export function vacationPanel(context) {
  const body = h("div", { class: "stack" }, h("p", { class: "muted", text: "Loading…" }));
  const panel = h("section", { class: "panel vacation", "aria-labelledby": "vacation" },
    h("h2", { id: "vacation", text: "Vacation" }), body);

  /** @param {() => Promise<VacationView>} change */
  const act = async (change) => {
    try {
      show(await change());
    } catch (error) {
      context.toast(explain(error), "error");
    }
  };

  /** @param {VacationView} held */
  const show = (held) => {
    const days = plural(held.days, "vacation day");
    if (held.vacation) {
      fill(body,
        h("p", { "data-away-until": held.vacation.until }, "You are on vacation until ",
          timeElement(held.vacation.until), ": the clocks of your correspondence tables wait for you."),
        h("p", { class: "muted", text: `${days} left; coming back now gives back the days not begun.` }),
        h("p", {}, h("button", {
          type: "button", "data-action": "come-back", text: "Come back now",
          onclick: () => act(() => context.api.delete("/v1/me/vacation")),
        })));
      return;
    }
    const last = Math.min(held.days, held.most_days);
    const date = (/** @type {number} */ offset) => new Date(Date.now() + offset).toISOString().slice(0, 10);
    const until = h("input", {
      id: "vacation-until", name: "until", type: "date", required: true,
      min: date(DAY), max: date(last * DAY),
    });
    fill(body,
      h("p", { text: `You hold ${days}: one more for each week you play a correspondence table, up to ${held.most_days}. Each day begun away takes one.` }),
      last > 0 ? h("form", {
        class: "field", "data-form": "vacation",
        onsubmit: (/** @type {SubmitEvent} */ event) => {
          event.preventDefault();
          // Away until the end of the chosen day, in the player's own time zone.
          const end = new Date(`${until.value}T23:59:00`);
          const ends = Math.min(end.getTime(), Date.now() + last * DAY);
          void act(() => context.api.post("/v1/me/vacation", { body: { until: new Date(ends).toISOString().replace(/\.\d+Z$/, "Z") } }));
        },
      }, h("label", { for: "vacation-until", text: "Away until" }), until,
      h("button", { type: "submit", text: "Go on vacation" })) : null);
  };

  const load = async () => {
    try {
      show(await context.api.get("/v1/me/vacation"));
    } catch (error) {
      fill(body, h("p", { class: "error", role: "alert", text: explain(error) }));
    }
  };
  return { panel, load };
}
