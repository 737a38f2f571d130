// Questions the page asks before it acts: a modal dialog with a button per answer and
// "Cancel" (Escape cancels too). The first answer has the focus, so Enter takes it.

import { find, h } from "./dom.js";

/**
 * Asks `question`; the chosen answer's value, or `null` for "Cancel".
 * @template T
 * @param {string} question
 * @param {{text: string, value: T}[]} answers
 * @returns {Promise<T | null>}
 */
export function ask(question, answers) {
  return new Promise((resolve) => {
    const box = h("dialog", { class: "chooser", "aria-labelledby": "chooser-title" },
      h("h2", { id: "chooser-title", text: question }),
      h("div", { class: "button-row" },
        answers.map((answer) => h("button", { type: "button", "data-answer": answer.text, text: answer.text, onclick: () => done(answer.value) })),
        h("button", { type: "button", class: "quiet", text: "Cancel", onclick: () => done(null) })));
    const done = (/** @type {T | null} */ value) => {
      box.close();
      box.remove();
      resolve(value);
    };
    box.addEventListener("cancel", (event) => { event.preventDefault(); done(null); });
    find(document, "body").append(box);
    box.showModal();
  });
}

/**
 * Whether the player confirms (`yes` names the act: "Resign").
 * @param {string} question
 * @param {string} yes
 */
export async function confirmed(question, yes) {
  return (await ask(question, [{ text: yes, value: true }])) === true;
}
