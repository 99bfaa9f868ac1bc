// Looking back at a game, move by move, on the page's own board: the server gives the game's
// state after each number of moves (GET games/<id>/replay, drawn as any state, nothing to
// tap); ⏮ ◀ ▶ ⏭ (and the arrow keys, Home and End) step through it, as a tap on a move of
// the list does. The chat's replay says the same words (its catalogs' REPLAY_* and buttons).
// A finished game's replay says each step in the status, and the result at its last; Close
// shows the game as it ended again. During a game (`live`) the status, the players and
// their clocks stay the game's own, and the board shows the position looked at until the
// player goes back to the game (⏭ at the last move, "Back to the game", or the last move of
// the list).
"use strict";

import { drawBoard } from "./board.js";
import { markShown } from "./moves.js";
import { api } from "./net.js";
import { refusal, symbol, t } from "./words.js";

const $ = (id) => document.getElementById(id);
const KEYS = { ArrowLeft: -1, ArrowRight: 1 };

let replay = null; // { frames, at, live, stored, onClose, ending }

export function isReplaying() {
  return replay !== null;
}

// Whether the replay is of a game still being played (its live parts are drawn meanwhile).
export function isLookingBack() {
  return replay !== null && replay.live;
}

// The step shown (its number of moves), or null outside a replay.
export function replayStep() {
  return replay ? replay.at : null;
}

// Fetch the frames of `game` and show the one after `at` moves (null: the first of a
// finished game); `onClose` draws the game again, `ending(frame)` says how it ended. False,
// with the reason said, when the server has none to give.
export async function openReplay(game, at, { onClose, say, ending }) {
  const live = game.status !== "finished";
  const frames = replay && replay.stored === game.stored && replay.id === game.id
    ? replay.frames : await fetchFrames(game, say);
  if (!frames) return false;
  const first = replay === null;
  replay = { id: game.id, frames, at: 0, live, stored: game.stored, onClose, ending };
  if (first) document.addEventListener("keydown", onKey);
  step(at === null ? 0 : at);
  if (first) $("board").focus({ preventScroll: true });
  return true;
}

async function fetchFrames(game, say) {
  const { ok, data } = await api("games/" + game.id + "/replay");
  if (!ok || !Array.isArray(data.frames) || !data.frames.length) {
    say(refusal(data.status || "error"));
    return null;
  }
  return data.frames;
}

export function closeReplay() {
  const onClose = replay && replay.onClose;
  leaveReplay();
  if (onClose) onClose();
}

// Leave the replay without drawing anything (the page goes elsewhere).
export function leaveReplay() {
  replay = null;
  document.removeEventListener("keydown", onKey);
}

function step(to) {
  if (!replay) return;
  const last = replay.frames.length - 1;
  // During a game the last frame is the game as it is: looking at it is playing again.
  if (replay.live && to >= last) {
    closeReplay();
    return;
  }
  replay.at = Math.max(0, Math.min(to, last));
  show();
}

function onKey(event) {
  if (!replay) return;
  const last = replay.frames.length - 1;
  const to = event.key === "Home" ? 0 : event.key === "End" ? last
    : event.key in KEYS ? replay.at + KEYS[event.key] * (document.dir === "rtl" ? -1 : 1) : null;
  if (to === null) return;
  event.preventDefault();
  step(to);
}

// "Move 3 of 7: ❌ 2 2" (the chat's replay line), or the empty board's line. The cell reads
// left to right, as on the board and in the list, in a right-to-left sentence too (Persian
// "2 3" stays "2 3", not "3 2").
function stepText(frame, total) {
  const move = frame.moves[frame.moves.length - 1];
  if (!move) return t("REPLAY_START", { total });
  const cell = document.dir === "rtl" ? "\u2066" + move.at + "\u2069" : move.at;
  return t("REPLAY_MOVE", { ply: frame.ply, total, mark: symbol(move.mark), cell });
}

function show() {
  const frame = replay.frames[replay.at];
  const total = replay.frames.length - 1;
  drawBoard($("board"), frame, { label: t("BUTTON_REPLAY") });
  $("board").classList.add("past");
  const line = stepText(frame, total);
  if (replay.live) {
    $("where").textContent = line;
  } else if (replay.at === total) {
    // The last step: how the game ended, as the chat's replay adds it under the move.
    $("status").textContent = replay.ending(frame);
    $("where").textContent = line;
  } else {
    $("status").textContent = line;
    $("where").textContent = "";
  }
  markShown($("moves"), replay.at);
  // A rating's change belongs to the game's end: said at the last step only.
  if (!replay.live) $("rating").hidden = replay.at !== total || !$("rating").textContent;
  const controls = [
    ["first", "BUTTON_REPLAY_FIRST", 0],
    ["back", "BUTTON_REPLAY_BACK", replay.at - 1],
    ["next", "BUTTON_REPLAY_NEXT", replay.at + 1],
    ["last", "BUTTON_REPLAY_LAST", total],
  ].map(([name, key, to]) => {
    const element = document.createElement("button");
    element.dataset.replay = name;
    element.textContent = t(key);
    element.setAttribute("aria-label", t("PAGE.replay_" + name));
    element.disabled = to < 0 || to > total || to === replay.at;
    element.addEventListener("click", () => step(to));
    return element;
  });
  const close = document.createElement("button");
  close.dataset.replay = "close";
  close.textContent = t(replay.live ? "PAGE.to_live" : "PAGE.replay_close");
  close.addEventListener("click", closeReplay);
  $("actions").replaceChildren(...controls, close);
}
