// A game's page: the players, whose turn or the result, the board, the buttons the chat
// board has (Hint, Undo, Resign; Play again, Swap sides, Rematch), the moves, kept live.
// Every refusal is said in words; a move the server did not get is sent again.
"use strict";

import { drawBoard, drawLines, markIcon, rowCol } from "./board.js";
import { api, backoff, follow, haptic, initData, sleep, startAskingFirst, tg } from "./net.js";
import { levelName, refusal, t } from "./words.js";

const $ = (id) => document.getElementById(id);
// How often a move is sent again while the server cannot be reached (0.5 + 1 + 2 + 4 s).
const MOVE_RETRIES = 4;
const BUTTONS = { hint: "BUTTON_HINT", undo: "BUTTON_UNDO", resign: "BUTTON_RESIGN",
  again: "BUTTON_PLAY_AGAIN", swap: "BUTTON_SWAP_SIDES", rematch: "BUTTON_REMATCH",
  join: "BUTTON_JOIN", accept: "BUTTON_ACCEPT", decline: "BUTTON_DECLINE", cancel: "BUTTON_CANCEL",
  review: "BUTTON_REVIEW", picture: "BUTTON_PICTURE", level: "BUTTON_OTHER_LEVEL",
  watch: "BUTTON_WATCH_AGAIN" };

let current = null;   // the game shown: its last state
let stream = null;    // the AbortController of its live stream
let busy = false;     // a move or an action is on its way
let hint = null;      // the cell a hint lit, until the position changes
let asking = false;   // Resign asks "are you sure?"
let goHome = () => {}; // the start page (app.js), with a new game's choices preset

// The start page, for Another level: app.js gives it.
export function setHome(open) {
  goHome = open;
}

// An error in place of the page, with a way on: back to the games (or, on the start page
// itself, `retry`). Telegram's Back button does the same.
export function say(text, retry) {
  $("message").textContent = text;
  $("message").hidden = !text;
  $("message-actions").hidden = !text || !initData;
  $("message-retry").hidden = !retry;
  $("message-back").hidden = Boolean(retry);
  if (text) showBack(!retry);
}

// Telegram's Back button where there is one (outside Telegram, or in an old client, the
// page's own "← Games" stays).
export function showBack(shown) {
  const back = tg && tg.BackButton;
  if (!back) return;
  if (shown) back.show(); else back.hide();
}

export function notice(text) {
  $("notice").textContent = text || "";
  $("notice").hidden = !text;
}

export function connection(kind) {
  const text = kind === "too_many" ? t("PAGE.too_many") : kind ? t("PAGE.offline") : "";
  $("connection").textContent = text;
  $("connection").hidden = !text;
}

function name(player) {
  if (player.ai) return levelName(player.ai);
  return player.name || t("PAGE.nobody_yet");
}

// How the game ended, in the chat's words: the server picks them (bot.views.endings.ending).
function result(game) {
  if (game.status === "open") return t("POPUP_WAITING");
  if (!game.ending) return t("GAME_CLOSED");
  const mark = game.ending.mark;
  const invited = game.offer ? game.offer.invited : "";
  if (!mark) return t(game.ending.key, { invited });
  return t(game.ending.key, { name: name(game.players[mark]), mark: t(mark + "_SYMBOL") });
}

// An open game's invitation (a challenge, a rematch offer, seats of a game of more) in the
// chat board's words: the server picks them (bot.views.endings.invitation).
function offerText(offer) {
  return t(offer.key, { name: name(offer.by), invited: offer.invited || "", seats: offer.seats,
    left: offer.left, o: t("O_SYMBOL") });
}

function statusText(game) {
  if (game.status === "open" && game.offer) return offerText(game.offer);
  if (game.status !== "active") return result(game);
  if (game.your_turn) return t("PAGE.your_turn", { mark: game.to_move });
  const mover = game.players[game.to_move];
  return t(mover.ai ? "AI_THINKING" : "NAME_TO_MOVE", { name: name(mover), mark: game.to_move });
}

