// Drawing a board: a classic grid, or ultimate's nine small boards (cells numbered as the
// server numbers them, small board by small board: block * 9 + i), the last move ringed,
// the winning line stroked under the marks, only the cells the player may mark clickable.
// Each cell says what it holds and where (its accessible name); the arrow keys move between
// the cells one may mark (one of them in the tab order at a time). The cells are made once,
// and each drawing changes only what differs.
"use strict";

import { symbol, t } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
// Marks are drawn (SVG), not emoji: a phone or a test browser may lack an emoji font.
const SHAPES = {
  X: [["path", { d: "M24 24 L76 76 M76 24 L24 76" }]],
  O: [["circle", { cx: 50, cy: 50, r: 28 }]],
  // Games of three or four: 🔺 and 🟦, as the chat board draws them.
  T: [["path", { d: "M50 22 L80 76 L20 76 Z" }]],
  S: [["rect", { x: 24, y: 24, width: 52, height: 52 }]],
  // A drawn small board (➖ in the chat).
  draw: [["path", { d: "M24 50 L76 50" }]],
};
const ARROWS = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1] };

// A mark as an SVG icon; with `halo`, each stroke has a wider one under it in the colour of
// what lies behind (CSS: .halo), so a line passing under the mark never merges with it.
export function markIcon(mark, halo) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", "mark " + mark);
  svg.setAttribute("aria-hidden", "true");
  for (const layer of halo ? ["halo", "ink"] : ["ink"]) {
    for (const [tag, attributes] of SHAPES[mark]) {
      const shape = document.createElementNS(SVG, tag);
      for (const [key, value] of Object.entries(attributes)) shape.setAttribute(key, value);
      shape.setAttribute("class", layer);
      svg.append(shape);
    }
  }
  return svg;
}

// The (row, column) of a cell as the chat numbers them, both from 1.
export function rowCol(game, cell) {
  if (game.variant !== "ultimate") return [Math.floor(cell / game.size) + 1, (cell % game.size) + 1];
  const block = Math.floor(cell / 9), i = cell % 9;
  return [Math.floor(block / 3) * 3 + Math.floor(i / 3) + 1, (block % 3) * 3 + (i % 3) + 1];
}

// What a screen reader says for a cell: "Row 2, column 3: ❌, last move".
export function cellLabel(game, i, mark, hint) {
  const [row, col] = rowCol(game, i);
  let content = mark === "_" ? t("PAGE.cell_empty") : symbol(mark);
  if (i === game.last_cell && mark !== "_") content = t("PAGE.cell_last", { content });
  if (i === hint) content = t("PAGE.cell_best", { content });
  return t("PAGE.cell_label", { row, col, content });
}

// What a board element was drawn as last (its shape, what a tap on a cell calls), by element.
const drawn = new WeakMap();

// An attribute, a class or a style property set only when it changes: setting one to the
// value it has is a change to the DOM all the same (a mutation, work for the browser).
function setAttribute(element, name, value) {
  if (element.getAttribute(name) !== value) element.setAttribute(name, value);
}

function setClass(element, value) {
  if (element.getAttribute("class") !== value) element.setAttribute("class", value);
}

function setDisabled(element, value) {
  if (element.disabled !== value) element.disabled = value;
}

function setTabIndex(element, value) {
  if (element.getAttribute("tabindex") !== String(value)) element.tabIndex = value;
}

// The cells a player may mark, known apart from whose turn it is: `legal` when the server
// gives any, else the empty cells (of the small boards in play, on ultimate). Whether they can
// be pressed now is said once for the board (`lockBoard`: whose turn it is, a move on its way)
// and once for each of ultimate's small boards (in play or not): a turn that passes changes
// an attribute or two, not one per cell.
function markable(game) {
  const legal = game.legal || [];
  if (legal.length) return new Set(legal);
  const playable = game.variant === "ultimate" ? new Set(game.blocks.playable) : null;
  const open = new Set();
  for (let i = 0; i < game.cells.length; i++) {
    if (game.cells[i] === "_" && (!playable || playable.has(Math.floor(i / 9)))) open.add(i);
  }
  return open;
}

