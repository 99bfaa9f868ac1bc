// Talking to the server: Telegram's initData on every call, requests that report a lost
// connection instead of throwing, and the live streams (a game's; a search's, until it finds
// a stranger), which reconnect with backoff.
"use strict";

export const tg = (window.Telegram && window.Telegram.WebApp) || null;
export const initData = tg ? tg.initData : "";

// What a reverse proxy answers while the bot restarts: the server is away, not refusing.
const AWAY = new Set([502, 503, 504]);

export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Waits before the n-th retry: 0.5 s doubling to 10 s, with a little jitter so that many
// pages do not come back at the same instant.
export function backoff(attempt) {
  return Math.min(10000, 500 * 2 ** attempt) * (0.8 + Math.random() * 0.4);
}

// {ok, status, data, offline}: offline when the server could not be reached at all.
// `signed` false: without the initData (the words, when the server refuses it).
export async function api(path, body, signed = true) {
  const options = { headers: signed ? { Authorization: "tma " + initData } : {} };
  if (body !== undefined) {
    options.method = "POST";
    options.headers["Content-Type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch("api/" + path, options);
  } catch (e) {
    return { ok: false, status: 0, data: {}, offline: true };
  }
  const data = await response.json().catch(() => ({}));
  return { ok: response.ok, status: response.status, data, offline: AWAY.has(response.status) };
}

// Why the server refused the page's sign-in, from an answer ({status, data}): "expired" (a
// day old: opening the page again from the chat mends it) or "not_telegram" (no valid
// Telegram sign-in at all); null when it did not refuse it.
export function signInRefused({ status, data }) {
  if (status !== 401 || !initData) return null;
  return data && data.status === "not_telegram" ? "not_telegram" : "expired";
}

// A game's server-sent events, read through fetch (EventSource cannot send the initData
// header). onState(game) for every state; onTrouble(kind) with "offline", "too_many",
// "expired" or "not_telegram" (the server no longer takes the page's initData: see
// `signInRefused`) or null (back).
// Reconnects after any error or end, waiting longer after each failure; stops for good on
// 401/403/404 or an `event: gone`. Returns the AbortController that ends it.
export function follow(gameId, onState, onTrouble) {
  return listen("api/games/" + gameId + "/events", { state: onState }, onTrouble);
}

// While the page looks for a stranger: onPaired(gameId) once the server has found one
// (`event: paired`), and the stream ends. Returns the AbortController that ends it sooner.
export function awaitPairing(onPaired, onTrouble) {
  return listen("api/pairing", { paired: (found) => onPaired(found.id) }, onTrouble, "paired");
}

// A stream of server-sent events: `handlers` by event name; it ends for good at `last` (or
// `gone`), and is opened again after anything else ends it.
function listen(path, handlers, onTrouble, last) {
  const controller = new AbortController();
  (async () => {
    let failures = 0;
    while (!controller.signal.aborted) {
      let trouble = "offline";
      try {
        const response = await fetch(path, {
          headers: { Authorization: "tma " + initData }, signal: controller.signal });
        if (response.status === 401 && initData) {
          const data = await response.json().catch(() => ({}));
          onTrouble(signInRefused({ status: 401, data }));
        }
        if ([401, 403, 404].includes(response.status)) return;
        if (response.status === 429) trouble = "too_many";
        if (response.ok) {
          const ended = await readEvents(response, (event, data) => {
            failures = 0;
            onTrouble(null);
            if (handlers[event]) handlers[event](data);
          }, last);
          if (ended === "gone" || ended === last) return;
          trouble = null; // the server closed the stream (a restart): come straight back
        }
      } catch (e) {
        if (controller.signal.aborted) return;
      }
      if (trouble) {
        failures += 1;
        onTrouble(trouble);
      }
      await sleep(backoff(Math.max(failures - 1, 0)));
    }
  })();
  return controller;
}

// Calls onEvent(name, data) for each event; returns "end" when the stream ends, "gone", or
// `last` once that event came.
async function readEvents(response, onEvent, last) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = "";
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return "end";
    buffer += value;
    let end;
    while ((end = buffer.indexOf("\n\n")) >= 0) {
      const chunk = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      if (chunk.startsWith("event: gone")) return "gone";
      const name = (chunk.match(/^event: (\w+)/) || [])[1];
      const data = chunk.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)).join("\n");
      if (name && data) onEvent(name, JSON.parse(data));
      if (name === last) return name;
    }
  }
}

export function haptic(kind, style) {
  // Older clients have no HapticFeedback (and throw on unsupported calls).
  try {
    if (!tg || !tg.HapticFeedback) return;
    if (kind === "impact") tg.HapticFeedback.impactOccurred(style);
    else tg.HapticFeedback.notificationOccurred(style);
  } catch (e) { /* no haptics here */ }
}

// Yes or no from the user: Telegram's own dialog inside Telegram, the browser's elsewhere.
export function confirmDialog(text) {
  if (tg && tg.showConfirm) return new Promise((resolve) => tg.showConfirm(text, resolve));
  return Promise.resolve(window.confirm(text));
}

// A new game over one the user moved in: the server asks first (409 "underway", with the
// question in the user's words), and the game starts only on yes (the old one is resigned).
export async function startAskingFirst(path, body) {
  const answer = await api(path, body);
  if (answer.ok || answer.offline || answer.data.status !== "underway") return answer;
  if (!(await confirmDialog(answer.data.question))) return { ...answer, declined: true };
  return api(path, { ...body, resign_underway: true });
}
