// A game's page: the players (and their clocks, on a game on the clock), whose turn or the
// result, the board, the buttons the chat board has (Hint, Undo, Resign; Play again, Swap
// sides, Rematch), the moves, kept live; a match's game that ends leads on to the next one,
// a tournament's says its round and shows the standings, a rated one's end its rating change.
// A move of the list shows the position after it (replay.js), during the game too.
// Moves, the end and low time sound (sound.js) unless the player turned sounds off.
// Every refusal is said in words; a move the server did not get is sent again. The board
// is drawn once per change of the game (the move's answer and the live stream bring the same
// state: the second is dropped), only what changed on it (board.js), the new mark grows into
// place, and an AI's reply to the player's move lands after a short beat in which the page
// says the AI is thinking.
"use strict";

import { arrowKeys, drawBoard, drawLines, lockBoard, markIcon, rove, showMark } from "./board.js";
import { clockFor, setClock } from "./clock.js";
import { drawEdges } from "./edges.js";
import { drawMoves, onMovePicked } from "./moves.js";
import { api, backoff, follow, haptic, initData, signInRefused, sleep, startAskingFirst, tg } from "./net.js";
import { closeReplay, isLookingBack, isReplaying, leaveReplay, openReplay, replayStep } from "./replay.js";
import { sound } from "./sound.js";
import { levelName, refusal, symbol, t } from "./words.js";

const $ = (id) => document.getElementById(id);
// How often a move is sent again while the server cannot be reached (0.5 + 1 + 2 + 4 s).
const MOVE_RETRIES = 4;
// How long an AI's reply waits after the player's own move shows (ms): long enough to see
// one's own mark land and the AI "think", short enough not to slow the game.
const THINKING_MS = 450;
// How long a match's game that just ended stays on the page before its next game opens
// (ms): long enough to read how it ended; "Next game" goes at once.
const NEXT_GAME_MS = 3000;
const BUTTONS = { hint: "BUTTON_HINT", undo: "BUTTON_UNDO", resign: "BUTTON_RESIGN",
  draw: "BUTTON_DRAW_OFFER", draw_accept: "BUTTON_DRAW_ACCEPT", draw_decline: "BUTTON_DRAW_DECLINE",
  again: "BUTTON_PLAY_AGAIN", swap: "BUTTON_SWAP_SIDES", rematch: "BUTTON_REMATCH",
  join: "BUTTON_JOIN", accept: "BUTTON_ACCEPT", decline: "BUTTON_DECLINE", cancel: "BUTTON_CANCEL",
  review: "BUTTON_REVIEW", picture: "BUTTON_PICTURE", level: "BUTTON_OTHER_LEVEL",
  watch: "BUTTON_WATCH_AGAIN", next: "PAGE.next_game" };

let current = null;   // the game shown: its last state
let stream = null;    // the AbortController of its live stream
let busy = false;     // a move or an action is on its way
let hint = null;      // the cell a hint lit, until the position changes
let asking = false;   // Resign asks "are you sure?"
let shown = "";       // the cells on the board now (a move on its way included)
let focusCell = null; // the cell that last had the focus, so a redraw keeps it there
let movedAt = 0;      // when the player's last move showed on the board (performance.now())
let held = null;      // an AI's reply held back for the thinking beat, and its timer
let onward = null;    // the timer that opens a match's next game
let heard = 0;        // the last move that made a sound (its number)

// The server no longer takes this page's sign-in: a day old (opening the page again from
// the chat gives it a fresh one), or no valid Telegram sign-in at all. In words, or null.
function signInText(answer) {
  const refused = signInRefused(answer);
  return refused ? t(refused === "not_telegram" ? "PAGE.not_telegram" : "PAGE.reopen") : null;
}

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
  const text = kind === "too_many" ? t("PAGE.too_many") : kind === "expired" ? t("PAGE.reopen")
    : kind === "not_telegram" ? t("PAGE.not_telegram") : kind ? t("PAGE.offline") : "";
  $("connection").textContent = text;
  $("connection").hidden = !text;
}

function name(player) {
  if (player.ai) return levelName(player.ai);
  return player.name || t("PAGE.nobody_yet");
}

