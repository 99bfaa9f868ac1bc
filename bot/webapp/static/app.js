// The Mini App: the start page (open games, a new game against the AI) and a game's live
// board (game.js). Every API call carries Telegram's initData; the server checks it and
// decides everything. The page speaks the user's language (words.js), right to left where
// the language is written so.
"use strict";

import { markIcon } from "./board.js";
import { closeGame, connection, openGame, say, setHome, showBack, showGame } from "./game.js";
import { api, awaitPairing, haptic, initData, signInRefused, startAskingFirst, tg } from "./net.js";
import { setUpSound } from "./sound.js";
import { levelName, refusal, setWords, t } from "./words.js";

const $ = (id) => document.getElementById(id);
// A new game as /start takes it (the server reads it so): level ("user": two on one phone;
// "match": the menu's AI match; "someone": a stranger, as /play), side, size and k, or
// ultimate.
const newGame = { level: "hard", mark: "X", size: 3, k: 3, ultimate: false };
let boards = [];      // the sizes the server offers, each with its usual k and every k it may have
let pairing = null;        // the AbortController of a search's stream, while the page looks

function applyTheme() {
  const theme = (tg && tg.themeParams) || {};
  const names = { bg_color: "--bg", text_color: "--text", hint_color: "--hint",
    link_color: "--link", button_color: "--button", button_text_color: "--button-text",
    secondary_bg_color: "--secondary-bg" };
  for (const [key, variable] of Object.entries(names)) {
    if (theme[key]) document.documentElement.style.setProperty(variable, theme[key]);
  }
  if (theme.button_color) document.documentElement.style.setProperty("--last", theme.button_color);
  document.documentElement.dataset.scheme = (tg && tg.colorScheme) || "light";
}

// The words in the user's language: the one they chose in chat, else their Telegram app's.
// The page's first call brings them with its answer (`?words=1`: the game, or the games), in
// the same round trip; only when it failed are they asked for apart, to say why: by the app's
// language when the server refused the sign-in, else as the first call would have.
async function speak(first) {
  if (first && first.ok && first.data.words) {
    useWords(first.data.words);
    return true;
  }
  const user = (tg && tg.initDataUnsafe && tg.initDataUnsafe.user) || {};
  const byApp = !initData || (first && signInRefused(first));
  const path = byApp ? "texts?lang=" + encodeURIComponent(user.language_code || "") : "texts";
  const { ok, data } = await api(path, undefined, !byApp);
  if (ok) useWords(data);
  return ok;
}

function useWords(words) {
  document.documentElement.lang = words.language;
  document.documentElement.dir = words.rtl ? "rtl" : "ltr";
  setWords(words.texts);
  document.title = t("PAGE.title");
  for (const button of $("levels").children) {
    if (!button.dataset.text) button.textContent = levelName(button.dataset.level);
  }
}

// A size, and its usual k unless `k` is one it may have.
function chooseSize(size, k) {
  const board = boards.find((b) => b.size === size);
  if (!board) return;
  newGame.size = size;
  newGame.k = k && board.ks.includes(k) ? k : board.k;
  newGame.ultimate = false;
  drawChoices();
}

function drawChoices() {
  for (const button of $("sizes").children) {
    button.classList.toggle("chosen", !newGame.ultimate && button.dataset.size === String(newGame.size));
  }
  const board = boards.find((b) => b.size === newGame.size);
  const ks = newGame.ultimate || !board ? [] : board.ks;
  $("ks").hidden = ks.length < 2;
  $("ks").replaceChildren(...ks.map((k) => {
    const button = document.createElement("button");
    button.textContent = t("PAGE.in_a_row", { k });
    button.dataset.k = String(k);
    button.classList.toggle("chosen", k === newGame.k);
    button.addEventListener("click", () => chooseSize(newGame.size, k));
    return button;
  }));
  $("ultimate").classList.toggle("chosen", newGame.ultimate);
  // A challenge goes through the chat's inline mode, which has no ultimate.
  $("challenge").hidden = !(tg && tg.switchInlineQuery) || newGame.ultimate;
}

// Challenge a person: the chat's inline mode, in a chat the user picks, with the board
// chosen here (`@bot 6 4`, as the inline mode reads a size; nothing for 3×3).
function challenge() {
  const classic = newGame.size === 3 && newGame.k === 3;
  tg.switchInlineQuery(classic ? "" : newGame.size + " " + newGame.k, ["users", "groups"]);
}

function choose(groupId, key, value) {
  newGame[key] = value;
  for (const button of $(groupId).children) {
    const chosen = button.dataset[key] === String(value);
    button.classList.toggle("chosen", chosen);
    button.setAttribute("aria-pressed", String(chosen));
  }
}

