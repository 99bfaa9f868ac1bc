// Drawing a board: a classic grid, or ultimate's nine small boards (cells numbered as the
// server numbers them, small board by small board: block * 9 + i), the last move ringed,
// the winning line stroked under the marks, only the cells the player may mark clickable.
// Each cell says what it holds and where (its accessible name); the arrow keys move between
// the cells one may mark (one of them in the tab order at a time).
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

function cellButton(game, i, options) {
  const mark = game.cells[i];
  const cell = document.createElement("button");
  const classes = ["cell"];
  if (mark !== "_") classes.push(mark);
  if (i === game.last_cell) classes.push("last");
  if (game.winning_cells.includes(i)) classes.push("win");
  if (options.before && options.before[i] !== mark && mark !== "_") classes.push("new");
  if (i === options.hint) classes.push("hint");
  cell.className = classes.join(" ");
  if (mark !== "_") cell.append(markIcon(mark, true));
  cell.dataset.cell = String(i);
  cell.tabIndex = -1;
  cell.setAttribute("aria-label", cellLabel(game, i, mark, options.hint));
  cell.disabled = options.busy || !game.legal.includes(i);
  cell.addEventListener("click", () => options.onCell(i));
  return cell;
}

function blockLabel(b, result) {
  if (result === "X" || result === "O") return t("PAGE.block_won", { n: b + 1, mark: symbol(result) });
  if (result === "draw") return t("PAGE.block_drawn", { n: b + 1 });
  return t("PAGE.block_label", { n: b + 1 });
}

function ultimateBlocks(game, options) {
  const { results, playable } = game.blocks;
  const won = new Set(game.winning_blocks || []);
  const blocks = [];
  for (let b = 0; b < 9; b++) {
    const block = document.createElement("div");
    const result = results[b];
    block.className = "block" + (playable.includes(b) ? " lit" : "")
      + (result === "X" || result === "O" ? " won " + result : "") + (result === "draw" ? " drawn" : "")
      + (won.has(b) ? " win" : "");
    block.dataset.block = String(b);
    block.setAttribute("role", "group");
    block.setAttribute("aria-label", blockLabel(b, result));
    for (let i = b * 9; i < b * 9 + 9; i++) block.append(cellButton(game, i, options));
    if (result === "X" || result === "O" || result === "draw") {
      const big = markIcon(result === "draw" ? "draw" : result, true);
      big.classList.add("big");
      // The mark's own box, without the margin a cell's mark keeps: as large as the board.
      big.setAttribute("viewBox", "10 10 80 80");
      block.append(big);
    }
    blocks.push(block);
  }
  return blocks;
}

// Draws `game` into `board`. options: before (the cells shown until now), hint (a cell to
// light), busy (nothing clickable), focus (the cell to keep focus on, if the board had it),
// label (the board's accessible name), onCell(cell).
export function drawBoard(board, game, options) {
  const ultimate = game.variant === "ultimate";
  const hadFocus = board.contains(document.activeElement);
  board.classList.toggle("ultimate", ultimate);
  board.classList.toggle("big", !ultimate && game.size >= 6);
  board.classList.toggle("yours", game.your_turn && game.status === "active");
  board.style.setProperty("--n", ultimate ? 3 : game.size);
  board.setAttribute("role", "group");
  board.tabIndex = -1;
  if (options.label) board.setAttribute("aria-label", options.label);
  const children = ultimate
    ? ultimateBlocks(game, options)
    : [...game.cells].map((_, i) => cellButton(game, i, options));
  board.replaceChildren(...children);
  board.dataset.ply = String(game.ply);
  board.dataset.status = game.status;
  // Whose turn it is, apart from whether the cells are clickable now (not while a move is
  // on its way): what a test, or an assistive tool, waits on.
  board.dataset.yourTurn = String(game.your_turn);
  drawLines(board, game);
  rove(board, options.focus, hadFocus);
}

// One cell in the tab order: the one focused last if one may still mark it, else the
// nearest one may mark. When the board had the focus, it keeps it: on that cell, or on the
// board itself while no cell is clickable (the other's turn).
export function rove(board, near, focus) {
  const cells = [...board.querySelectorAll(".cell")];
  for (const cell of cells) cell.tabIndex = -1;
  const target = nearestOpen(board, near);
  if (target) target.tabIndex = 0;
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
    for (const other of board.querySelectorAll(".cell")) other.tabIndex = other === cell ? 0 : -1;
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
// ultimate) to the centre of its last, a little beyond both.
export function drawLines(board, game) {
  const old = board.querySelector("svg.lines");
  if (old) old.remove();
  if (!game.lines.length) return;
  const box = board.getBoundingClientRect();
  if (!box.width) return;
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("class", "lines");
  svg.setAttribute("aria-hidden", "true");
  svg.setAttribute("viewBox", `0 0 ${box.width} ${box.height}`);
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