// Draws cell `i` of `game` on `cell` (a button of the board), changing only what differs:
// its class (mark, last move, winning line, new, hint), its mark, its name, and whether one
// may mark it. `fresh`: the cells whose marks are new in this drawing (null: keep the ones
// marked new until now, the position being the one shown).
function paintCell(cell, game, i, options, open, fresh) {
  const mark = game.cells[i];
  const isNew = fresh ? fresh.has(i) : cell.classList.contains("new") && mark !== "_";
  const classes = ["cell"];
  if (mark !== "_") classes.push(mark);
  if (i === game.last_cell) classes.push("last");
  if (game.winning_cells.includes(i)) classes.push("win");
  if (isNew) classes.push("new");
  if (i === options.hint) classes.push("hint");
  setClass(cell, classes.join(" "));
  const icon = cell.querySelector("svg.mark");
  if (icon && (mark === "_" || !icon.classList.contains(mark))) icon.remove();
  if (mark !== "_" && (!icon || !icon.isConnected)) cell.append(markIcon(mark, true));
  setAttribute(cell, "aria-label", cellLabel(game, i, mark, options.hint));
  // On ultimate a cell is disabled for its mark only: its small board says whether it is in play.
  setDisabled(cell, game.variant === "ultimate" ? mark !== "_" : !open.has(i));
}

function cellButton(i) {
  const cell = document.createElement("button");
  cell.className = "cell";
  cell.dataset.cell = String(i);
  cell.tabIndex = -1;
  return cell;
}

function blockLabel(b, result) {
  if (result === "X" || result === "O") return t("PAGE.block_won", { n: b + 1, mark: symbol(result) });
  if (result === "draw") return t("PAGE.block_drawn", { n: b + 1 });
  return t("PAGE.block_label", { n: b + 1 });
}

// Ultimate's small board `b` as the game has it: lit while in play, its result, its big mark,
// and its cells locked while one may not mark any of them.
function paintBlock(block, game, b, open) {
  const { results, playable } = game.blocks;
  const result = results[b];
  const decided = result === "X" || result === "O" || result === "draw";
  setClass(block, "block" + (playable.includes(b) ? " lit" : "")
    + (result === "X" || result === "O" ? " won " + result : "") + (result === "draw" ? " drawn" : "")
    + ((game.winning_blocks || []).includes(b) ? " win" : ""));
  setAttribute(block, "aria-label", blockLabel(b, result));
  let inPlay = false;
  for (let i = b * 9; i < b * 9 + 9 && !inPlay; i++) inPlay = open.has(i);
  setDisabled(block.querySelector("fieldset"), !inPlay);
  const shape = result === "draw" ? "draw" : result;
  const big = block.querySelector("svg.big");
  if (big && (!decided || !big.classList.contains(shape))) big.remove();
  if (decided && (!big || !big.isConnected)) {
    const icon = markIcon(shape, true);
    icon.classList.add("big");
    // The mark's own box, without the margin a cell's mark keeps: as large as the board.
    icon.setAttribute("viewBox", "10 10 80 80");
    block.append(icon);
  }
}

// The board's elements for `game`'s shape: its cells, or ultimate's nine small boards of nine.
function boardChildren(game) {
  if (game.variant !== "ultimate") return [...game.cells].map((_, i) => cellButton(i));
  const blocks = [];
  for (let b = 0; b < 9; b++) {
    const block = document.createElement("div");
    block.className = "block";
    block.dataset.block = String(b);
    block.setAttribute("role", "group");
    // Locks the small board's cells (as the board's own fieldset does, index.html).
    const turn = document.createElement("fieldset");
    turn.className = "board-turn";
    turn.setAttribute("role", "none");
    for (let i = b * 9; i < b * 9 + 9; i++) turn.append(cellButton(i));
    block.append(turn);
    blocks.push(block);
  }
  return blocks;
}