// A seat's name: its player's, or on one phone (both seats the user's) "Player 1", "Player 2".
function seatName(game, mark) {
  if (game.one_phone) return t("PAGE.player", { n: game.marks.indexOf(mark) + 1 });
  return name(game.players[mark]);
}

// A match game's score, and how the match ended, in the chat board's words.
function matchText(game) {
  const match = game.match;
  if (!match) return "";
  const line = t("MATCH_LINE", { best_of: match.best_of, game: match.game,
    a: name(game.players[match.a_mark]), a_score: match.a_score,
    b: name(game.players[match.b_mark]), b_score: match.b_score });
  if (!match.ending) return line;
  const winner = match.winner ? name(game.players[match.winner]) : "";
  return line + "\n" + t(match.ending, { name: winner, score: match.score });
}

// How the game ended, in the chat's words: the server picks them (bot.views.endings.ending).
function result(game) {
  if (game.status === "open") return t("POPUP_WAITING");
  if (!game.ending) return t("GAME_CLOSED");
  const mark = game.ending.mark;
  const invited = game.offer ? game.offer.invited : "";
  if (!mark) return t(game.ending.key, { invited });
  return t(game.ending.key, { name: name(game.players[mark]), mark: symbol(mark) });
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
  const mark = symbol(game.to_move);
  if (game.one_phone) return t("NAME_TO_MOVE", { name: seatName(game, game.to_move), mark });
  if (game.your_turn) return t("PAGE.your_turn", { mark });
  const mover = game.players[game.to_move];
  return t(mover.ai ? "AI_THINKING" : "NAME_TO_MOVE", { name: name(mover), mark });
}

// A tournament's game: its round (the standings on demand, `toggleStandings`).
function tournamentText(game) {
  return game.tournament ? t("PAGE.tournament", game.tournament) : "";
}

// A rated game's end: what it did to the ratings, as the chat board says under it (against
// the AI the player's own change alone).
function ratingText(game) {
  if (!game.rating || game.status !== "finished") return "";
  const changes = Object.entries(game.rating);
  const ai = game.marks.some((mark) => game.players[mark].ai);
  if (ai && changes.length === 1) return t("RATING_LINE_AI", { change: changes[0][1] });
  return t("RATING_LINE", { changes: changes.map(([mark, change]) => name(game.players[mark]) + " " + change).join(", ") });
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
  const mine = game.you.includes(mark) && game.you.length === 1;
  chip.className = "player" + (game.to_move === mark && game.status === "active" ? " turn" : "")
    + (mine ? " mine" : "") + (game.players[mark].ai ? " ai" : "") + (game.out.includes(mark) ? " out" : "");
  chip.dataset.mark = mark;
  const label = document.createElement("span");
  label.className = "name";
  label.textContent = seatName(game, mark);
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
  const clock = clockFor(mark);
  if (clock) chip.append(clock);
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
  const rematch = game.rematch;
  const answers = rematch ? rematch.actions.filter((action) => action !== "cancel") : [];
  if (answers.length) {
    // Another player offers a rematch: said here, answered here (on the offer's game).
    const ask = document.createElement("p");
    ask.className = "ask";
    ask.textContent = offerText(rematch.offer);
    return [ask, ...answers.map((action) => button(action, t(BUTTONS[action]), () => act(action, rematch.id)))];
  }
  const buttons = game.actions.map((action) => button(action, t(BUTTONS[action]), () => {
    if (action === "resign") { asking = true; drawActions(); }
    else if (action === "level") goHome({ size: game.size, k: game.k, ultimate: game.variant === "ultimate" });
    else act(action);
  }));
  // A match goes on: its next game, at once (the page goes there by itself too).
  if (game.next) buttons.unshift(button("next", t(BUTTONS.next), () => openGame(game.next)));
  // A finished game steps through its moves on this board, as the chat's 🎬 Replay does.
  if (game.status === "finished" && game.ply > 0) {
    buttons.push(button("replay", t("BUTTON_REPLAY"), () => lookAt(null)));
  }
  return buttons;
}

function button(action, text, onClick) {
  const element = document.createElement("button");
  element.dataset.action = action;
  element.textContent = text;
  element.disabled = busy;
  element.addEventListener("click", onClick);
  return element;
}

