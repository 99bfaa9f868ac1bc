// The list of a game's moves: each a button that shows the position after it, named as the
// chat's typed moves name a cell ("2 3"; on ultimate "r5 c3": the server's `at`), the move
// shown on the board marked (aria-current). Drawn by difference: a new move adds its line,
// a move taken back (Undo) takes its line away, and only the mark of the shown one moves.
"use strict";

import { markIcon } from "./board.js";
import { symbol } from "./words.js";

// A move's line, kept while the same move stays at its place in the list.
function moveLine(move) {
  const li = document.createElement("li");
  li.className = move.mark;
  li.dataset.key = move.ply + ":" + move.cell + ":" + move.mark;
  const button = document.createElement("button");
  button.className = "move";
  button.dataset.ply = String(move.ply);
  // The mark as the board draws it (a phone may lack emoji), said as the chat names it.
  const mark = document.createElement("span");
  mark.className = "unseen";
  mark.textContent = symbol(move.mark);
  button.append(markIcon(move.mark), mark, " " + move.at);
  li.append(button);
  return li;
}

// The list `list` as `moves`, the position after `at` moves marked as the one shown.
export function drawMoves(list, moves, at) {
  const lines = list.children;
  let same = 0;
  while (same < moves.length && same < lines.length) {
    const move = moves[same];
    if (lines[same].dataset.key !== move.ply + ":" + move.cell + ":" + move.mark) break;
    same += 1;
  }
  while (lines.length > same) lines[lines.length - 1].remove();
  if (same < moves.length) list.append(...moves.slice(same).map(moveLine));
  markShown(list, at);
}

// Marks the move whose position the board shows (none at the empty board).
export function markShown(list, at) {
  const was = list.querySelector("[aria-current]");
  const now = list.querySelector(`button[data-ply='${at}']`);
  if (was === now) return;
  if (was) was.removeAttribute("aria-current");
  if (now) now.setAttribute("aria-current", "step");
}

// Calls onPick(ply) when a move of the list is tapped (once per list element).
export function onMovePicked(list, onPick) {
  list.addEventListener("click", (event) => {
    const button = event.target.closest && event.target.closest("button[data-ply]");
    if (button) onPick(Number(button.dataset.ply));
  });
}