// Whether the board takes a move now: the fieldset around it (index.html) enabled or not,
// which enables or disables every cell in it at once.
export function lockBoard(board, locked) {
  const turn = board.parentElement.closest("fieldset");
  if (turn) setDisabled(turn, locked);
}

// Draws `game` into `board`. options: before (the cells shown until now), hint (a cell to
// light), busy (nothing clickable), focus (the cell to keep focus on, if the board had it),
// label (the board's accessible name), onCell(cell).
// The cells are made once per shape of board (a size, or ultimate); after that a drawing
// changes only what differs, so a move changes the few cells it touched (and the mark that
// grows into place keeps growing).
export function drawBoard(board, game, options) {
  const ultimate = game.variant === "ultimate";
  const hadFocus = board.contains(document.activeElement);
  const shape = ultimate ? "ultimate" : String(game.size);
  let state = drawn.get(board);
  if (!state) {
    state = { shape: null, onCell: null };
    drawn.set(board, state);
    // One listener for every cell, whichever drawing made it (a disabled one fires none).
    board.addEventListener("click", (event) => {
      const cell = event.target.closest && event.target.closest(".cell");
      if (cell && state.onCell) state.onCell(Number(cell.dataset.cell));
    });
  }
  state.onCell = options.onCell || null;
  board.classList.toggle("ultimate", ultimate);
  board.classList.toggle("big", !ultimate && game.size >= 6);
  board.classList.toggle("yours", game.your_turn && game.status === "active");
  if (board.style.getPropertyValue("--n") !== String(ultimate ? 3 : game.size)) {
    board.style.setProperty("--n", String(ultimate ? 3 : game.size));
  }
  setAttribute(board, "role", "group");
  setTabIndex(board, -1);
  if (options.label) setAttribute(board, "aria-label", options.label);
  if (state.shape !== shape) {
    board.replaceChildren(...boardChildren(game));
    state.shape = shape;
  }
  // The marks new since the position shown (none on a first drawing); the same position
  // drawn again keeps them.
  const before = options.before || "";
  const fresh = before === game.cells ? null : new Set();
  if (fresh && before) {
    for (let i = 0; i < game.cells.length; i++) {
      if (before[i] !== game.cells[i] && game.cells[i] !== "_") fresh.add(i);
    }
  }
  const open = markable(game);
  for (const cell of board.querySelectorAll(".cell")) {
    paintCell(cell, game, Number(cell.dataset.cell), options, open, fresh);
  }
  if (ultimate) {
    for (const block of board.querySelectorAll(".block")) paintBlock(block, game, Number(block.dataset.block), open);
  }
  lockBoard(board, Boolean(options.busy) || !(game.legal || []).length);
  setAttribute(board, "data-ply", String(game.ply));
  setAttribute(board, "data-status", game.status);
  // Whose turn it is, apart from whether the cells are clickable now (not while a move is
  // on its way): what a test, or an assistive tool, waits on.
  setAttribute(board, "data-your-turn", String(game.your_turn));
  drawLines(board, game);
  rove(board, options.focus, hadFocus);
}

// The player's own mark on `cell`, shown before the server's answer (game.js): it grows in
// as the new mark, the one before it no longer new.
export function showMark(board, game, cell, mark) {
  const button = board.querySelector(`.cell[data-cell='${cell}']`);
  if (!button) return;
  for (const other of board.querySelectorAll(".cell.new")) other.classList.remove("new");
  button.classList.add(mark, "new");
  button.append(markIcon(mark, true));
  setAttribute(button, "aria-label", cellLabel(game, cell, mark, null));
}