function gameLine(game) {
  const li = document.createElement("li");
  const button = document.createElement("button");
  // Every seat but the user's own, in the order of turns: one opponent, or two or three.
  const others = game.players.filter((player) => !game.you.includes(player.mark));
  const named = others.map((player) => player.ai ? levelName(player.ai) : player.name || t("PAGE.nobody_yet"));
  const who = named.length ? named.join(", ") : t("PAGE.yourself");
  const size = game.variant === "ultimate" ? "9 × 3×3" : game.size + "×" + game.size;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = t("PAGE.versus", { name: who }) + " · " + size;
  const turn = document.createElement("span");
  turn.className = "hint";
  turn.textContent = game.your_turn ? t("PAGE.your_turn_short") : game.status === "open" ? t("PAGE.waiting_short") : "";
  button.append(markIcon(game.you[0] || "X"), label, turn);
  button.addEventListener("click", () => openGame(game.id));
  li.append(button);
  return li;
}

// The start page; `preset` chooses a new game's board (Another level: the game's own).
// `answer`: the games as the page's first call brought them (else they are asked for).
async function openHome(preset, answer) {
  stopLooking();
  closeGame();
  $("game").hidden = true;
  showBack(false);
  history.replaceState(null, "", "./");
  const { ok, status, data, offline } = answer || await api("games");
  if (!ok) {
    say(offline ? t("PAGE.failed") : t(refusalKey(signInRefused({ status, data })) || "PAGE.from_telegram"), offline);
    return;
  }
  say("");
  boards = data.boards;
  $("sizes").replaceChildren(...boards.map(({ size }) => {
    const button = document.createElement("button");
    button.textContent = t("MENU_SIZE", { size });
    button.dataset.size = String(size);
    button.addEventListener("click", () => chooseSize(size));
    return button;
  }));
  if (preset && preset.ultimate) { newGame.ultimate = true; drawChoices(); }
  else if (preset) chooseSize(preset.size, preset.k);
  else drawChoices();
  $("home").hidden = false;
  $("hello").textContent = t("PAGE.hello", { name: data.me.name });
  $("no-games").hidden = data.games.length > 0;
  $("open-games").replaceChildren(...data.games.map(gameLine));
}

async function startGame() {
  haptic("impact", "medium");
  $("start").disabled = true;
  const { ok, data, offline, declined } = await startAskingFirst("games", newGame);
  $("start").disabled = false;
  // A stranger: looked for as /play does, and the game opened once one is found.
  if (ok && data.status === "searching") lookForSomeone();
  else if (ok) openGame(data.game.id);
  else if (!declined) say(offline ? t("PAGE.failed") : refusal(data.status || "error"));
}

// Why the server refused the sign-in, in the words' names (null: it did not).
function refusalKey(refused) {
  return refused === "not_telegram" ? "PAGE.not_telegram" : refused ? "PAGE.reopen" : null;
}

// Looking for a stranger, as /play does: the page says so, and goes to the game once the
// server has found one (the chat's waiting message says the same and can cancel it).
function lookForSomeone() {
  say(t("PAGE.searching"));
  stopLooking();
  pairing = awaitPairing((gameId) => { pairing = null; connection(null); openGame(gameId); }, (trouble) => {
    if (trouble === "expired" || trouble === "not_telegram") say(t(refusalKey(trouble)));
    else connection(trouble);
  });
}

function stopLooking() {
  if (pairing) pairing.abort();
  pairing = null;
}

async function setUp() {
  applyTheme();
  if (tg) {
    tg.ready();
    if (tg.expand) tg.expand();
    if (tg.onEvent) tg.onEvent("themeChanged", applyTheme);
  }
  for (const button of $("levels").children) button.addEventListener("click", () => choose("levels", "level", button.dataset.level));
  for (const button of $("marks").children) button.addEventListener("click", () => choose("marks", "mark", button.dataset.mark));
  choose("levels", "level", newGame.level);
  choose("marks", "mark", newGame.mark);
  $("start").addEventListener("click", startGame);
  $("ultimate").addEventListener("click", () => { newGame.ultimate = true; drawChoices(); });
  $("challenge").addEventListener("click", challenge);
  $("back").addEventListener("click", () => openHome());
  $("message-back").addEventListener("click", () => openHome());
  $("message-retry").addEventListener("click", () => openHome());
  setHome(openHome);
  if (tg && tg.BackButton) {
    tg.BackButton.onClick(() => openHome());
    $("back").hidden = true; // Telegram's own Back button takes its place
  }
  if (!initData) {
    await speak(null);
    setUpSound($("sound"));
    say(t("PAGE.from_telegram"));
    return;
  }
  const fromUrl = new URLSearchParams(location.search).get("game");
  // A game's link names it by its public id (random, never the row id): startapp=g<id>.
  const fromStart = ((tg.initDataUnsafe && tg.initDataUnsafe.start_param) || "").match(/^g([A-Za-z0-9_-]{16})$/);
  const gameId = fromUrl || (fromStart && fromStart[1]);
  // One call for the words and what the page shows first (the game, or the games).
  const first = await api((gameId ? "games/" + gameId : "games") + "?words=1");
  const spoken = await speak(first);
  setUpSound($("sound"));
  const refused = signInRefused(first);
  if (refused) { say(t(refusalKey(refused))); return; }
  if (!spoken) { say(t("PAGE.from_telegram")); return; }
  if (gameId) showGame(gameId, first);
  else openHome(undefined, first);
}

setUp();