function whereText(game) {
  // A game of three or four: who is out of it (resigned, timed out), as the chat says.
  if (game.out.length && game.status === "active") {
    return t("MANY_OUT", { names: game.out.map((mark) => name(game.players[mark])).join(", ") });
  }
  if (game.spectator) return t("PAGE.watching");
  if (game.variant !== "ultimate" || !game.your_turn) return "";
  const playable = game.blocks.playable;
  return playable.length === 1 ? t("ULTIMATE_PLAY_IN", { board: playable[0] + 1 }) : t("PAGE.ultimate_any");
}

function playerChip(game, mark) {
  const chip = document.createElement("span");
  chip.className = "player" + (game.to_move === mark ? " turn" : "") + (game.out.includes(mark) ? " out" : "");
  chip.dataset.mark = mark;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name(game.players[mark]);
  chip.append(markIcon(mark), label);
  if (game.you.includes(mark) && game.you.length === 1) {
    // "(you)" stays whole: a long name is shortened before it, with an ellipsis.
    const [before, after] = t("PAGE.you", { name: "\u0000" }).split("\u0000");
    label.textContent = before + label.textContent;
    const you = document.createElement("span");
    you.className = "you";
    you.textContent = after.trim() ? "\u00a0" + after.trim() : "";
    chip.append(you);
  }
  return chip;
}

function actionButtons(game) {
  if (asking && game.actions.includes("resign")) {
    const ask = document.createElement("p");
    ask.className = "ask";
    ask.textContent = t("POPUP_RESIGN_CONFIRM");
    const yes = button("resign-yes", t("BUTTON_RESIGN_YES"), () => { asking = false; act("resign"); });
    const no = button("resign-no", t("BUTTON_RESIGN_NO"), () => { asking = false; renderGame(current); });
    return [ask, yes, no];
  }
  asking = false;
  const rematch = game.rematch;
  const answers = rematch ? rematch.actions.filter((action) => action !== "cancel") : [];
  if (answers.length) {
    // Another player offers a rematch: said here, answered here (on the offer's game).
    const ask = document.createElement("p");
    ask.className = "ask";
    ask.textContent = offerText(rematch.offer);
    return [ask, ...answers.map((action) => button(action, t(BUTTONS[action]), () => act(action, rematch.id)))];
  }
  return game.actions.map((action) => button(action, t(BUTTONS[action]), () => {
    if (action === "resign") { asking = true; renderGame(current); }
    else if (action === "level") goHome({ size: game.size, k: game.k, ultimate: game.variant === "ultimate" });
    else act(action);
  }));
}

function button(action, text, onClick) {
  const element = document.createElement("button");
  element.dataset.action = action;
  element.textContent = text;
  element.disabled = busy;
  element.addEventListener("click", onClick);
  return element;
}

// Buzz once when a game the page was showing ends: success for a win, error for a loss.
function buzzAtTheEnd(before, game) {
  if (!before || before.id !== game.id || before.status === "finished" || game.status !== "finished") return;
  if (game.you.length !== 1) return;
  if (game.result === game.you[0]) haptic("notification", "success");
  else if (game.result === "draw") haptic("notification", "warning");
  else haptic("notification", "error");
}

export function renderGame(game) {
  const before = current && current.id === game.id ? current : null;
  // A move's answer can come after the live stream brought a newer picture of the game: an
  // older picture never replaces a newer one.
  if (before && game.stored < before.stored) return;
  if (!before || before.ply !== game.ply) hint = null;
  current = game;
  buzzAtTheEnd(before, game);
  const rules = game.variant === "ultimate" ? t("ULTIMATE_LINE") : t("BOARD_SIZE", { size: game.size, k: game.k });
  $("rules").textContent = rules;
  $("players").replaceChildren(...game.marks.map((mark) => playerChip(game, mark)));
  $("status").textContent = statusText(game);
  $("where").textContent = whereText(game);
  drawBoard($("board"), game, { before: before && before.cells, hint, busy, onCell: play });
  $("actions").replaceChildren(...actionButtons(game));
  $("moves").replaceChildren(...game.moves.map((move) => {
    const li = document.createElement("li");
    li.className = move.mark;
    const mark = document.createElement("span");
    mark.textContent = move.mark;
    li.append(mark, " " + rowCol(game, move.cell).join("·"));
    return li;
  }));
}

