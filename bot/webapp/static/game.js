// A game's page: the players, whose turn or the result, the board, the buttons the chat
// board has (Hint, Undo, Resign; Play again, Swap sides, Rematch), the moves, kept live.
// Every refusal is said in words; a move the server did not get is sent again. The board
// is drawn once per change of the game (the move's answer and the live stream bring the same
// state: the second is dropped), the new mark grows into place, and an AI's reply to the
// player's move lands after a short beat in which the page says the AI is thinking.
"use strict";

import { arrowKeys, cellLabel, drawBoard, drawLines, markIcon, rove, rowCol } from "./board.js";
import { api, backoff, follow, haptic, initData, sleep, startAskingFirst, tg } from "./net.js";
import { levelName, refusal, t } from "./words.js";

const $ = (id) => document.getElementById(id);
// How often a move is sent again while the server cannot be reached (0.5 + 1 + 2 + 4 s).
const MOVE_RETRIES = 4;
// How long an AI's reply waits after the player's own move shows (ms): long enough to see
// one's own mark land and the AI "think", short enough not to slow the game.
const THINKING_MS = 450;
// A tap target smaller than this (CSS px) is hard to hit: the page then points to the chat.
const SMALLEST_TAP = 40;
const BUTTONS = { hint: "BUTTON_HINT", undo: "BUTTON_UNDO", resign: "BUTTON_RESIGN",
  again: "BUTTON_PLAY_AGAIN", swap: "BUTTON_SWAP_SIDES", rematch: "BUTTON_REMATCH" };

let current = null;   // the game shown: its last state
let stream = null;    // the AbortController of its live stream
let busy = false;     // a move or an action is on its way
let hint = null;      // the cell a hint lit, until the position changes
let asking = false;   // Resign asks "are you sure?"
let shown = "";       // the cells on the board now (a move on its way included)
let focusCell = null; // the cell that last had the focus, so a redraw keeps it there
let movedAt = 0;      // when the player's last move showed on the board (performance.now())
let held = null;      // an AI's reply held back for the thinking beat, and its timer

// The server no longer takes this page's sign-in (Telegram's initData is a day old): only
// opening the page again from the chat gives it a fresh one.
const expired = (status) => status === 401 && Boolean(initData);

export function notice(text) {
  $("notice").textContent = text || "";
  $("notice").hidden = !text;
}

export function connection(kind) {
  const text = kind === "too_many" ? t("PAGE.too_many") : kind === "expired" ? t("PAGE.reopen")
    : kind ? t("PAGE.offline") : "";
  $("connection").textContent = text;
  $("connection").hidden = !text;
}

function name(player) {
  if (player.ai) return levelName(player.ai);
  return player.name || t("PAGE.nobody_yet");
}

function result(game) {
  if (game.status === "open") return t("POPUP_WAITING");
  if (game.status !== "finished") return t(game.end_reason === "replaced" ? "GAME_REPLACED" : "GAME_CLOSED");
  if (game.result === "draw") return t("RESULT_DRAW");
  const loser = game.result === "X" ? "O" : "X";
  const only = game.you.length === 1 ? game.you[0] : null;
  if (only === game.result) return t("RESULT_YOU_WON");
  if (only === loser && game.end_reason === "replaced") return t("RESULT_YOU_REPLACED");
  if (only === loser && game.forfeit) return t("RESULT_YOU_RESIGNED");
  if (only === loser) return t("PAGE.you_lost", { name: name(game.players[game.result]) });
  const left = game.end_reason === "blocked" || game.end_reason === "forgotten";
  if (left) return t("RESULT_NAME_LEFT", { name: name(game.players[loser]) });
  if (game.forfeit) return t("RESULT_NAME_RESIGNED", { name: name(game.players[loser]) });
  if (game.end_reason === "timeout") return t("RESULT_NAME_TIMED_OUT", { name: name(game.players[loser]) });
  return t("RESULT_NAME_WON", { name: name(game.players[game.result]) });
}

function statusText(game) {
  if (game.status !== "active") return result(game);
  if (game.your_turn) return t("PAGE.your_turn", { mark: game.to_move });
  const mover = game.players[game.to_move];
  return t(mover.ai ? "AI_THINKING" : "NAME_TO_MOVE", { name: name(mover), mark: game.to_move });
}

