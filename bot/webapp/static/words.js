// The page's words: sent by the server in the user's language (with the page's first call's
// answer, else GET api/texts), from the same catalogs as the chat. t("KEY", {name: …}) fills the {placeholders}.
"use strict";

let words = {};

// Before the server's words arrive, or without Telegram's sign-in: English.
const FALLBACK = {
  "PAGE.from_telegram": "Open this page from Telegram: it needs Telegram's sign-in.",
  "PAGE.offline": "No connection to the server. Trying again…",
};

export function setWords(texts) {
  words = texts || {};
  for (const element of document.querySelectorAll("[data-text]")) {
    element.textContent = t(element.dataset.text);
  }
}

export function t(key, values) {
  const text = words[key] ?? FALLBACK[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (values && name in values ? values[name] : whole));
}

// A refusal's status (bot.games.model.MoveStatus) in the words the chat's pop-up uses.
export function refusal(status) {
  const refusals = words.REFUSALS || {};
  return refusals[status] || refusals.error || "Something went wrong. Please try again.";
}

export function levelName(level) {
  return t("AI_NAME", { level: (words.LEVEL_NAMES || {})[level] || level });
}

// A mark as the chat names it: ❌ ⭕ 🔺 🟦 (X_SYMBOL…), never its letter.
export function symbol(mark) {
  return t(mark + "_SYMBOL");
}