function setBusy(value) {
  busy = value;
  if (current) renderGame(current);
}

// A move the server got although its answer was lost: the retry finds the board moved on.
function alreadyPlayed(game, sent, mark) {
  return game && game.ply > sent.ply && game.cells[sent.cell] === mark;
}

async function play(cell) {
  const game = current;
  if (!game || busy || !game.legal.includes(cell)) return;
  haptic("impact", "light");
  notice("");
  setBusy(true);
  const sent = { ply: game.ply, cell };
  // A move carries its move number: sent twice, the second is refused as stale and
  // changes nothing, so sending it again while the server is away is safe.
  for (let attempt = 0; ; attempt++) {
    const { ok, status, data, offline } = await api("games/" + game.id + "/moves", sent);
    if (current.id !== game.id) return;
    if (!offline) {
      connection(null);
      busy = false;
      if (!ok && !alreadyPlayed(data.game, sent, game.to_move)) {
        notice(status === 400 ? refusal("error") : refusal(data.status));
        haptic("notification", "error");
      }
      renderGame(data.game || current);
      return;
    }
    connection("offline");
    if (attempt >= MOVE_RETRIES) break;
    await sleep(backoff(attempt));
  }
  connection(null);
  notice(t("PAGE.not_sent"));
  setBusy(false);
}

// An action on the game shown, or on `target` (the rematch offered under it).
async function act(action, target) {
  const game = current;
  if (!game || busy) return;
  haptic("impact", "medium");
  notice("");
  setBusy(true);
  const gameId = target || game.id;
  const sent = { action, ply: target ? null : game.ply };
  const starts = action === "again" || action === "swap" || action === "watch";
  const { ok, data, offline, declined } = await (starts ? startAskingFirst : api)("games/" + gameId + "/actions", sent);
  busy = false;
  if (ok && gameId !== game.id) {
    openGame(gameId);
    return;
  }
  if (declined) {
    notice("");
  } else if (offline) {
    // Not sent again by itself: Play again twice would start two games.
    notice(t("PAGE.failed"));
  } else if (!ok) {
    notice(refusal(data.status));
    haptic("notification", "error");
  } else if (data.opened) {
    openGame(data.opened);
    return;
  } else if (action === "hint") {
    hint = data.hint;
    notice(t("PAGE.hint_cell"));
  } else if (action === "undo") {
    notice(t("UNDONE"));
  } else if (action === "review") {
    notice(data.review);
  } else if (action === "picture") {
    notice(t("PAGE.picture_sent"));
  }
  // A refused answer to a rematch offer is about the offer, not the game shown.
  renderGame((!target && data.game) || current);
}

export async function openGame(gameId) {
  const { ok, status, data, offline } = await api("games/" + gameId);
  if (!ok) {
    say(offline ? t("PAGE.failed") : status === 401 ? t("PAGE.from_telegram") : refusal(data.status));
    return false;
  }
  say("");
  showBack(true);
  $("home").hidden = true;
  $("game").hidden = false;
  notice("");
  history.replaceState(null, "", "?game=" + gameId);
  current = null;
  asking = false;
  renderGame(data.game);
  if (stream) stream.abort();
  stream = follow(gameId, (game) => { if (current && current.id === game.id) renderGame(game); }, connection);
  return true;
}

export function closeGame() {
  if (stream) stream.abort();
  stream = null;
  current = null;
  connection(null);
}

window.addEventListener("resize", () => { if (current) drawLines($("board"), current); });
