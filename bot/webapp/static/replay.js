// A finished game, move by move, on the page's own board: the server gives the game's state
// after each number of moves (GET games/<id>/replay, drawn as any state, nothing to tap);
// ⏮ ◀ ▶ ⏭ (and the arrow keys, Home and End) step through it, and Close shows the game as it
// ended again. The chat's replay says the same words (its catalogs' REPLAY_* and buttons).
"use strict";

import { drawBoard, rowCol } from "./board.js";
import { api } from "./net.js";
import { refusal, symbol, t } from "./words.js";

const $ = (id) => document.getElementById(id);
const KEYS = { ArrowLeft: -1, ArrowRight: 1 };

let replay = null; // { frames, at, onClose }

export function isReplaying() {
  return replay !== null;
}

// Fetch the frames of `game` (finished) and show the first; `onClose` draws the game again.
// False, with the reason said, when the server has none to give.
export async function openReplay(game, onClose, say) {
  const { ok, data } = await api("games/" + game.id + "/replay");
  if (!ok || !Array.isArray(data.frames) || !data.frames.length) {
    say(refusal(data.status || "error"));
    return false;
  }
  replay = { frames: data.frames, at: 0, onClose };
  document.addEventListener("keydown", onKey);
  show();
  $("board").focus({ preventScroll: true });
  return true;
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
  replay.at = Math.max(0, Math.min(to, replay.frames.length - 1));
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

function show() {
  const frame = replay.frames[replay.at];
  const total = replay.frames.length - 1;
  drawBoard($("board"), frame, { label: t("BUTTON_REPLAY") });
  const move = frame.moves[frame.moves.length - 1];
  $("where").textContent = move
    ? t("REPLAY_MOVE", { ply: frame.ply, total, mark: symbol(move.mark), cell: rowCol(frame, move.cell).join(" ") })
    : t("REPLAY_START", { total });
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
  close.textContent = t("PAGE.replay_close");
  close.addEventListener("click", closeReplay);
  $("actions").replaceChildren(...controls, close);
}