// Buzz and sound once when a game the page was showing ends: success for a win (on one
// phone, anybody's), error for a loss.
function buzzAtTheEnd(before, game) {
  if (!before || before.id !== game.id || before.status === "finished" || game.status !== "finished") return;
  sound("end");
  if (game.you.length !== 1 && !game.one_phone) return;
  const won = game.result === game.you[0] || (game.one_phone && game.marks.includes(game.result));
  if (won) haptic("notification", "success");
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
  // (A rematch offered under the game is no write of the game's: it is compared apart.)
  const same = before && game.stored === before.stored && offerOf(game) === offerOf(before);
  if (before && (game.stored < before.stored || (same && !force))) return;
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
  // A move the player has not heard yet (not their own, which sounded as they tapped).
  if (before && game.ply > heard && game.status === "active") sound("move");
  heard = game.ply;
  draw();
  followMatch(before, game);
}

// A match's game that ended before the player's eyes: its next game opens after a moment
// in which the page says how this one ended (opened later, "Next game" leads there).
function followMatch(before, game) {
  if (!game.next || onward || !before || before.status === "finished") return;
  onward = setTimeout(() => {
    onward = null;
    if (current && current.id === game.id && !isReplaying()) openGame(game.next);
  }, NEXT_GAME_MS);
}

function stopFollowing() {
  if (onward) { clearTimeout(onward); onward = null; }
}

// The rematch offered under a game, as it stands, for comparing two states of the game.
const offerOf = (game) => JSON.stringify(game.rematch || null);

// Holds back an AI's reply that comes hard on the player's own move, so that the move is
// seen to land and the AI to think; true when held (drawn by the timer).
function beatFor(before, game) {
  const last = game.moves[game.moves.length - 1];
  const wait = movedAt + THINKING_MS - performance.now();
  if (!last || game.ply <= before.ply || wait <= 0 || !game.players[last.mark].ai) return false;
  if (held) clearTimeout(held.timer);
  held = { game, timer: setTimeout(() => { const g = held.game; held = null; renderGame(g); }, wait) };
  $("status").textContent = t("AI_THINKING", { name: name(game.players[last.mark]), mark: symbol(last.mark) });
  return true;
}

// Draws the game shown (`current`) as it is now. While the player looks back at an earlier
// position of a game being played, the board and the buttons under it stay the replay's.
function draw() {
  const looking = isReplaying();
  if (looking && !isLookingBack()) return; // a finished game's replay: drawn when it closes
  const game = current;
  const rules = game.variant === "ultimate" ? t("ULTIMATE_LINE") : t("BOARD_SIZE", { size: game.size, k: game.k });
  $("rules").textContent = rules;
  setClock(game);
  $("players").replaceChildren(...game.marks.map((mark) => playerChip(game, mark)));
  $("match").textContent = matchText(game);
  $("match").hidden = !game.match;
  $("round").textContent = tournamentText(game);
  $("tournament").hidden = !game.tournament;
  if (!game.tournament) closeStandings();
  $("status").textContent = statusText(game);
  $("rating").textContent = ratingText(game);
  $("rating").hidden = !$("rating").textContent;
  drawEdges(game);
  drawMoves($("moves"), game.moves, looking ? replayStep() : game.ply);
  if (looking) return;
  $("where").textContent = whereText(game);
  $("board").classList.remove("past");
  drawBoard($("board"), game, { before: shown, hint, busy, onCell: play, focus: focusCell, label: rules });
  shown = game.cells;
  drawActions();
}

function drawActions() {
  if (current && !isReplaying()) $("actions").replaceChildren(...actionButtons(current));
}

// The position after `ply` moves (null: a finished game's replay from its start), on the
// board, read-only; the live position again at the game's last move.
async function lookAt(ply) {
  const game = current;
  if (!game || busy || !["active", "finished"].includes(game.status)) return;
  if (game.status === "active" && ply === game.ply) {
    if (isReplaying()) closeReplay();
    return;
  }
  await openReplay(game, ply, { onClose: draw, say: notice, ending: (frame) => result(frame) });
}