function whereText(game) {
  if (game.spectator) return t("PAGE.watching");
  if (game.variant !== "ultimate" || !game.your_turn) return "";
  const playable = game.blocks.playable;
  return playable.length === 1 ? t("ULTIMATE_PLAY_IN", { board: playable[0] + 1 }) : t("PAGE.ultimate_any");
}

function playerChip(game, mark) {
  const chip = document.createElement("span");
  const mine = game.you.includes(mark) && game.you.length === 1;
  chip.className = "player" + (game.to_move === mark && game.status === "active" ? " turn" : "")
    + (mine ? " mine" : "") + (game.players[mark].ai ? " ai" : "");
  chip.dataset.mark = mark;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = name(game.players[mark]);
  chip.append(markIcon(mark), label);
  if (mine) {
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
    const no = button("resign-no", t("BUTTON_RESIGN_NO"), () => { asking = false; drawActions(); });
    return [ask, yes, no];
  }
  asking = false;
  return game.actions.map((action) => button(action, t(BUTTONS[action]), () => {
    if (action === "resign") { asking = true; drawActions(); } else act(action);
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

// A state of the game from the server (a move's answer, the live stream, an action's answer):
// drawn unless the page shows it already or a newer one. `force` draws it even so (after a
// refusal, to take back a move shown before the server answered).
export function renderGame(game, force) {
  const before = current && current.id === game.id ? current : null;
  // A move's answer can come after the live stream brought a newer picture of the game: an
  // older picture never replaces a newer one, and the same one is not drawn twice.
  if (before && (game.stored < before.stored || (game.stored === before.stored && !force))) return;
  if (held && held.game.stored > game.stored) return;
  if (before && beatFor(before, game)) return;
  if (held) { clearTimeout(held.timer); held = null; }
  const moved = !before || before.ply !== game.ply || before.cells !== game.cells;
  if (moved) {
    // What was said about the last position (a hint, "Move undone", a refusal) is over.
    hint = null;
    notice("");
  }
  current = game;
  buzzAtTheEnd(before, game);
  draw();
}

// Holds back an AI's reply that comes hard on the player's own move, so that the move is
// seen to land and the AI to think; true when held (drawn by the timer).
function beatFor(before, game) {
  const last = game.moves[game.moves.length - 1];
  const wait = movedAt + THINKING_MS - performance.now();
  if (!last || game.ply <= before.ply || wait <= 0 || !game.players[last.mark].ai) return false;
  if (held) clearTimeout(held.timer);
  held = { game, timer: setTimeout(() => { const g = held.game; held = null; renderGame(g); }, wait) };
  $("status").textContent = t("AI_THINKING", { name: name(game.players[last.mark]), mark: last.mark });
  return true;
}

// Draws the game shown (`current`) as it is now.
function draw() {
  const game = current;
  const rules = game.variant === "ultimate" ? t("ULTIMATE_LINE") : t("BOARD_SIZE", { size: game.size, k: game.k });
  $("rules").textContent = rules;
  $("players").replaceChildren(playerChip(game, "X"), playerChip(game, "O"));
  $("status").textContent = statusText(game);
  $("where").textContent = whereText(game);
  drawBoard($("board"), game, { before: shown, hint, busy, onCell: play, focus: focusCell, label: rules });
  shown = game.cells;
  drawActions();
  $("moves").replaceChildren(...game.moves.map((move) => {
    const li = document.createElement("li");
    li.className = move.mark;
    const mark = document.createElement("span");
    mark.textContent = move.mark;
    li.append(mark, " " + rowCol(game, move.cell).join("·"));
    return li;
  }));
  smallCells();
}

function drawActions() {
  if (current) $("actions").replaceChildren(...actionButtons(current));
}

// Where the board cannot give each cell a fingertip's room (8×8 on a narrow phone,
// ultimate), the page says so and points to the chat's board.
function smallCells() {
  const cell = $("board").querySelector(".cell");
  const width = cell ? cell.getBoundingClientRect().width : SMALLEST_TAP;
  const player = current && current.status === "active" && current.you.length > 0;
  $("small-note").hidden = !(player && width < SMALLEST_TAP);
  $("to-chat").hidden = !(tg && tg.close);
}

// Busy or not, without drawing the board again: the cells and buttons only change whether
// they can be pressed (a redraw would cut the new mark's animation short).
function setBusy(value) {
  busy = value;
  if (!current) return;
  const board = $("board");
  // Known before the cells are disabled: a disabled cell loses the focus (to the body).
  const hadFocus = board.contains(document.activeElement);
  for (const cell of board.querySelectorAll(".cell")) {
    cell.disabled = busy || !current.legal.includes(Number(cell.dataset.cell));
  }
  for (const element of $("actions").querySelectorAll("button")) element.disabled = busy;
  rove(board, focusCell, hadFocus);
}

// The player's mark shows on the tapped cell at once, before the server's answer.
function showMoving(game, cell) {
  const mark = game.to_move;
  const button = $("board").querySelector(`.cell[data-cell='${cell}']`);
  if (!button) return;
  button.classList.add(mark, "new");
  button.append(markIcon(mark, true));
  button.setAttribute("aria-label", cellLabel(game, cell, mark, null));
  shown = shown.slice(0, cell) + mark + shown.slice(cell + 1);
  movedAt = performance.now();
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
  focusCell = cell;
  showMoving(game, cell);
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
      const refused = !ok && !alreadyPlayed(data.game, sent, game.to_move);
      // A refused move leaves the board as the server has it (the mark shown goes).
      renderGame(data.game || current, refused);
      // The live stream may have drawn this state while the move was on its way (busy): the
      // answer is then not drawn again, but the cells come back.
      setBusy(false);
      if (refused) {
        notice(expired(status) ? t("PAGE.reopen") : status === 400 ? refusal("error") : refusal(data.status));
        haptic("notification", "error");
      }
      return;
    }
    connection("offline");
    if (attempt >= MOVE_RETRIES) break;
    await sleep(backoff(attempt));
  }
  connection(null);
  busy = false;
  renderGame(current, true);
  notice(t("PAGE.not_sent"));
}

async function act(action) {
  const game = current;
  if (!game || busy) return;
  haptic("impact", "medium");
  notice("");
  setBusy(true);
  const sent = { action, ply: game.ply };
  const starts = action === "again" || action === "swap";
  const { ok, status, data, offline, declined } = await (starts ? startAskingFirst : api)("games/" + game.id + "/actions", sent);
  busy = false;
  if (ok && data.opened) {
    openGame(data.opened);
    return;
  }
  if (ok && action === "hint") hint = data.hint;
  // Drawn first: a new position clears what was said about the old one.
  renderGame(data.game || current, true);
  setBusy(false);
  if (declined) {
    notice("");
  } else if (offline) {
    // Not sent again by itself: Play again twice would start two games.
    notice(t("PAGE.failed"));
  } else if (!ok) {
    notice(expired(status) ? t("PAGE.reopen") : refusal(data.status));
    haptic("notification", "error");
  } else if (action === "hint") {
    notice(t("PAGE.hint_cell"));
  } else if (action === "undo") {
    notice(t("UNDONE"));
  }
}

export async function openGame(gameId) {
  const { ok, status, data, offline } = await api("games/" + gameId);
  if (!ok) {
    $("message").hidden = false;
    $("message").textContent = offline ? t("PAGE.failed") : expired(status) ? t("PAGE.reopen")
      : status === 401 ? t("PAGE.from_telegram") : refusal(data.status);
    return false;
  }
  $("message").hidden = true;
  $("home").hidden = true;
  $("game").hidden = false;
  notice("");
  history.replaceState(null, "", "?game=" + gameId);
  current = null;
  asking = false;
  shown = "";
  focusCell = null;
  if (held) { clearTimeout(held.timer); held = null; }
  renderGame(data.game);
  if (stream) stream.abort();
  stream = follow(gameId, (game) => { if (current && current.id === game.id) renderGame(game); }, connection);
  return true;
}

export function closeGame() {
  if (stream) stream.abort();
  stream = null;
  current = null;
  if (held) { clearTimeout(held.timer); held = null; }
  connection(null);
}

window.addEventListener("resize", () => {
  if (!current) return;
  drawLines($("board"), current);
  smallCells();
});
arrowKeys($("board"));
$("board").addEventListener("focusin", (event) => {
  const cell = event.target.closest(".cell");
  if (cell) focusCell = Number(cell.dataset.cell);
});
$("to-chat").addEventListener("click", () => { if (tg && tg.close) tg.close(); });
