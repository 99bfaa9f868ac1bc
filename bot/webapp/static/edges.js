// The board's coordinates on its edges: each column's words across the top, each row's down
// the side, as a typed move names a cell in the chat ("2 3": row 2, column 3; on ultimate
// "r5 c3"); the server gives them (`edges`, core.positions.edge_words). They line up with
// the cells: the same grid as the board's (on ultimate, three groups of three, as its small
// boards). Drawn again only when the board's shape changes; hidden from screen readers, which
// hear each cell's row and column in its own name.
"use strict";

const $ = (id) => document.getElementById(id);

let drawn = ""; // the shape the edges were drawn for

function labels(words, ultimate) {
  const spans = words.map((word) => {
    const span = document.createElement("span");
    span.textContent = word;
    return span;
  });
  if (!ultimate) return spans;
  return [0, 3, 6].map((start) => {
    const group = document.createElement("span");
    group.className = "group";
    group.append(...spans.slice(start, start + 3));
    return group;
  });
}

export function drawEdges(game) {
  const ultimate = game.variant === "ultimate";
  const shape = game.variant + ":" + game.size + ":" + game.edges.columns.join(",");
  if (shape === drawn) return;
  drawn = shape;
  const frame = $("board-frame");
  frame.classList.toggle("ultimate", ultimate);
  frame.classList.toggle("big", !ultimate && game.size >= 6);
  frame.style.setProperty("--n", ultimate ? 3 : game.size);
  $("columns").replaceChildren(...labels(game.edges.columns, ultimate));
  $("rows").replaceChildren(...labels(game.edges.rows, ultimate));
}