// The standings of a tournament's game, shown or hidden (fetched afresh each time shown).
async function toggleStandings() {
  const link = $("standings-link");
  if (link.getAttribute("aria-expanded") === "true") { closeStandings(); return; }
  const game = current;
  const { ok, data } = await api("games/" + game.id + "/standings");
  if (!ok || !current || current.id !== game.id) return;
  $("standings").textContent = data.text;
  $("standings").hidden = false;
  link.setAttribute("aria-expanded", "true");
}

function closeStandings() {
  $("standings").hidden = true;
  $("standings-link").setAttribute("aria-expanded", "false");
}

// Busy or not, without drawing the board again: the board and the buttons only change
// whether they can be pressed.
function setBusy(value) {
  busy = value;
  if (!current || isReplaying()) return;
  const board = $("board");
  // Known before the board is locked: a disabled cell loses the focus (to the body).
  const hadFocus = board.contains(document.activeElement);
  lockBoard(board, busy || !current.legal.length);
  for (const element of $("actions").querySelectorAll("button")) element.disabled = busy;
  rove(board, focusCell, hadFocus);
}

// The player's mark shows on the tapped cell at once, before the server's answer.
function showMoving(game, cell) {
  const mark = game.to_move;
  showMark($("board"), game, cell, mark);
  shown = shown.slice(0, cell) + mark + shown.slice(cell + 1);
  movedAt = performance.now();
  sound("move");
  heard = game.ply + 1;
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
        notice(signInText({ status, data }) || (status === 400 ? refusal("error") : refusal(data.status)));
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
  const { ok, status, data, offline, declined } = await (starts ? startAskingFirst : api)("games/" + gameId + "/actions", sent);
  busy = false;
  if (ok && data.opened) {
    openGame(data.opened);
    return;
  }
  if (ok && gameId !== game.id) {
    openGame(gameId);
    return;
  }
  if (ok && action === "hint") hint = data.hint;
  // Drawn first: a new position clears what was said about the old one. A refused answer
  // to a rematch offer is about the offer, not the game shown.
  renderGame((!target && data.game) || current, true);
  setBusy(false);
  if (declined) {
    notice("");
  } else if (offline) {
    // Not sent again by itself: Play again twice would start two games.
    notice(t("PAGE.failed"));
  } else if (!ok) {
    notice(signInText({ status, data }) || refusal(data.status));
    haptic("notification", "error");
  } else if (action === "hint") {
    notice(t("PAGE.hint_cell"));
  } else if (action === "undo") {
    notice(t(game.one_phone ? "UNDONE_LAST" : "UNDONE"));
  } else if (action === "review") {
    notice(data.review);
  } else if (action === "picture") {
    notice(t("PAGE.picture_sent"));
  }
}

export async function openGame(gameId) {
  return showGame(gameId, await api("games/" + gameId));
}

// The game as an answer to `GET games/<id>` brought it (the page's first call's, or
// openGame's); a refusal in words. False when there is no game to show.
export function showGame(gameId, { ok, status, data, offline }) {
  if (!ok) {
    say(offline ? t("PAGE.failed") : signInText({ status, data })
      || (status === 401 ? t("PAGE.from_telegram") : refusal(data.status)));
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
  shown = "";
  focusCell = null;
  heard = data.game.ply;
  closeStandings();
  if (held) { clearTimeout(held.timer); held = null; }
  stopFollowing();
  leaveReplay();
  renderGame(data.game);
  if (stream) stream.abort();
  stream = follow(gameId, (game) => { if (current && current.id === game.id) renderGame(game); }, connection);
  return true;
}

export function closeGame() {
  leaveReplay();
  if (stream) stream.abort();
  stream = null;
  current = null;
  if (held) { clearTimeout(held.timer); held = null; }
  stopFollowing();
  setClock(null);
  connection(null);
}

window.addEventListener("resize", () => {
  if (current && !isReplaying()) drawLines($("board"), current);
});
arrowKeys($("board"));
$("board").addEventListener("focusin", (event) => {
  const cell = event.target.closest(".cell");
  if (cell) focusCell = Number(cell.dataset.cell);
});
onMovePicked($("moves"), lookAt);
$("standings-link").addEventListener("click", toggleStandings);