// One cell in the tab order: the one focused last if one may still mark it, else the
// nearest one may mark. When the board had the focus, it keeps it: on that cell, or on the
// board itself while no cell is clickable (the other's turn).
export function rove(board, near, focus) {
  const target = nearestOpen(board, near);
  for (const cell of board.querySelectorAll(".cell")) setTabIndex(cell, cell === target ? 0 : -1);
  if (!focus) return;
  (target || board).focus({ preventScroll: true });
}

function position(cell) {
  const i = Number(cell.dataset.cell);
  const board = cell.closest(".board");
  if (!board.classList.contains("ultimate")) {
    const n = Number(board.style.getPropertyValue("--n"));
    return [Math.floor(i / n), i % n];
  }
  const block = Math.floor(i / 9), j = i % 9;
  return [Math.floor(block / 3) * 3 + Math.floor(j / 3), (block % 3) * 3 + (j % 3)];
}

function nearestOpen(board, near) {
  const open = [...board.querySelectorAll(".cell:not(:disabled)")];
  if (!open.length) return null;
  const from = board.querySelector(`.cell[data-cell='${near}']`);
  if (!from) return open[0];
  const [r, c] = position(from);
  let best = open[0], distance = Infinity;
  for (const cell of open) {
    const [r2, c2] = position(cell);
    const d = Math.abs(r2 - r) + Math.abs(c2 - c);
    if (d < distance) [best, distance] = [cell, d];
  }
  return best;
}

// The arrow keys: the next cell one may mark in that direction (the board reads left to
// right in every language, as in the chat). And a cell that gets the focus (a tap, a click)
// becomes the one in the tab order. Call once per board element.
export function arrowKeys(board) {
  board.addEventListener("focusin", (event) => {
    const cell = event.target.closest && event.target.closest(".cell");
    if (!cell) return;
    for (const other of board.querySelectorAll(".cell")) setTabIndex(other, other === cell ? 0 : -1);
  });
  board.addEventListener("keydown", (event) => {
    const step = ARROWS[event.key];
    const from = event.target.closest && event.target.closest(".cell");
    if (!step || !from) return;
    event.preventDefault();
    const cells = new Map([...board.querySelectorAll(".cell")].map((c) => [position(c).join(","), c]));
    let [r, c] = position(from);
    for (;;) {
      r += step[0];
      c += step[1];
      const next = cells.get(r + "," + c);
      if (!next) return;
      if (!next.disabled) {
        next.focus();
        return;
      }
    }
  });
}

// A stroke through each winning line, from the centre of its first cell (small board on
// ultimate) to the centre of its last, a little beyond both. Drawn again only when the lines
// or the board's size changed.
export function drawLines(board, game) {
  const old = board.querySelector("svg.lines");
  const box = game.lines.length ? board.getBoundingClientRect() : null;
  const key = box && box.width ? JSON.stringify([game.lines, game.result, box.width, box.height]) : null;
  if (old && old.dataset.key === key) return;
  if (old) old.remove();
  if (!key) return;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "lines");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
  svg.dataset.key = key;
  const selector = game.variant === "ultimate" ? "[data-block='%']" : "[data-cell='%']";
  const centre = (index) => {
    const r = board.querySelector(selector.replace("%", index)).getBoundingClientRect();
    return [r.left - box.left + r.width / 2, r.top - box.top + r.height / 2];
  };
  for (const [a, b] of game.lines) {
    const [x1, y1] = centre(a), [x2, y2] = centre(b);
    const length = Math.hypot(x2 - x1, y2 - y1) || 1;
    const reach = Math.min(box.width / (game.variant === "ultimate" ? 3 : game.size), 60) * 0.35;
    const dx = ((x2 - x1) / length) * reach, dy = ((y2 - y1) / length) * reach;
    const line = document.createElementNS(SVG, "line");
    for (const [key, value] of Object.entries({ x1: x1 - dx, y1: y1 - dy, x2: x2 + dx, y2: y2 + dy })) {
      line.setAttribute(key, String(value));
    }
    line.setAttribute("class", "line " + game.result);
    svg.append(line);
  }
  board.prepend(svg);
}
