// Drawing a board: a classic grid, or ultimate's nine small boards (cells numbered as the
// server numbers them, small board by small board: block * 9 + i), the last move ringed,
// the winning line stroked through, only the cells the player may mark clickable.
"use strict";

import { t } from "./words.js";

const SVG = "http://www.w3.org/2000/svg";
// Marks are drawn (SVG), not emoji: a phone or a test browser may lack an emoji font.
const SHAPES = {
  X: [["path", { d: "M24 24 L76 76 M76 24 L24 76" }]],
  O: [["circle", { cx: 50, cy: 50, r: 28 }]],
  // Games of three or four: 🔺 and 🟦, as the chat board draws them.
  T: [["path", { d: "M50 22 L80 76 L20 76 Z" }]],
  S: [["rect", { x: 24, y: 24, width: 52, height: 52 }]],
};

export function markIcon(mark) {
  const svg = document.createElementNS(SVG, "svg");
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("class", "mark " + mark);
  svg.setAttribute("aria-hidden", "true");
  for (const [tag, attributes] of SHAPES[mark]) {
    const shape = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) shape.setAttribute(key, value);
    svg.append(shape);
  }
  return svg;
}

// The (row, column) of a cell as the chat numbers them, both from 1.
export function rowCol(game, cell) {
  if (game.variant !== "ultimate") return [Math.floor(cell / game.size) + 1, (cell % game.size) + 1];
  const block = Math.floor(cell / 9), i = cell % 9;
  return [Math.floor(block / 3) * 3 + Math.floor(i / 3) + 1, (block % 3) * 3 + (i % 3) + 1];
}

function cellButton(game, i, options) {
  const mark = game.cells[i];
  const cell = document.createElement("button");
  const classes = ["cell"];
  if (mark !== "_") classes.push(mark);
  if (i === game.last_cell) classes.push("last");
  if (game.winning_cells.includes(i)) classes.push("win");
  if (options.before && options.before[i] !== mark) classes.push("new");
  if (i === options.hint) classes.push("hint");
  cell.className = classes.join(" ");
  if (mark !== "_") cell.append(markIcon(mark));
  cell.dataset.cell = String(i);
  const [row, col] = rowCol(game, i);
  cell.setAttribute("aria-label", t("PAGE.cell_label", { row, col }));
  cell.disabled = options.busy || !game.legal.includes(i);
  cell.addEventListener("click", () => options.onCell(i));
  return cell;
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
    for (let i = b * 9; i < b * 9 + 9; i++) block.append(cellButton(game, i, options));
    if (result === "X" || result === "O") {
      const big = markIcon(result);
      big.classList.add("big");
      block.append(big);
    }
    blocks.push(block);
  }
  return blocks;
}

// Draws `game` into `board`. options: before (the cells shown until now), hint (a cell to
// light), busy (nothing clickable), onCell(cell).
export function drawBoard(board, game, options) {
  const ultimate = game.variant === "ultimate";
  board.classList.toggle("ultimate", ultimate);
  board.style.setProperty("--n", ultimate ? 3 : game.size);
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
  board.append(svg);
}
